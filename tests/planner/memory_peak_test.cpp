// The program's peak memory by hand (the prefetched buffer is the next operator's, a split operator's
// slices one at a time) and the search's per-operator transient: by hand, and never below the program's
// peak for any plan, prefetch depth, bucket or overlap setting.
#include "planner/program/memory_peak.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "planner/cost/topology_cost.hpp"
#include "planner/io/scenario_parser.hpp"
#include "planner/search/search_space.hpp"

namespace shardscope {
namespace {

constexpr ShardScope N = ShardScope::N, I = ShardScope::I, G = ShardScope::G;
constexpr double MB = 1e6;

// a (100 M parameters) then b (200 M) on 16 GPUs, no activations or workspace: only states and buffers.
Scenario two_operators(bool overlap, int prefetch_depth, int accumulation_steps = 1) {
  return parse_scenario_string(
      "model:\n  operators:\n"
      "    - {name: a, kind: linear, parameters: 100000000, forward_flops_per_sample: 1.0e11}\n"
      "    - {name: b, kind: linear, parameters: 200000000, forward_flops_per_sample: 2.0e11}\n"
      "cluster: {preset: dgx-a100, nodes: 2}\n"
      "training: {precision: mixed-fp16, runtime_reserve: 1GiB, gradient_accumulation_steps: " +
          std::to_string(accumulation_steps) + "}\nexecution: {overlap: " + (overlap ? "true" : "false") +
          ", prefetch_depth: " + std::to_string(prefetch_depth) + "}\n",
      "two.yaml");
}

Plan plan_of(std::vector<OperatorChoice> choices, int accumulation_steps = 1) {
  Plan plan;
  plan.micro_batch = 1;
  plan.gradient_accumulation_steps = accumulation_steps;
  plan.operators = std::move(choices);
  return plan;
}

double peak_of(const Scenario& s, const Plan& plan) {
  const IterationProgram program = build_iteration_program(
      ValidScenario(s), Calibration{}, plan,
      ProgramOptions{s.execution.prefetch_depth, !s.execution.overlap, s.execution.bucket_bytes});
  return program_peak_bytes(program);
}

// Resident states of a and b fully sharded over 16 GPUs (16 bytes per parameter) and the reserve.
constexpr double kResident = 16.0 * 300e6 / 16 + 1073741824.0;

TEST(MemoryPeak, PrefetchHoldsTheNextOperatorsParameters) {
  const Plan fsdp = plan_of({{"a", {G, G, G}, false, 1, 1, false}, {"b", {G, G, G}, false, 1, 1, false}});
  // One stream: at b's backward its gathered parameters and unreduced gradients, 400 MB each (fp16).
  EXPECT_DOUBLE_EQ(peak_of(two_operators(false, 1), fsdp), kResident + 800 * MB);
  // Two streams, prefetch 1: while b runs its backward, a's backward gather (200 MB) is already in. The old
  // rule, (1 + 1) x b's 800 MB, said 1600 MB.
  EXPECT_DOUBLE_EQ(peak_of(two_operators(true, 1), fsdp), kResident + 1000 * MB);
  // Prefetch 0: a gather waits for the compute before it, nothing is held ahead.
  EXPECT_DOUBLE_EQ(peak_of(two_operators(true, 0), fsdp), kResident + 800 * MB);
}

IterationProgram program_of(const Scenario& s, const Plan& plan) {
  return build_iteration_program(
      ValidScenario(s), Calibration{}, plan,
      ProgramOptions{s.execution.prefetch_depth, !s.execution.overlap, s.execution.bucket_bytes});
}

// The allocated peak (PyTorch's max allocated): no reserve, and each sharded gradient only from its
// reduce-scatter on. One stream, one micro-step: at b's backward (its 400 + 400 MB buffers) no reduce-scatter
// has run, so no gradient is allocated; with two micro-steps the second's backward holds them all.
TEST(MemoryPeak, AllocatedPeakTakesTheGradientsWhenTheFirstMicroStepMakesThem) {
  const Plan fsdp = plan_of({{"a", {G, G, G}, false, 1, 1, false}, {"b", {G, G, G}, false, 1, 1, false}});
  const IterationProgram one = program_of(two_operators(false, 1), fsdp);
  const double gradients = one.resident[index_of(MemoryCategory::gradients)];
  EXPECT_DOUBLE_EQ(gradients, 2.0 * 300e6 / 16);  // fp16 gradients, sharded over 16 GPUs
  double produced = 0;
  for (std::size_t i = 0; i < one.step_tasks; ++i) produced += one.tasks[i].gradients_produced_bytes;
  EXPECT_DOUBLE_EQ(produced, gradients);
  EXPECT_DOUBLE_EQ(program_peak_bytes(one), kResident + 800 * MB);
  EXPECT_DOUBLE_EQ(program_allocated_peak_bytes(one), kResident - 1073741824.0 - gradients + 800 * MB);
  const IterationProgram two = program_of(two_operators(false, 1, 2), plan_of(fsdp.operators, 2));
  EXPECT_DOUBLE_EQ(program_allocated_peak_bytes(two), kResident - 1073741824.0 + 800 * MB);
  // Replicated gradients (plain DP) exist from their backward on; with no activations, the peak comes at the
  // update, when every gradient exists: all the states, the reserve left out.
  const Plan ddp = plan_of({{"a", {N, N, N}, false, 1, 0, false}, {"b", {N, N, N}, false, 1, 0, false}});
  const IterationProgram dp = program_of(two_operators(false, 1), ddp);
  const double dp_states = 16.0 * 300e6;
  EXPECT_DOUBLE_EQ(program_peak_bytes(dp), dp_states + 1073741824.0);
  EXPECT_DOUBLE_EQ(program_allocated_peak_bytes(dp), dp_states);
  double dp_produced = 0;
  for (const Task& t : dp.tasks) {
    if (t.gradients_produced_bytes > 0) {
      EXPECT_EQ(t.phase, Task::Phase::backward) << t.name;
    }
    dp_produced += t.gradients_produced_bytes;
  }
  EXPECT_DOUBLE_EQ(dp_produced, dp.resident[index_of(MemoryCategory::gradients)]);
}

TEST(MemoryPeak, SplitOperatorsGatherOneSliceAtATime) {
  // b in 4 slices of 50 M: its backward holds one slice's parameters and gradients (100 MB each) and either
  // the previous slice's gradients, still being reduced, or the next slice's parameters, being gathered
  // (one communication stream runs them in that order): 300 MB. a's backward then holds its own 200 + 200
  // MB with b's last slice's gradients in flight: 500 MB, half the unsplit plan's 1000 MB (the old rule:
  // (1 + 1) x b's slice buffers, 400 MB, too little).
  const Plan split = plan_of({{"a", {G, G, G}, false, 1, 1, false}, {"b", {G, G, G}, false, 4, 4, false}});
  EXPECT_DOUBLE_EQ(peak_of(two_operators(true, 1), split), kResident + 500 * MB);
  // With a split in 2 as well (100 MB slices): b's 300 MB is the most.
  const Plan both = plan_of({{"a", {G, G, G}, false, 2, 2, false}, {"b", {G, G, G}, false, 4, 4, false}});
  EXPECT_DOUBLE_EQ(peak_of(two_operators(true, 1), both), kResident + 300 * MB);
}

TEST(MemoryPeak, ASmallOperatorBeforeALargeOneHoldsTheLargeOnesBuffer) {
  // a replicated (no gather), b sharded: while a runs its forward nothing is gathered; while b runs, the
  // backward gather of b (its own next position) is prefetched: 400 + 400 MB, and then its gradients.
  const Plan plan = plan_of({{"a", {N, N, N}, false, 1, 0, false}, {"b", {G, G, G}, false, 1, 1, false}});
  const Scenario s = two_operators(true, 1);
  const double resident_a = 16.0 * 100e6, resident_b = 16.0 * 200e6 / 16;
  EXPECT_DOUBLE_EQ(peak_of(s, plan), resident_a + resident_b + 1073741824.0 + 800 * MB);
}

// Σ resident + max transient + reserve with neighbours' buffers bounded whatever they choose.
double search_bound(const Scenario& s, const Plan& plan) {
  const TopologyCostModel model(
      ValidScenario(s), Calibration{},
      {.accumulation_steps = plan.gradient_accumulation_steps, .neighbours = NeighbourBuffers::any_choice});
  double resident = model.fixed_bytes(), transient = 0;
  for (std::size_t i = 0; i < plan.operators.size(); ++i) {
    const ItemCost c = model.cost(i, plan.operators[i], plan.micro_batch);
    resident += c.resident_bytes;
    transient = std::max(transient, c.transient_bytes);
  }
  return resident + transient;
}

// The topology model pricing one accumulation step, its neighbours' buffers counted as `mode` says in a
// space that shards parameters and gradients or (`sharded` false) neither.
TopologyCostModel neighbours_model(const Scenario& s, NeighbourBuffers mode, bool sharded = true) {
  return TopologyCostModel(ValidScenario(s), Calibration{},
                           {.accumulation_steps = 1,
                            .neighbours = mode,
                            .parameters_sharded = sharded,
                            .gradients_sharded = sharded});
}

TEST(MemoryPeak, TheSearchsTransientByHand) {
  const Scenario s = two_operators(true, 1);
  for (const auto mode : {NeighbourBuffers::alike, NeighbourBuffers::any_choice}) {
    const TopologyCostModel model = neighbours_model(s, mode);
    // b (last operator, FSDP): its buffers 400 + 400 MB, prefetch one more of the largest within reach
    // (its own, at the turn to backward: 400 MB); no gradients released before it (the first backward).
    EXPECT_DOUBLE_EQ(model.cost(1, {"b", {G, G, G}, false, 1, 1, false}, 1).transient_bytes, 1200 * MB);
    // a: 200 + 200 MB, prefetch b's 400 MB, b's gradients (400 MB) still being reduced.
    EXPECT_DOUBLE_EQ(model.cost(0, {"a", {G, G, G}, false, 1, 1, false}, 1).transient_bytes, 1200 * MB);
  }
  // a replicated gathers nothing; alike neighbours neither, but b may hold its prefetched parameters and
  // gradients being reduced (400 + 400 MB) while a runs.
  const TopologyCostModel alike = neighbours_model(s, NeighbourBuffers::alike);
  const TopologyCostModel any_choice = neighbours_model(s, NeighbourBuffers::any_choice);
  EXPECT_DOUBLE_EQ(alike.cost(0, {"a", {N, N, N}, false, 1, 0, false}, 1).transient_bytes, 0.0);
  EXPECT_DOUBLE_EQ(any_choice.cost(0, {"a", {N, N, N}, false, 1, 0, false}, 1).transient_bytes, 800 * MB);
  // In a space where nothing is sharded (DDP), nothing is.
  const TopologyCostModel ddp_space = neighbours_model(s, NeighbourBuffers::any_choice, false);
  EXPECT_DOUBLE_EQ(ddp_space.cost(0, {"a", {N, N, N}, false, 1, 0, false}, 1).transient_bytes, 0.0);
  // a split in 4, alike neighbours: its slice of 25 M (50 MB of parameters and 50 MB of gradients), the
  // next position's parameters and the gradients released before it, b's quarter (100 MB each) at most.
  EXPECT_DOUBLE_EQ(alike.cost(0, {"a", {G, G, G}, false, 4, 4, false}, 1).transient_bytes,
                   (50 + 50 + 100 + 100) * MB);
}

TEST(MemoryPeak, TheSearchsBoundIsNeverBelowTheProgramsPeak) {
  // Random plans of the full space on an uneven five-operator model, every execution setting.
  const std::string model =
      "model:\n  operators:\n"
      "    - {name: e, kind: embedding, parameters: 50000000, activation_bytes_per_sample: 1MB, "
      "workspace_bytes_per_sample: 3MB}\n"
      "    - {name: s, kind: linear, parameters: 5000000, forward_flops_per_sample: 1.0e10, "
      "activation_bytes_per_sample: 2MB, checkpoint_bytes_per_sample: 1MB, workspace_bytes_per_sample: 1MB}\n"
      "    - {name: l, kind: linear, parameters: 80000000, forward_flops_per_sample: 1.6e11, "
      "activation_bytes_per_sample: 4MB, checkpoint_bytes_per_sample: 1MB, workspace_bytes_per_sample: 2MB}\n"
      "    - {name: f, kind: linear, parameters: 30000000, trainable: false, forward_flops_per_sample: "
      "6.0e10}\n"
      "    - {name: h, kind: head, parameters: 20000000, forward_flops_per_sample: 4.0e10, "
      "activation_bytes_per_sample: 8MB, workspace_bytes_per_sample: 8MB}\n"
      "cluster: {preset: dgx-a100, nodes: 2}\n"
      "training: {precision: mixed-bf16, group_size: 8, gradient_accumulation_steps: ";
  std::mt19937 random(8);
  int checked = 0;
  for (const int steps : {1, 3}) {
    for (const bool overlap : {false, true}) {
      for (const int depth : {0, 1, 2, 5}) {
        for (const char* bucket : {"0", "30MB"}) {
          const Scenario s = parse_scenario_string(
              model + std::to_string(steps) + "}\nexecution: {overlap: " + (overlap ? "true" : "false") +
                  ", prefetch_depth: " + std::to_string(depth) + ", bucket: " + bucket + "}\n",
              "uneven.yaml");
          const SearchSpace space = full_space(s.training);
          std::vector<std::vector<OperatorChoice>> choices;
          for (const Operator& op : s.model.operators) choices.push_back(enumerate_choices(space, op));
          for (int trial = 0; trial < 20; ++trial) {
            Plan plan = plan_of({}, steps);
            plan.micro_batch = 2;
            for (const auto& options : choices) {
              plan.operators.push_back(options[random() % options.size()]);
            }
            const double exact = peak_of(s, plan);
            EXPECT_GE(search_bound(s, plan), exact * (1 - 1e-12))
                << "steps " << steps << " overlap " << overlap << " depth " << depth << " bucket " << bucket;
            ++checked;
          }
        }
      }
    }
  }
  EXPECT_EQ(checked, 640);
}

}  // namespace
}  // namespace shardscope
