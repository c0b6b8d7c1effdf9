// Tests of per-GPU model-state memory against PaRO Table 2 (hand-computed values).
#include "planner/core/model_states.hpp"

#include <gtest/gtest.h>

namespace shardscope {
namespace {

constexpr ShardScope N = ShardScope::N, I = ShardScope::I, G = ShardScope::G;

TEST(ModelStates, PaRoTable2) {
  const double psi = 7e9;
  const int gpus = 64, group = 8;
  const StateBytesPerParameter k = state_bytes_per_parameter(Precision::mixed_bf16, OptimizerKind::adam);
  ASSERT_EQ(k.optimizer, 12);
  auto total = [&](Scopes s) { return model_state_bytes_per_gpu(psi, s, gpus, group, k).total(); };
  EXPECT_DOUBLE_EQ(total({N, N, N}), 16 * psi);                                    // DDP
  EXPECT_DOUBLE_EQ(total({N, N, G}), 2 * psi + 2 * psi + 12 * psi / 64);           // ZeRO-1
  EXPECT_DOUBLE_EQ(total({N, G, G}), 2 * psi + 2 * psi / 64 + 12 * psi / 64);      // ZeRO-2
  EXPECT_DOUBLE_EQ(total({G, G, G}), 16 * psi / 64);                               // ZeRO-3
  EXPECT_DOUBLE_EQ(total({I, I, I}), 16 * psi / 8);                                // MiCS
  EXPECT_DOUBLE_EQ(total({I, G, G}), 2 * psi / 8 + 2 * psi / 64 + 12 * psi / 64);  // PaRO-IGG
  EXPECT_DOUBLE_EQ(total({I, I, G}), 2 * psi / 8 + 2 * psi / 8 + 12 * psi / 64);   // PaRO-IIG
  EXPECT_DOUBLE_EQ(total({N, I, G}), 2 * psi + 2 * psi / 8 + 12 * psi / 64);       // PaRO-NIG
  EXPECT_EQ((Scopes{I, I, G}).name(), "IIG");
}

TEST(ModelStates, Fp32AdamKeepsFourFourEight) {
  const StateBytesPerParameter k = state_bytes_per_parameter(Precision::fp32, OptimizerKind::adam);
  EXPECT_EQ(k.parameter + k.gradient + k.optimizer, 16);
  EXPECT_EQ(k.optimizer, 8);
}

}  // namespace
}  // namespace shardscope
