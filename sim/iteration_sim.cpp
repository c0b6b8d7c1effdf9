// Simulated training iteration: the program on the platform through the executor, checked for size first.
#include "sim/iteration_sim.hpp"

#include <algorithm>
#include <functional>
#include <optional>
#include <simgrid/Exception.hpp>
#include <simgrid/s4u.hpp>
#include <stdexcept>
#include <string>

#include "exchange/trace_ranks.hpp"
#include "planner/core/error.hpp"
#include "planner/cost/collective_cost.hpp"
#include "planner/program/program_size.hpp"
#include "sim/collectives/schedule.hpp"
#include "sim/engine.hpp"
#include "sim/internal/iteration_accounting.hpp"
#include "sim/internal/iteration_executor.hpp"
#include "sim/internal/iteration_rings.hpp"
#include "sim/platform.hpp"
#include "sim/resources.hpp"
#include "sim/simulation_error.hpp"

namespace sg4 = simgrid::s4u;

namespace shardscope::sim {
namespace {

// Runs `body`, translating SimGrid's exceptions into SimulationError.
double translate_simgrid_errors(const std::function<double()>& body) {
  try {
    return body();
  } catch (const simgrid::Exception& e) {
    throw SimulationError(std::string("SimGrid: ") + e.what());
  }
}

}  // namespace

void check_iteration_size(const Scenario& scenario, const IterationOptions& options) {
  const std::int64_t gpus = scenario.cluster.gpus();
  const TrainingConfig& t = scenario.training;
  std::int64_t micro_steps = std::max(1, t.gradient_accumulation_steps);
  if (t.global_batch > 0) {
    const std::int64_t largest =
        std::max<std::int64_t>(1, t.micro_batch > 0 ? t.micro_batch : t.max_micro_batch);
    micro_steps = std::max<std::int64_t>(1, t.global_batch / (largest * std::max<std::int64_t>(1, gpus)));
  }
  const auto operators = static_cast<std::int64_t>(scenario.model.operators.size());
  const auto activities = [&](std::int64_t steps) { return 2 * operators * steps * gpus; };
  if (options.steady_state && options.steady_state_proof_steps > 0 && micro_steps > kSteadyStateAboveSteps &&
      activities(micro_steps) > options.max_activities) {
    micro_steps = std::min<std::int64_t>(micro_steps, options.steady_state_proof_steps);
  }
  check_simulation_size({"the iteration", gpus, 0, activities(micro_steps)}, options.max_activities);
}

IterationResult simulate_iteration(const ValidScenario& scenario, const Calibration& calibration,
                                   const Plan& plan, const IterationOptions& options,
                                   SimulationObserver* observer) {
  const int gpus = scenario.cluster.gpus();
  const int group_size = scenario.training.group_size;
  check_simulation_size({"the iteration", gpus, 0, 0});
  const IterationProgram program =
      build_iteration_program(scenario, calibration, plan,
                              ProgramOptions{options.prefetch_depth, !options.overlap, options.bucket_bytes});
  const CollectiveCost cost(scenario.cluster, group_size, calibration,
                            plan_collectives(scenario.execution, plan));
  const bool nccl_model = cost.model() == CollectiveModel::nccl;
  NcclFamilies nccl = nccl_families(program, cost, options.merge_nccl_channels);
  ExchangeFamilies exchanges = exchange_families(program, gpus, options.coarse_above);
  const ProgramSize program_size(program, cost, gpus, options.coarse_above);
  const auto size_at = [&](int micro_steps) {
    return SimulationSize{"the iteration", gpus, 0, program_size.activities(micro_steps)};
  };
  SimulationSize size = size_at(program.micro_steps);
  const std::int64_t every_step_activities = size.activities;
  int unproven_step_limit = program.micro_steps;
  if (options.steady_state && options.steady_state_proof_steps > 0 &&
      program.micro_steps > kSteadyStateAboveSteps && size.activities > options.max_activities) {
    unproven_step_limit = std::min(program.micro_steps, std::max(1, options.steady_state_proof_steps));
    size = size_at(unproven_step_limit);
  }
  check_simulation_size(size, options.max_activities);
  const RingContext rings{
      cost,       calibration, gpus, group_size, options.coarse_above, nccl_model ? &nccl : nullptr,
      &exchanges, {}};

  IterationLog log;
  try {
    log.traced_ranks = traced_ranks(options.trace_ranks, gpus, scenario.cluster.gpus_per_node);
  } catch (const std::invalid_argument& e) {
    throw InputError("simulation options", 0, "options.trace_ranks", e.what());
  }
  std::optional<Platform> platform;
  std::optional<IterationExecutor> executor;
  const double iteration_seconds = translate_simgrid_errors([&] {
    sg4::Engine& engine = create_engine();
    std::vector<std::pair<int, int>> pairs = routed_pairs(program, gpus, group_size, nccl, nccl_model);
    const std::vector<std::pair<int, int>> exchanged = exchange_pairs(exchanges);
    pairs.insert(pairs.end(), exchanged.begin(), exchanged.end());
    std::sort(pairs.begin(), pairs.end());
    pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
    platform.emplace(scenario.cluster, calibration, pairs);
    for (auto& [key, family] : nccl) fit_nccl_flows(family.flows, family.estimate, *platform);
    fit_exchange_families(exchanges, *platform);
    executor.emplace(program, rings, *platform, log, options.steady_state, unproven_step_limit, observer);
    sg4::Activity::on_completion_cb([&executor](const sg4::Activity& a) { executor->on_completion(a); });
    executor->start();
    try {
      return run_to_completion(engine, log.finished_streams, 2 * static_cast<std::int64_t>(gpus),
                               "the iteration");
    } catch (const SimulationError&) {
      if (executor->gave_up()) {
        throw SimulationError(
            "the iteration's " + std::to_string(program.micro_steps) +
            " micro-steps did not repeat (no steady state) within the first " +
            std::to_string(unproven_step_limit) + ", and simulating every one needs about " +
            std::to_string(every_step_activities) + " simulated activities; the simulator runs at most " +
            std::to_string(options.max_activities) + ": use fewer accumulation steps");
      }
      if (executor->cancelled()) throw SimulationCancelled();  // the streams stopped on purpose
      throw;
    }
  });
  const int skipped = executor->skipped_steps();
  log.messages += skipped * program_size.step_messages();
  const double total_seconds = iteration_seconds + skipped * executor->step_period_seconds();
  IterationResult result = assemble_result(program, total_seconds, *executor, gpus, std::move(log));
  result.steady_state_micro_steps = skipped;
  result.links = link_usage(program, *platform, gpus, group_size, nccl, exchanges, total_seconds);
  if (observer != nullptr) observer->progress(total_seconds, result.activities);
  return result;
}

}  // namespace shardscope::sim
