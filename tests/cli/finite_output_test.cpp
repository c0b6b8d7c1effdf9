// Every subcommand's text and JSON on extreme inputs (one GPU, a model with no work, nothing fits) holds no
// inf, nan or null number (finding 5), and every subcommand refuses a bad calibration or scenario with the
// same exit code and message (finding 6).
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "run_command.hpp"

namespace shardscope {
namespace {

const std::string kBinary = SHARDSCOPE_BINARY;
const std::string kInputs = std::string(SHARDSCOPE_SOURCE_DIR) + "/tests/hostile/inputs/";

// Whether the binary was built with SimGrid: `--help` lists the simulate subcommand.
bool have_simulator() {
  static const bool listed =
      test::run_command(kBinary + " --help").out.find("\n  simulate ") != std::string::npos;
  return listed;
}

// "inf", "-inf", "nan", "-nan" or "null" as a word, in any case (JSON writes a non-finite double as null).
bool has_non_finite(const std::string& text) {
  static const std::regex word(R"((^|[^A-Za-z_])-?(inf|infinity|nan|null)([^A-Za-z_]|$))", std::regex::icase);
  return std::regex_search(text, word);
}

// The commands that read a scenario: inspect and plan, and simulate where the simulator is built.
std::vector<std::string> scenario_commands(const std::string& scenario) {
  std::vector<std::string> out;
  for (const char* json : {"", " --json"}) {
    out.push_back(kBinary + " inspect " + scenario + json);
    out.push_back(kBinary + " plan " + scenario + json);
    if (have_simulator()) out.push_back(kBinary + " simulate " + scenario + " --compare" + json);
  }
  return out;
}

TEST(FiniteOutput, TheNonFiniteCheckSeesWhatItMust) {
  EXPECT_TRUE(has_non_finite("Predicted  0.000 s per iteration, inf samples/s"));
  EXPECT_TRUE(has_non_finite("gap -nan %"));
  EXPECT_TRUE(has_non_finite("\"samples_per_second\": null,"));
  EXPECT_FALSE(has_non_finite("information, nano, annulled, infinite_loop"));
}

TEST(FiniteOutput, OneGpuPrintsOnlyFiniteNumbers) {
  for (const std::string& command : scenario_commands(kInputs + "f05-one-gpu.yaml")) {
    const auto r = test::run_command(command);
    EXPECT_EQ(r.exit_code, 0) << command << "\n" << r.err;
    EXPECT_FALSE(has_non_finite(r.out + r.err)) << command << "\n" << r.out << r.err;
  }
  if (!have_simulator()) return;
  for (const char* json : {"", " --json"}) {
    const std::string command =
        kBinary + " collective --cluster " + kInputs + "f05-one-gpu-cluster.yaml --bytes 1MiB" + json;
    const auto r = test::run_command(command);
    EXPECT_EQ(r.exit_code, 0) << command << "\n" << r.err;
    EXPECT_FALSE(has_non_finite(r.out + r.err)) << command << "\n" << r.out << r.err;
    EXPECT_NE(r.out.find("one rank communicates nothing"), std::string::npos) << r.out;
  }
}

TEST(FiniteOutput, AModelWithNoWorkIsRefusedByEverySubcommandAlike) {
  const std::string expected = "error: " + kInputs +
                               "f05-no-work.yaml:5: model.operators: the model has no work: no operator has "
                               "FLOPs or trainable parameters, so an iteration takes 0 s and its throughput "
                               "is undefined; give an operator forward_flops_per_sample or parameters\n";
  for (const std::string& command : scenario_commands(kInputs + "f05-no-work.yaml")) {
    const auto r = test::run_command(command);
    EXPECT_EQ(r.exit_code, 2) << command << "\n" << r.out;
    EXPECT_EQ(r.err, expected) << command;
    EXPECT_FALSE(has_non_finite(r.out + r.err)) << command << "\n" << r.out;
  }
}

TEST(FiniteOutput, NothingFitsNamesTheMicroBatchTriedAndTheLimit) {
  const std::string scenario = kInputs + "f05-fixed-batch-no-fit.yaml";
  const auto text = test::run_command(kBinary + " plan --no-baselines " + scenario);
  EXPECT_EQ(text.exit_code, 3);
  EXPECT_EQ(text.out.find("batch size 1"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("No plan fits: tried micro-batch 4; the smallest plan needs "), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find(" over the memory limit of 7.45 GiB."), std::string::npos) << text.out;
  EXPECT_NE(text.err.find("tried micro-batch 4; the smallest plan needs "), std::string::npos) << text.err;
  EXPECT_NE(text.err.find(" bytes per GPU, the memory limit is 8000000000 bytes"), std::string::npos)
      << text.err;
  const auto json = test::run_command(kBinary + " plan --no-baselines --json " + scenario);
  EXPECT_EQ(json.exit_code, 3);
  EXPECT_FALSE(has_non_finite(json.out + json.err)) << json.out;
}

// Each subcommand reading the same bad input answers with one exit code and one message.
void expect_same_refusal(const std::string& scenario, const std::string& expected_err) {
  for (const std::string& command : scenario_commands(scenario)) {
    const auto r = test::run_command(command);
    EXPECT_EQ(r.exit_code, 2) << command << "\n" << r.out;
    EXPECT_EQ(r.err, expected_err) << command;
  }
}

TEST(SameValidation, ACalibrationReserveAboveTheLimitIsExit2EverywhereAtItsLine) {
  expect_same_refusal(
      kInputs + "f06-reserve-above-limit.yaml",
      "error: " + kInputs +
          "f06-reserve-calibration.yaml:3: runtime_reserve: the runtime reserve must be below "
          "the memory limit (8589934592 bytes)\n");
}

TEST(SameValidation, AMissingCalibrationFileIsExit2Everywhere) {
  expect_same_refusal(
      kInputs + "f06-missing-calibration.yaml",
      "error: " + kInputs + "f06-no-such-calibration.yaml: cannot open calibration: no such file\n");
}

}  // namespace
}  // namespace shardscope
