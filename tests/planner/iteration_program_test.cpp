// The iteration program by hand: task order with FSDP backward prefetch, buckets, and memory that every
// allocation's partner gives back.
#include "planner/program/iteration_program.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "planner/io/scenario_parser.hpp"

namespace shardscope {
namespace {

constexpr ShardScope N = ShardScope::N, I = ShardScope::I, G = ShardScope::G;

Scenario two_operators(int accumulation_steps) {
  return parse_scenario_string(
      "model:\n  operators:\n"
      "    - {name: a, kind: linear, parameters: 100000000, forward_flops_per_sample: 1.0e11,\n"
      "       activation_bytes_per_sample: 100MB, checkpoint_bytes_per_sample: 10MB, "
      "workspace_bytes_per_sample: 1MB, splittable: true}\n"
      "    - {name: b, kind: linear, parameters: 200000000, forward_flops_per_sample: 2.0e11,\n"
      "       activation_bytes_per_sample: 200MB, checkpoint_bytes_per_sample: 20MB, "
      "workspace_bytes_per_sample: 2MB}\n"
      "cluster: {preset: dgx-a100, nodes: 2}\n"
      "training: {gradient_accumulation_steps: " +
          std::to_string(accumulation_steps) + ", group_size: 8}\n",
      "test.yaml");
}

Plan plan_of(std::vector<OperatorChoice> choices, int accumulation_steps) {
  Plan plan;
  plan.micro_batch = 2;
  plan.gradient_accumulation_steps = accumulation_steps;
  plan.group_size = 8;
  plan.operators = std::move(choices);
  return plan;
}

std::vector<std::string> names(const IterationProgram& program) {
  std::vector<std::string> out;
  for (const Task& task : program.tasks) out.push_back(task.name);
  return out;
}

TEST(IterationProgram, ReduceScatterWaitsForTheNextGather) {
  const Scenario s = two_operators(1);
  const Plan plan = plan_of({{"a", {G, G, G}, false, 1, 1, false}, {"b", {G, G, G}, false, 1, 1, false}}, 1);
  const IterationProgram program =
      build_iteration_program(ValidScenario(s), Calibration{}, plan, ProgramOptions{1, false});
  const std::vector<std::string> expected{"AG a", "fwd a", "AG b",  "fwd b", "AG b",     "bwd b",
                                          "AG a", "RS b",  "bwd a", "RS a",  "update a", "update b"};
  EXPECT_EQ(names(program), expected);
}

TEST(IterationProgram, BucketsMergeReduceScattersOfOneGroup) {
  const Scenario s = two_operators(2);
  const Plan plan = plan_of({{"a", {G, G, G}, false, 1, 1, false}, {"b", {G, G, G}, false, 1, 1, false}}, 2);
  const IterationProgram program =
      build_iteration_program(ValidScenario(s), Calibration{}, plan, ProgramOptions{1, true, 1e12});
  int merged = 0;
  double reduced_bytes = 0;
  for (std::size_t i = 0; i < program.tasks.size(); ++i) {
    const Task& task = program.tasks[i];
    if (task.name.rfind("RS ", 0) != 0) continue;
    EXPECT_EQ(task.stream, Task::Stream::compute);  // serial: one stream
    const int runs = i < program.step_tasks ? program.micro_steps : 1;
    merged += runs;
    reduced_bytes += runs * task.total_bytes;
  }
  EXPECT_EQ(merged, 2);                              // one bucket per micro-step
  EXPECT_DOUBLE_EQ(reduced_bytes, 2 * (2e8 + 4e8));  // both operators' 16-bit gradients, twice
}

TEST(IterationProgram, EveryAllocationIsGivenBack) {
  const Scenario s = two_operators(2);
  // A split, checkpointed operator (3 of 4 slices PaRO-IIG) and a ZeRO++ one, with and without buckets.
  const Plan plan = plan_of({{"a", {I, I, G}, false, 4, 3, true}, {"b", {G, G, G}, true, 1, 1, false}}, 2);
  for (double bucket_bytes : {0.0, 5e8}) {
    const IterationProgram program = build_iteration_program(ValidScenario(s), Calibration{}, plan,
                                                             ProgramOptions{1, false, bucket_bytes});
    for (std::size_t c = 0; c < kMemoryCategories; ++c) {
      double allocated = 0, freed = 0;
      for (const Task& task : program.tasks) {
        allocated += task.alloc_at_start[c];
        freed += task.free_at_end[c];
      }
      EXPECT_NEAR(allocated, freed, 1e-6 * allocated)
          << to_string(static_cast<MemoryCategory>(c)) << ", bucket " << bucket_bytes;
    }
  }
}

TEST(IterationProgram, AccumulationStepsDoNotGrowTheProgram) {
  // 2^20 micro-steps (the documented maximum) used to be written out task by task: gigabytes, then
  // bad_alloc. The program holds one micro-step and the count.
  const Plan two = plan_of({{"a", {G, G, G}, false, 1, 1, false}, {"b", {G, G, G}, false, 1, 1, false}}, 2);
  Plan most = two;
  most.gradient_accumulation_steps = kMaxAccumulationSteps;
  const IterationProgram small =
      build_iteration_program(ValidScenario(two_operators(2)), Calibration{}, two, ProgramOptions{1, false});
  const IterationProgram large = build_iteration_program(ValidScenario(two_operators(kMaxAccumulationSteps)),
                                                         Calibration{}, most, ProgramOptions{1, false});
  EXPECT_EQ(large.tasks.size(), small.tasks.size());
  EXPECT_EQ(large.micro_steps, kMaxAccumulationSteps);
  EXPECT_EQ(executed_tasks(large),
            std::int64_t{kMaxAccumulationSteps} * static_cast<std::int64_t>(large.step_tasks) +
                static_cast<std::int64_t>(large.tasks.size() - large.step_tasks));
  // The second micro-step's first gather waits for the previous micro-step's compute (prefetch).
  EXPECT_EQ(task_name(large, 0, 7), "AG a #7");
  EXPECT_TRUE(large.tasks[0].waits_on_previous_step);
}

// Every compute task says what it runs: the slices of an operator's forward, checkpoint recompute and
// backward add up to the whole operator once per micro-step, and each update carries its state bytes.
TEST(IterationProgram, ComputeTasksNameTheirOperatorPhaseAndSlice) {
  const Scenario s = two_operators(1);
  const Plan plan = plan_of({{"a", {G, G, G}, false, 4, 2, true}, {"b", {N, N, N}, false, 1, 0, false}}, 1);
  const IterationProgram program =
      build_iteration_program(ValidScenario(s), Calibration{}, plan, ProgramOptions{1, false});
  double work[2][3] = {};
  double update_bytes[2] = {};
  for (const Task& task : program.tasks) {
    if (task.stream != Task::Stream::compute) continue;
    ASSERT_GE(task.operator_index, 0) << task.name;
    const auto op = static_cast<std::size_t>(task.operator_index);
    EXPECT_NE(task.name.find(s.model.operators[op].name), std::string::npos) << task.name;
    if (task.phase == Task::Phase::update) {
      update_bytes[op] += task.update_state_bytes;
    } else {
      work[op][static_cast<int>(task.phase)] += task.slice_fraction;
    }
  }
  EXPECT_DOUBLE_EQ(work[0][0], 1.0);  // a: 4 slices of forward, recompute and backward
  EXPECT_DOUBLE_EQ(work[0][1], 1.0);
  EXPECT_DOUBLE_EQ(work[0][2], 1.0);
  EXPECT_DOUBLE_EQ(work[1][0], 1.0);  // b: one slice, not checkpointed
  EXPECT_DOUBLE_EQ(work[1][1], 0.0);
  EXPECT_DOUBLE_EQ(work[1][2], 1.0);
  EXPECT_GT(update_bytes[0], 0.0);
  EXPECT_GT(update_bytes[1], update_bytes[0]);  // b's states are replicated and twice as many parameters
}

}  // namespace
}  // namespace shardscope
