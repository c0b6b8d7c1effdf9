// ExitStatus: maps the errors commands throw to exit codes and messages, and lists the codes for --help.
#include "apps/shardscope/exit_status.hpp"

#include <algorithm>
#include <new>

#include "planner/core/error.hpp"
#include "planner/core/printable.hpp"

namespace shardscope::cli {
namespace {

// Out of memory: a failed allocation, or a container asked to grow past what the machine can address.
bool out_of_memory(const std::exception& error) {
  return dynamic_cast<const std::bad_alloc*>(&error) != nullptr ||
         dynamic_cast<const std::length_error*>(&error) != nullptr;
}

bool expected(const std::exception& error) {
  return dynamic_cast<const InputError*>(&error) != nullptr ||
         dynamic_cast<const NothingFits*>(&error) != nullptr ||
         dynamic_cast<const PlanDoesNotFit*>(&error) != nullptr ||
         dynamic_cast<const Interrupted*>(&error) != nullptr ||
         dynamic_cast<const OutputError*>(&error) != nullptr ||
         dynamic_cast<const SimulatorUnavailable*>(&error) != nullptr ||
         dynamic_cast<const PointsFailed*>(&error) != nullptr;
}

}  // namespace

ExitStatus exit_status_for(const std::exception& error) {
  if (dynamic_cast<const InputError*>(&error) != nullptr) return ExitStatus::bad_input;
  if (dynamic_cast<const NothingFits*>(&error) != nullptr) return ExitStatus::nothing_fits;
  if (dynamic_cast<const PlanDoesNotFit*>(&error) != nullptr) return ExitStatus::nothing_fits;
  if (dynamic_cast<const Interrupted*>(&error) != nullptr) return ExitStatus::interrupted;
  return ExitStatus::failed;  // SimulationError, OutputError, PointsFailed, out of memory, anything
                              // unexpected
}

std::string failure_message(const std::exception& error) {
  if (expected(error)) return error.what();
  if (out_of_memory(error)) return out_of_memory_message();
  return std::string("internal error: ") + error.what() +
         " (please report this with the command and its input)";
}

const char* out_of_memory_message() {
  return "out of memory: the computation needed more memory than this process may use (see `ulimit -v` and "
         "the machine's free memory); try a smaller model, cluster or max_micro_batch";
}

std::string exit_status_help() {
  std::string out = "Exit status:";
  for (const auto& e : name_table<ExitStatus>()) {
    out += "\n  " + std::to_string(to_int(e.value)) + "  " + e.description;
  }
  return out;
}

std::string terminal_text(std::string_view text) {
  std::string out;
  for (std::size_t start = 0; start <= text.size();) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    out += escape_unprintable(text.substr(start, end - start));
    if (end < text.size()) out += '\n';
    start = end + 1;
  }
  return out;
}

}  // namespace shardscope::cli
