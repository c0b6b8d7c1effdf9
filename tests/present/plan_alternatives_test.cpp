// What sets a plan apart from another, by hand; and the alternatives the report lists for plan --top.
#include "present/plan_alternatives.hpp"

#include <gtest/gtest.h>

#include "planner/search/planner.hpp"

namespace shardscope::present {
namespace {

Plan three_operators() {
  Plan p;
  p.micro_batch = 4;
  p.gradient_accumulation_steps = 2;
  for (const char* name : {"embedding", "layer0.mlp", "head"}) {
    OperatorChoice c;
    c.name = name;
    c.sharded_slices = 1;
    p.operators.push_back(c);
  }
  return p;
}

TEST(PlanAlternatives, TheDifferenceNamesBatchShardingAndCheckpoints) {
  const Plan base = three_operators();
  EXPECT_EQ(plan_difference(base, base), "the same choices");
  Plan other = base;
  other.micro_batch = 2;
  other.gradient_accumulation_steps = 4;
  other.operators[1].scopes = Scopes{ShardScope::I, ShardScope::I, ShardScope::G};
  other.operators[2].slices = 4;
  other.operators[2].sharded_slices = 2;
  other.operators[0].checkpoint = true;
  other.operators[1].checkpoint = true;
  EXPECT_EQ(plan_difference(other, base),
            "micro-batch 2 x 4; sharding of 2 operators (layer0.mlp GGG -> IIG, head GGG -> GGG 2/4); 2 more "
            "checkpointed (embedding, ...)");
  Plan replicated = base;
  replicated.operators[0].sharded_slices = 0;
  EXPECT_EQ(plan_difference(base, replicated), "sharding of 1 operator (embedding NNN (DP) -> GGG)");
  EXPECT_EQ(
      plan_difference(replicated, other),
      "micro-batch 4 x 2; sharding of 3 operators (embedding GGG -> NNN (DP), layer0.mlp IIG -> GGG, ...); "
      "2 fewer checkpointed (embedding, ...)");
}

TEST(PlanAlternatives, TheReportsCandidatesBarThePlanItself) {
  PlanReport report;
  report.best.fits = true;
  report.best.plan = three_operators();
  Plan slower = report.best.plan;
  slower.micro_batch = 2;
  report.candidates = {report.best.plan, slower, slower};
  EXPECT_EQ(alternatives(report, 5).size(), 2u);
  EXPECT_EQ(alternatives(report, 1).size(), 1u);
  EXPECT_EQ(alternatives(report, 1).front()->micro_batch, 2);
}

}  // namespace
}  // namespace shardscope::present
