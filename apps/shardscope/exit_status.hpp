// ExitStatus: the process exit codes of `shardscope`, the errors that select them, and the one place
// (exit_status_for) that maps an exception to its code.
#pragma once

#include <exception>
#include <stdexcept>
#include <string>

#include "planner/core/names.hpp"

namespace shardscope::cli {

enum class ExitStatus {
  ok = 0,
  failure = 1,
  bad_input = 2,
  nothing_fits = 3,
  simulation_failed = 4,
  interrupted = 130  // the shell's 128 + SIGINT
};

// Thrown by a command when no plan (or not the requested strategy) fits the memory limit; exits 3.
class NothingFits : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Thrown by a command that stopped on Ctrl-C (after cleaning up what it wrote); exits 130.
class Interrupted : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The code for an error a command threw: InputError 2, NothingFits and PlanDoesNotFit 3, SimulationError 4,
// anything else 1.
ExitStatus exit_status_for(const std::exception& error);

// The exit-code list for `shardscope --help` ("Exit status:\n  0  ...").
std::string exit_status_help();

inline int to_int(ExitStatus status) { return static_cast<int>(status); }

}  // namespace shardscope::cli

template <>
struct shardscope::EnumNames<shardscope::cli::ExitStatus> {
  using S = shardscope::cli::ExitStatus;
  static constexpr NameEntry<S> table[] = {
      {S::ok, "ok", "success"},
      {S::failure, "failure", "an output file cannot be written, or an unexpected error"},
      {S::bad_input, "bad-input", "bad input: a scenario, plan, cluster or calibration file, or an option"},
      {S::nothing_fits, "nothing-fits", "no plan (or not the requested strategy) fits the memory limit"},
      {S::simulation_failed, "simulation-failed", "the simulation failed"},
      {S::interrupted, "interrupted", "interrupted by Ctrl-C; nothing was written"},
  };
};
