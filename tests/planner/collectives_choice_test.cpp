// execution.collectives: under auto the NCCL-based baselines (DDP, ZeRO, FSDP, MiCS, ZeRO++, OSDP) are priced
// with NCCL's model and PaRO's strategies and shardscope's plan with rings; ring or nccl prices every
// strategy alike; a plan records its collectives and is evaluated with them.
#include <gtest/gtest.h>

#include "planner/core/error.hpp"
#include "planner/io/scenario_parser.hpp"
#include "planner/report/internal/plan_json_tree.hpp"
#include "planner/report/plan_json.hpp"
#include "planner/search/planner.hpp"
#include "planner/search/search_space.hpp"

namespace shardscope {
namespace {

Scenario two_nodes(const std::string& collectives) {
  return parse_scenario_string(
      "model: {preset: nd-48x1536}\ncluster: {preset: a100-40gb-2x8-100gbe}\n"
      "training: {memory_limit: 16GB, runtime_reserve: 1GiB, max_micro_batch: 4, group_size: 8}\n" +
          (collectives.empty() ? std::string() : "execution: {collectives: " + collectives + "}\n"),
      "s.yaml");
}

TEST(CollectivesChoice, AutoFollowsTheStrategysPaper) {
  const ExecutionOptions automatic;
  for (const char* nccl :
       {"ddp", "zero-1", "zero-2", "fsdp", "zero-3", "mics", "zero++", "osdp", "osdp-no-split"})
    EXPECT_EQ(collective_model_for(automatic, nccl), CollectiveModel::nccl) << nccl;
  for (const char* ring : {"shardscope", "paro-IIG", "paro-NGG", "paro-III"})
    EXPECT_EQ(collective_model_for(automatic, ring), CollectiveModel::ring) << ring;
  for (const Strategy& s : strategies()) {
    ExecutionOptions e;
    e.collectives = CollectivesChoice::ring;
    EXPECT_EQ(collective_model_for(e, s.name), CollectiveModel::ring) << s.name;
    e.collectives = CollectivesChoice::nccl;
    EXPECT_EQ(collective_model_for(e, s.name), CollectiveModel::nccl) << s.name;
  }
}

TEST(CollectivesChoice, APlanRunsItsOwnCollectivesUnlessTheScenarioSaysOtherwise) {
  Plan plan;
  plan.strategy = "fsdp";
  plan.collectives = CollectiveModel::nccl;
  ExecutionOptions e;
  EXPECT_EQ(plan_collectives(e, plan), CollectiveModel::nccl);
  e.collectives = CollectivesChoice::ring;
  EXPECT_EQ(plan_collectives(e, plan), CollectiveModel::ring);
  plan.collectives = CollectiveModel::ring;
  e.collectives = CollectivesChoice::nccl;
  EXPECT_EQ(plan_collectives(e, plan), CollectiveModel::nccl);
}

const StrategyResult& baseline(const PlanReport& report, const std::string& name) {
  for (const StrategyResult& b : report.baselines) {
    if (b.strategy == name) return b;
  }
  throw std::logic_error("no baseline " + name);
}

// Two nodes of 8 GPUs sharing one 100 Gb NIC each: NCCL's rings (one per rail, the NIC's bandwidth split
// by the rings crossing it) and the ring step model price FSDP's all-gathers differently, so the choice
// shows in FSDP's predicted time; PaRO's strategy is priced by rings whatever auto gives FSDP.
TEST(CollectivesChoice, AutoPricesFsdpWithNcclAndParoWithRings) {
  const PlanReport automatic = plan_scenario(ValidScenario(two_nodes("")), Calibration{});
  const PlanReport ring = plan_scenario(ValidScenario(two_nodes("ring")), Calibration{});
  const PlanReport nccl = plan_scenario(ValidScenario(two_nodes("nccl")), Calibration{});
  const StrategyResult& fsdp_auto = baseline(automatic, "fsdp");
  ASSERT_TRUE(fsdp_auto.fits);
  EXPECT_EQ(fsdp_auto.plan.collectives, CollectiveModel::nccl);
  EXPECT_EQ(baseline(ring, "fsdp").plan.collectives, CollectiveModel::ring);
  EXPECT_EQ(baseline(nccl, "fsdp").plan.collectives, CollectiveModel::nccl);
  EXPECT_EQ(fsdp_auto.plan.predicted.iteration_seconds,
            baseline(nccl, "fsdp").plan.predicted.iteration_seconds);
  EXPECT_NE(fsdp_auto.plan.predicted.iteration_seconds,
            baseline(ring, "fsdp").plan.predicted.iteration_seconds);
  const StrategyResult& paro_auto = baseline(automatic, "paro-IIG");
  ASSERT_TRUE(paro_auto.fits);
  EXPECT_EQ(paro_auto.plan.collectives, CollectiveModel::ring);
  EXPECT_EQ(paro_auto.plan.predicted.iteration_seconds,
            baseline(ring, "paro-IIG").plan.predicted.iteration_seconds);
  // The product's own plan keeps rings under auto, unless it adopted a faster NCCL baseline's plan.
  ASSERT_TRUE(automatic.best.fits);
  EXPECT_EQ(automatic.best.plan.collectives,
            automatic.best.adopted_from.empty()
                ? CollectiveModel::ring
                : baseline(automatic, automatic.best.adopted_from).plan.collectives);
}

// evaluate_plan prices a plan with its recorded collectives: FSDP's plan re-evaluated gives its prediction.
TEST(CollectivesChoice, EvaluatingAPlanUsesItsCollectives) {
  const Scenario s = two_nodes("");
  const StrategyResult fsdp =
      plan_strategy(ValidScenario(s), Calibration{}, space_by_name("fsdp", s.training));
  ASSERT_TRUE(fsdp.fits);
  EXPECT_EQ(fsdp.plan.collectives, CollectiveModel::nccl);
  EXPECT_DOUBLE_EQ(evaluate_plan(ValidScenario(s), Calibration{}, fsdp.plan).iteration_seconds,
                   fsdp.plan.predicted.iteration_seconds);
  Plan as_ring = fsdp.plan;
  as_ring.collectives = CollectiveModel::ring;
  EXPECT_NE(evaluate_plan(ValidScenario(s), Calibration{}, as_ring).iteration_seconds,
            fsdp.plan.predicted.iteration_seconds);
}

TEST(CollectivesChoice, PlanFilesRecordTheCollectivesAndOldOnesRunRings) {
  const Scenario s = two_nodes("");
  const StrategyResult fsdp =
      plan_strategy(ValidScenario(s), Calibration{}, space_by_name("fsdp", s.training));
  ASSERT_TRUE(fsdp.fits);
  auto json = plan_to_json(fsdp.plan);
  EXPECT_EQ(json.at("collectives"), "nccl");
  EXPECT_EQ(plan_from_json_string(json.dump(), "p.json", s.model).collectives, CollectiveModel::nccl);
  json.erase("collectives");
  EXPECT_EQ(plan_from_json_string(json.dump(), "p.json", s.model).collectives, CollectiveModel::ring);
  json["collectives"] = "tree";
  EXPECT_THROW(plan_from_json_string(json.dump(), "p.json", s.model), InputError);
}

}  // namespace
}  // namespace shardscope
