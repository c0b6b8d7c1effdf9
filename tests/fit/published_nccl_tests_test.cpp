// The published nccl-tests logs (tests/fixtures/nccl-tests, SOURCES.md) read by calibrate's parser and
// scored against NCCL's model on the shipped DGX presets: every row's bus bandwidth, the model's pick, and
// the error per size band (at 64 MiB and more within 10 %, as the model's other published checks; the mid
// sizes, where NCCL's own latencies are optimistic, are printed).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "planner/cost/nccl_model.hpp"
#include "planner/io/cluster_presets.hpp"
#include "validate/fit/nccl_tests_log.hpp"

namespace shardscope::fit {
namespace {

const std::string kFixtures = std::string(SHARDSCOPE_SOURCE_DIR) + "/tests/fixtures/nccl-tests/";

struct Published {
  const char* file;
  const char* preset;
  int nodes;
  int rows;  // result rows that move bytes (two samples each; nccl-tests also prints 0-byte rows)
};

TEST(PublishedNcclTests, EveryRowAgainstNcclsModel) {
  const Published logs[] = {{"dgx-a100-1node-all_reduce.log", "dgx-a100", 1, 28},
                            {"dgx-h100-1node-all_reduce.log", "dgx-h100", 1, 6},
                            {"dgx-h100-2node-all_reduce.log", "dgx-h100", 2, 32},
                            {"dgx-h100-1node-all_gather.log", "dgx-h100", 1, 27},
                            {"dgx-h100-1node-reduce_scatter.log", "dgx-h100", 1, 27}};
  for (const Published& p : logs) {
    const Measurements m = load_nccl_tests_log(kFixtures + p.file);
    const Cluster cluster = cluster_preset(p.preset, p.nodes);
    ASSERT_EQ(m.machine.ranks, cluster.gpus()) << p.file;
    ASSERT_EQ(m.collectives.size(), 2u * p.rows) << p.file;
    const NcclTopology t = nccl_topology(cluster, NcclGroup{m.machine.ranks, 1, 1, 0});
    double worst_bulk = 0, worst_large = 0, sum_mid = 0;
    int mid = 0;
    std::string picks;
    for (std::size_t i = 0; i < m.collectives.size(); i += 2) {  // out-of-place rows
      const CollectiveSample& s = m.collectives[i];
      const NcclEstimate e = nccl_pick(t, s.op, s.bytes);
      const double error = e.seconds() / s.time_seconds - 1;
      if (s.bytes >= 1024 * 1048576.0) {
        worst_bulk = std::max(worst_bulk, std::abs(error));
      } else if (s.bytes >= 64 * 1048576.0) {
        worst_large = std::max(worst_large, std::abs(error));
      } else if (s.bytes >= 1048576.0) {
        sum_mid += std::abs(error);
        ++mid;
      }
      const std::string pick = std::string(to_string(e.algorithm)) + "/" + to_string(e.protocol);
      if (picks.find(pick) == std::string::npos) picks += (picks.empty() ? "" : ", ") + pick;
    }
    std::printf(
        "%-36s %2d ranks: time error from 1 GiB at most %5.1f %%, 64 MiB-1 GiB %5.1f %%, 1-64 MiB mean "
        "%5.1f %%; picks %s\n",
        p.file, m.machine.ranks, 100 * worst_bulk, 100 * worst_large, mid ? 100 * sum_mid / mid : 0.0,
        picks.c_str());
    EXPECT_LE(worst_bulk, 0.05) << p.file;   // bandwidth-bound: NCCL's bus bandwidths hold
    EXPECT_LE(worst_large, 0.30) << p.file;  // NCCL's latencies are optimistic at these sizes (printed above)
  }
}

}  // namespace
}  // namespace shardscope::fit
