// Simulated iterations: serial mode adds up exactly like the planner, memory peaks agree, overlap helps,
// contention shows where the planner is optimistic, and bad plans are clear errors.
#include "sim/iteration_sim.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "planner/core/error.hpp"
#include "planner/io/scenario_parser.hpp"
#include "planner/search/planner.hpp"
#include "sim/runner.hpp"
#include "sim/simulation_error.hpp"

namespace shardscope::sim {
namespace {

Scenario load(const std::string& text) { return parse_scenario_string(text, "test.yaml"); }

// A second simulation in this process: run in a `shardscope simulate` child, the full result comes back.
IterationResult simulate_in_child(const std::string& scenario_text, const Plan& plan,
                                  const IterationOptions& options) {
  SimulationJob job;
  job.scenario_file = (std::filesystem::temp_directory_path() /
                       ("shardscope_iteration_" + std::to_string(::getpid()) + ".yaml"))
                          .string();
  std::ofstream(job.scenario_file) << scenario_text;
  job.plan = plan;
  job.options = options;
  job.timeout_seconds = 300;
  const IterationResult result = ChildProcessRunner(SHARDSCOPE_BINARY).run(job);
  std::filesystem::remove(job.scenario_file);
  return result;
}

const char* kTitan =
    "model: {preset: nd-48x1536}\ncluster: {preset: titan-rtx-8-pcie3}\n"
    "training: {memory_limit: 8GB, runtime_reserve: 512MiB, precision: mixed-fp16, max_micro_batch: 8}\n"
    "execution: {prefetch_depth: 0}\n";

struct Prediction {
  double seconds = 0;
  double peak = 0;
};

Prediction planner_prediction(const Scenario& s, const Plan& plan) {
  const PlanPrediction p = evaluate_plan(ValidScenario(s), Calibration{}, plan);
  return {p.iteration_seconds, p.peak_memory_bytes};
}

// Plans FSDP on `s` under `cal`, simulates it on one stream without prefetch, and expects the planner's
// prediction within `tolerance`; the calibration must make the plan slower than the nominal links do.
void serial_fsdp_follows_the_calibration(const Scenario& s, const Calibration& cal, double tolerance) {
  const StrategyResult planned = plan_strategy(ValidScenario(s), cal, space_by_name("fsdp", s.training));
  ASSERT_TRUE(planned.fits);
  IterationOptions options;
  options.overlap = false;
  options.prefetch_depth = 0;
  const IterationResult r = simulate_iteration(ValidScenario(s), cal, planned.plan, options);
  const PlanPrediction p = evaluate_plan(ValidScenario(s), cal, planned.plan);
  EXPECT_NEAR(r.iteration_seconds, p.iteration_seconds, tolerance * p.iteration_seconds);
  EXPECT_GT(p.iteration_seconds,
            evaluate_plan(ValidScenario(s), Calibration{}, planned.plan).iteration_seconds);
}

// Plans MiCS on `s`, simulates its iteration on one stream without prefetch, and expects the planner's
// prediction of the same plan (to 1e-6).
IterationResult serial_mics_equals_the_planner(const Scenario& s) {
  const StrategyResult planned =
      plan_strategy(ValidScenario(s), Calibration{}, space_by_name("mics", s.training));
  EXPECT_TRUE(planned.fits);
  if (!planned.fits) return {};
  IterationOptions options;
  options.overlap = false;
  options.prefetch_depth = 0;
  const IterationResult r = simulate_iteration(ValidScenario(s), Calibration{}, planned.plan, options);
  const Prediction p = planner_prediction(s, planned.plan);
  EXPECT_NEAR(r.iteration_seconds, p.seconds, 1e-6 * p.seconds);
  return r;
}

double peak_of(const IterationResult& r) {
  double peak = 0;
  for (const GpuResult& g : r.gpus) peak = std::max(peak, g.peak_memory_bytes);
  return peak;
}

TEST(IterationSim, SerialIterationEqualsThePlannerAndPeaksAgree) {
  Scenario s = load(kTitan);
  s.execution = {.overlap = false, .prefetch_depth = 0};
  const StrategyResult planned = plan_strategy(ValidScenario(s), Calibration{}, full_space(s.training));
  ASSERT_TRUE(planned.fits);
  IterationOptions options;
  options.overlap = false;
  options.prefetch_depth = 0;
  const IterationResult r = simulate_iteration(ValidScenario(s), Calibration{}, planned.plan, options);
  const Prediction p = planner_prediction(s, planned.plan);
  EXPECT_NEAR(r.iteration_seconds, p.seconds, 0.01 * p.seconds);
  EXPECT_NEAR(peak_of(r), p.peak, 0.02 * p.peak);
  ASSERT_EQ(r.gpus.size(), 8u);
  EXPECT_GT(r.gpus[0].compute_seconds, 0);
  EXPECT_NEAR(r.gpus[0].exposed_comm_seconds, r.iteration_seconds - r.gpus[0].compute_seconds, 1e-12);
}

TEST(IterationSim, MessageEfficiencyFromCalibrationAppliesToBoth) {
  Scenario s = load(kTitan);
  s.execution = {.overlap = false, .prefetch_depth = 0};
  s.execution.collectives =
      CollectivesChoice::ring;  // the ring model reads the size-indexed efficiency curve
  Calibration cal;
  cal.message_efficiency = {{64.0 * 1024, 0.3}, {64.0 * 1024 * 1024, 0.9}};
  serial_fsdp_follows_the_calibration(s, cal, 0.01);
}

// A calibration with per-kind factors (reduce-scatter at half the bandwidth, all-reduce at 0.7): the serial
// simulation prices every collective task as the planner does.
TEST(IterationSim, CollectiveKindFactorsApplyToBoth) {
  Scenario s = load(kTitan);
  s.execution = {.overlap = false, .prefetch_depth = 0};
  s.execution.collectives = CollectivesChoice::ring;  // the nccl model does not read the factors
  Calibration cal;
  for (auto& kinds : cal.collective_efficiency) {
    kinds[static_cast<std::size_t>(CollectiveKind::reduce_scatter)] = 0.5;
    kinds[static_cast<std::size_t>(CollectiveKind::all_reduce)] = 0.7;
  }
  serial_fsdp_follows_the_calibration(s, cal, 1e-6);
}

TEST(IterationSim, GradientAccumulationAndMultiNodeSerialEqualThePlanner) {
  const Scenario s = load(
      "model: {preset: nd-48x1536}\ncluster: {preset: dgx-a100, nodes: 2}\n"
      "training: {memory_limit: 16GB, runtime_reserve: 1GiB, gradient_accumulation_steps: 2, group_size: 8, "
      "max_micro_batch: 4}\nexecution: {overlap: false, prefetch_depth: 0}\n");
  const StrategyResult planned =
      plan_strategy(ValidScenario(s), Calibration{}, space_by_name("paro-IIG", s.training));
  ASSERT_TRUE(planned.fits);
  IterationOptions options;
  options.overlap = false;
  options.prefetch_depth = 0;
  const IterationResult r = simulate_iteration(ValidScenario(s), Calibration{}, planned.plan, options);
  const Prediction p = planner_prediction(s, planned.plan);
  EXPECT_NEAR(r.iteration_seconds, p.seconds, 0.01 * p.seconds);
  EXPECT_NEAR(peak_of(r), p.peak, 0.02 * p.peak);
}

// MiCS under NCCL on 12-GPU groups over three 8-GPU nodes (8 + 4 and 4 + 8 GPUs per node): each
// communicator's flows run on its own nodes' GPUs, and the serial iteration equals the planner.
TEST(IterationSim, NcclOnGroupsNotAlignedWithNodesSerialEqualsThePlanner) {
  Scenario s = load(
      "model: {preset: nd-48x1536}\ncluster: {preset: dgx-a100, nodes: 3}\n"
      "training: {memory_limit: 40GB, group_size: 12, max_micro_batch: 4}\n"
      "execution: {overlap: false, prefetch_depth: 0}\n");
  s.execution.collectives = CollectivesChoice::nccl;
  serial_mics_equals_the_planner(s);
}

// Above 64 micro-steps the simulator stops once two micro-steps repeated their predecessors exactly and adds
// the rest: the iteration, per-GPU compute, peak memory and activity count equal simulating every step.
TEST(IterationSim, SteadyStateMicroStepsEqualSimulatingEveryStep) {
  const std::string text =
      "model: {name: nd-8x1536, transformer: {layers: 8, hidden: 1536, heads: 16, vocab: 50257, "
      "sequence_length: 1024}}\ncluster: {preset: dgx-a100, nodes: 1}\n"
      "training: {memory_limit: 16GB, runtime_reserve: 1GiB, gradient_accumulation_steps: 70, "
      "group_size: 4, max_micro_batch: 2}\n";
  const Scenario s = load(text);
  const StrategyResult planned =
      plan_strategy(ValidScenario(s), Calibration{}, space_by_name("paro-IIG", s.training));
  ASSERT_TRUE(planned.fits);
  ASSERT_EQ(planned.plan.gradient_accumulation_steps, 70);
  IterationOptions every;
  every.steady_state = false;
  const IterationResult full = simulate_in_child(text, planned.plan, every);
  const IterationResult steady = simulate_in_child(text, planned.plan, IterationOptions{});
  EXPECT_EQ(full.steady_state_micro_steps, 0);
  EXPECT_GT(steady.steady_state_micro_steps, 60);
  EXPECT_NEAR(steady.iteration_seconds, full.iteration_seconds, 1e-9 * full.iteration_seconds);
  EXPECT_EQ(steady.activities, full.activities);
  ASSERT_EQ(steady.gpus.size(), full.gpus.size());
  for (std::size_t g = 0; g < full.gpus.size(); ++g) {
    EXPECT_EQ(steady.gpus[g].peak_memory_bytes, full.gpus[g].peak_memory_bytes);
    EXPECT_NEAR(steady.gpus[g].compute_seconds, full.gpus[g].compute_seconds,
                1e-9 * full.gpus[g].compute_seconds);
  }
  EXPECT_EQ(steady.links.size(), full.links.size());
}

const char* kSeventySteps =
    "model: {name: nd-8x1536, transformer: {layers: 8, hidden: 1536, heads: 16, vocab: 50257, "
    "sequence_length: 1024}}\ncluster: {preset: dgx-a100, nodes: 1}\n"
    "training: {memory_limit: 16GB, runtime_reserve: 1GiB, gradient_accumulation_steps: 70, "
    "group_size: 4, max_micro_batch: 2}\n";

// Over the activity limit when every micro-step is simulated, the iteration still runs when its steady state
// is proven within steady_state_proof_steps: the same time as simulating every step.
TEST(IterationSim, ASteadyStateProofRunsWhatEveryStepWouldNot) {
  const Scenario s = load(kSeventySteps);
  const StrategyResult planned =
      plan_strategy(ValidScenario(s), Calibration{}, space_by_name("paro-IIG", s.training));
  ASSERT_TRUE(planned.fits);
  IterationOptions every;
  every.steady_state = false;
  const IterationResult full = simulate_in_child(kSeventySteps, planned.plan, every);
  IterationOptions capped;
  capped.max_activities = full.activities / 2;
  capped.steady_state_proof_steps = 16;
  const IterationResult steady = simulate_iteration(ValidScenario(s), Calibration{}, planned.plan, capped);
  EXPECT_GT(steady.steady_state_micro_steps, 54);
  EXPECT_NEAR(steady.iteration_seconds, full.iteration_seconds, 1e-9 * full.iteration_seconds);
}

// A program that has not repeated within steady_state_proof_steps stops with an error naming the limit, never
// running past it (a proof needs three micro-steps: two steps allowed can never prove one).
TEST(IterationSim, NoSteadyStateWithinTheProofStepsIsRefused) {
  const Scenario s = load(kSeventySteps);
  const StrategyResult planned =
      plan_strategy(ValidScenario(s), Calibration{}, space_by_name("paro-IIG", s.training));
  ASSERT_TRUE(planned.fits);
  IterationOptions every;
  every.steady_state = false;
  const IterationResult full = simulate_in_child(kSeventySteps, planned.plan, every);
  IterationOptions capped;
  capped.max_activities = full.activities / 2;
  capped.steady_state_proof_steps = 2;
  try {
    simulate_iteration(ValidScenario(s), Calibration{}, planned.plan, capped);
    FAIL() << "expected a SimulationError";
  } catch (const SimulationError& e) {
    EXPECT_NE(
        std::string(e.what()).find("the iteration's 70 micro-steps did not repeat (no steady state) within "
                                   "the first 2, and simulating every one needs about " +
                                   std::to_string(full.activities)),
        std::string::npos)
        << e.what();
  }
}

// The observer sees simulated time grow to the iteration's, with the activities so far; asking to cancel
// stops the simulation with SimulationCancelled (no partial result).
struct RecordingObserver : SimulationObserver {
  std::vector<std::pair<double, std::int64_t>> reports;
  bool cancel = false;
  void progress(double simulated_seconds, std::int64_t activities) override {
    reports.emplace_back(simulated_seconds, activities);
  }
  std::size_t cancel_after = 0;  // reports before cancelling
  bool cancelled() const override { return cancel && reports.size() > cancel_after; }
};

const char* kFourNodes =
    "model: {preset: nd-48x1536}\ncluster: {preset: dgx-a100, nodes: 4}\n"
    "training: {memory_limit: 16GB, runtime_reserve: 1GiB, max_micro_batch: 2}\n";

TEST(IterationSim, TheObserverSeesSimulatedTimeAndActivitiesGrow) {
  const Scenario s = load(kFourNodes);
  const StrategyResult planned =
      plan_strategy(ValidScenario(s), Calibration{}, space_by_name("fsdp", s.training));
  ASSERT_TRUE(planned.fits);
  RecordingObserver observer;
  const IterationResult r =
      simulate_iteration(ValidScenario(s), Calibration{}, planned.plan, IterationOptions{}, &observer);
  ASSERT_GE(observer.reports.size(), 2u);
  for (std::size_t i = 1; i < observer.reports.size(); ++i) {
    EXPECT_GE(observer.reports[i].first, observer.reports[i - 1].first);
    EXPECT_GE(observer.reports[i].second, observer.reports[i - 1].second);
  }
  EXPECT_EQ(observer.reports.back().first, r.iteration_seconds);
  EXPECT_EQ(observer.reports.back().second, r.activities);
  EXPECT_LT(observer.reports.front().first, r.iteration_seconds);
}

TEST(IterationSim, CancellingStopsWithSimulationCancelled) {
  const Scenario s = load(kFourNodes);
  const StrategyResult planned =
      plan_strategy(ValidScenario(s), Calibration{}, space_by_name("fsdp", s.training));
  ASSERT_TRUE(planned.fits);
  RecordingObserver observer;
  observer.cancel = true;
  observer.cancel_after = 3;  // in the middle of the iteration
  EXPECT_THROW(
      simulate_iteration(ValidScenario(s), Calibration{}, planned.plan, IterationOptions{}, &observer),
      SimulationCancelled);
  EXPECT_EQ(observer.reports.size(), 4u);  // no report after the one that cancelled
}

TEST(IterationSim, OverlappingStreamsAreFasterThanSerial) {
  const Scenario s = load(kTitan);
  const StrategyResult planned =
      plan_strategy(ValidScenario(s), Calibration{}, space_by_name("fsdp", s.training));
  ASSERT_TRUE(planned.fits);
  IterationOptions serial_options;
  serial_options.overlap = false;
  const IterationResult serial = simulate_in_child(kTitan, planned.plan, serial_options);
  IterationOptions o;
  o.overlap = true;
  o.prefetch_depth = 1;
  const IterationResult r = simulate_iteration(ValidScenario(s), Calibration{}, planned.plan, o);
  EXPECT_LT(r.iteration_seconds, serial.iteration_seconds);
  // Serial: every task, collectives included, runs on the one (compute) stream.
  for (const TraceEvent& e : serial.trace) EXPECT_EQ(e.stream, 0) << e.name;
  EXPECT_GT(r.iteration_seconds, r.gpus[0].compute_seconds);  // communication is not free
  // The trace has both streams and memory samples.
  bool compute = false, comm = false;
  for (const TraceEvent& e : r.trace) {
    compute = compute || e.stream == 0;
    comm = comm || e.stream == 1;
  }
  EXPECT_TRUE(compute && comm);
  EXPECT_FALSE(r.memory.empty());
}

TEST(IterationSim, TheInterGroupRingsSharingTheSocketLinkSlowThePlannerAsTheSimulation) {
  // Groups of 4 on the two-socket PCIe server: the 4 inter-group rings all cross the one socket link at
  // once. The planner counts them on it (a quarter of its bandwidth each), as the simulation's links share
  // it (the planner's per-ring formula once missed it and was 0.1 % or more under the simulation).
  const Scenario s = load(
      "model: {preset: nd-48x1536}\ncluster: {preset: titan-rtx-8-pcie3}\n"
      "training: {memory_limit: 16GB, runtime_reserve: 512MiB, group_size: 4, precision: mixed-fp16, "
      "max_micro_batch: 4}\nexecution: {overlap: false, prefetch_depth: 0}\n");
  const IterationResult r = serial_mics_equals_the_planner(s);
  // Every link direction's utilisation is physical, and the socket link carried the inter-group rings.
  bool socket = false;
  for (const LinkUsage& u : r.links) {
    EXPECT_GT(u.bytes, 0) << u.link;
    EXPECT_LE(u.utilisation, 1.0 + 1e-9) << u.link;
    socket = socket || u.link.find("socket") != std::string::npos;
  }
  EXPECT_TRUE(socket);
}

TEST(IterationSim, GradientBucketsMergeReduceScatters) {
  // Serial ZeRO-2 (gradients reduce-scattered per operator): one big bucket pays fewer latencies and
  // creates fewer activities than one reduce-scatter per operator, with the same bytes.
  const Scenario s = load(kTitan);
  const StrategyResult planned =
      plan_strategy(ValidScenario(s), Calibration{}, space_by_name("zero-2", s.training));
  ASSERT_TRUE(planned.fits);
  IterationOptions per_operator;
  per_operator.overlap = false;
  const IterationResult alone = simulate_in_child(kTitan, planned.plan, per_operator);
  IterationOptions bucketed = per_operator;
  bucketed.bucket_bytes = 1e12;
  const IterationResult r = simulate_iteration(ValidScenario(s), Calibration{}, planned.plan, bucketed);
  EXPECT_LT(r.iteration_seconds, alone.iteration_seconds);
  EXPECT_LT(r.activities, alone.activities);
  EXPECT_GT(r.iteration_seconds, 0.99 * alone.iteration_seconds);  // only latency terms are saved
  // Same bytes over every link, carried by fewer, larger collectives.
  ASSERT_EQ(r.links.size(), alone.links.size());
  for (std::size_t i = 0; i < r.links.size(); ++i) {
    EXPECT_EQ(r.links[i].link, alone.links[i].link);
    EXPECT_NEAR(r.links[i].bytes, alone.links[i].bytes, 1e-9 * alone.links[i].bytes);
  }
}

TEST(IterationSim, APlanForAnotherModelIsAnInputError) {
  const Scenario s = load(kTitan);
  Plan plan;
  plan.operators.resize(3);
  EXPECT_THROW(simulate_iteration(ValidScenario(s), Calibration{}, plan, IterationOptions{}), InputError);
}

}  // namespace
}  // namespace shardscope::sim
