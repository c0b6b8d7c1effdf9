// ExitStatus: the process exit codes of `shardscope`, the errors that select them, and the one place
// (exit_status_for / failure_message) that maps an exception to its code and its message.
#pragma once

#include <exception>
#include <stdexcept>
#include <string>
#include <string_view>

#include "planner/core/names.hpp"

namespace shardscope::cli {

enum class ExitStatus {
  ok = 0,
  bad_input = 2,
  nothing_fits = 3,
  failed = 4,        // the simulation or a resource failed (memory, an output), or an internal error
  interrupted = 130  // the shell's 128 + SIGINT
};

// Thrown by a command when no plan (or not the requested strategy, or not the given plan) fits the memory
// limit; exits 3.
class NothingFits : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Thrown by a command that stopped on Ctrl-C (after cleaning up what it wrote); exits 130.
class Interrupted : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An output (a file, standard output) that failed while being written, after the work was done; exits 4.
// The message names the output and the system's reason (strerror).
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// shardscope-sim, which runs the simulator's commands, could not be started (missing beside `shardscope`, not
// executable); exits 4. The message names the path and the system's reason.
class SimulatorUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A sweep that ran to its end with some points in error rows (a crash, a timeout, bad input for that point);
// exits 4 after every row is written.
class PointsFailed : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The code for an error a command threw: InputError 2, NothingFits and PlanDoesNotFit 3, Interrupted 130, and
// 4 for everything else: SimulationError, SimulatorUnavailable, OutputError, out of memory, and any
// unexpected error.
ExitStatus exit_status_for(const std::exception& error);

// The line main() prints for `error` (without "error: "): its own text for the project's errors, a plain
// explanation for out of memory, and "internal error: ..." for an exception nobody expected.
std::string failure_message(const std::exception& error);

// An error message for the terminal: input it quotes (a key, a value, a path) keeps no control character or
// invalid UTF-8 (written \xNN, docs/scenarios.md "Bad input"); its line breaks stay. Both executables print
// through it.
std::string terminal_text(std::string_view text);

// The message for out of memory (a literal: the terminate handler prints it without allocating).
const char* out_of_memory_message();

// The exit-code list for `shardscope --help` and every subcommand's help ("Exit status:\n  0  ...").
std::string exit_status_help();

inline int to_int(ExitStatus status) { return static_cast<int>(status); }

}  // namespace shardscope::cli

template <>
struct shardscope::EnumNames<shardscope::cli::ExitStatus> {
  using S = shardscope::cli::ExitStatus;
  static constexpr NameEntry<S> table[] = {
      {S::ok, "ok", "success"},
      {S::bad_input, "bad-input",
       "bad input or usage: a scenario, plan, cluster or calibration file, an option or argument, or an "
       "output path that cannot be written (checked before any work)"},
      {S::nothing_fits, "nothing-fits",
       "no plan (or not the requested strategy, or not the given plan) fits the memory limit, or none "
       "reaches --target-tokens-per-second"},
      {S::failed, "failed",
       "the simulation or a resource failed: out of memory, an output that could not be written (disk "
       "full), or an internal error"},
      {S::interrupted, "interrupted",
       "interrupted by Ctrl-C, SIGTERM or SIGHUP; nothing was written (a sweep keeps its rows)"},
  };
};
