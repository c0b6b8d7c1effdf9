// The GPU readings' inputs refused with their file and field: an emulated run that is not one rank of the
// scenario, a PyTorch step that failed or lacks a field, a product-shape fit without enough products; and a
// fitted product-shape calibration written and read back unchanged.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "planner/core/error.hpp"
#include "planner/io/calibration_parser.hpp"
#include "planner/io/cluster_presets.hpp"
#include "planner/io/scenario_parser.hpp"
#include "tests/fit/fit_test_support.hpp"
#include "validate/fit/calibration_fit.hpp"
#include "validate/fit/calibration_writer.hpp"
#include "validate/fit/compare_predict.hpp"
#include "validate/fit/comparison.hpp"
#include "validate/fit/torch_step.hpp"
#include "validate/measurements/measurements.hpp"

namespace shardscope::fit {
namespace {

const std::string kSource = SHARDSCOPE_SOURCE_DIR;
const std::string kData = kSource + "/validate/data/h100";

using test::error_of;
using test::read_json;

std::string emulated_error(const nlohmann::json& run) {
  return error_of([&] {
    CompareInputs in;
    in.scenario_file = kSource + "/validate/scenarios/gpu-llama-7b-paro.yaml";
    in.scenario = load_scenario_file(in.scenario_file);
    in.measured = parse_measurements(run.dump(), "run.json");
    build_comparison(in, nullptr);
  });
}

// The recorded LLaMA-7B run (call 4) as executed: its "shardscope" iteration ran FSDP's plan, which the
// planner recommended while it priced its own plans on rings and FSDP on NCCL (issue 31).
nlohmann::json recorded_llama_run() {
  nlohmann::json run = read_json(kData + "/call-4/run-gpu-llama-7b-paro.json");
  for (auto& it : run["iterations"])
    if (it["strategy"] == "shardscope") it["strategy"] = "fsdp";
  return run;
}

// What the recorded "shardscope" iteration ran is FSDP's plan at micro-batch 6 x 2 (its digest matches
// FSDP's), not the plan the planner recommends now that it prices every strategy on NCCL: compared as
// shardscope, the record is refused for running another plan, with both digests.
TEST(EmulatedRuns, TheRecordedShardscopeIterationRanFsdpsPlan) {
  const nlohmann::json as_recorded = read_json(kData + "/call-4/run-gpu-llama-7b-paro.json");
  ASSERT_EQ(as_recorded["iterations"][0]["strategy"], "shardscope");
  const std::string refused = emulated_error(as_recorded);
  EXPECT_EQ(refused.rfind("iterations[0].plan_digest: ", 0), 0u) << refused;
  EXPECT_NE(refused.find("the run executed plan 3c24b95eae1f0154, but shardscope at micro-batch 6"),
            std::string::npos)
      << refused;
  EXPECT_EQ(emulated_error(recorded_llama_run()), "no error");
}

TEST(EmulatedRuns, AnEmulatedRunMustBeOneRankOfTheScenario) {
  const nlohmann::json run = recorded_llama_run();
  EXPECT_EQ(emulated_error(run), "no error");
  nlohmann::json outside = run;
  outside["machine"]["emulated_rank"] = 32;
  const std::string rank = emulated_error(outside);
  EXPECT_EQ(rank.rfind("machine.emulated_rank: ", 0), 0u) << rank;
  EXPECT_NE(rank.find("one rank of"), std::string::npos) << rank;
  nlohmann::json two = run;
  two["machine"]["ranks"] = 2;
  EXPECT_EQ(emulated_error(two).rfind("machine.ranks: ", 0), 0u) << emulated_error(two);
  nlohmann::json unnamed = run;
  unnamed["machine"].erase("emulated_rank");
  const std::string missing = emulated_error(unnamed);
  EXPECT_EQ(missing.rfind("machine.emulated_rank: ", 0), 0u) << missing;
  EXPECT_NE(missing.find("cuda-emulated"), std::string::npos) << missing;
}

// Issue 30, 21: a strategy measured twice is refused (one row per strategy), and a section with nothing to
// compare prints "-" rather than a 0.00 % MAPE beside +inf %.
TEST(EmulatedRuns, AStrategyMeasuredTwiceIsRefusedAndEmptySectionsPrintNoError) {
  nlohmann::json run = recorded_llama_run();
  run["iterations"].push_back(run["iterations"][0]);
  const std::string twice = emulated_error(run);
  EXPECT_EQ(twice.rfind("iterations[3].strategy: ", 0), 0u) << twice;
  EXPECT_NE(twice.find("fsdp is measured twice (also iterations[0])"), std::string::npos) << twice;
  Comparison c;
  c.scenario = "s";
  ComparisonSection empty{
      "operators", "s", {ComparedRow{"ddp", "x", 0.0, std::nullopt, std::nullopt}}, {}, {}};
  c.sections = {empty};
  finish_comparison(c);
  const std::string md = comparison_markdown(c);
  EXPECT_NE(md.find("| operators | - | - | - | - | - | - | 0 |"), std::string::npos) << md;
  EXPECT_EQ(md.find("inf"), std::string::npos) << md;
}

std::string step_error(const nlohmann::json& step) {
  return error_of([&] { parse_torch_step(step.dump(2), "torch.json"); });
}

TEST(TorchSteps, AFailedOrIncompleteStepIsRefusedNamingTheField) {
  const nlohmann::json step = read_json(kData + "/torch-llama-7b-x8-mb6-none.json");
  EXPECT_EQ(step_error(step), "no error");
  nlohmann::json failed = step;
  failed["error"] = "out of memory: CUDA out of memory";
  const std::string oom = step_error(failed);
  EXPECT_EQ(oom.rfind("error: ", 0), 0u) << oom;
  EXPECT_NE(oom.find("the case failed on the GPU: out of memory"), std::string::npos) << oom;
  nlohmann::json no_time = step;
  no_time.erase("step_seconds_median");
  EXPECT_EQ(step_error(no_time).rfind("step_seconds_median: ", 0), 0u) << step_error(no_time);
  nlohmann::json zero = step;
  zero["memory"]["max_reserved_bytes"] = 0;
  EXPECT_EQ(step_error(zero).rfind("memory.max_reserved_bytes: ", 0), 0u) << step_error(zero);
  nlohmann::json framework = step;
  framework["framework"] = "deepspeed";
  EXPECT_EQ(step_error(framework).rfind("framework: ", 0), 0u) << step_error(framework);
  nlohmann::json spec = step;
  spec["spec"].erase("vocab");
  EXPECT_EQ(step_error(spec).rfind("spec.vocab: ", 0), 0u) << step_error(spec);
  const std::string text = error_of([] { parse_torch_step("{\"case\": ", "torch.json"); });
  EXPECT_NE(text.find("malformed JSON"), std::string::npos) << text;
}

TEST(TorchSteps, TheStepBecomesAOneGpuScenarioOfTheSameModel) {
  const TorchStep step = load_torch_step(kData + "/torch-llama-7b-x8-mb6-full.json");
  const Scenario s = torch_step_scenario(step, kData + "/cluster.yaml");
  EXPECT_EQ(s.cluster.gpus(), 1);
  EXPECT_EQ(s.training.checkpointing, CheckpointPolicy::all);
  EXPECT_EQ(s.model.parameters(), 1881214976);  // what PyTorch counted (torch JSON: parameters)
  EXPECT_EQ(read_json(kData + "/torch-llama-7b-x8-mb6-full.json")["parameters"].get<std::int64_t>(),
            s.model.parameters());
}

TEST(ProductShapeFit, TooFewProductsAreRefusedAndAFitReadsBackUnchanged) {
  std::vector<Measurements> files = {load_measurements_file(kData + "/gemms-gpu-llama-7b-paro.json")};
  const Cluster cluster = load_cluster(kData + "/cluster.yaml");
  FitOptions options;
  options.product_shapes = true;
  std::vector<Measurements> few = files;
  few.front().gemms.resize(3);
  const std::string refused = error_of([&] {
    FitResult r;
    fit_product_shapes(few, cluster, options, r);
  });
  EXPECT_EQ(refused.rfind("product_shapes: ", 0), 0u) << refused;
  EXPECT_NE(refused.find("too few GEMM points"), std::string::npos) << refused;
  FitResult fitted;
  fit_compute(files, cluster, options, fitted);
  ASSERT_TRUE(fitted.calibration.product_shapes);
  const Calibration back = parse_calibration_string(calibration_yaml(fitted.calibration, "test"), "c.yaml");
  ASSERT_TRUE(back.product_shapes);
  EXPECT_EQ(back.product_shapes->half_rate_flops, fitted.calibration.product_shapes->half_rate_flops);
  EXPECT_EQ(back.product_shapes->operand_bytes_per_second,
            fitted.calibration.product_shapes->operand_bytes_per_second);
  EXPECT_EQ(back.product_shapes->misaligned_fraction, fitted.calibration.product_shapes->misaligned_fraction);
  EXPECT_EQ(back.elementwise_bytes_per_second, fitted.calibration.elementwise_bytes_per_second);
  for (std::size_t k = 0; k < back.achievable_fraction.size(); ++k)
    EXPECT_EQ(back.achievable_fraction[k], fitted.calibration.achievable_fraction[k]);
}

}  // namespace
}  // namespace shardscope::fit
