// The CLI's process-level guards: standard descriptors kept occupied, the command's output written to
// standard output in full and checked, and aborts and oversized files turned into documented exits.
#pragma once

#include <string_view>

namespace shardscope::cli {

// Puts /dev/null on each closed standard descriptor (0, 1, 2), so that no file the command opens takes
// its number (a scenario read as "stdin", a plan file receiving the printed report). Returns false when
// standard output was closed (`>&-`): its /dev/null is opened read-only, so any write to it still fails.
bool guard_standard_descriptors();

// What a command says, before any work, when guard_standard_descriptors() found standard output closed.
inline constexpr std::string_view kStandardOutputClosed =
    "error: standard output is closed (`>&-`); nothing would be shown: redirect it to a file or to /dev/null "
    "instead\n";

// Writes `text` to standard output (descriptor 1) in full and closes it, so an error that only shows on
// close is seen too. Throws OutputError "cannot write standard output: reason" (exit 4).
void write_standard_output(std::string_view text);

// An abort (SimGrid's fatal errors, such as actor stacks it cannot allocate, a failed assertion) prints
// "error: " + the current explanation and exits 4 instead of dying with 134; an uncaught exception does
// the same with its own message ("out of memory: ..."); a file past `ulimit -f` makes its write fail
// (reported with the path) instead of killing the process. main.cpp installs these before any library
// starts up (ELF .preinit_array), so running out of memory that early is covered too.
void install_signal_guards();

// The explanation an abort prints from now on; `text` must live until the process ends (a literal).
void set_abort_explanation(const char* text);

// The explanation while SimGrid runs: its fatal errors end in an abort, most often for actor stacks.
inline constexpr const char* kSimulatorAborted =
    "the simulator stopped on a fatal error (its message is above): most often SimGrid could not allocate "
    "the stacks of its actors because memory or address space ran out (see `ulimit -v`); simulate fewer "
    "GPUs or raise the limit";

}  // namespace shardscope::cli
