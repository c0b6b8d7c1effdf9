// without_sanitizer_noise: drops the warning ASan prints when SimGrid switches actor stacks, so the ASan
// preset compares a command's stderr like the other presets (the warning is about ASan, not the tool).
#pragma once

#include <string>

namespace shardscope::test {

// Removes every "==PID==WARNING: ASan is ignoring requested __asan_handle_no_return" block (the warning
// line and the two lines ASan adds after it).
inline std::string without_sanitizer_noise(std::string text) {
  const std::string marker = "WARNING: ASan is ignoring requested __asan_handle_no_return";
  for (std::size_t at = text.find(marker); at != std::string::npos; at = text.find(marker)) {
    const std::size_t start = text.rfind('\n', at) == std::string::npos ? 0 : text.rfind('\n', at) + 1;
    std::size_t end = start;
    for (int line = 0; line < 3 && end != std::string::npos; ++line) {
      end = text.find('\n', end);
      if (end != std::string::npos) ++end;
    }
    text.erase(start, end == std::string::npos ? std::string::npos : end - start);
  }
  return text;
}

}  // namespace shardscope::test
