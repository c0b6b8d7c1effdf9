// Pipeline parallelism: the schedules' formulas by hand, a stage's in-flight activations in the search's and
// the program's memory, the exact cut against every cut, one stage against the plain plan, and the refusals.
#include "planner/core/pipeline.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "planner/core/error.hpp"
#include "planner/core/scenario.hpp"
#include "planner/core/scenario_check.hpp"
#include "planner/cost/topology_cost.hpp"
#include "planner/io/scenario_overrides.hpp"
#include "planner/io/scenario_parser.hpp"
#include "planner/program/iteration_program.hpp"
#include "planner/program/memory_peak.hpp"
#include "planner/report/mesh_search.hpp"
#include "planner/report/pipeline_search.hpp"
#include "planner/search/plan_evaluation.hpp"

namespace shardscope {
namespace {

TEST(Pipeline, InFlightMicroBatchesPerSchedule) {
  // GPipe keeps every micro-batch; 1F1B stage r keeps p - r (at most m).
  EXPECT_EQ(in_flight_micro_batches(PipelineSchedule::gpipe, 4, 1, 0, 8), 8);
  EXPECT_EQ(in_flight_micro_batches(PipelineSchedule::gpipe, 4, 1, 3, 8), 8);
  EXPECT_EQ(in_flight_micro_batches(PipelineSchedule::one_f_one_b, 4, 1, 0, 8), 4);
  EXPECT_EQ(in_flight_micro_batches(PipelineSchedule::one_f_one_b, 4, 1, 3, 8), 1);
  EXPECT_EQ(in_flight_micro_batches(PipelineSchedule::one_f_one_b, 4, 1, 0, 2), 2);
  // Interleaved, p 4, v 2: stage 0 runs 2 x 3 + 1 x 4 = 10 chunks forward before its first backward, holds
  // 11 chunks = 5.5 stages' worth; stage 3: 0 + 4 + 1 = 5 chunks = 2.5. Korthikanti's p (1 + (p-1)/(pv)):
  // 4 x (1 + 3/8) = 5.5 for stage 0.
  EXPECT_DOUBLE_EQ(in_flight_micro_batches(PipelineSchedule::interleaved, 4, 2, 0, 8), 5.5);
  EXPECT_DOUBLE_EQ(in_flight_micro_batches(PipelineSchedule::interleaved, 4, 2, 3, 8), 2.5);
  // At most every chunk of every micro-batch: m v = 4 chunks = 2 stages' worth.
  EXPECT_DOUBLE_EQ(in_flight_micro_batches(PipelineSchedule::interleaved, 4, 2, 0, 2), 2.0);
}

TEST(Pipeline, BubbleAndSends) {
  EXPECT_DOUBLE_EQ(bubble_fraction(PipelineSchedule::one_f_one_b, 4, 1, 8), 3.0 / 8);
  EXPECT_DOUBLE_EQ(bubble_fraction(PipelineSchedule::gpipe, 4, 1, 8), 3.0 / 8);
  EXPECT_DOUBLE_EQ(bubble_fraction(PipelineSchedule::interleaved, 4, 2, 8), 3.0 / 16);
  // First stage: forward sends only; last: backward only; between: both; per model chunk interleaved.
  EXPECT_EQ(boundary_sends_per_micro_batch(4, 1, 0), 1);
  EXPECT_EQ(boundary_sends_per_micro_batch(4, 1, 1), 2);
  EXPECT_EQ(boundary_sends_per_micro_batch(4, 1, 3), 1);
  EXPECT_EQ(boundary_sends_per_micro_batch(4, 2, 0), 3);
  EXPECT_EQ(boundary_sends_per_micro_batch(4, 2, 2), 4);
  EXPECT_EQ(boundary_sends_per_micro_batch(1, 1, 0), 0);
}

TEST(Pipeline, IterationOfUniformStagesIsTheTextbooks) {
  const std::vector<StageTiming> uniform(4, StageTiming{0.5, 0});
  // (m + p - 1) t for 1F1B and GPipe, (m + (p - 1) / v) t interleaved.
  EXPECT_DOUBLE_EQ(pipeline_iteration_seconds(PipelineSchedule::one_f_one_b, 1, 8, uniform, 0), 11 * 0.5);
  EXPECT_DOUBLE_EQ(pipeline_iteration_seconds(PipelineSchedule::gpipe, 1, 8, uniform, 0), 11 * 0.5);
  EXPECT_DOUBLE_EQ(pipeline_iteration_seconds(PipelineSchedule::interleaved, 2, 8, uniform, 0), 9.5 * 0.5);
  // By hand, uneven: steps 1, 2, 1.5 s, tails 0.1, 0.3, 0.2 s, sends 0.01 s, m 4. The first micro-batch:
  // 4.5 s of steps + 4 sends; then 3 steps of the slowest with its 2 sends (2.02 s); the longest tail.
  const std::vector<StageTiming> uneven{{1, 0.1}, {2, 0.3}, {1.5, 0.2}};
  EXPECT_DOUBLE_EQ(pipeline_iteration_seconds(PipelineSchedule::one_f_one_b, 1, 4, uneven, 0.01),
                   4.5 + 0.04 + 3 * 2.02 + 0.3);
  // One stage: m steps and the tail, the plain iteration.
  EXPECT_DOUBLE_EQ(pipeline_iteration_seconds(PipelineSchedule::one_f_one_b, 1, 5, {{0.2, 0.05}}, 0.01),
                   5 * 0.2 + 0.05);
}

// A 6-layer model small enough to plan every cut of it, on three DGX-A100 nodes.
Scenario small_pipeline(const std::string& pipeline) {
  return parse_scenario_string(
      "model:\n  transformer: {layers: 6, hidden: 2048, heads: 16, vocab: 32000, sequence_length: 2048, "
      "mlp: gated, norm: rmsnorm, positions: rotary}\n"
      "cluster: {preset: dgx-a100, nodes: 3}\n"
      "training: {micro_batch: 2, gradient_accumulation_steps: 6, memory_limit: 20GB}\n"
      "parallelism: {" +
      pipeline + "}\n");
}

TEST(Pipeline, TheCutIsTheBestOfEveryCut) {
  const Scenario whole = small_pipeline("pipeline: 3");
  const PipelineSearch search = search_pipelines(whole, Calibration{});
  ASSERT_EQ(search.options.size(), 1u);
  const PipelineOption& found = search.options[0];
  ASSERT_TRUE(found.fits);
  const auto slowest = [](const PipelineOption& o) {
    double out = 0;
    for (const PipelineStagePlan& s : o.stage_plans) out = std::max(out, s.timing.step_seconds);
    return o.fits ? out : 1e300;
  };
  double best = 1e300;
  for (int a = 1; a <= 4; ++a) {
    for (int b = 1; a + b <= 5; ++b) {
      const PipelineOption o =
          pipeline_for_cut(whole, 3, TensorSlice{}, found.micro_batch, {a, b, 6 - a - b}, Calibration{});
      best = std::min(best, slowest(o));
    }
  }
  EXPECT_DOUBLE_EQ(slowest(found), best);
}

TEST(Pipeline, TheCutOfLayersOfDifferentWidthsIsTheBestOfEveryCut) {
  // Per-layer widths: the dynamic program over (stage, first layer), not the threshold bisection.
  const Scenario whole = parse_scenario_string(
      "model:\n  transformer: {layers: 6, layer_hidden: [1024, 2048, 1024, 2048, 1536, 1024], "
      "heads: 16, vocab: 32000, sequence_length: 2048, mlp: gated, norm: rmsnorm, positions: rotary}\n"
      "cluster: {preset: dgx-a100, nodes: 3}\n"
      "training: {micro_batch: 2, gradient_accumulation_steps: 6, memory_limit: 20GB}\n"
      "parallelism: {pipeline: 3}\n");
  const PipelineSearch search = search_pipelines(whole, Calibration{});
  ASSERT_TRUE(search.any_fits());
  const auto slowest = [](const PipelineOption& o) {
    double out = 0;
    for (const PipelineStagePlan& s : o.stage_plans) out = std::max(out, s.timing.step_seconds);
    return o.fits ? out : 1e300;
  };
  double best = 1e300;
  for (int a = 1; a <= 4; ++a)
    for (int b = 1; a + b <= 5; ++b)
      best = std::min(
          best, slowest(pipeline_for_cut(whole, 3, TensorSlice{}, 2, {a, b, 6 - a - b}, Calibration{})));
  EXPECT_DOUBLE_EQ(slowest(search.options[0]), best);
}

TEST(Pipeline, TheScanPicksTheFastestMicroBatchItPrunes) {
  Scenario scanned = small_pipeline("pipeline: 3");
  scanned.training.micro_batch = 0;
  scanned.training.max_micro_batch = 6;
  const PipelineSearch search = search_pipelines(scanned, Calibration{});
  ASSERT_TRUE(search.any_fits());
  double fastest = 0;
  for (std::int64_t b = 1; b <= 6; ++b) {  // one micro-batch each: nothing to prune against
    Scenario fixed = scanned;
    fixed.training.micro_batch = b;
    const PipelineOption o = search_pipelines(fixed, Calibration{}).options[0];
    if (o.fits) fastest = std::max(fastest, o.tokens_per_second);
  }
  EXPECT_DOUBLE_EQ(search.options[0].tokens_per_second, fastest);
}

TEST(Pipeline, AStageKeepsItsInFlightActivationsInSearchAndProgram) {
  const Scenario whole = small_pipeline("pipeline: 3");
  const PipelineOption o = pipeline_for_cut(whole, 3, TensorSlice{}, 2, {2, 2, 2}, Calibration{});
  ASSERT_TRUE(o.fits);
  const PipelineStagePlan& first = o.stage_plans[0];
  EXPECT_EQ(first.in_flight_micro_batches, 3);  // 1F1B: p - 0
  const ValidScenario& stage = *first.scenario;
  // The same stage holding one micro-batch: the search's activations are a third, the program's peak lower
  // by two micro-batches' kept activations.
  Scenario single = stage.scenario();
  single.mesh.pipeline.in_flight_micro_batches = 1;
  const ValidScenario one(single);
  const TopologyCostModel three_model(stage, Calibration{});
  const TopologyCostModel one_model(one, Calibration{});
  const Plan& plan = first.plan.plan;
  double kept = 0;
  for (std::size_t i = 0; i < plan.operators.size(); ++i) {
    const double three = three_model.memory(i, plan.operators[i], plan.micro_batch).activation_bytes;
    const double single_bytes = one_model.memory(i, plan.operators[i], plan.micro_batch).activation_bytes;
    EXPECT_DOUBLE_EQ(three, 3 * single_bytes);
    kept += single_bytes;
  }
  ASSERT_GT(kept, 0);
  const double peak_three = scheduled_plan(stage, Calibration{}, plan).peak_bytes;
  const double peak_one = scheduled_plan(one, Calibration{}, plan).peak_bytes;
  EXPECT_NEAR(peak_three - peak_one, 2 * kept, 1e-6 * kept);
  EXPECT_DOUBLE_EQ(plan.predicted.peak_memory_bytes, peak_three);
}

// Every shipped scenario with a generated transformer: one stage is the plain plan of its mesh (of each mesh
// it searches), to the rounding of m steps plus a tail.
TEST(Pipeline, OneStageIsThePlainPlanOnEveryShippedScenario) {
  int compared = 0;
  std::vector<std::string> files;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(SHARDSCOPE_SOURCE_DIR) + "/scenarios"))
    if (entry.path().extension() == ".yaml") files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 9u);
  for (const std::string& file : files) {
    SCOPED_TRACE(file);
    const Scenario loaded = load_scenario_file(file);
    if (!loaded.transformer || loaded.planner.cost_model != CostModelKind::topology) continue;
    PlanRequest request;
    request.with_baselines = false;
    struct Plain {
      TensorSlice slice;
      StrategyResult best;
    };
    std::vector<Plain> plain;
    if (loaded.parallelism.search()) {
      for (const MeshOption& m : search_meshes(loaded, Calibration{}, request).options)
        plain.push_back({m.slice, m.report.best});
    } else {
      plain.push_back(
          {loaded.mesh.tensor, plan_scenario(ValidScenario(loaded), Calibration{}, request).best});
    }
    // Pipelined, the scenario is not sliced at parse (the pipeline search slices it per stage), as `plan
    // --pp` reads it.
    Scenario whole = load_scenario_with_overrides(file, {parse_set_argument("parallelism.pipeline=search")});
    ASSERT_FALSE(whole.mesh.sliced());
    whole.parallelism.pipeline = 1;
    for (const Plain& p : plain) {
      if (!p.best.fits) continue;
      // At the plain plan's micro-batch (the plain search picks it by its separable objective, the pipeline
      // search by the composed prediction).
      const PipelineOption o = pipeline_for_cut(whole, 1, p.slice, p.best.plan.micro_batch,
                                                {whole.transformer->layers}, Calibration{}, request);
      ASSERT_TRUE(o.fits);
      const double expected = p.best.plan.predicted.tokens_per_second;
      EXPECT_NEAR(o.tokens_per_second, expected, 1e-9 * expected);
      EXPECT_DOUBLE_EQ(o.peak_bytes, p.best.plan.predicted.peak_memory_bytes);
      ++compared;
    }
  }
  EXPECT_GE(compared, 10);
}

TEST(Pipeline, RefusesWhatItCannotBuildWithTheRule) {
  const auto refused = [](const std::string& pipeline) {
    try {
      search_pipelines(small_pipeline(pipeline), Calibration{});
    } catch (const MeshError& e) {
      EXPECT_EQ(e.field(), "parallelism.pipeline");
      return std::string(e.what());
    }
    return std::string("built");
  };
  EXPECT_NE(refused("pipeline: 2").find("2 pipeline stages neither divide the 3 node(s)"), std::string::npos);
  // 6 micro-batches run 1F1B on 3 stages; 2 micro-batches do not (a refusal per micro-batch, not a mesh's).
  EXPECT_NE(refused("pipeline: 3, pipeline_schedule: interleaved, virtual_stages: 4")
                .find("6 layers are fewer than 12 model chunks"),
            std::string::npos);
  // Interleaved chunks as even as they go: 6 layers in 4 chunks of 2, 2, 1, 1; chunk k on stage k mod 2.
  const std::vector<LayerRange> first = interleaved_chunks(6, 2, 2, 0);
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(first[0].first, 0);
  EXPECT_EQ(first[0].layers, 2);
  EXPECT_EQ(first[1].first, 4);
  EXPECT_EQ(first[1].layers, 1);
  EXPECT_EQ(interleaved_chunks(6, 2, 2, 1)[0].first, 2);
  EXPECT_EQ(interleaved_chunks(6, 2, 2, 1)[1].first, 5);
  // Too few micro-batches for 1F1B: the pipeline is built but nothing runs.
  Scenario few = small_pipeline("pipeline: 3");
  few.training.gradient_accumulation_steps = 2;
  const PipelineSearch search = search_pipelines(few, Calibration{});
  ASSERT_FALSE(search.any_fits());
  EXPECT_NE(search.options[0].why_not.find("2 micro-batches per iteration are fewer than the 3 stages 1f1b"),
            std::string::npos);
  // A list of operators has no layers to cut.
  Scenario listed = parse_scenario_string(
      "model: {operators: [{name: a, kind: mlp, parameters: 1000, forward_flops_per_sample: 1e6}]}\n"
      "cluster: {preset: dgx-a100, nodes: 2}\nparallelism: {pipeline: 2}\n");
  EXPECT_THROW(search_pipelines(listed, Calibration{}), MeshError);
}

TEST(Pipeline, TheScenarioNamesAScheduleItCannotTakeAndOtherCommandsRefuse) {
  const auto error_field = [](const std::string& pipeline) {
    try {
      small_pipeline(pipeline);
    } catch (const InputError& e) {
      return e.field() + " at line " + std::to_string(e.line());
    }
    return std::string("parsed");
  };
  EXPECT_EQ(error_field("pipeline: 3, pipeline_schedule: interleaved"),
            "parallelism.virtual_stages at line 5");
  EXPECT_EQ(error_field("pipeline: 3, virtual_stages: 2"), "parallelism.virtual_stages at line 5");
  EXPECT_EQ(error_field("pipeline: 3, pipeline_schedule: zigzag"), "parallelism.pipeline_schedule at line 5");
  EXPECT_EQ(error_field("pipeline: 0"), "parallelism.pipeline at line 5");
  EXPECT_EQ(error_field("pipeline: search"), "parsed");
  // Every entry point but the pipeline search takes a ValidScenario, which refuses a pipelined scenario.
  try {
    ValidScenario{small_pipeline("pipeline: 3")};
    FAIL() << "a pipelined scenario was taken";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "parallelism.pipeline");
    EXPECT_NE(std::string(e.what()).find(
                  "planned by `shardscope plan` and simulated by `shardscope simulate` only"),
              std::string::npos);
  }
}

}  // namespace
}  // namespace shardscope
