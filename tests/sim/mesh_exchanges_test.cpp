// The simulator's mesh exchanges without a platform: each group's flows, the order a compute task runs
// them in, the kernels' share of its seconds, and a group that does not divide the ranks refused.
#include "sim/internal/mesh_exchanges.hpp"

#include <gtest/gtest.h>

#include "sim/simulation_error.hpp"

namespace shardscope::sim {
namespace {

MeshExchange exchange(bool all_to_all, int ranks, bool before, bool overlapped, double seconds) {
  MeshExchange e;
  e.all_to_all = all_to_all;
  e.axis = all_to_all ? MeshAxis::expert : MeshAxis::context;
  e.kind = CollectiveKind::all_gather;
  e.group_ranks = ranks;
  e.before = before;
  e.overlapped = overlapped;
  e.bytes = 1200;
  e.seconds = seconds;
  e.latency_seconds = seconds / 4;
  return e;
}

IterationProgram program_of(std::vector<MeshExchange> exchanges) {
  IterationProgram program;
  Task task;
  task.compute_seconds = 10;
  task.mesh_exchanges = std::move(exchanges);
  program.tasks.push_back(task);
  program.step_tasks = 1;
  return program;
}

TEST(SimMeshExchanges, EachGroupSendsItsPairsOrItsRing) {
  const ExchangeFamilies pairs = exchange_families(program_of({exchange(true, 4, true, false, 1)}), 8, 16);
  ASSERT_EQ(pairs.size(), 1u);
  const NcclFamilyFlows& a2a = pairs.begin()->second;
  ASSERT_EQ(a2a.copies.size(), 2u);
  EXPECT_EQ(a2a.copies[1].size(), 12u);  // 4 x 3 pairs
  EXPECT_EQ(a2a.copies[1].front()->from, 4);
  EXPECT_DOUBLE_EQ(a2a.copies[1].front()->bytes, 300);
  EXPECT_DOUBLE_EQ(a2a.estimate.latency_seconds + a2a.estimate.bandwidth_seconds, 1);
  const ExchangeFamilies ring = exchange_families(program_of({exchange(false, 4, false, true, 1)}), 8, 16);
  const NcclFamilyFlows& kv = ring.begin()->second;
  ASSERT_EQ(kv.copies[0].size(), 4u);
  EXPECT_EQ(kv.copies[0].back()->from, 3);
  EXPECT_EQ(kv.copies[0].back()->to, 0);
  EXPECT_DOUBLE_EQ(kv.copies[0].back()->bytes, 900);  // three of four chunks
  // Above the pair limit an all-to-all is timed, so it has no flows.
  EXPECT_TRUE(exchange_families(program_of({exchange(true, 4, true, false, 1)}), 8, 2).empty());
}

TEST(SimMeshExchanges, ATaskRunsBeforeKernelsAfterWithTheOverlappedBeside) {
  const IterationProgram p =
      program_of({exchange(true, 4, false, false, 1), exchange(false, 4, false, true, 3),
                  exchange(true, 4, true, false, 2)});
  EXPECT_EQ(exchange_order(p.tasks[0]), (std::vector<int>{2, -1, 0}));
  EXPECT_EQ(overlapped_exchanges(p.tasks[0]), (std::vector<int>{1}));
  EXPECT_DOUBLE_EQ(kernel_seconds(p.tasks[0]), 7);  // 10 less the blocking 1 and 2
  EXPECT_STREQ(exchange_abbreviation(p.tasks[0].mesh_exchanges[0]), "A2A");
  EXPECT_STREQ(exchange_abbreviation(p.tasks[0].mesh_exchanges[1]), "AG");
}

TEST(SimMeshExchanges, AGroupThatDoesNotDivideTheRanksIsRefused) {
  try {
    exchange_families(program_of({exchange(true, 3, true, false, 1)}), 8, 16);
    ADD_FAILURE() << "a group of 3 accepted on 8 ranks";
  } catch (const SimulationError& e) {
    EXPECT_NE(std::string(e.what()).find("a mesh group of 3 ranks does not divide the 8 ranks"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace shardscope::sim
