// nccl-tests' text output (all_reduce_perf, all_gather_perf, reduce_scatter_perf) read as measurements:
// each row's out-of-place and in-place times become collective samples over every rank of the run, the
// ranks and nodes from the "#  Rank N ... on HOST device" lines. `shardscope calibrate --nccl-tests` fits
// the link classes they cover; `shardscope collective --sweep` prints the same table.
#pragma once

#include <string>

#include "validate/measurements/measurements.hpp"

namespace shardscope::fit {

// Parses one log (several tests in one file are read one after the other: each "# Using devices" block
// starts a test). Throws InputError (file:line: field: what was expected) for a log without rank lines or
// rows, a row of the wrong shape, a time that is not positive, an element type or test it does not know,
// or sizes whose count does not match the collective.
Measurements parse_nccl_tests_log(const std::string& text, const std::string& file);
Measurements load_nccl_tests_log(const std::string& path);

// The byte size of one element of nccl-tests' type name ("float", "half", "bfloat16", "int8", ...); 0 for
// a name it does not print.
double nccl_tests_type_bytes(const std::string& type);

}  // namespace shardscope::fit
