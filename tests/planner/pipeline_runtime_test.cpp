// A pipeline stage under a runtime that keeps parameters and gradients whole through the step (FSDP2 under
// PyTorch's pipeline stages, DeepSpeed's pipeline engine): its plans shard optimizer states only, its
// gradients are held in the reduce dtype, and a plan that shards more is refused naming the field.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "planner/core/error.hpp"
#include "planner/core/model_states.hpp"
#include "planner/cost/topology_cost.hpp"
#include "planner/io/runtime_profiles.hpp"
#include "planner/io/scenario_parser.hpp"
#include "planner/report/pipeline_search.hpp"
#include "planner/report/pipeline_trace.hpp"
#include "planner/search/plan_check.hpp"
#include "planner/search/plan_evaluation.hpp"
#include "planner/search/planner.hpp"
#include "planner/search/search_space.hpp"

namespace shardscope {
namespace {

// Six layers on three DGX-A100 nodes, tight enough that a stage shards something, under `runtime`.
Scenario staged(const std::string& runtime) {
  return parse_scenario_string(
      "model:\n  transformer: {layers: 6, hidden: 4096, heads: 32, vocab: 32000, sequence_length: 2048, "
      "mlp: gated, norm: rmsnorm, positions: rotary}\n"
      "cluster: {preset: dgx-a100, nodes: 3}\n"
      "training: {micro_batch: 1, gradient_accumulation_steps: 6, memory_limit: 12GB}\n"
      "execution: {runtime: " +
      runtime + ", reduce_dtype: fp32}\nparallelism: {pipeline: 3}\n");
}

const PipelineOption& only_option(const PipelineSearch& search) {
  EXPECT_EQ(search.options.size(), 1u);
  return search.options.at(0);
}

bool shards_parameters_or_gradients(const Plan& plan) {
  for (const OperatorChoice& c : plan.operators) {
    const bool sharded = c.sharded_slices > 0;
    if (sharded && (c.scopes.parameters != ShardScope::N || c.scopes.gradients != ShardScope::N)) return true;
  }
  return false;
}

TEST(PipelineRuntime, ProfilesSayWhichKeepParametersAndGradientsWhole) {
  EXPECT_TRUE(runtime_profile(RuntimeName::fsdp2).pipeline_shards_optimizer_only);
  EXPECT_TRUE(runtime_profile(RuntimeName::deepspeed).pipeline_shards_optimizer_only);
  EXPECT_FALSE(runtime_profile(RuntimeName::fsdp1).pipeline_shards_optimizer_only);
  EXPECT_FALSE(runtime_profile(RuntimeName::ideal).pipeline_shards_optimizer_only);
  // Unpipelined, the key changes nothing: the product's space is every PaRO scope.
  const Scenario whole = staged("fsdp2");
  EXPECT_FALSE(stage_shards_optimizer_only(whole));
}

TEST(PipelineRuntime, Fsdp2StagesShardOptimizerStatesOnlyWhereFsdp1StagesShardMore) {
  const PipelineOption fsdp2 = only_option(search_pipelines(staged("fsdp2"), Calibration{}));
  const PipelineOption fsdp1 = only_option(search_pipelines(staged("fsdp1"), Calibration{}));
  ASSERT_TRUE(fsdp2.fits) << fsdp2.why_not;
  ASSERT_TRUE(fsdp1.fits) << fsdp1.why_not;
  bool fsdp1_shards = false;
  for (std::size_t r = 0; r < fsdp2.stage_plans.size(); ++r) {
    const ValidScenario& stage = *fsdp2.stage_plans[r].scenario;
    EXPECT_TRUE(stage_shards_optimizer_only(stage.scenario()));
    const SearchSpace space = product_space(stage.scenario());
    EXPECT_EQ(space.scopes.size(), 3u);  // NNN, NNI, NNG
    for (const Scopes& s : space.scopes) EXPECT_EQ(s.name().substr(0, 2), "NN");
    EXPECT_FALSE(shards_parameters_or_gradients(fsdp2.stage_plans[r].plan.plan)) << "stage " << r;
    EXPECT_EQ(product_space(fsdp1.stage_plans[r].scenario->scenario()).scopes.size(), paro_scopes().size());
    fsdp1_shards = fsdp1_shards || shards_parameters_or_gradients(fsdp1.stage_plans[r].plan.plan);
  }
  EXPECT_TRUE(fsdp1_shards);  // the scenario is tight enough to tell the two apart
  EXPECT_GT(fsdp2.peak_bytes, fsdp1.peak_bytes);
}

TEST(PipelineRuntime, AStageHoldsWholeParametersAndReduceDtypeGradientsByHand) {
  const PipelineOption o = only_option(search_pipelines(staged("fsdp2"), Calibration{}));
  ASSERT_TRUE(o.fits);
  const ValidScenario& stage = *o.stage_plans[1].scenario;
  const TopologyCostModel model(stage, Calibration{});
  // A middle layer's operator as ZeRO-1 (NNG): 2 bytes of bf16 parameters, 4 of fp32 gradients (held in
  // reduce_dtype), 12 of Adam's states and master copy over the stage's 8 data-parallel GPUs, per parameter.
  const Model& m = stage.scenario().model;
  std::size_t index = 0;
  while (m.operators[index].parameters == 0) ++index;
  const double psi = static_cast<double>(m.operators[index].parameters);
  const OperatorChoice nng{
      m.operators[index].name, Scopes{ShardScope::N, ShardScope::N, ShardScope::G}, false, 1, 1, false};
  const MemoryBreakdown bytes = model.memory(index, nng, 1);
  ASSERT_EQ(stage.scenario().cluster.gpus(), 8);
  EXPECT_DOUBLE_EQ(bytes.parameter_bytes, 2 * psi);
  EXPECT_DOUBLE_EQ(bytes.gradient_bytes, 4 * psi);
  EXPECT_DOUBLE_EQ(bytes.optimizer_bytes, 12 * psi / 8);
}

TEST(PipelineRuntime, AStagePlanThatShardsParametersIsRefusedNamingTheField) {
  const PipelineOption o = only_option(search_pipelines(staged("fsdp2"), Calibration{}));
  ASSERT_TRUE(o.fits);
  const PipelineStagePlan& stage = o.stage_plans[0];
  Plan plan = stage.plan.plan;
  plan.operators[1].scopes = Scopes{ShardScope::G, ShardScope::G, ShardScope::G};
  plan.operators[1].sharded_slices = plan.operators[1].slices;
  try {
    check_plan_configuration(plan, stage.scenario->scenario(), Calibration{});
    FAIL() << "a GGG operator in an FSDP2 pipeline stage was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "plan.operators[1].p_scope");
    EXPECT_NE(e.message().find("only the optimizer states shard"), std::string::npos) << e.message();
  }
  plan.operators[1].scopes = Scopes{ShardScope::N, ShardScope::I, ShardScope::G};
  try {
    check_plan_configuration(plan, stage.scenario->scenario(), Calibration{});
    FAIL() << "an NIG operator in an FSDP2 pipeline stage was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "plan.operators[1].g_scope");
  }
}

// PyTorch's stage keeps its receive buffers all iteration (fsdp2, fsdp1), DeepSpeed's engine as many as its
// micro-batches in flight (already counted): each fsdp2 stage's scenario carries them, b x s x h x 2 bytes
// each, and its plan's peak is exactly that much above the same plan without them.
TEST(PipelineRuntime, PyTorchStagesHoldTheirReceiveBuffers) {
  EXPECT_TRUE(runtime_profile(RuntimeName::fsdp2).pipeline_keeps_receive_buffers);
  EXPECT_TRUE(runtime_profile(RuntimeName::fsdp1).pipeline_keeps_receive_buffers);
  EXPECT_FALSE(runtime_profile(RuntimeName::deepspeed).pipeline_keeps_receive_buffers);
  EXPECT_FALSE(runtime_profile(RuntimeName::ideal).pipeline_keeps_receive_buffers);
  const double tensor = 1.0 * 2048 * 4096 * 2;  // micro-batch 1, 2,048 tokens, hidden 4,096, bf16
  const PipelineOption fsdp2 = only_option(search_pipelines(staged("fsdp2"), Calibration{}));
  ASSERT_TRUE(fsdp2.fits) << fsdp2.why_not;
  for (int r = 0; r < 3; ++r) {
    const PipelineStagePlan& s = fsdp2.stage_plans[static_cast<std::size_t>(r)];
    const double expected =
        tensor * receive_buffers_beyond_activations(PipelineSchedule::one_f_one_b, 3, 1, r, 6);
    EXPECT_DOUBLE_EQ(s.scenario->scenario().mesh.pipeline.receive_buffer_bytes, expected) << r;
    Scenario without = s.scenario->scenario();
    without.mesh.pipeline.receive_buffer_bytes = 0;
    const double peak = scheduled_plan(*s.scenario, Calibration{}, s.plan.plan).peak_bytes;
    const double peak_without =
        scheduled_plan(ValidScenario(std::move(without)), Calibration{}, s.plan.plan).peak_bytes;
    EXPECT_NEAR(peak - peak_without, expected, 1e-6 * expected) << r;
  }
  const PipelineOption deepspeed = only_option(search_pipelines(staged("deepspeed"), Calibration{}));
  for (const PipelineStagePlan& s : deepspeed.stage_plans)
    EXPECT_EQ(s.scenario->scenario().mesh.pipeline.receive_buffer_bytes, 0);
}

// The trace's events are counted before it is built (the CLI and the GUI refuse one too large first), under
// 1F1B and interleaved alike, and the run it draws is the option's.
TEST(PipelineRuntime, ATracesEventsAreCountedBeforeItIsBuilt) {
  for (const bool interleaved : {false, true}) {
    Scenario s = staged("fsdp2");
    if (interleaved) {
      s.parallelism.schedule = PipelineSchedule::interleaved;
      s.parallelism.virtual_stages = 2;
    }
    const PipelineSearch search = search_pipelines(s, Calibration{});
    const PipelineOption& option = only_option(search);
    ASSERT_TRUE(option.fits) << option.why_not;
    const nlohmann::json trace = nlohmann::json::parse(pipeline_trace_json(search, option));
    EXPECT_EQ(static_cast<std::int64_t>(trace.at("traceEvents").size()),
              pipeline_trace_events(search, option));
    EXPECT_DOUBLE_EQ(trace.at("otherData").at("iteration_seconds").get<double>(), option.iteration_seconds);
    EXPECT_EQ(pipeline_trace_refusal(search, option), "");
  }
  PipelineSearch search = search_pipelines(staged("fsdp2"), Calibration{});
  PipelineOption option = only_option(search);
  option.micro_batches = 40000;  // 3 x (4 + 80,000) + 40,000 x 4 events
  EXPECT_EQ(pipeline_trace_events(search, option), 3 * (4 + 80000) + 40000 * 4);
  EXPECT_NE(pipeline_trace_refusal(search, option).find("over the 250.00 K a trace holds"), std::string::npos)
      << pipeline_trace_refusal(search, option);
  EXPECT_THROW(pipeline_trace_json(search, option), std::length_error);
}

// How a stage's sends occupy it is the runtime's: PyTorch's schedules post them and go on, DeepSpeed's engine
// waits for each; the pipeline's iteration is its run under that (schedule_pipeline), and a blocking send
// can only make it longer.
TEST(PipelineRuntime, ProfilesSayWhetherAStageWaitsForItsSends) {
  EXPECT_FALSE(runtime_profile(RuntimeName::fsdp2).pipeline_sends_block);
  EXPECT_FALSE(runtime_profile(RuntimeName::fsdp1).pipeline_sends_block);
  EXPECT_TRUE(runtime_profile(RuntimeName::deepspeed).pipeline_sends_block);
  EXPECT_FALSE(runtime_profile(RuntimeName::ideal).pipeline_sends_block);
  const PipelineSearch search = search_pipelines(staged("deepspeed"), Calibration{});
  const PipelineOption& option = only_option(search);
  ASSERT_TRUE(option.fits) << option.why_not;
  ASSERT_GT(option.boundary_seconds(), 0);
  std::vector<StageDurations> durations;
  for (const PipelineStagePlan& s : option.stage_plans) {
    EXPECT_GT(s.timing.forward_seconds, 0);
    EXPECT_LT(s.timing.forward_seconds, s.timing.step_seconds);
    durations.push_back(
        {s.timing.forward_seconds, s.timing.step_seconds - s.timing.forward_seconds, s.timing.tail_seconds});
  }
  const double held = run_pipeline_schedule(search.schedule, 1, option.micro_batches, durations,
                                            option.boundary_seconds(), PipelineSends::blocking)
                          .iteration_seconds;
  const double posted =
      run_pipeline_schedule(search.schedule, 1, option.micro_batches, durations, option.boundary_seconds())
          .iteration_seconds;
  EXPECT_DOUBLE_EQ(option.iteration_seconds, held);
  EXPECT_GT(held, posted);
}

}  // namespace
}  // namespace shardscope
