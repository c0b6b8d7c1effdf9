// Printable text: the one rule for names (no control characters, valid UTF-8) and escaping for echoed input.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace shardscope {

// Why `text` cannot be a name shown on a terminal, or nullopt when it can: a name is valid UTF-8 without
// control characters (C0 U+0000-U+001F, DEL U+007F, C1 U+0080-U+009F). E.g. "contains the control
// character \x1b at byte 3".
std::optional<std::string> unprintable_reason(std::string_view text);

// `text` with every control character and every byte of invalid UTF-8 written as \xNN (lower-case hex);
// printable text, valid multi-byte UTF-8 included, is returned unchanged.
std::string escape_unprintable(std::string_view text);

// `text` as a double-quoted literal that YAML and Python read back unchanged: quotes, backslashes and line
// breaks escaped with a backslash ("a \"b\"\n").
std::string double_quoted(std::string_view text);

}  // namespace shardscope
