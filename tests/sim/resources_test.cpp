// Simulation resources: the model rule at scale, the GPU and activity limits, and actor stacks under an
// address-space limit (ulimit -v). Each test runs in its own process; rlimits are set in forked children.
#include "sim/resources.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <string>

#include "planner/io/cluster_presets.hpp"
#include "sim/collective_sim.hpp"
#include "sim/isolated.hpp"
#include "sim/simulation_error.hpp"

namespace shardscope::sim {
namespace {

CollectiveRequest ring_all_gather(int gpus) {
  CollectiveRequest r;
  r.kind = CollectiveKind::all_gather;
  r.algorithm = CollectiveAlgorithm::ring;
  r.total_bytes = 1 << 30;
  r.gpus = gpus;
  return r;
}

std::string refusal(const std::function<void()>& body) {
  try {
    body();
  } catch (const SimulationError& e) {
    return e.what();
  }
  return "(not refused)";
}

TEST(SimResources, AFourThousandRankCollectiveUsesTheCoarseModelAsSimulateDoes) {
  // The step model's 4095 x 4096 messages took minutes; rings over kCoarseAboveRanks are coarse in both
  // commands, and the result still equals the alpha-beta formula.
  const Cluster c = cluster_preset("dgx-a100");
  const CollectiveRequest r = ring_all_gather(4096);
  const double formula = alpha_beta_collective_seconds(c, r);
  const CollectiveResult result = simulate_collective(c, r);
  EXPECT_EQ(result.coarse_rings, 1);
  EXPECT_EQ(result.step_rings, 0);
  EXPECT_EQ(result.messages, 4096);
  EXPECT_NEAR(result.seconds, formula, 1e-9 * formula);
  EXPECT_EQ(model_description(result, kCoarseAboveRanks), "coarse flows");
}

TEST(SimResources, AHierarchicalRingMixesBothModelsBySize) {
  const Cluster c = cluster_preset("dgx-a100");
  CollectiveRequest r = ring_all_gather(256);
  r.algorithm = CollectiveAlgorithm::hierarchical_ring;  // intra rings of 8 (step), inter of 32 (coarse)
  const CollectiveResult result = simulate_collective(c, r);
  EXPECT_EQ(result.step_rings, 32);
  EXPECT_EQ(result.coarse_rings, 8);
  EXPECT_EQ(model_description(result, kCoarseAboveRanks), "step model up to 16 ranks, coarse flows above");
}

TEST(SimResources, EightHundredThousandGpusAreRefusedUpFront) {
  const std::string message =
      refusal([] { simulate_collective(cluster_preset("dgx-a100"), ring_all_gather(800000)); });
  EXPECT_NE(message.find("800000 GPUs; the simulator takes at most 16384"), std::string::npos) << message;
  EXPECT_NE(message.find("routing table"), std::string::npos) << message;
}

TEST(SimResources, TooManyActivitiesAreRefusedWithTheLimit) {
  const std::string message = refusal([] { check_simulation_size({"the iteration", 8, 16, 7'000'000'000}); });
  EXPECT_NE(message.find("at most 100000000"), std::string::npos) << message;
}

TEST(SimResources, AThousandRanksRunUnderAnEightGigabyteAddressSpace) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "ASan reserves terabytes of address space: it cannot run under an 8 GB address-space limit";
#endif
  // SimGrid's default 8 MiB stacks took 8 GiB for 1,024 actors, and SimGrid aborted (exit 134). Sized
  // stacks fit; the HO-Ring's overlapped stages run two actors per rank.
  const std::vector<double> seconds = run_isolated([] {
    const rlimit limit{8'000'000'000ull, 8'000'000'000ull};
    if (::setrlimit(RLIMIT_AS, &limit) != 0) throw SimulationError("setrlimit failed");
    CollectiveRequest r = ring_all_gather(1024);
    r.algorithm = CollectiveAlgorithm::ho_ring;
    return std::vector<double>{simulate_collective(cluster_preset("dgx-a100"), r).seconds};
  });
  ASSERT_EQ(seconds.size(), 1u);
  EXPECT_GT(seconds[0], 0);
}

TEST(SimResources, AnAddressSpaceTooSmallIsRefusedWithTheReason) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP()
      << "ASan reserves terabytes of address space: it cannot run under a 400 MB address-space limit";
#endif
  std::string message;
  try {
    run_isolated([] {
      const rlimit limit{400'000'000ull, 400'000'000ull};
      if (::setrlimit(RLIMIT_AS, &limit) != 0) throw SimulationError("setrlimit failed");
      return std::vector<double>{
          simulate_collective(cluster_preset("dgx-a100"), ring_all_gather(2048)).seconds};
    });
  } catch (const SimulationError& e) {
    message = e.what();
  }
  EXPECT_NE(message.find("address-space limit (ulimit -v)"), std::string::npos) << message;
  EXPECT_NE(message.find("2048 actor stacks"), std::string::npos) << message;
}

TEST(SimResources, StacksAreSizedByNeedNotSimGridsDefault) {
  // 2,048 actors (1,024 GPUs simulated) fit in well under a GiB of address space.
  const std::int64_t bytes = estimated_address_space_bytes({"x", 1024, 2048, 0});
  EXPECT_LT(bytes, std::int64_t{3} << 30);
  EXPECT_LT(kActorStackBytes, std::int64_t{8} << 20);
}

}  // namespace
}  // namespace shardscope::sim
