// plan --target-tokens-per-second (issue 36, item 2): the node-count search against a known rate curve
// (doubling, bisection; every dividing count under a global batch), and the command's answer, JSON, exit 3
// when no count reaches the target, and its usage errors.
#include "apps/shardscope/plan_target.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "run_command.hpp"

namespace shardscope {
namespace {

const std::string kBinary = SHARDSCOPE_BINARY;
const std::string kSource = SHARDSCOPE_SOURCE_DIR;

std::vector<int> counts(const TargetSearch& s) {
  std::vector<int> out;
  for (const TargetPoint& p : s.curve) out.push_back(p.nodes);
  return out;
}

// 1,000 tokens/s per node: 26 nodes reach 26,000; the search doubles to 32 and bisects to 26.
TEST(PlanTarget, DoublesThenBisectsToTheFewestNodes) {
  std::vector<int> asked;
  const TargetSearch s = search_node_count(26000, 8, 0, [&](int nodes) {
    asked.push_back(nodes);
    return TargetPoint{nodes, 8 * nodes, true, "", 1000.0 * nodes, 4, 1};
  });
  ASSERT_TRUE(s.nodes.has_value());
  EXPECT_EQ(*s.nodes, 26);
  EXPECT_TRUE(s.bisected);
  EXPECT_EQ(asked, (std::vector<int>{1, 2, 4, 8, 16, 32, 24, 28, 26, 25}));
  EXPECT_EQ(counts(s), (std::vector<int>{1, 2, 4, 8, 16, 24, 25, 26, 28, 32}));  // by node count
  EXPECT_EQ(s.max_nodes, kMaxTargetGpus / 8);
  // Out of reach: every doubling up to the largest count, nothing chosen, the best named.
  const TargetSearch none =
      search_node_count(1e12, 8, 0, [](int n) { return TargetPoint{n, 8 * n, true, "", 1000.0 * n, 4, 1}; });
  EXPECT_FALSE(none.nodes.has_value());
  EXPECT_EQ(counts(none).back(), none.max_nodes);
  ASSERT_NE(none.best(), nullptr);
  EXPECT_EQ(none.best()->nodes, none.max_nodes);
  // A count where nothing fits does not reach the target, whatever its rate.
  const TargetSearch unfit =
      search_node_count(1, 8, 0, [](int n) { return TargetPoint{n, 8 * n, n >= 4, "", 1000.0 * n, 4, 1}; });
  EXPECT_EQ(*unfit.nodes, 4);  // 3 nodes were planned and do not fit
  EXPECT_EQ(unfit.curve.at(2).fits, false);
}

// With a global batch of 96 samples on nodes of 8 GPUs only 1, 2, 3, 4, 6 and 12 nodes divide it: each is
// planned in order, none assumed, and 5 is never asked.
TEST(PlanTarget, UnderAGlobalBatchEveryDividingCountInOrder) {
  std::vector<int> asked;
  const TargetSearch s = search_node_count(5500, 8, 96, [&](int nodes) {
    asked.push_back(nodes);
    return TargetPoint{nodes, 8 * nodes, true, "", 1000.0 * nodes, 1, 1};
  });
  EXPECT_EQ(asked, (std::vector<int>{1, 2, 3, 4, 6}));
  EXPECT_EQ(*s.nodes, 6);
  EXPECT_FALSE(s.bisected);
}

TEST(PlanTarget, TheCommandReportsThePlanAtTheCountItFinds) {
  const std::string scenario = kSource + "/scenarios/paro-llama-7b-32gpu.yaml";
  const auto r = test::run_command(kBinary + " plan " + scenario +
                                   " --target-tokens-per-second 1M --no-baselines --quiet --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const auto& target = j.at("target");
  const int nodes = target.at("nodes").get<int>();
  double below = 0, at = 0;
  for (const auto& p : target.at("curve")) {
    if (p.at("nodes").get<int>() == nodes - 1) below = p.at("tokens_per_second").get<double>();
    if (p.at("nodes").get<int>() == nodes) at = p.at("tokens_per_second").get<double>();
  }
  EXPECT_LT(below, 1e6);  // the count below was planned and falls short
  EXPECT_GE(at, 1e6);
  EXPECT_EQ(j.at("plan").at("predicted").at("tokens_per_second").get<double>(), at);  // the report is there
  const auto text = test::run_command(kBinary + " plan " + scenario +
                                      " --target-tokens-per-second 1M --no-baselines --quiet");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("Target 1.00 M tokens/s on dgx-a100 nodes of 8 GPUs: " + std::to_string(nodes) +
                          " node(s), " + std::to_string(8 * nodes) + " GPUs"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("on " + std::to_string(8 * nodes) + " x A100-SXM4-80GB"), std::string::npos);
}

TEST(PlanTarget, OutOfReachExitsThreeAndBadUseExitsTwo) {
  const std::string scenario = kSource + "/scenarios/default.yaml";
  const auto far =
      test::run_command(kBinary + " plan " + scenario +
                        " --set training.global_batch=96 --target-tokens-per-second 150K --quiet");
  EXPECT_EQ(far.exit_code, 3) << far.err;
  EXPECT_NE(far.err.find("error: no node count up to 8192 reaches 150.00 K tokens/s; the most: "),
            std::string::npos)
      << far.err;
  EXPECT_NE(far.out.find("(every node count whose GPUs divide the global batch, in order)"),
            std::string::npos)
      << far.out;
  const std::pair<std::string, std::string> cases[] = {
      {"--target-tokens-per-second 0", "--target-tokens-per-second: expected a positive rate, got '0'"},
      {"--target-tokens-per-second x", "--target-tokens-per-second: expected a count such as 15T"},
      {"--target-tokens-per-second ''",
       "--target-tokens-per-second: expected a rate such as 1M, got an empty"},
      {"--target-tokens-per-second 1M --nodes 2",
       "chooses the node count, so it does not combine with --nodes"},
      {"--target-tokens-per-second 1M --refine 2", "does not combine with --refine"},
      {"--target-tokens-per-second 1M --price-per-gpu-hour 2", "--price-per-gpu-hour: prices a training run"},
  };
  for (const auto& [arguments, message] : cases) {
    const auto r = test::run_command(kBinary + " plan " + scenario + " " + arguments);
    EXPECT_EQ(r.exit_code, 2) << arguments << ": " << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << arguments << ": " << r.err;
  }
}

}  // namespace
}  // namespace shardscope
