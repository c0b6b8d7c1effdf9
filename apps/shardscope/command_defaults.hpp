// The defaults of the commands' options that are no scenario field, in one place: the options start from
// them and their --help says them (tests/cli/help_defaults_test.cpp checks that it does).
#pragma once

namespace shardscope::cli {

// plan --refine-timeout: a 96-layer model on 1024 GPUs simulates in about 21 s on two cores (docs/cli.md,
// "simulate").
inline constexpr double kDefaultRefineTimeoutSeconds = 600;

// compare --sim-timeout: seconds each measured plan's simulation may take.
inline constexpr double kDefaultCompareSimTimeoutSeconds = 600;

}  // namespace shardscope::cli
