// One number as text through a printf pattern ("%.3f"), for the fit report and the comparison tables.
#pragma once

#include <cstdio>
#include <string>

namespace shardscope::fit {

inline std::string number_text(const char* pattern, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, pattern, value);
  return buffer;
}

}  // namespace shardscope::fit
