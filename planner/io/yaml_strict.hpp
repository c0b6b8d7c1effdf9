// Strict YAML: one document per file and no key given twice in a mapping (yaml-cpp accepts both silently).
#pragma once

#include <string>

namespace shardscope {

// Throws InputError "FILE:LINE: a.b: duplicate key (first given at line N)" for a key repeated in one
// mapping, and "FILE:LINE: a second YAML document starts here; ..." for a second `---` document. Reads the
// parser's events, not the node tree, so anchors and aliases (even cyclic ones) are not followed.
// Malformed YAML is an InputError too.
void check_strict_yaml(const std::string& text, const std::string& file);

}  // namespace shardscope
