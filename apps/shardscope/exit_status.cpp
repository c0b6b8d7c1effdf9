// ExitStatus: maps the errors commands throw to exit codes, and lists the codes for --help.
#include "apps/shardscope/exit_status.hpp"

#include "planner/core/error.hpp"
#ifdef SHARDSCOPE_HAVE_SIM
#include "sim/simulation_error.hpp"
#endif

namespace shardscope::cli {

ExitStatus exit_status_for(const std::exception& error) {
  if (dynamic_cast<const InputError*>(&error) != nullptr) return ExitStatus::bad_input;
  if (dynamic_cast<const NothingFits*>(&error) != nullptr) return ExitStatus::nothing_fits;
  if (dynamic_cast<const PlanDoesNotFit*>(&error) != nullptr) return ExitStatus::nothing_fits;
  if (dynamic_cast<const Interrupted*>(&error) != nullptr) return ExitStatus::interrupted;
#ifdef SHARDSCOPE_HAVE_SIM
  if (dynamic_cast<const sim::SimulationError*>(&error) != nullptr) return ExitStatus::simulation_failed;
#endif
  return ExitStatus::failure;
}

std::string exit_status_help() {
  std::string out = "Exit status:";
  for (const auto& e : name_table<ExitStatus>()) {
    out += "\n  " + std::to_string(to_int(e.value)) + "  " + e.description;
  }
  return out;
}

}  // namespace shardscope::cli
