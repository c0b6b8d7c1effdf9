// Calibrate on micro-benchmarks only, then predict whole iterations (synthetic machine: iterations generated
// by the planner under the truth, with noise; a test of the loop's code, not of any real machine): the
// fitted calibration predicts unseen plans within 3 %, compare scores it, and bad measured files are refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>

#include "planner/core/error.hpp"
#include "planner/io/scenario_parser.hpp"
#include "planner/program/iteration_program.hpp"
#include "planner/search/planner.hpp"
#include "planner/search/search_space.hpp"
#include "tests/fit/synthetic_machine.hpp"
#include "validate/fit/calibration_fit.hpp"
#include "validate/fit/compare_predict.hpp"
#include "validate/fit/number_text.hpp"

namespace shardscope {
namespace {

const std::string kScenario = std::string(SHARDSCOPE_SOURCE_DIR) + "/scenarios/default.yaml";
const std::vector<std::string> kStrategies = {"zero-2", "fsdp", "mics", "osdp-no-split", "osdp"};

struct Loop {
  testing::SyntheticMachine machine = testing::titan_truth();
  Scenario scenario = load_scenario_file(kScenario);
  Calibration fitted;
  nlohmann::ordered_json run;
  Loop() {
    fitted = fit::fit_calibration(
                 {shardscope::parse_measurements(testing::micro_benchmarks(machine).dump(), "bench.json")},
                 machine.cluster)
                 .calibration;
    run = testing::iterations(machine, scenario, kScenario, kStrategies);
  }
  fit::CompareInputs inputs(const nlohmann::ordered_json& j) const {
    fit::CompareInputs in;
    in.scenario_file = kScenario;
    in.scenario = scenario;
    in.predict_calibration = fitted;
    in.calibration_label = "fitted";
    in.measured = shardscope::parse_measurements(j.dump(), "run.json");
    return in;
  }
};

const Loop& loop() {
  static const Loop l;
  return l;
}

TEST(CalibrateThenPredict, FittedOnMicroBenchmarksPredictsUnseenPlansWithin3Percent) {
  const Loop& l = loop();
  const fit::Comparison c = fit::build_comparison(l.inputs(l.run), nullptr);
  ASSERT_EQ(c.sections.size(), 5u);
  const fit::ComparisonSection& iteration = c.sections[0];
  ASSERT_EQ(iteration.rows.size(), kStrategies.size());
  for (const fit::ComparedRow& r : iteration.rows) {
    ASSERT_TRUE(r.planner.has_value()) << r.strategy;
    EXPECT_LT(std::fabs(*r.planner - r.measured) / r.measured, 0.03) << r.strategy;
    EXPECT_FALSE(r.simulator.has_value());
  }
  EXPECT_LT(iteration.planner.mape, 0.03);
  ASSERT_TRUE(c.spearman_planner.has_value());
  EXPECT_GE(*c.spearman_planner, 0.9);
  EXPECT_LT(c.sections[1].planner.max_abs_error, 1e-9);  // peak memory: the fitted reserve is the truth's
  EXPECT_EQ(c.sections[2].name, "operators");
  EXPECT_GT(c.sections[2].rows.size(), 90u);
  EXPECT_LT(c.sections[2].planner.mape, 0.03);
  EXPECT_EQ(c.sections[3].name, "collectives");
  EXPECT_GT(c.sections[3].rows.size(), 0u);
  EXPECT_LT(c.sections[3].planner.mape, 0.05);
}

TEST(CalibrateThenPredict, CollectivesByWhatRanBeforeThemAreTheSizeBandsRegrouped) {
  const Loop& l = loop();
  const fit::Comparison c = fit::build_comparison(l.inputs(l.run), nullptr);
  ASSERT_EQ(c.sections.size(), 5u);
  const fit::ComparisonSection& bands = c.sections[3];
  const fit::ComparisonSection& after = c.sections[4];
  EXPECT_EQ(after.name, "collectives_after");
  const std::vector<std::string> phases = {" after forward", " after recompute", " after backward",
                                           " after update", " at the iteration's start"};
  std::map<std::string, std::array<double, 3>> by_band, by_after;  // measured, planner, tasks
  for (const fit::ComparedRow& r : bands.rows) {
    by_band[r.strategy][0] += r.measured;
    by_band[r.strategy][1] += *r.planner;
    by_band[r.strategy][2] += static_cast<double>(r.count);
  }
  std::set<std::string> seen;
  for (const fit::ComparedRow& r : after.rows) {
    by_after[r.strategy][0] += r.measured;
    by_after[r.strategy][1] += *r.planner;
    by_after[r.strategy][2] += static_cast<double>(r.count);
    const auto kind_end = r.item.find(' ');
    ASSERT_NE(kind_end, std::string::npos) << r.item;
    EXPECT_NE(std::find(phases.begin(), phases.end(), r.item.substr(kind_end)), phases.end()) << r.item;
    seen.insert(r.item.substr(kind_end));
  }
  ASSERT_EQ(by_band.size(), by_after.size());
  for (const auto& [strategy, sums] : by_band) {
    for (std::size_t i = 0; i < 3; ++i)
      EXPECT_NEAR(by_after[strategy][i], sums[i], 1e-9 * std::max(1.0, sums[i])) << strategy << " " << i;
  }
  // The default scenario overlaps: gradients are reduced as the backward products make them, and ZeRO-3's
  // parameters gathered ahead of the forward ones.
  EXPECT_TRUE(seen.count(" after backward")) << "no collective after a backward product";
  EXPECT_TRUE(seen.count(" after forward")) << "no collective after a forward product";
}

TEST(CalibrateThenPredict, AMicroStepsFirstGathersFollowThePreviousMicroStepsBackward) {
  const Loop& l = loop();
  Scenario scenario = l.scenario;
  scenario.training.gradient_accumulation_steps = 2;
  nlohmann::ordered_json run = testing::iterations(l.machine, scenario, kScenario, {"fsdp"});
  ASSERT_EQ(run["iterations"][0]["micro_steps"], 2);
  // The synthetic run names micro-step 0's tasks; micro-step 1's are the same tasks with their " #1" names.
  const Plan plan =
      plan_strategy(ValidScenario(scenario), Calibration{}, space_by_name("fsdp", scenario.training)).plan;
  const IterationProgram program =
      build_iteration_program(ValidScenario(scenario), l.fitted, plan,
                              ProgramOptions{scenario.execution.prefetch_depth, !scenario.execution.overlap,
                                             scenario.execution.bucket_bytes});
  nlohmann::ordered_json& tasks = run["iterations"][0]["tasks"];
  std::size_t gathers_first = 0;
  bool computed = false;
  for (std::size_t i = 0; i < program.step_tasks; ++i) {
    nlohmann::ordered_json again = tasks[i];
    ASSERT_EQ(again["name"], task_name(program, i, 0));
    again["name"] = task_name(program, i, 1);
    tasks.push_back(again);
    const bool comm = program.tasks[i].stream == Task::Stream::comm;
    computed = computed || !comm;
    if (comm && !computed) ++gathers_first;
  }
  ASSERT_GT(gathers_first, 0u);
  fit::CompareInputs in = l.inputs(run);
  in.scenario = scenario;
  const fit::Comparison c = fit::build_comparison(in, nullptr);
  std::map<std::string, std::size_t> count;
  std::size_t total = 0;
  for (const fit::ComparedRow& r : c.sections[4].rows) {
    count[r.item] = r.count;
    total += r.count;
  }
  EXPECT_EQ(count["all-gather at the iteration's start"], gathers_first);
  std::size_t comm_tasks = 0;
  for (std::size_t i = 0; i < program.tasks.size(); ++i)
    comm_tasks += (program.tasks[i].stream == Task::Stream::comm) * (i < program.step_tasks ? 2 : 1);
  EXPECT_EQ(total, comm_tasks);
}

// build_comparison refuses `in`: an InputError on run.json's `field` whose message holds `words`.
void expect_compare_error(const fit::CompareInputs& in, const std::string& field, const std::string& words) {
  try {
    (void)fit::build_comparison(in, nullptr);
    FAIL() << "accepted; expected an error on " << field;
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "run.json");
    EXPECT_EQ(e.field(), field) << e.what();
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

// With a global batch the scenario fixes the steps per micro-batch: the compared plans are the measured
// micro-batch at those steps (scenario checks pass; the prediction is of the run's step count).
TEST(CalibrateThenPredict, AGlobalBatchIsComparedAtTheMeasuredMicroBatchAndItsSteps) {
  const Loop& l = loop();
  Scenario scenario = l.scenario;
  scenario.training.max_micro_batch = 4;
  scenario.training.global_batch = scenario.cluster.gpus() * 8;  // micro-batch 1, 2 or 4 at 8, 4 or 2 steps
  const nlohmann::ordered_json run = testing::iterations(l.machine, scenario, kScenario, {"fsdp", "zero-2"});
  fit::CompareInputs in = l.inputs(run);
  in.scenario = scenario;
  const fit::Comparison c = fit::build_comparison(in, nullptr);
  ASSERT_EQ(c.sections[0].rows.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    const nlohmann::ordered_json& it = run["iterations"][i];
    EXPECT_EQ(it["micro_batch"].get<int>() * it["micro_steps"].get<int>(), 8) << it["strategy"];
    EXPECT_GT(it["micro_steps"].get<int>(), 1) << it["strategy"];
    const fit::ComparedRow& r = c.sections[0].rows[i];
    ASSERT_TRUE(r.planner.has_value());
    EXPECT_LT(std::fabs(*r.planner - r.measured) / r.measured, 0.03) << r.strategy;
  }
  // Steps the global batch does not give at that micro-batch, and a micro-batch the scenario does not fix.
  nlohmann::ordered_json other = run;
  other["iterations"][1]["micro_steps"] = other["iterations"][1]["micro_steps"].get<int>() + 1;
  in.measured = shardscope::parse_measurements(other.dump(), "run.json");
  expect_compare_error(in, "iterations[1].micro_steps", "accumulation steps at micro-batch");
  other = run;
  other["iterations"][0]["micro_batch"] = 3;  // does not divide the 8 samples per GPU
  in.measured = shardscope::parse_measurements(other.dump(), "run.json");
  expect_compare_error(in, "iterations[0].micro_batch",
                       "does not reach the scenario's training.global_batch");
  in.measured = shardscope::parse_measurements(run.dump(), "run.json");
  in.scenario.training.global_batch = 0;
  in.scenario.training.micro_batch = 64;
  expect_compare_error(in, "iterations[0].micro_batch", "the scenario fixes training.micro_batch 64");
}

TEST(CalibrateThenPredict, AMeasuredTaskRepeatedBeyondTheProgramIsPricedAsItsLast) {
  const Loop& l = loop();
  nlohmann::ordered_json run = l.run;
  run["iterations"] = nlohmann::ordered_json::array({l.run["iterations"][0]});
  const fit::Comparison before = fit::build_comparison(l.inputs(run), nullptr);
  nlohmann::ordered_json& tasks = run["iterations"][0]["tasks"];
  std::size_t first_comm = 0;
  while (tasks[first_comm]["stream"] != "comm") ++first_comm;
  tasks.push_back(tasks[first_comm]);  // once more than the program has it
  const fit::Comparison after = fit::build_comparison(l.inputs(run), nullptr);
  std::size_t counted_before = 0, counted_after = 0;
  for (const fit::ComparedRow& r : before.sections[4].rows) counted_before += r.count;
  for (const fit::ComparedRow& r : after.sections[4].rows) counted_after += r.count;
  EXPECT_EQ(counted_after, counted_before + 1);
  EXPECT_EQ(after.notes, before.notes);
}

TEST(CalibrateThenPredict, UncalibratedPredictionIsWorseThanTheFittedOne) {
  const Loop& l = loop();
  fit::CompareInputs in = l.inputs(l.run);
  const double fitted = fit::build_comparison(in, nullptr).sections[0].planner.mape;
  in.predict_calibration = Calibration{};
  const double nominal = fit::build_comparison(in, nullptr).sections[0].planner.mape;
  EXPECT_GT(nominal, 2 * fitted) << "fitted " << fitted << " nominal " << nominal;
}

TEST(CalibrateThenPredict, SimulatorColumnComesFromTheCallback) {
  const Loop& l = loop();
  const auto simulate = [](const Plan& plan) -> std::optional<fit::SimulatedIteration> {
    return fit::SimulatedIteration{plan.predicted.iteration_seconds > 0 ? 1.0 : 2.0, 1e9};
  };
  const fit::Comparison c = fit::build_comparison(l.inputs(l.run), simulate);
  EXPECT_TRUE(c.simulator_available);
  EXPECT_TRUE(c.sections[0].rows[0].simulator.has_value());
  EXPECT_GT(c.sections[0].simulator.points, 0u);
}

TEST(CalibrateThenPredict, MarkdownAndJsonAreDeterministic) {
  const Loop& l = loop();
  const fit::Comparison a = fit::build_comparison(l.inputs(l.run), nullptr);
  const fit::Comparison b = fit::build_comparison(l.inputs(l.run), nullptr);
  EXPECT_EQ(fit::comparison_markdown(a), fit::comparison_markdown(b));
  EXPECT_EQ(fit::comparison_json(a).dump(), fit::comparison_json(b).dump());
  EXPECT_NE(fit::comparison_markdown(a).find("| iteration |"), std::string::npos);
}

void expect_error(const nlohmann::ordered_json& j, const std::string& field, const std::string& words) {
  expect_compare_error(loop().inputs(j), field, words);
}

TEST(CompareErrors, MeasuredOnAnotherScenario) {
  nlohmann::ordered_json j = loop().run;
  j["iterations"][1]["scenario"] = "scenarios/paro-llama-7b-32gpu.yaml";
  expect_error(j, "iterations[1].scenario", "measured on scenario 'scenarios/paro-llama-7b-32gpu.yaml'");
}

TEST(CompareErrors, AnotherPlanDigest) {
  nlohmann::ordered_json j = loop().run;
  j["iterations"][2]["plan_digest"] = "0123456789abcdef";
  expect_error(j, "iterations[2].plan_digest", "the run executed plan 0123456789abcdef");
}

// Issue 30, 7: without plan_digest another scenario's run matched by file name only and scored a 159 % MAPE.
TEST(CompareErrors, NoPlanDigest) {
  nlohmann::ordered_json j = loop().run;
  j["iterations"][1].erase("plan_digest");
  expect_error(j, "iterations[1].plan_digest", "missing: without the digest of the plan the run executed");
}

TEST(CompareErrors, UnknownStrategy) {
  nlohmann::ordered_json j = loop().run;
  j["iterations"][0]["strategy"] = "zero-7";
  expect_error(j, "iterations[0].strategy", "zero-7");
}

TEST(CompareErrors, NoIterationsAndAnotherRankCount) {
  nlohmann::ordered_json j = loop().run;
  j["iterations"] = nlohmann::ordered_json::array();
  expect_error(j, "iterations", "no measured iterations");
  j = loop().run;
  j["machine"]["ranks"] = 4;
  expect_error(j, "machine.ranks", "4 ranks measured");
}

// A run scaled by --compute-scale is refused, not compared with unscaled predictions.
TEST(CompareErrors, AScaledRunIsRefused) {
  nlohmann::ordered_json j = loop().run;
  j["machine"]["compute_scale"] = 0.25;
  expect_error(j, "machine.compute_scale", "measured with --compute-scale 0.25");
}

TEST(CompareErrors, MissingStrategyField) {
  nlohmann::ordered_json j = loop().run;
  j["iterations"][0].erase("strategy");
  try {
    (void)shardscope::parse_measurements(j.dump(), "run.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "iterations[0].strategy") << e.what();
  }
}

// MPI's collectives are not NCCL's: a cpu-mpi run compared with plans priced by NCCL's model says so, and
// names the scenario field that prices them as the fitted rings.
TEST(CalibrateThenPredict, ACpuRunPricedWithNcclCollectivesIsNoted) {
  const Loop& l = loop();
  const auto nccl_notes = [](const fit::Comparison& c) {
    int n = 0;
    for (const std::string& note : c.notes)
      n += note.find("priced with NCCL's collective model") != std::string::npos &&
           note.find("execution.collectives: ring") != std::string::npos;
    return n;
  };
  EXPECT_EQ(nccl_notes(fit::build_comparison(l.inputs(l.run), nullptr)), 0);  // not a cpu-mpi run
  nlohmann::ordered_json cpu = l.run;
  cpu["machine"]["backend"] = "cpu-mpi";
  // default.yaml's collectives are auto: every strategy here is an NCCL baseline.
  EXPECT_EQ(nccl_notes(fit::build_comparison(l.inputs(cpu), nullptr)), static_cast<int>(kStrategies.size()));
}

// A collective over a group of one rank (MiCS's gradient sync with one replica) exchanges nothing: the
// backends skip it and the comparison leaves it out, whatever time a run reports for it.
TEST(CalibrateThenPredict, CollectivesOverOneRankAreNotCompared) {
  const Loop& l = loop();
  nlohmann::ordered_json slow = l.run;
  int one_rank = 0;
  for (auto& it : slow["iterations"]) {
    if (it["strategy"] != "mics") continue;
    for (auto& task : it["tasks"]) {
      if (task["name"].get<std::string>().rfind("sync ", 0) != 0) continue;
      task["seconds"] = 1.0;
      ++one_rank;
    }
  }
  ASSERT_GT(one_rank, 0) << "default.yaml's MiCS plan syncs over one replica";
  const fit::Comparison a = fit::build_comparison(l.inputs(l.run), nullptr);
  const fit::Comparison b = fit::build_comparison(l.inputs(slow), nullptr);
  ASSERT_EQ(a.sections[3].rows.size(), b.sections[3].rows.size());
  for (std::size_t i = 0; i < a.sections[3].rows.size(); ++i) {
    EXPECT_EQ(a.sections[3].rows[i].measured, b.sections[3].rows[i].measured) << a.sections[3].rows[i].item;
    EXPECT_EQ(a.sections[3].rows[i].count, b.sections[3].rows[i].count);
  }
}

// A rank whose compute is slower than the others' holds them at every collective after compute: compare
// says so, naming the rank, once the ranks differ by more than 5 %.
TEST(CalibrateThenPredict, AStragglingRankIsNoted) {
  const Loop& l = loop();
  const auto straggler_notes = [&](const std::vector<double>& compute) {
    nlohmann::ordered_json run = l.run;
    run["iterations"][0]["compute_seconds_per_rank"] = compute;
    std::vector<std::string> found;
    for (const std::string& note : fit::build_comparison(l.inputs(run), nullptr).notes)
      if (note.find("compute differs") != std::string::npos) found.push_back(note);
    return found;
  };
  const std::vector<std::string> slow = straggler_notes({0.1, 0.12, 0.1});
  ASSERT_EQ(slow.size(), 1u);
  EXPECT_NE(slow[0].find("the ranks' compute differs by 20.0 % (rank 1 slowest)"), std::string::npos)
      << slow[0];
  EXPECT_EQ(slow[0].rfind(kStrategies[0] + ": ", 0), 0u) << slow[0];
  EXPECT_TRUE(straggler_notes({0.1, 0.104}).empty());  // within 5 %: the machine's noise
  EXPECT_TRUE(straggler_notes({0.1}).empty());
}

TEST(CompareStatistics, MannWhitneyPValues) {
  // Separated samples of five: U = 25 against a mean of 12.5, variance 25 x 11 / 12, continuity 0.5.
  const std::vector<double> low = {1, 2, 3, 4, 5}, high = {6, 7, 8, 9, 10};
  EXPECT_NEAR(fit::mann_whitney_p(low, high), 0.012185780355344818, 1e-12);
  EXPECT_DOUBLE_EQ(fit::mann_whitney_p(low, high), fit::mann_whitney_p(high, low));
  // Ties: U = 3 of 9, two groups of three tied values shrink the variance to 4.05.
  EXPECT_NEAR(fit::mann_whitney_p({1, 1, 2}, {1, 2, 2}), 0.6192567541768621, 1e-12);
  EXPECT_DOUBLE_EQ(fit::mann_whitney_p({2, 2, 2}, {2, 2}), 1.0);  // every value ties
  EXPECT_DOUBLE_EQ(fit::mann_whitney_p({}, high), 1.0);
  EXPECT_DOUBLE_EQ(fit::mann_whitney_p(low, low), 1.0);  // U at its mean: no evidence either way
}

// The rank-sum U (O(n log n)) against counting every pair, on small samples with many ties.
TEST(CompareStatistics, MannWhitneyMatchesCountingEveryPair) {
  std::uint64_t state = 12345;
  const auto next = [&state] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>((state >> 33) % 7);  // values 0-6: ties in every sample
  };
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<double> a(1 + trial % 9), b(1 + trial % 5);
    for (double& x : a) x = next();
    for (double& y : b) y = next() + (trial % 3 == 0 ? 2 : 0);  // a third of the trials shifted
    double u = 0;
    for (double x : a)
      for (double y : b) u += x > y ? 1.0 : (x == y ? 0.5 : 0.0);
    std::vector<double> pooled = a;
    pooled.insert(pooled.end(), b.begin(), b.end());
    double ties = 0;
    for (double v : pooled) {
      const double t = static_cast<double>(std::count(pooled.begin(), pooled.end(), v));
      ties += (t * t * t - t) / t;  // each of a group's t members adds its share
    }
    const double n1 = static_cast<double>(a.size()), n2 = static_cast<double>(b.size()), n = n1 + n2;
    const double variance = n1 * n2 / 12.0 * ((n + 1) - ties / (n * (n - 1)));
    const double expected = variance > 0
                                ? std::min(1.0, std::erfc(std::max(0.0, std::fabs(u - n1 * n2 / 2) - 0.5) /
                                                          std::sqrt(variance) / std::sqrt(2.0)))
                                : 1.0;
    EXPECT_NEAR(fit::mann_whitney_p(a, b), expected, 1e-12) << "trial " << trial;
  }
}

fit::ComparedRow pair_row(const std::string& strategy, double measured, double planner,
                          std::vector<double> iterations, const std::string& same_plan_as = "") {
  fit::ComparedRow r{strategy, "", measured, planner, std::nullopt, 1};
  r.samples = 8;
  r.iteration_samples = std::move(iterations);
  r.same_plan_as = same_plan_as;
  return r;
}

TEST(CompareStatistics, StrategyPairsTestTheMeasuredOrderAndScoreTheModel) {
  fit::Comparison c;
  fit::ComparisonSection it{"iteration", "s", {}, {}, {}};
  it.rows.push_back(pair_row("fast", 1.0, 1.1, {1.00, 1.01, 0.99, 1.02, 0.98, 1.00}));
  it.rows.push_back(pair_row("slow", 1.2, 1.0, {1.20, 1.21, 1.19, 1.22, 1.18, 1.20}));
  it.rows.push_back(pair_row("close", 1.2, 1.3, {1.19, 1.22, 1.18, 1.21, 1.20, 1.20}));
  it.rows.push_back(pair_row("twin", 1.0, 1.1, {1.00, 1.01, 0.99, 1.02, 0.98, 1.00}, "fast"));  // not a pair
  it.rows.push_back(pair_row("unmeasured", 1.5, 1.5, {}));  // no iterations: not a pair
  c.sections.push_back(it);
  fit::finish_comparison(c);
  ASSERT_EQ(c.pairs.size(), 3u);
  const fit::StrategyPair& fast_slow = c.pairs[0];
  EXPECT_EQ(fast_slow.faster, "fast");
  EXPECT_EQ(fast_slow.slower, "slow");
  EXPECT_EQ(fast_slow.faster_iterations, 6u);
  EXPECT_TRUE(fast_slow.resolved);
  EXPECT_EQ(fast_slow.planner, fit::PairVerdict::reversed);  // the planner put slow (1.0 s) first
  EXPECT_EQ(fast_slow.simulator, fit::PairVerdict::none);
  EXPECT_EQ(c.pairs[1].faster, "fast");
  EXPECT_EQ(c.pairs[1].slower, "close");
  EXPECT_TRUE(c.pairs[1].resolved);
  EXPECT_EQ(c.pairs[1].planner, fit::PairVerdict::agrees);
  EXPECT_FALSE(c.pairs[2].resolved) << c.pairs[2].p_value;  // slow and close: the same spread of times
  EXPECT_GT(c.pairs[2].p_value, 0.5);
  const std::string md = fit::comparison_markdown(c);
  EXPECT_NE(md.find("2 of 3; of these the planner orders 1 as measured"), std::string::npos) << md;
  EXPECT_NE(md.find("| fast | slow | 6 / 6 | "), std::string::npos) << md;
  const nlohmann::ordered_json j = fit::comparison_json(c);
  EXPECT_EQ(j["pairs"]["resolved"], 2);
  EXPECT_EQ(j["pairs"]["planner_agrees"], 1);
  EXPECT_EQ(j["pairs"]["rows"][0]["planner"], "reversed");
  // With a calibration's pair spread each pair gets the planner's probability of the measured order: fast
  // (predicted 1.1 s) over slow (1.0 s) at 10 % rms is Phi(ln(1.0 / 1.1) / 0.1) = 0.1702692.
  EXPECT_FALSE(c.pairs[0].planner_probability.has_value());
  EXPECT_EQ(md.find("P(measured order)"), std::string::npos);
  c.pair_sd = 0.1;
  fit::finish_comparison(c);
  ASSERT_TRUE(c.pairs[0].planner_probability.has_value());
  EXPECT_NEAR(*c.pairs[0].planner_probability, 0.1702692476, 1e-9);
  const double fast_close = 0.5 * std::erfc(-std::log(1.3 / 1.1) / (0.1 * std::sqrt(2.0)));
  EXPECT_NEAR(*c.pairs[1].planner_probability, fast_close, 1e-12);
  const std::string odds = fit::comparison_markdown(c);
  EXPECT_NE(odds.find("| planner P(measured order) |"), std::string::npos) << odds;
  EXPECT_NE(odds.find("a probability of " + fit::number_text("%.3f", (0.1702692476 + fast_close) / 2)),
            std::string::npos)
      << odds;  // the mean over the two resolved pairs
  const nlohmann::ordered_json with_odds = fit::comparison_json(c);
  EXPECT_DOUBLE_EQ(with_odds["pairs"]["pair_sd"].get<double>(), 0.1);
  c.pair_sd = 0;
  // Without per-iteration times there is nothing to test, and the Markdown says so.
  for (fit::ComparedRow& r : c.sections[0].rows) r.iteration_samples.clear();
  fit::finish_comparison(c);
  EXPECT_TRUE(c.pairs.empty());
  EXPECT_NE(fit::comparison_markdown(c).find("none to test"), std::string::npos);
}

// Pairs' spread by hand: log errors 0, 0.1, 0.3 differ by 0.1, 0.3 and 0.2 over 3 pairs, rms
// sqrt(0.14 / 3); two sets merge by their pairs' weights, with no pair across them.
TEST(CompareStatistics, PairSpreadIsTheRmsOfLogErrorDifferences) {
  const fit::PairSpread p = fit::pair_spread({0, 0.1, 0.3});
  EXPECT_EQ(p.pairs, 3);
  EXPECT_NEAR(p.sd, std::sqrt(0.14 / 3), 1e-15);
  EXPECT_EQ(fit::pair_spread({0.2}).pairs, 0);
  EXPECT_EQ(fit::pair_spread({}).sd, 0);
  const fit::PairSpread q = fit::pair_spread({0.5, 0.5});
  const fit::PairSpread both = fit::merge_pair_spreads(p, q);
  EXPECT_EQ(both.pairs, 4);
  EXPECT_NEAR(both.sd, std::sqrt(0.14 / 4), 1e-15);
  EXPECT_EQ(fit::merge_pair_spreads({}, {}).pairs, 0);
}

// compare --score-into's prediction_error: each strategy's own run (not a twin, not one the planner did not
// price), error = measured / predicted seconds - 1 (the throughput's), and their pairs.
TEST(CompareStatistics, IterationPredictionErrorScoresEachOwnRunAndItsPairs) {
  fit::Comparison c;
  fit::ComparisonSection it{"iteration", "s", {}, {}, {}};
  it.rows.push_back(pair_row("a", 1.1, 1.0, {}));  // measured 1.1 s, predicted 1.0 s: +10 % throughput
  it.rows.push_back(pair_row("b", 0.9, 1.0, {}));  // -10 %
  it.rows.push_back(pair_row("c", 1.0, 1.0, {}));  // exact
  it.rows.push_back(pair_row("twin", 1.0, 2.0, {}, "a"));
  fit::ComparedRow unpriced = pair_row("unpriced", 1.0, 1.0, {});
  unpriced.planner.reset();
  it.rows.push_back(unpriced);
  c.sections.push_back(it);
  const std::optional<CalibrationPredictionError> e = fit::iteration_prediction_error(c, "runs");
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->rows, 3);
  EXPECT_NEAR(e->mape, 0.2 / 3, 1e-12);
  EXPECT_NEAR(e->bias, 0, 1e-12);
  EXPECT_NEAR(e->worst, 0.1, 1e-12);
  EXPECT_EQ(e->pairs, 3);
  const double a = std::log(1.1), b = std::log(0.9);
  EXPECT_NEAR(e->pair_sd, std::sqrt(((a - b) * (a - b) + a * a + b * b) / 3), 1e-12);
  EXPECT_EQ(e->scored_on, "runs");
  fit::Comparison none;
  EXPECT_FALSE(fit::iteration_prediction_error(none, "runs").has_value());
}

TEST(CompareStatistics, SpearmanAndSummaries) {
  EXPECT_DOUBLE_EQ(*fit::spearman({1, 2, 3, 4}, {10, 20, 30, 40}), 1.0);
  EXPECT_DOUBLE_EQ(*fit::spearman({1, 2, 3, 4}, {4, 3, 2, 1}), -1.0);
  EXPECT_DOUBLE_EQ(*fit::spearman({1, 2, 3}, {1, 3, 2}), 0.5);
  EXPECT_FALSE(fit::spearman({1, 2}, {1, 2}).has_value());
  EXPECT_FALSE(fit::spearman({1, 1, 1}, {1, 2, 3}).has_value());
  std::vector<fit::ComparedRow> rows = {{"a", "", 1.0, 1.1, std::nullopt, 1}, {"b", "", 2.0, 1.8, 2.0, 1}};
  const fit::ErrorSummary s = fit::summarize(rows, false);
  EXPECT_EQ(s.points, 2u);
  EXPECT_NEAR(s.mape, 0.1, 1e-12);
  EXPECT_NEAR(s.bias, 0.0, 1e-12);
  EXPECT_NEAR(s.max_abs_error, 0.1, 1e-12);
  EXPECT_EQ(fit::summarize(rows, true).points, 1u);
  EXPECT_EQ(fit::size_band_name(fit::size_band(1 << 20)), "1 - 16 MiB");
  EXPECT_EQ(fit::size_band_name(fit::size_band(1000)), "< 64 KiB");
}

// Strategies at different batch sizes rank by throughput: the longer iteration of the larger batch is the
// faster strategy, and ranking iteration times would turn the order round.
TEST(CompareStatistics, SpearmanRanksThroughputAcrossBatchSizes) {
  const auto row = [](const char* name, double measured, double predicted, double samples) {
    fit::ComparedRow r{name, "", measured, predicted, predicted, 1};
    r.samples = samples;
    return r;
  };
  fit::Comparison c;
  // samples/s measured 4, 6, 8 and predicted 4.2, 5.8, 8.4: the same order; times 1, 2, 3 s rise with it.
  c.sections = {{"iteration",
                 "s",
                 {row("a", 1.0, 1.0 / 1.05, 4), row("b", 2.0, 12 / 5.8, 12), row("c", 3.0, 24 / 8.4, 24)},
                 {},
                 {}}};
  fit::finish_comparison(c);
  ASSERT_TRUE(c.spearman_planner.has_value());
  EXPECT_DOUBLE_EQ(*c.spearman_planner, 1.0);
  EXPECT_DOUBLE_EQ(*c.spearman_simulator, 1.0);
  // Without sample counts (one batch for all) the rows rank by 1 / time: predictions 3, 2, 1 s against
  // measured 1, 2, 3 s are the reverse order.
  for (fit::ComparedRow& r : c.sections[0].rows) r.samples = 0;
  for (int i = 0; i < 3; ++i) c.sections[0].rows[static_cast<std::size_t>(i)].planner = 3.0 - i;
  fit::finish_comparison(c);
  EXPECT_DOUBLE_EQ(*c.spearman_planner, -1.0);
}

}  // namespace
}  // namespace shardscope
