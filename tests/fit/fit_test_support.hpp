// Helpers the validate/fit tests share: a recorded JSON file read whole, and the "field: message" of the
// InputError a call throws.
#pragma once

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "planner/core/error.hpp"

namespace shardscope::fit::test {

inline nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

// "field: message" of the InputError `f` throws, or "no error".
template <typename F>
std::string error_of(F f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.field() + ": " + e.what();
  }
  return "no error";
}

}  // namespace shardscope::fit::test
