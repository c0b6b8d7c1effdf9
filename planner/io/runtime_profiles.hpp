// The shipped runtime profiles (scenarios/runtimes/*.yaml, compiled in): each profile's numbers by name, and
// its description and sources for `inspect` and the docs.
#pragma once

#include <string>

#include "planner/core/runtime_profile.hpp"

namespace shardscope {

// The profile's numbers, read from its file (the files are checked by the tests; a bad one is an InputError
// naming it).
RuntimeProfile runtime_profile(RuntimeName name);
// The file's `source` text: where each of its numbers comes from.
std::string runtime_profile_source(RuntimeName name);

}  // namespace shardscope
