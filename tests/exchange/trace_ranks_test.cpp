// `--trace-ranks`: the first N, all, K nodes spread over the cluster, lists and ranges, and every refusal.
#include "exchange/trace_ranks.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace shardscope::sim {
namespace {

// The kept ranks, in order.
std::vector<int> kept(const std::string& spec, int gpus, int per_node) {
  std::vector<int> out;
  const std::vector<unsigned char> flags = traced_ranks(spec, gpus, per_node);
  EXPECT_EQ(flags.size(), static_cast<std::size_t>(gpus));
  for (int r = 0; r < gpus; ++r)
    if (flags[static_cast<std::size_t>(r)] != 0) out.push_back(r);
  return out;
}

TEST(TraceRanks, FirstNAllListsAndRanges) {
  EXPECT_EQ(kept("3", 16, 8), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(kept("0", 16, 8), std::vector<int>{});
  EXPECT_EQ(kept("40", 16, 8).size(), 16u);  // more than the cluster: every rank
  EXPECT_EQ(kept("all", 12, 8).size(), 12u);
  EXPECT_EQ(kept("0,5,8-10,9", 16, 8), (std::vector<int>{0, 5, 8, 9, 10}));
  EXPECT_EQ(kept("15", 16, 8).size(), 15u);
  EXPECT_EQ(kept("15-15", 16, 8), std::vector<int>{15});
}

// K nodes evenly spread, the first and the last among them: on 8 nodes of 4 GPUs, nodes:3 is nodes 0, 4
// (3.5 rounded half up) and 7.
TEST(TraceRanks, NodesAreSpreadOverTheCluster) {
  EXPECT_EQ(kept("nodes:1", 32, 4), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(kept("nodes:2", 32, 4), (std::vector<int>{0, 1, 2, 3, 28, 29, 30, 31}));
  EXPECT_EQ(kept("nodes:3", 32, 4), (std::vector<int>{0, 1, 2, 3, 16, 17, 18, 19, 28, 29, 30, 31}));
  EXPECT_EQ(kept("nodes:8", 32, 4).size(), 32u);
  EXPECT_EQ(kept("nodes:2", 4096, 8).size(), 16u);
  EXPECT_EQ(kept("nodes:2", 12, 8), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));  // 8 + 4
}

TEST(TraceRanks, BadSpecsSayWhatIsExpected) {
  for (const std::string spec : {"", "-1", "x", "1,", ",1", "3-1", "1-", "nodes:", "nodes:0", "nodes:x", "al",
                                 "1.5", "99999999999", "0x10", " 1"}) {
    const auto error = trace_ranks_syntax_error(spec);
    ASSERT_TRUE(error.has_value()) << "'" << spec << "'";
    EXPECT_NE(error->find("expected N (the first N ranks), all, nodes:K"), std::string::npos) << *error;
    EXPECT_THROW(traced_ranks(spec, 8, 8), std::invalid_argument) << spec;
  }
  for (const std::string spec : {"8", "all", "nodes:3", "0,5,8-15", "1073741824"})
    EXPECT_FALSE(trace_ranks_syntax_error(spec).has_value()) << spec;
}

TEST(TraceRanks, RanksAndNodesTheClusterDoesNotHaveAreRefused) {
  try {
    traced_ranks("0,16", 16, 8);
    ADD_FAILURE() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "rank 16 is not one of the cluster's 16 GPUs (0-15)");
  }
  try {
    traced_ranks("nodes:3", 16, 8);
    ADD_FAILURE() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "nodes:3 asks for more nodes than the cluster's 2");
  }
}

}  // namespace
}  // namespace shardscope::sim
