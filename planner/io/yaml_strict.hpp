// Strict YAML: one document per file, no key given twice in a mapping (yaml-cpp accepts both silently), and
// at most kMaxInputNodes nodes.
#pragma once

#include <string>

namespace shardscope {

// Throws InputError "FILE:LINE: a.b: duplicate key (first given at line N)" for a key repeated in one
// mapping, "FILE:LINE: a second YAML document starts here; ..." for a second `---` document and
// "FILE:LINE: FIELD: more than N YAML nodes ..." at the node past the limit. Reads the
// parser's events, not the node tree, so anchors and aliases (even cyclic ones) are not followed.
// Malformed YAML is an InputError too.
void check_strict_yaml(const std::string& text, const std::string& file);

}  // namespace shardscope
