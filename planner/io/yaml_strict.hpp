// Strict YAML: one document per file, keys that are plain names given once per mapping, bounded nesting,
// at most kMaxInputNodes nodes.
#pragma once

#include <string>

namespace shardscope {

// Throws InputError "FILE:LINE: a.b: duplicate key (first given at line N)" for a key repeated in one
// mapping, "FILE:LINE: a second YAML document starts here; ..." for a second `---` document, "FILE:LINE: a.b:
// expected a key that is a plain name ..." for a key that is a list, a mapping, an alias, null or empty,
// "FILE:LINE: nesting too deep: more than 64 levels ..." past kMaxNestingDepth and "FILE:LINE: FIELD: more
// than N YAML nodes ..." at the node past the limit. Reads the
// parser's events, not the node tree, so anchors and aliases (even cyclic ones) are not followed.
// Malformed YAML is an InputError too.
void check_strict_yaml(const std::string& text, const std::string& file);

}  // namespace shardscope
