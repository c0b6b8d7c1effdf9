// CLI tests: `inspect` output, `plan --out`, and bad input giving a non-zero exit with file:line: field (the
// exact outputs, JSON included, are the golden transcripts in tests/transcripts/).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "run_command.hpp"

namespace shardscope {
namespace {

const std::string kBinary = SHARDSCOPE_BINARY;
const std::string kSource = SHARDSCOPE_SOURCE_DIR;

using test::read_file;
using test::write_temp;

TEST(Cli, InspectPrintsModelClusterAndStates) {
  const auto r = test::run_command(kBinary + " inspect " + kSource + "/scenarios/default.yaml");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("98 operators"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("pcie-cross-socket"), std::string::npos) << r.out;
  // The model-state table lists the classic stages under their registry names.
  for (const char* name : {"ddp", "zero-1", "zero-2", "fsdp"}) {
    EXPECT_NE(r.out.find(std::string("\n  ") + name + " "), std::string::npos) << name << "\n" << r.out;
  }
}

// inspect names the runtime profile and its file, and under a framework's profile the host time, the reserve
// and the kernel efficiencies it prices with, a calibration's fits applied.
TEST(Cli, InspectStatesTheRuntimeProfileItPricesWith) {
  const auto ideal = test::run_command(kBinary + " inspect " + kSource + "/scenarios/default.yaml");
  ASSERT_EQ(ideal.exit_code, 0) << ideal.err;
  EXPECT_NE(ideal.out.find("Runtime   ideal (scenarios/runtimes/ideal.yaml): an ideal executor"),
            std::string::npos);
  const std::string paro = kSource + "/scenarios/paro-llama-7b-32gpu.yaml";
  const auto fsdp1 = test::run_command(kBinary + " inspect " + paro + " --runtime fsdp1");
  ASSERT_EQ(fsdp1.exit_code, 0) << fsdp1.err;
  EXPECT_NE(fsdp1.out.find("Runtime   fsdp1 (scenarios/runtimes/fsdp1.yaml)"), std::string::npos)
      << fsdp1.out;
  EXPECT_NE(
      fsdp1.out.find("host 230.000 us forward, 460.000 us backward per operator at least; reserve 2.00 GiB"),
      std::string::npos)
      << fsdp1.out;
  const std::string calibration = ::testing::TempDir() + "runtime_fit.yaml";
  std::ofstream(calibration) << "runtime:\n  host_forward_per_operator: 100us\n  gemm_fraction: 0.5\n";
  const auto fitted = test::run_command(
      kBinary + " inspect " + paro + " --runtime fsdp2 --set planner.calibration=" + calibration + " --json");
  ASSERT_EQ(fitted.exit_code, 0) << fitted.err;
  const auto j = nlohmann::json::parse(fitted.out).at("runtime");
  EXPECT_EQ(j.at("name"), "fsdp2");
  EXPECT_DOUBLE_EQ(j.at("host_forward_seconds").get<double>(), 100e-6);
  EXPECT_DOUBLE_EQ(j.at("kernels").at("gemm_fraction").get<double>(), 0.5);
  std::remove(calibration.c_str());
}

// Under an unfused cross-entropy inspect says what the loss holds (4 bytes x 2048 tokens x 32000 = 250 MiB
// per sample for LLaMA-7B); under the default, fused, it says nothing.
TEST(Cli, InspectStatesAnUnfusedLossMemory) {
  const std::string paro = kSource + "/scenarios/paro-llama-7b-32gpu.yaml";
  const auto fused = test::run_command(kBinary + " inspect " + paro);
  ASSERT_EQ(fused.exit_code, 0) << fused.err;
  EXPECT_EQ(fused.out.find("Loss "), std::string::npos);
  const auto text =
      test::run_command(kBinary + " inspect " + paro + " --set execution.cross_entropy=pytorch");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(
      text.out.find("Loss      cross_entropy pytorch: the head's backward holds a second fp32 gradient of "
                    "the logits, 250.00 MiB per sample"),
      std::string::npos)
      << text.out;
  const auto json =
      test::run_command(kBinary + " inspect " + paro + " --set execution.cross_entropy=pytorch --json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto loss = nlohmann::json::parse(json.out).at("loss");
  EXPECT_EQ(loss.at("cross_entropy"), "pytorch");
  EXPECT_DOUBLE_EQ(loss.at("second_gradient_bytes_per_sample").get<double>(), 4.0 * 2048 * 32000);
}

// inspect says when the blocks are compiled, the linear products run in float8 and gradients are reduced
// in fp32, with the numbers it prices them by; by default it says none of it.
TEST(Cli, InspectStatesCompileFloatEightAndTheReduceDtype) {
  const std::string titan = kSource + "/validate/scenarios/gpu-llama3.1-8b-x4.yaml";
  const auto plain = test::run_command(kBinary + " inspect " + titan);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(plain.out.find("compiled (execution.compile)"), std::string::npos);
  EXPECT_EQ(plain.out.find("Gradients "), std::string::npos);
  const std::string options =
      " --set execution.compile=true --set execution.float8=delayed --set execution.reduce_dtype=fp32";
  const auto text = test::run_command(kBinary + " inspect " + titan + options);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(
      text.out.find("compiled (execution.compile): the blocks' element-wise kernels fused, 0.04 of their "
                    "eager time"),
      std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("float8 delayed (execution.float8): the blocks' linear products 1.8x faster than "
                          "bf16, casts fused"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("Gradients reduce_dtype fp32"), std::string::npos) << text.out;
  const auto json = test::run_command(kBinary + " inspect " + titan + options + " --json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j.at("reduce_dtype"), "fp32");
  EXPECT_DOUBLE_EQ(j.at("runtime").at("compiled_elementwise_share").get<double>(), 0.04);
  EXPECT_EQ(j.at("runtime").at("float8"), "delayed");
  EXPECT_DOUBLE_EQ(j.at("runtime").at("fp8_speedup").get<double>(), 1.8);
}

// Under a framework's runtime, inspect says where the products' rates come from: the GPU's kernels, or a
// calibration's measured product model (which then prices them, issue 31 item 3), and that element-wise
// kernels stay the framework's.
TEST(Cli, InspectStatesWhichProductModelARuntimePricesWith) {
  const std::string titan = kSource + "/validate/scenarios/gpu-llama3.1-8b-x4.yaml";
  const auto plain = test::run_command(kBinary + " inspect " + titan + " --json");
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(nlohmann::json::parse(plain.out).at("runtime").at("products"), "gpu-kernels");
  const std::string calibrated =
      " --set planner.calibration=" + kSource + "/validate/data/h100/calibration.yaml";
  const auto text = test::run_command(kBinary + " inspect " + titan + calibrated);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("products by the calibration's product_shapes (half rate at 2.51 B FLOPs"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("attention 0.7196, mlp 0.7382, head 0.7528, other kinds"), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("element-wise 0.316 of HBM (the framework's kernels; the calibration's "
                          "elementwise_bandwidth is the harness's own)"),
            std::string::npos)
      << text.out;
  const auto json = test::run_command(kBinary + " inspect " + titan + calibrated + " --json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(nlohmann::json::parse(json.out).at("runtime").at("products"), "product-shapes");
}

// The published-rows paths of reproduce and calibrate refuse what they cannot do, naming the option.
TEST(Cli, ReproduceAndPublishedCalibrationRefuseNamingTheOption) {
  const std::string file = kSource + "/validate/published/torchtitan-fsdp.yaml";
#ifdef SHARDSCOPE_HAVE_SIM
  const auto simulate = test::run_command(kBinary + " reproduce " + file + " --sim-max-gpus 0");
  EXPECT_EQ(simulate.exit_code, 2);
  EXPECT_NE(simulate.err.find("--sim-max-gpus"), std::string::npos) << simulate.err;
#else
  const auto simulate = test::run_command(kBinary + " reproduce " + file + " --simulate");
  EXPECT_EQ(simulate.exit_code, 2);
  EXPECT_NE(simulate.err.find("--simulate: this shardscope was built without the simulator"),
            std::string::npos)
      << simulate.err;
#endif
#ifdef SHARDSCOPE_HAVE_FIT
  const std::string out = " --out " + ::testing::TempDir() + "never_written.yaml";
  const auto mixed =
      test::run_command(kBinary + " calibrate --published " + file + " --cluster dgx-h100" + out);
  EXPECT_EQ(mixed.exit_code, 2);
  EXPECT_NE(mixed.err.find("--published: fits from published rows alone"), std::string::npos) << mixed.err;
  const auto runtime =
      test::run_command(kBinary + " calibrate --runtime fsdp1 --cluster dgx-h100 x.json" + out);
  EXPECT_EQ(runtime.exit_code, 2);
  EXPECT_NE(runtime.err.find("--runtime: applies to --published only"), std::string::npos) << runtime.err;
  const auto free = test::run_command(kBinary + " calibrate --free peak --cluster dgx-h100 x.json" + out);
  EXPECT_EQ(free.exit_code, 2);
  EXPECT_NE(free.err.find("--free: applies to --published only"), std::string::npos) << free.err;
  const auto free_kind =
      test::run_command(kBinary + " calibrate --published " + file + " --free clock" + out);
  EXPECT_EQ(free_kind.exit_code, 2);
  EXPECT_NE(free_kind.err.find("--free"), std::string::npos) << free_kind.err;
  const auto no_cluster = test::run_command(kBinary + " calibrate x.json" + out);
  EXPECT_EQ(no_cluster.exit_code, 2);
  EXPECT_NE(no_cluster.err.find("--cluster: expected the cluster preset"), std::string::npos)
      << no_cluster.err;
  EXPECT_FALSE(std::filesystem::exists(::testing::TempDir() + "never_written.yaml"));
#endif
}

#ifdef SHARDSCOPE_HAVE_FIT
// calibrate --published --free peak: one factor on the GPU's peak, printed as the effective peak; the
// calibration it writes moves only the products' and attention's fractions, and reproduce reads it.
TEST(Cli, CalibratePublishedFreePeakFitsOneFactorAndWritesACalibration) {
  const std::string file = kSource + "/validate/published/torchtitan-fsdp-a100-2024.yaml";
  const std::string out = ::testing::TempDir() + "peak-calibration.yaml";
  std::filesystem::remove(out);
  const auto fit =
      test::run_command(kBinary + " calibrate --published " + file + " --free peak --out " + out);
  ASSERT_EQ(fit.exit_code, 0) << fit.err;
  EXPECT_NE(fit.out.find("on the fractions of peak: an effective peak_fp16 of"), std::string::npos)
      << fit.out;
  EXPECT_EQ(fit.out.find("host_forward_per_operator"), std::string::npos) << fit.out;
  const std::string yaml = test::read_file(out);
  EXPECT_NE(yaml.find("gemm_fraction"), std::string::npos) << yaml;
  const auto scored = test::run_command(kBinary + " reproduce " + file + " --calibration " + out);
  EXPECT_EQ(scored.exit_code, 0) << scored.err;
  // Its held-out rows' errors travel with it: a plan priced with it states them as its uncertainty.
  EXPECT_NE(yaml.find("prediction_error:  # tokens/s per GPU on rows the fit never saw\n  rows: "),
            std::string::npos)
      << yaml;
  const auto planned = test::run_command(kBinary + " plan " + kSource +
                                         "/scenarios/default.yaml --no-baselines --quiet --json "
                                         "--set planner.calibration=" +
                                         out);
  ASSERT_EQ(planned.exit_code, 0) << planned.err;
  const auto u = nlohmann::json::parse(planned.out).at("uncertainty");
  EXPECT_EQ(u.at("basis"), "calibration");
  EXPECT_GT(u.at("calibration").at("rows").get<int>(), 0);
  EXPECT_NE(u.at("calibration")
                .at("scored_on")
                .get<std::string>()
                .find("held-out rows of " + file + " under fsdp2"),
            std::string::npos)
      << u;
  EXPECT_LT(u.at("tokens_per_second_low").get<double>(), u.at("tokens_per_second_high").get<double>());
}

// calibrate --kernels: kernels.py's measurement on one H100 (validate/data/h100/call-6) becomes runtime fits
// a plan prices with; misuse and a micro-batch the file lacks exit 2 with the reason, writing nothing.
TEST(Cli, CalibrateKernelsWritesRuntimeFitsThatAPlanPricesWith) {
  const std::string kernels = kSource + "/validate/data/h100/call-6/kernels-llama3.1-8b.json";
  const std::string out = ::testing::TempDir() + "kernels-calibration.yaml";
  std::filesystem::remove(out);
  const auto r = test::run_command(kBinary + " calibrate --kernels " + kernels +
                                   " --cluster dgx-h100 --attention " + "cudnn --micro-batch 2 --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("products 0.6906 of peak, cudnn attention 0.4995 forward / 0.4609 backward"),
            std::string::npos)
      << r.out;
  const std::string yaml = read_file(out);
  EXPECT_NE(yaml.find("runtime:\n  gemm_fraction: 0.6906"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("  attention_backward_fraction: 0.4609"), std::string::npos) << yaml;
  EXPECT_EQ(yaml.find("elementwise_fraction"), std::string::npos) << yaml;  // the cluster's stays
  const std::string scenario = kSource + "/validate/scenarios/gpu-llama3.1-8b-x4.yaml";
  const auto fitted = test::run_command(kBinary + " plan " + scenario + " --no-baselines --json");
  const auto measured = test::run_command(kBinary + " plan " + scenario +
                                          " --no-baselines --json --set planner.calibration=" + out);
  ASSERT_EQ(fitted.exit_code, 0) << fitted.err;
  ASSERT_EQ(measured.exit_code, 0) << measured.err;
  const auto seconds = [](const std::string& json) {
    return nlohmann::json::parse(json)["plan"]["predicted"]["iteration_seconds"].get<double>();
  };
  EXPECT_LT(seconds(measured.out), 0.9 * seconds(fitted.out));  // faster kernels than the fitted preset's

  const std::string never = " --out " + ::testing::TempDir() + "never_written_kernels.yaml";
  const auto mixed =
      test::run_command(kBinary + " calibrate --kernels " + kernels + " x.json --cluster dgx-h100" + never);
  EXPECT_EQ(mixed.exit_code, 2);
  EXPECT_NE(mixed.err.find("--kernels: fits from a kernel measurement alone"), std::string::npos)
      << mixed.err;
  const auto no_cluster = test::run_command(kBinary + " calibrate --kernels " + kernels + never);
  EXPECT_EQ(no_cluster.exit_code, 2);
  EXPECT_NE(no_cluster.err.find("--cluster: expected the cluster preset or file whose GPU"),
            std::string::npos)
      << no_cluster.err;
  const auto batch = test::run_command(kBinary + " calibrate --kernels " + kernels +
                                       " --cluster dgx-h100 --micro-batch 4" + never);
  EXPECT_EQ(batch.exit_code, 2);
  EXPECT_NE(batch.err.find("micro_batches: no entry for micro-batch 4"), std::string::npos) << batch.err;
  const auto stray =
      test::run_command(kBinary + " calibrate x.json --cluster dgx-h100 --attention flash" + never);
  EXPECT_EQ(stray.exit_code, 2);
  EXPECT_NE(stray.err.find("--attention: applies to --kernels only"), std::string::npos) << stray.err;
  const auto stray_batch =
      test::run_command(kBinary + " calibrate x.json --cluster dgx-h100 --micro-batch 2" + never);
  EXPECT_EQ(stray_batch.exit_code, 2);
  EXPECT_NE(stray_batch.err.find("--micro-batch: applies to --kernels only"), std::string::npos)
      << stray_batch.err;
  const auto other_gpu =
      test::run_command(kBinary + " calibrate --kernels " + kernels + " --cluster titan-rtx-8-pcie3" + never);
  EXPECT_EQ(other_gpu.exit_code, 2);
  EXPECT_NE(other_gpu.err.find("--cluster: the measured products ran at 5.25"), std::string::npos)
      << other_gpu.err;
  EXPECT_NE(other_gpu.err.find("the kernels were measured on another GPU"), std::string::npos)
      << other_gpu.err;
  const auto backend = test::run_command(kBinary + " calibrate --kernels " + kernels +
                                         " --cluster dgx-h100 --attention math" + never);
  EXPECT_EQ(backend.exit_code, 2);
  EXPECT_FALSE(std::filesystem::exists(::testing::TempDir() + "never_written_kernels.yaml"));
}
#endif

TEST(Cli, BadInputExitsNonZeroNamingFileLineAndField) {
  const std::string path =
      write_temp("bad.yaml", "model: {preset: nd-48x1536}\ncluster:\n  preset: dgx-a100\n  nodes: -3\n");
  const auto r = test::run_command(kBinary + " inspect " + path);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(path + ":4: cluster.nodes: expected an integer between 1 and 100000"),
            std::string::npos)
      << r.err;
  std::filesystem::remove(path);
}

TEST(Cli, EmptyFileDirectoryAndGarbageAreErrorsNotCrashes) {
  const std::string empty = write_temp("empty.yaml", "");
  auto r = test::run_command(kBinary + " inspect " + empty);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("file is empty"), std::string::npos) << r.err;
  r = test::run_command(kBinary + " inspect " + std::filesystem::temp_directory_path().string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("is a directory"), std::string::npos) << r.err;
  std::string garbage;
  for (int i = 0; i < 4096; ++i) garbage.push_back(static_cast<char>((i * 131 + 7) % 256));
  const std::string junk = write_temp("junk.yaml", garbage);
  r = test::run_command(kBinary + " inspect " + junk);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("error: " + junk), std::string::npos) << r.err;
  std::filesystem::remove(empty);
  std::filesystem::remove(junk);
}

TEST(Cli, PlanWritesThePlanFileAndPrintsTheTable) {
  const auto out =
      std::filesystem::temp_directory_path() / ("shardscope_plan_" + std::to_string(::getpid()) + ".json");
  const auto r =
      test::run_command(kBinary + " plan " + kSource + "/scenarios/default.yaml --out " + out.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Search (neighbours priced alike): objective"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("fsdp"), std::string::npos) << r.out;
  // plan --out writes what plan --json prints (tests/transcripts/plan-default-json.tesh).
  EXPECT_EQ(read_file(out.string()), read_file(kSource + "/tests/golden/plan-default.json"));
  std::filesystem::remove(out);
}

// plan --export: the plan as a framework's configuration in --out, what it cannot express on stderr; without
// --out or with an unknown format exit 2, and nothing written when no plan fits (exit 3).
TEST(Cli, PlanExportWritesTheFrameworksConfigurationToOut) {
  const std::string scenario = kSource + "/scenarios/paro-llama-7b-32gpu.yaml";
  const std::string out = ::testing::TempDir() + "export-plan.py";
  std::filesystem::remove(out);
  const auto r = test::run_command(kBinary + " plan " + scenario + " --quiet --export fsdp2 --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_file(out), read_file(kSource + "/tests/golden/export-paro-llama-7b-32gpu.py"));
  EXPECT_NE(r.err.find("note: the fsdp2 export cannot express gradients scoped unlike"), std::string::npos)
      << r.err;
  const auto no_out = test::run_command(kBinary + " plan " + scenario + " --export deepspeed");
  EXPECT_EQ(no_out.exit_code, 2);
  EXPECT_NE(no_out.err.find("--export: writes to --out FILE"), std::string::npos) << no_out.err;
  const auto unknown = test::run_command(kBinary + " plan " + scenario + " --export megatron --out " + out);
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("--export: megatron not in {fsdp2,torchtitan,deepspeed}"), std::string::npos)
      << unknown.err;
  std::filesystem::remove(out);
  const auto none =
      test::run_command(kBinary + " plan " + scenario +
                        " --quiet --set training.memory_limit=4GB --export torchtitan --out " + out);
  EXPECT_EQ(none.exit_code, 3) << none.err;
  EXPECT_FALSE(std::filesystem::exists(out));
}

// plan --memory-sweep: the breakpoints by memory in JSON and text; the one in force at the limit is the
// search's own pick (its objective, to the last digit on the default scenario); when nothing fits, the sweep
// still says how much memory the smallest plan needs (exit 3).
TEST(Cli, PlanMemorySweepGivesTheBreakpointsAndWhatTheNextOneBuys) {
  const std::string scenario = kSource + "/scenarios/default.yaml";
  // Without baselines and up to the plan's micro-batch: the sweep is what takes the time (seconds under
  // ASan).
  const auto r =
      test::run_command(kBinary + " plan " + scenario +
                        " --quiet --json --no-baselines --memory-sweep --set training.max_micro_batch=6");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const auto& sweep = j.at("memory_sweep");
  const auto& points = sweep.at("breakpoints");
  ASSERT_GT(points.size(), 10u);
  for (std::size_t i = 1; i < points.size(); ++i) {
    EXPECT_GT(points[i].at("peak_memory_bytes").get<double>(),
              points[i - 1].at("peak_memory_bytes").get<double>());
    EXPECT_GT(points[i].at("samples_per_second").get<double>(),
              points[i - 1].at("samples_per_second").get<double>());
  }
  const auto& at_limit = points.at(sweep.at("at_limit").get<std::size_t>());
  EXPECT_EQ(at_limit.at("micro_batch"), j.at("plan").at("batch_size"));
  EXPECT_EQ(at_limit.at("iteration_seconds"), j.at("optimality").at("search_objective_seconds"));
  EXPECT_GT(sweep.at("samples_per_second_per_gib").get<double>(), 0);
  // The text and the nothing-fits case on fewer micro-batches (the sweep takes seconds under ASan).
  const std::string small = " --quiet --no-baselines --memory-sweep --set training.max_micro_batch=2";
  const auto text = test::run_command(kBinary + " plan " + scenario + small);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(
      text.out.find("Memory sweep: the search's best plan at every memory limit up to the device's 24.00 "
                    "GiB"),
      std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("at the limit"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("Past the limit of 7.45 GiB: the next breakpoint, +"), std::string::npos)
      << text.out;
  const auto none =
      test::run_command(kBinary + " plan " + scenario + small + " --set training.memory_limit=3GiB");
  EXPECT_EQ(none.exit_code, 3) << none.err;
  EXPECT_NE(none.out.find("Nothing fits the limit of 3.00 GiB; the smallest plan needs"), std::string::npos)
      << none.out;
}

// plan --top K: at most K other plans, fastest first, none the plan itself, each with what sets it apart;
// K outside 1..64 exits 2 naming the flag.
TEST(Cli, PlanTopListsTheFastestOtherPlansAndTheirDifferences) {
  const std::string scenario = kSource + "/scenarios/default.yaml";
  const auto r = test::run_command(kBinary + " plan " + scenario + " --quiet --json --top 4");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const auto& others = j.at("alternatives");
  ASSERT_EQ(others.size(), 4u);
  const double plan = j.at("plan").at("predicted").at("samples_per_second").get<double>();
  double previous = plan;
  for (const auto& o : others) {
    const double rate = o.at("samples_per_second").get<double>();
    EXPECT_LE(rate, previous);
    previous = rate;
    EXPECT_NE(o.at("differs").get<std::string>(), "the same choices");
  }
  const auto text = test::run_command(kBinary + " plan " + scenario + " --quiet --top 2");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("The 2 fastest other plans"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("What sets each apart from the plan:\n  1. "), std::string::npos) << text.out;
  const auto bad = test::run_command(kBinary + " plan " + scenario + " --top 0");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--top"), std::string::npos) << bad.err;
}

TEST(Cli, PlanThatCannotFitExitsWithTheMinimumMemory) {
  const std::string path = write_temp("nofit.yaml",
                                      "model: {preset: llama-7b}\ncluster: {preset: titan-rtx-8-pcie3}\n"
                                      "training: {memory_limit: 8GB, runtime_reserve: 512MiB}\n");
  const auto r = test::run_command(kBinary + " plan --no-baselines " + path);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("no plan fits the memory limit: tried micro-batch 1; the smallest plan needs"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("No plan fits"), std::string::npos) << r.out;
  std::filesystem::remove(path);
}

TEST(Cli, MissingArgumentIsAUsageError) {
  const auto r = test::run_command(kBinary + " inspect");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no scenario file and no model"), std::string::npos) << r.err;
}

TEST(Cli, PlanOutIsCheckedBeforePlanning) {
  // This scenario fails while planning (the paper model needs per-operator coefficients) ...
  const std::string path = write_temp("paper.yaml",
                                      "model: {preset: nd-48x1536}\ncluster: {preset: titan-rtx-8-pcie3}\n"
                                      "planner: {cost_model: paper, paper: {alpha: 10us, beta: 10GB/s}}\n");
  auto r = test::run_command(kBinary + " plan " + path);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(".paper: "), std::string::npos) << r.err;
  // ... so an unwritable --out can only be reported first if it is checked before planning.
  r = test::run_command(kBinary + " plan " + path + " --out /nonexistent-dir/p.json");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "error: --out: cannot write /nonexistent-dir/p.json: No such file or directory (no folder "
            "/nonexistent-dir)\n");
  EXPECT_EQ(r.out, "");
  std::filesystem::remove(path);
}

TEST(Cli, PlanReportCarriesTheConfigurationAndPerOperatorCosts) {
  const std::string out = write_temp("report.json", "");
  const auto r =
      test::run_command(kBinary + " plan " + kSource + "/scenarios/default.yaml --no-baselines --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string text = read_file(out);
  for (const char* key : {"\"precision\": \"mixed-fp16\"", "\"sequence_length_tokens\": ",
                          "\"cost_model\": \"topology\"", "\"model_digest\": \"", "\"scenario_digest\": \"",
                          "\"calibration_digest\": \"", "\"operator_costs\": [", "\"optimizer_bytes\": "}) {
    EXPECT_NE(text.find(key), std::string::npos) << key;
  }
  // The text report's operator table is printed from the same per-operator costs.
  EXPECT_NE(r.out.find("memory/GPU each"), std::string::npos) << r.out;
  std::filesystem::remove(out);
}

TEST(Cli, UnknownOptionOrSubcommandIsBadInput) {
  auto r = test::run_command(kBinary + " inspect --bogus " + kSource + "/scenarios/default.yaml");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--bogus"), std::string::npos) << r.err;
  r = test::run_command(kBinary + " planx");
  EXPECT_EQ(r.exit_code, 2);
}

TEST(Cli, HelpDocumentsEveryExitStatus) {
  const auto r = test::run_command(kBinary + " --help");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Exit status:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n  0  success"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("\n  1  "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n  2  bad input or usage"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n  3  no plan (or not the requested strategy, or not the given plan) fits the "
                       "memory limit, or none reaches --target-tokens-per-second"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\n  4  the simulation or a resource failed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n  130  interrupted by Ctrl-C"), std::string::npos) << r.out;
  EXPECT_EQ(test::run_command(kBinary + " --version").exit_code, 0);
}

// One case per exit code (exit_paths_test has every path to each).
TEST(Cli, ExitCodes) {
  const std::string scenario = kSource + "/scenarios/default.yaml";
  EXPECT_EQ(test::run_command(kBinary + " inspect " + scenario).exit_code, 0);
  // 2: an output path that cannot be written, checked before planning.
  auto r = test::run_command(kBinary + " plan " + scenario + " --no-baselines --out /nonexistent-dir/p.json");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("error: --out: cannot write /nonexistent-dir/p.json: No such file or directory"),
            std::string::npos)
      << r.err;
  // 4: an output that fails once the work is done.
  r = test::run_command(kBinary + " plan " + scenario + " --no-baselines --out /dev/full");
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_EQ(r.err, "error: cannot write /dev/full: No space left on device\n");
  // 2: bad input.
  r = test::run_command(kBinary + " inspect /nonexistent-dir/s.yaml");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("error: /nonexistent-dir/s.yaml: cannot open scenario: no such file"),
            std::string::npos)
      << r.err;
  // 3: nothing fits (PlanThatCannotFitExitsWithTheMinimumMemory checks the message).
  const std::string nofit = write_temp("nofit3.yaml",
                                       "model: {preset: llama-7b}\ncluster: {preset: titan-rtx-8-pcie3}\n"
                                       "training: {memory_limit: 8GB, runtime_reserve: 512MiB}\n");
  EXPECT_EQ(test::run_command(kBinary + " plan --no-baselines " + nofit).exit_code, 3);
  std::filesystem::remove(nofit);
}

TEST(Cli, TyposGetSuggestions) {
  const std::string key = write_temp("typo_key.yaml",
                                     "model: {preset: nd-48x1536}\ncluster: {preset: titan-rtx-8-pcie3}\n"
                                     "training:\n  micro_bach: 4\n");
  auto r = test::run_command(kBinary + " inspect " + key);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("error: " + key + ":4: training.micro_bach: unknown key; did you mean 'micro_batch'?"),
            std::string::npos)
      << r.err;
  const std::string preset =
      write_temp("typo_preset.yaml", "model: {preset: nd-48x1536}\ncluster: {preset: dgx-a10}\n");
  r = test::run_command(kBinary + " inspect " + preset);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(
      r.err.find(preset + ":2: cluster.preset: unknown cluster preset 'dgx-a10'; did you mean 'dgx-a100'?"),
      std::string::npos)
      << r.err;
  const std::string choice = write_temp("typo_choice.yaml",
                                        "model: {preset: nd-48x1536}\ncluster: {preset: titan-rtx-8-pcie3}\n"
                                        "training: {checkpointing: serach}\n");
  r = test::run_command(kBinary + " inspect " + choice);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("training.checkpointing: expected one of none, all, search, selective, layers, got "
                       "'serach'; did you mean "
                       "'search'?"),
            std::string::npos)
      << r.err;
  std::filesystem::remove(key);
  std::filesystem::remove(preset);
  std::filesystem::remove(choice);
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(Cli, PlanPrintsNoProgressWhenStderrIsNotATerminal) {
  const auto r = test::run_command(kBinary + " plan --json " + kSource + "/scenarios/default.yaml");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
}

TEST(Cli, PlanProgressFlagPrintsPlainLinesOnStderrAndLeavesStdoutAlone) {
  const auto r =
      test::run_command(kBinary + " plan --json --progress " + kSource + "/scenarios/default.yaml");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, read_file(kSource + "/tests/golden/plan-default.json"));
  const std::vector<std::string> lines = lines_of(r.err);
  ASSERT_GE(lines.size(), 2u) << r.err;
  // One line as each strategy starts (more may come in between on a slow machine), in order, then "done".
  EXPECT_EQ(lines.front().rfind("planning: strategy 1/", 0), 0u) << r.err;
  EXPECT_NE(lines.front().find(" shardscope, 0 %"), std::string::npos) << r.err;
  EXPECT_EQ(lines.back(), "planning: done, 100 %");
  const std::string count = lines.front().substr(21, lines.front().find(' ', 21) - 21);  // "1/N" -> "N"
  const int strategies = std::stoi(count.substr(count.find('/') + 1));
  EXPECT_GT(strategies, 10) << r.err;
  std::size_t from = 0;
  for (int k = 1; k <= strategies; ++k) {
    const std::string prefix =
        "planning: strategy " + std::to_string(k) + "/" + std::to_string(strategies) + " ";
    while (from < lines.size() && lines[from].rfind(prefix, 0) != 0) ++from;
    EXPECT_LT(from, lines.size()) << "no line for strategy " << k << ":\n" << r.err;
  }
  for (const std::string& line : lines) EXPECT_EQ(line.find('\r'), std::string::npos) << line;
}

TEST(Cli, PlanInterruptedByCtrlCExits130AndLeavesThePlanFileAsItWas) {
  // A plan that takes seconds (350 layers, batch sizes up to 4096, all baselines), so it is still running
  // when the signal comes; a working Ctrl-C ends it at once.
  const std::string path =
      write_temp("long.yaml",
                 "model:\n  transformer:\n    stages:\n"
                 "      - {layers: 200, hidden: 1024}\n      - {layers: 100, hidden: 1536}\n"
                 "      - {layers: 50, hidden: 2048}\n"
                 "    heads: 16\n    vocab: 50257\n    sequence_length: 1024\n"
                 "cluster: {preset: dgx-h100}\ntraining: {max_micro_batch: 4096}\n");
  const std::string out = write_temp("interrupted.json", "the previous plan\n");
  int err_pipe[2];
  ASSERT_EQ(::pipe(err_pipe), 0);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::dup2(err_pipe[1], STDERR_FILENO);
    ::close(err_pipe[0]);
    ::close(err_pipe[1]);
    const int null = ::open("/dev/null", O_RDWR);
    ::dup2(null, STDOUT_FILENO);
    ::dup2(null, STDIN_FILENO);
    ::execl(kBinary.c_str(), kBinary.c_str(), "plan", "--progress", path.c_str(), "--out", out.c_str(),
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(err_pipe[1]);
  std::string err;
  const auto read_until = [&](bool line_only) {
    char c = 0;
    while (::read(err_pipe[0], &c, 1) == 1) {
      err.push_back(c);
      if (line_only && c == '\n') return;
    }
  };
  // The first progress line comes once planning runs, with the handler in place: interrupt it then.
  read_until(true);
  ASSERT_EQ(err.rfind("planning: strategy 1/", 0), 0u) << err;
  ASSERT_EQ(::kill(pid, SIGINT), 0);
  read_until(false);
  ::close(err_pipe[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << err;
  EXPECT_EQ(WEXITSTATUS(status), 130) << err;
  const std::vector<std::string> lines = lines_of(err);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.back(), "interrupted: planning cancelled, no plan written") << err;
  for (const std::string& line : lines) EXPECT_NE(line, "planning: done, 100 %") << err;
  // No new plan, no half-written one, no temporary file: the file from before is as it was.
  EXPECT_EQ(read_file(out), "the previous plan\n");
  for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(out).parent_path())) {
    EXPECT_EQ(e.path().string().rfind(out + ".tmp-", 0), std::string::npos) << e.path();
  }
  std::filesystem::remove(out);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace shardscope
