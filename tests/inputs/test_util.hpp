// Helpers for input tests: the source directory, and expectations that an InputError names file, line,
// field, or a UsageError its option.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "planner/core/error.hpp"

namespace shardscope::test {

inline std::string source_dir() { return SHARDSCOPE_SOURCE_DIR; }

// Runs `body`, expects an InputError and checks its file, line (0 = don't care unless exact) and field,
// and that its message contains `needle`.
inline void expect_input_error(const std::function<void()>& body, const std::string& file, int line,
                               const std::string& field, const std::string& needle) {
  try {
    body();
    ADD_FAILURE() << "expected an InputError mentioning '" << needle << "'";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), file) << e.what();
    if (line >= 0) {
      EXPECT_EQ(e.line(), line) << e.what();
    }
    EXPECT_EQ(e.field(), field) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

// Runs `body`, expects a UsageError naming `option` (as given, e.g. "--set cluster.nodes=four") whose text
// contains `needle`, with no file in it.
inline void expect_usage_error(const std::function<void()>& body, const std::string& option,
                               const std::string& needle) {
  try {
    body();
    ADD_FAILURE() << "expected a UsageError mentioning '" << needle << "'";
  } catch (const UsageError& e) {
    EXPECT_EQ(e.option(), option) << e.what();
    EXPECT_EQ(e.file(), "") << e.what();
    EXPECT_EQ(std::string(e.what()).rfind(option + ": ", 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

}  // namespace shardscope::test
