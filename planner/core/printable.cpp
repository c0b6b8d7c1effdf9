// Printable text: UTF-8 decoding that finds control characters and invalid bytes, and \xNN escaping.
#include "planner/core/printable.hpp"

#include <cstdint>

namespace shardscope {
namespace {

// The length of the valid UTF-8 sequence at text[i] that encodes a printable character, or 0 when the byte
// at i is a control character or does not start a valid sequence (overlong, surrogate, beyond U+10FFFF,
// truncated).
std::size_t printable_length(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<std::uint8_t>(text[k]); };
  const std::uint8_t lead = byte(i);
  if (lead < 0x20 || lead == 0x7f) return 0;
  if (lead < 0x80) return 1;
  std::size_t length = 0;
  std::uint32_t code = 0;
  if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2;
    code = lead & 0x1fu;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    code = lead & 0x0fu;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    code = lead & 0x07u;
  } else {
    return 0;  // a continuation byte, 0xc0/0xc1 (overlong) or 0xf5-0xff
  }
  if (i + length > text.size()) return 0;
  for (std::size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xc0u) != 0x80u) return 0;
    code = (code << 6) | (byte(i + k) & 0x3fu);
  }
  const std::uint32_t smallest[] = {0, 0, 0x80, 0x800, 0x10000};
  if (code < smallest[length] || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return 0;
  if (code >= 0x80 && code <= 0x9f) return 0;  // C1 controls (e.g. U+009B, the 8-bit CSI)
  return length;
}

std::string hex_byte(std::uint8_t b) {
  constexpr char digits[] = "0123456789abcdef";
  return std::string("\\x") + digits[b >> 4] + digits[b & 0xf];
}

}  // namespace

std::optional<std::string> unprintable_reason(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t length = printable_length(text, i);
    if (length > 0) {
      i += length;
      continue;
    }
    const auto b = static_cast<std::uint8_t>(text[i]);
    const std::string at = " at byte " + std::to_string(i + 1);
    if (b < 0x20 || b == 0x7f) return "contains the control character " + hex_byte(b) + at;
    if (b == 0xc2 && i + 1 < text.size()) {
      const auto next = static_cast<std::uint8_t>(text[i + 1]);
      if (next >= 0x80 && next <= 0x9f)
        return "contains the control character " + hex_byte(b) + hex_byte(next) + at;
    }
    return "is not valid UTF-8 (byte " + hex_byte(b) + at + ")";
  }
  return std::nullopt;
}

std::string escape_unprintable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t length = printable_length(text, i);
    if (length > 0) {
      out.append(text.substr(i, length));
      i += length;
    } else {
      out += hex_byte(static_cast<std::uint8_t>(text[i]));
      ++i;
    }
  }
  return out;
}

std::string double_quoted(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

}  // namespace shardscope
