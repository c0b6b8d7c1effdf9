// The CPU validation loop replayed on recorded measurements (validate/data/cpu-2rank/,
// validate/data/cpu-2rank-serial/, the ten runs of validate/data/cpu-2rank-serial-repeat/ and -repeat-2/, and
// the ten of the ranking scenario in validate/data/cpu-2rank-accumulate-repeat/, written by
// scripts/validate-cpu-loop.sh and validate-cpu-repeat.sh on the 2-core build machine; each folder's
// README.md has the command and the machine): the fit on the micro-benchmarks alone reproduces the committed
// calibration.yaml, with it the predictions of cpu-2rank's plans the fit never saw meet issue 11's targets on
// real measurements, the ranking scenario's runs order the strategies as measured, the serial recording's
// comparison (which misses the targets) is the committed one, number for number, and so is every repeated
// run's, as its summary table states it.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tests/cli/run_command.hpp"

namespace shardscope {
namespace {

const std::string kData = std::string(SHARDSCOPE_SOURCE_DIR) + "/validate/data/cpu-2rank";
const std::string kSerialData = std::string(SHARDSCOPE_SOURCE_DIR) + "/validate/data/cpu-2rank-serial";
// Ten runs of the serial loop in a row, twice: on 2026-11-24 with 20-call collective loops in `bench`, and
// later that day with loops of at least 2 ms. Then ten runs of the ranking scenario (8 accumulation steps).
const std::string kAccumulateSet =
    std::string(SHARDSCOPE_SOURCE_DIR) + "/validate/data/cpu-2rank-accumulate-repeat";
const std::vector<std::string> kRepeatSets = {
    std::string(SHARDSCOPE_SOURCE_DIR) + "/validate/data/cpu-2rank-serial-repeat",
    std::string(SHARDSCOPE_SOURCE_DIR) + "/validate/data/cpu-2rank-serial-repeat-2", kAccumulateSet};
const std::string kBinary = SHARDSCOPE_BINARY;

// A set's repeated runs' folders, run-01 onwards, in order.
std::vector<std::string> repeat_runs(const std::string& set) {
  std::vector<std::string> runs;
  for (const auto& entry : std::filesystem::directory_iterator(set))
    if (entry.is_directory()) runs.push_back(entry.path().string());
  std::sort(runs.begin(), runs.end());
  return runs;
}

// Every recorded folder whose fit is checked: the two recordings and the repeated runs.
std::vector<std::string> recorded_folders() {
  std::vector<std::string> folders = {kData, kSerialData};
  for (const std::string& set : kRepeatSets)
    for (const std::string& run : repeat_runs(set)) folders.push_back(run);
  return folders;
}

// `shardscope compare` on a recorded folder, as JSON.
nlohmann::json compare_recording(const std::string& data) {
  const std::string out = test::write_temp("recorded-compare.json", "");
  const test::CommandResult r =
      test::run_command(kBinary + " compare " + data + "/scenario.yaml --measured " + data +
                        "/run.json --calibration " + data + "/calibration.yaml --json " + out);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::string text = test::read_file(out);
  std::filesystem::remove(out);
  return r.exit_code == 0 ? nlohmann::json::parse(text) : nlohmann::json();
}

#ifdef SHARDSCOPE_HAVE_FIT
class RecordedFit : public ::testing::TestWithParam<std::string> {};

TEST_P(RecordedFit, FitOnTheMicroBenchmarksReproducesTheCommittedCalibration) {
  const std::string folder = GetParam();
  const std::string out = test::write_temp("recorded-calibration.yaml", "");
  const test::CommandResult r = test::run_command(
      kBinary + " calibrate " + folder + "/bench.json --cluster " + folder + "/machine.yaml --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The comment header names the input files by the paths given; the rest is the same keys in the same
  // order with the same numbers (to 1e-9: another CPU's libm may round a last bit differently).
  const auto split = [](const std::string& yaml) {
    std::istringstream in(yaml);
    std::string line, skeleton;
    std::vector<double> numbers;
    const std::regex number(R"([-+]?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)");
    while (std::getline(in, line)) {
      if (line.rfind('#', 0) == 0) continue;
      for (std::sregex_iterator it(line.begin(), line.end(), number), end; it != end; ++it)
        numbers.push_back(std::stod(it->str()));
      skeleton += std::regex_replace(line, number, "N") + "\n";
    }
    return std::make_pair(skeleton, numbers);
  };
  const auto [skeleton, numbers] = split(test::read_file(out));
  const auto [committed_skeleton, committed_numbers] = split(test::read_file(folder + "/calibration.yaml"));
  EXPECT_EQ(skeleton, committed_skeleton);
  ASSERT_EQ(numbers.size(), committed_numbers.size());
  for (std::size_t i = 0; i < numbers.size(); ++i)
    EXPECT_NEAR(numbers[i], committed_numbers[i], 1e-9 * std::fabs(committed_numbers[i])) << i;
  std::filesystem::remove(out);
}

// On every recording, compare's collectives_after rows hold the size bands' tasks: per strategy the same
// count, measured and predicted seconds, and no more than the five kinds of task before a collective.
TEST_P(RecordedFit, CollectivesAfterRegroupTheSizeBands) {
  const nlohmann::json j = compare_recording(GetParam());
  ASSERT_FALSE(j.is_null());
  ASSERT_EQ(j["sections"].size(), 5u);
  ASSERT_EQ(j["sections"][3]["name"], "collectives");
  ASSERT_EQ(j["sections"][4]["name"], "collectives_after");
  std::map<std::string, std::array<double, 3>> bands, after;  // count, measured, planner
  const auto add = [](std::map<std::string, std::array<double, 3>>& sums, const nlohmann::json& r) {
    std::array<double, 3>& s = sums[r["strategy"].get<std::string>()];
    s[0] += r["count"].get<double>();
    s[1] += r["measured"].get<double>();
    s[2] += r["planner"].get<double>();
  };
  for (const nlohmann::json& r : j["sections"][3]["rows"]) add(bands, r);
  const std::regex item(
      "(all-gather|reduce-scatter|all-reduce) (after (forward|recompute|backward|update)|at "
      "the iteration's start)");
  for (const nlohmann::json& r : j["sections"][4]["rows"]) {
    add(after, r);
    EXPECT_TRUE(std::regex_match(r["item"].get<std::string>(), item)) << r["item"];
  }
  ASSERT_EQ(after.size(), bands.size());
  for (const auto& [strategy, sums] : bands) {
    EXPECT_EQ(after[strategy][0], sums[0]) << strategy;
    for (std::size_t i = 1; i < 3; ++i) EXPECT_NEAR(after[strategy][i], sums[i], 1e-9 * sums[i]) << strategy;
  }
}

INSTANTIATE_TEST_SUITE_P(RecordedCpuLoop, RecordedFit, ::testing::ValuesIn(recorded_folders()),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           if (param.param == kData) return std::string("cpu2rank");
                           if (param.param == kSerialData) return std::string("serial");
                           // cpu-2rank-serial-repeat-2/run-01 -> repeat2run01, cpu-2rank-accumulate-repeat/
                           // run-01 -> accumulaterepeatrun01
                           const std::filesystem::path run(param.param);
                           std::string set =
                               run.parent_path().filename().string().substr(std::string("cpu-2rank-").size());
                           if (set.rfind("serial-", 0) == 0) set = set.substr(std::string("serial-").size());
                           std::string name = set + run.filename().string();
                           name.erase(std::remove(name.begin(), name.end(), '-'), name.end());
                           return name;
                         });
#endif

// Issue 11's targets, on real measurements of eight plans the fit never saw: iteration time within 10 %
// (MAPE, both planner and simulator) and the counting allocator's peak within 2 %. (Its third target, the
// strategies ranked as measured with Spearman >= 0.9, is not met on this scenario: its eight plans' measured
// times lie within 10 % of each other and their order is at the mercy of run-to-run noise; the ranking
// scenario's test below is where that target is checked.)
TEST(RecordedCpuLoop, PredictionsOfUnseenPlansMeetTheTargets) {
  const nlohmann::json j = compare_recording(kData);
  ASSERT_FALSE(j.is_null());
  const nlohmann::json& iteration = j["sections"][0];
  const nlohmann::json& peak = j["sections"][1];
  ASSERT_EQ(iteration["name"], "iteration");
  ASSERT_EQ(peak["name"], "peak_memory");
  EXPECT_GE(iteration["planner"]["points"].get<int>(), 5);
  EXPECT_LE(iteration["planner"]["mape"].get<double>(), 0.10);
  EXPECT_LE(peak["planner"]["max_abs_error"].get<double>(), 0.02);
  if (j["simulator_available"].get<bool>()) {
    EXPECT_LE(iteration["simulator"]["mape"].get<double>(), 0.10);
    EXPECT_LE(peak["simulator"]["max_abs_error"].get<double>(), 0.02);
  }
  EXPECT_TRUE(j["notes"].empty()) << j["notes"];  // MPI's collectives priced as rings, every task matched
}

// compare --score-into writes the calibration again with its error on the recorded iterations it was not
// fitted on (each strategy's throughput error and their pairs), and a plan priced with that file states the
// probability that it beats each baseline from those pairs. Its misuses are refused naming the option.
TEST(RecordedCpuLoop, ScoringTheCalibrationOnTheRunGivesPlansTheirOdds) {
  const std::string scored = test::write_temp("scored-calibration.yaml", "");
  const std::string compare =
      kBinary + " compare " + kData + "/scenario.yaml --measured " + kData + "/run.json";
  test::CommandResult r =
      test::run_command(compare + " --calibration " + kData + "/calibration.yaml --score-into " + scored);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string yaml = test::read_file(scored);
  EXPECT_NE(yaml.find("prediction_error:"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("  rows: 8\n"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("  pairs: 28\n"), std::string::npos) << yaml;  // 8 strategies' own runs
  r = test::run_command(kBinary + " plan " + kData + "/scenario.yaml --set planner.calibration=" + scored +
                        " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const nlohmann::json& cal = j["uncertainty"]["calibration"];
  EXPECT_EQ(cal["rows"], 8);
  EXPECT_EQ(cal["pairs"], 28);
  const double sd = cal["pair_sd"].get<double>();
  ASSERT_GT(sd, 0);
  const double plan = j["plan"]["predicted"]["samples_per_second"].get<double>();
  int checked = 0;
  for (const nlohmann::json& b : j["baselines"]) {
    if (!b["fits"].get<bool>()) continue;
    const double expected =
        0.5 * std::erfc(-std::log(plan / b["samples_per_second"].get<double>()) / (sd * std::sqrt(2.0)));
    EXPECT_NEAR(b["plan_faster_probability"].get<double>(), expected, 1e-12) << b["strategy"];
    ++checked;
  }
  EXPECT_GT(checked, 5);
  r = test::run_command(kBinary + " plan " + kData + "/scenario.yaml --set planner.calibration=" + scored);
  EXPECT_NE(r.out.find("Probability that the plan is faster"), std::string::npos) << r.out;
  // Without --calibration there is no file to score; an output over an input is refused.
  r = test::run_command(compare + " --score-into " + scored);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--score-into: needs --calibration"), std::string::npos) << r.err;
  r = test::run_command(compare + " --calibration " + kData + "/calibration.yaml --score-into " + kData +
                        "/run.json");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--score-into"), std::string::npos) << r.err;
  r = test::run_command(compare + " --calibration " + kData + "/calibration.yaml --score-into " + scored +
                        " --json " + scored);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--score-into: cannot write " + scored + ": --json writes that file too"),
            std::string::npos)
      << r.err;
  std::filesystem::remove(scored);
}

// The ranking scenario (validate/scenarios/cpu-2rank-accumulate.yaml: 8 accumulation steps per optimizer
// step, DDP checkpointing some operators to fit its memory limit) sets the strategies 48-68 % apart by what
// they do per micro-step. Over its ten recorded runs, each fitted on its own micro-benchmarks, the model
// orders them as measured: Spearman >= 0.9 in every run, every target together in 8, and all 231 strategy
// pairs the rounds order ordered as measured; the simulator ranks as the planner does. Read from each run's
// committed compare.json, which RepeatedRuns.AreTheirSummary holds to a fresh comparison.
TEST(RecordedCpuLoop, TheRankingScenarioOrdersTheStrategiesAsMeasured) {
  const std::vector<std::string> runs = repeat_runs(kAccumulateSet);
  ASSERT_EQ(runs.size(), 10u);
  int ranked = 0, met = 0, resolved = 0, agrees = 0;
  for (const std::string& run : runs) {
    const nlohmann::json j = nlohmann::json::parse(test::read_file(run + "/compare.json"));
    const double rho = j["spearman"]["planner"].get<double>();
    const double mape = j["sections"][0]["planner"]["mape"].get<double>();
    const double peak = j["sections"][1]["planner"]["max_abs_error"].get<double>();
    EXPECT_EQ(j["sections"][0]["planner"]["points"].get<int>(), 8) << run;
    EXPECT_GE(rho, 0.75) << run;
    EXPECT_LE(peak, 0.02) << run;
    if (j["simulator_available"].get<bool>())
      EXPECT_NEAR(j["spearman"]["simulator"].get<double>(), rho, 1e-12) << run;
    ranked += rho >= 0.9 ? 1 : 0;
    met += rho >= 0.9 && mape <= 0.10 && peak <= 0.02 ? 1 : 0;
    resolved += j["pairs"]["resolved"].get<int>();
    agrees += j["pairs"]["planner_agrees"].get<int>();
  }
  EXPECT_EQ(ranked, 10);
  EXPECT_EQ(met, 8);
  EXPECT_EQ(resolved, 231);
  EXPECT_EQ(agrees, 231);
}

// The communication-heavy serial recording misses the targets (docs/calibration.md, "Results"): its
// comparison is pinned number for number, so a model change that moves its predictions shows here (rerun
// the compare command of validate/data/cpu-2rank-serial/README.md to accept it). Its peaks are exact.
TEST(RecordedCpuLoop, TheSerialRecordingsComparisonIsTheCommittedOne) {
  const nlohmann::json j = compare_recording(kSerialData);
  ASSERT_FALSE(j.is_null());
  const nlohmann::json committed = nlohmann::json::parse(test::read_file(kSerialData + "/compare.json"));
  ASSERT_EQ(j["sections"].size(), committed["sections"].size());
  for (std::size_t s = 0; s < j["sections"].size(); ++s) {
    const nlohmann::json& a = j["sections"][s];
    const nlohmann::json& b = committed["sections"][s];
    ASSERT_EQ(a["rows"].size(), b["rows"].size()) << a["name"];
    for (std::size_t r = 0; r < a["rows"].size(); ++r) {
      for (const char* key : {"planner", "simulator"}) {
        if (std::string(key) == "simulator" && !j["simulator_available"].get<bool>()) continue;
        if (a["rows"][r][key].is_null() || b["rows"][r][key].is_null()) {
          EXPECT_EQ(a["rows"][r][key].is_null(), b["rows"][r][key].is_null());
          continue;
        }
        const double x = a["rows"][r][key], y = b["rows"][r][key];
        EXPECT_NEAR(x, y, 1e-9 * std::fabs(y)) << a["name"] << " row " << r << " " << key;
      }
    }
  }
  EXPECT_NEAR(j["spearman"]["planner"].get<double>(), committed["spearman"]["planner"].get<double>(), 1e-9);
  EXPECT_LE(j["sections"][1]["planner"]["max_abs_error"].get<double>(), 0.02);  // peaks
  // The strategy pairs the 40 rounds order, and which of them each model orders as measured.
  const nlohmann::json& pairs = j["pairs"]["rows"];
  const nlohmann::json& committed_pairs = committed["pairs"]["rows"];
  ASSERT_EQ(pairs.size(), committed_pairs.size());
  EXPECT_EQ(pairs.size(), 15u);  // six strategies with their own runs: zero-2 and osdp repeat two plans
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    for (const char* key : {"faster", "slower", "resolved", "planner"})
      EXPECT_EQ(pairs[i][key], committed_pairs[i][key]) << "pair " << i << " " << key;
    const double p = pairs[i]["p_value"], q = committed_pairs[i]["p_value"];
    EXPECT_NEAR(p, q, 1e-9 * q) << "pair " << i;
  }
  EXPECT_EQ(j["pairs"]["resolved"], committed["pairs"]["resolved"]);
  EXPECT_EQ(j["pairs"]["planner_agrees"], committed["pairs"]["planner_agrees"]);
  // One stream per rank: DDP reduces each gradient after the previous operator's update (the first after the
  // last backward product), ZeRO-2 each shard as the backward product that made it ends.
  std::map<std::string, int> tasks;
  for (const nlohmann::json& r : j["sections"][4]["rows"])
    tasks[r["strategy"].get<std::string>() + ": " + r["item"].get<std::string>()] = r["count"];
  EXPECT_EQ(tasks["ddp: all-reduce after update"], 9);
  EXPECT_EQ(tasks["ddp: all-reduce after backward"], 1);
  EXPECT_EQ(tasks["zero-2: reduce-scatter after backward"], 10);
  EXPECT_EQ(tasks["zero-2: all-gather after update"], 10);
}

// The repeated runs (ten of the serial loop, twice; ten of the ranking scenario): each comparison is the
// committed one (the simulator's column where this build has the simulator), and summary.md's row for it
// (written by scripts/validate-cpu-repeat.sh from compare.md) states the committed numbers, as does the count
// of runs that met every target.
class RepeatedRuns : public ::testing::TestWithParam<std::string> {};

TEST_P(RepeatedRuns, AreTheirSummary) {
  const std::vector<std::string> runs = repeat_runs(GetParam());
  ASSERT_EQ(runs.size(), 10u);
  const std::string summary = test::read_file(GetParam() + "/summary.md");
  int met = 0;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const nlohmann::json j = compare_recording(runs[i]);
    ASSERT_FALSE(j.is_null()) << runs[i];
    const nlohmann::json c = nlohmann::json::parse(test::read_file(runs[i] + "/compare.json"));
    const auto number = [](const nlohmann::json& v) { return v.get<double>(); };
    for (const char* model : {"planner", "simulator"}) {
      if (std::string(model) == "simulator" && !j["simulator_available"].get<bool>()) continue;
      for (std::size_t s = 0; s < 2; ++s) {
        for (const char* key : {"mape", "max_abs_error"}) {
          EXPECT_NEAR(number(j["sections"][s][model][key]), number(c["sections"][s][model][key]), 1e-9)
              << runs[i] << " " << model << " " << key;
        }
      }
      EXPECT_NEAR(number(j["spearman"][model]), number(c["spearman"][model]), 1e-9)
          << runs[i] << " " << model;
    }
    EXPECT_EQ(j["pairs"]["resolved"], c["pairs"]["resolved"]) << runs[i];
    EXPECT_EQ(j["pairs"]["planner_agrees"], c["pairs"]["planner_agrees"]) << runs[i];
    const nlohmann::json& iteration = c["sections"][0];
    const double mape = number(iteration["planner"]["mape"]), rho = number(c["spearman"]["planner"]);
    const double peak = number(c["sections"][1]["planner"]["max_abs_error"]);
    char row[256];
    std::snprintf(
        row, sizeof row, "| %02zu | %.2f %% | %.2f %% | %.2f %% | %.2f %% | %.3f | %d of %zu | %d |", i + 1,
        100 * mape, 100 * number(iteration["planner"]["max_abs_error"]),
        100 * number(iteration["simulator"]["mape"]), 100 * peak, rho, c["pairs"]["resolved"].get<int>(),
        c["pairs"]["rows"].size(), c["pairs"]["planner_agrees"].get<int>());
    EXPECT_NE(summary.find(row), std::string::npos) << "summary.md has no row " << row;
    met += mape <= 0.10 && peak <= 0.02 && rho >= 0.9 ? 1 : 0;
  }
  EXPECT_NE(summary.find("Every target met together in " + std::to_string(met) + " of 10 runs."),
            std::string::npos)
      << met;
}

INSTANTIATE_TEST_SUITE_P(RecordedCpuLoop, RepeatedRuns, ::testing::ValuesIn(kRepeatSets),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           std::string name = std::filesystem::path(param.param).filename().string();
                           name.erase(std::remove(name.begin(), name.end(), '-'), name.end());
                           return name;
                         });

}  // namespace
}  // namespace shardscope
