// The `shardscope simulate` child's command line for a SimulationJob, and its messages read back.
#include "exchange/child_protocol.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "exchange/trace_ranks.hpp"
#include "planner/core/units.hpp"

namespace shardscope::sim {
namespace {

// Refuses options that the command line cannot carry exactly.
void check_options(const IterationOptions& o) {
  if (o.prefetch_depth < 0) {
    throw InputError("simulation job", 0, "options.prefetch_depth",
                     "expected 0 or more, got " + std::to_string(o.prefetch_depth));
  }
  if (const std::optional<std::string> error = trace_ranks_syntax_error(o.trace_ranks))
    throw InputError("simulation job", 0, "options.trace_ranks", *error);
  if (o.coarse_above < 0) throw InputError("simulation job", 0, "options.coarse_above", "expected 0 or more");
  if (!(o.bucket_bytes >= 0 && o.bucket_bytes <= 4.6e18) || o.bucket_bytes != std::floor(o.bucket_bytes)) {
    throw InputError("simulation job", 0, "options.bucket_bytes",
                     "expected a whole number of bytes, got " + units::format_general(o.bucket_bytes));
  }
  const IterationOptions defaults;
  const char* in_process_only =
      o.max_activities != defaults.max_activities                       ? "options.max_activities"
      : o.steady_state_proof_steps != defaults.steady_state_proof_steps ? "options.steady_state_proof_steps"
      : o.merge_nccl_channels != defaults.merge_nccl_channels           ? "options.merge_nccl_channels"
                                                                        : nullptr;
  if (in_process_only != nullptr) {
    throw InputError("simulation job", 0, in_process_only,
                     "a child simulation runs with the default (the command line does not carry it)");
  }
}

}  // namespace

std::vector<std::string> simulate_child_arguments(const std::string& binary, const SimulationJob& job,
                                                  const std::string& plan_path,
                                                  const std::string& result_path) {
  const IterationOptions& o = job.options;
  check_options(o);
  std::vector<std::string> args = {binary,
                                   "simulate",
                                   job.scenario_file,
                                   "--plan",
                                   plan_path,
                                   "--result-json",
                                   result_path,
                                   "--prefetch",
                                   std::to_string(o.prefetch_depth),
                                   "--trace-ranks",
                                   o.trace_ranks,
                                   "--coarse-above",
                                   std::to_string(o.coarse_above)};
  args.emplace_back(o.overlap ? "--overlap" : "--serial");  // explicit: the scenario may say otherwise
  // The plan's own collectives, whatever the scenario file says (plan --collectives may have overridden it).
  args.emplace_back("--collectives");
  args.emplace_back(to_string(job.plan.collectives));
  if (!o.steady_state) args.emplace_back("--every-step");
  if (o.bucket_bytes > 0) {
    args.emplace_back("--bucket");
    args.push_back(std::to_string(static_cast<std::int64_t>(o.bucket_bytes)));
  }
  if (!job.calibration_file.empty()) {
    args.emplace_back("--calibration");
    args.push_back(job.calibration_file);
  }
  return args;
}

std::string child_error_message(const std::string& stderr_text) {
  std::string message = stderr_text;
  while (!message.empty() && std::isspace(static_cast<unsigned char>(message.back()))) message.pop_back();
  if (message.rfind("error: ", 0) == 0) message.erase(0, 7);
  return message;
}

InputError child_input_error(const std::string& message, const SimulationJob& job,
                             const std::string& plan_path) {
  const std::size_t colon = message.find(": ");
  if (colon == std::string::npos) return InputError(job.scenario_file, 0, "", message);
  std::string file = message.substr(0, colon);
  int line = 0;
  const std::size_t last = file.rfind(':');
  if (last != std::string::npos && last + 1 < file.size() &&
      std::all_of(file.begin() + static_cast<std::ptrdiff_t>(last) + 1, file.end(),
                  [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; })) {
    line = std::stoi(file.substr(last + 1));
    file.resize(last);
  }
  if (file == plan_path) file = "plan '" + job.plan.strategy + "'";
  return InputError(file, line, "", message.substr(colon + 2));
}

}  // namespace shardscope::sim
