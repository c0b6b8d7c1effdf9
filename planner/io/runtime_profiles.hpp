// The shipped runtime profiles (scenarios/runtimes/*.yaml, compiled in): each profile's numbers by name, and
// its description and sources for `inspect` and the docs.
#pragma once

#include <string>

#include "planner/core/runtime_profile.hpp"

namespace shardscope {

// The profile's numbers, read from its file (the files are checked by the tests; a bad one is an InputError
// naming it).
RuntimeProfile runtime_profile(RuntimeName name);
// A profile file's text (`file` names it in errors), which must be profile `name`'s: an InputError with the
// file, line and field for anything else.
RuntimeProfile parse_runtime_profile(const std::string& text, const std::string& file, RuntimeName name);
// The file's `source` text: where each of its numbers comes from.
std::string runtime_profile_source(RuntimeName name);

}  // namespace shardscope
