// A Scenario built in code plans like the same scenario read from YAML; invalid ones are InputErrors, not
// SIGFPE.
#include <gtest/gtest.h>

#include <filesystem>

#include "planner/core/error.hpp"
#include "planner/core/scenario_check.hpp"
#include "planner/core/transformer.hpp"
#include "planner/cost/cost_model.hpp"
#include "planner/io/calibration_parser.hpp"
#include "planner/io/cluster_presets.hpp"
#include "planner/io/scenario_parser.hpp"
#include "planner/io/transformer_parser.hpp"
#include "planner/report/internal/plan_json_tree.hpp"
#include "planner/report/plan_json.hpp"
#include "planner/search/planner.hpp"

namespace shardscope {
namespace {

Scenario in_code() {
  Scenario s;
  s.model = generate_transformer(model_preset("nd-48x1536", "test", 0, "model.preset"));
  s.cluster = cluster_preset("titan-rtx-8-pcie3");
  s.training.max_micro_batch = 8;
  return s;
}

std::string field_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.field();
  }
  return "(no error)";
}

TEST(ScenarioInCode, UnresolvedDefaultsAreAnInputErrorNotADivisionByZero) {
  const Scenario s = in_code();
  EXPECT_EQ(
      field_of([&] { plan_scenario(ValidScenario(s), Calibration{}, PlanRequest{.with_baselines = false}); }),
      "training.group_size");
  EXPECT_EQ(field_of([&] { make_cost_model(ValidScenario(s), Calibration{}); }), "training.group_size");
}

TEST(ScenarioInCode, PlansExactlyAsTheSameScenarioReadFromYaml) {
  Scenario s = in_code();
  resolve_defaults(s);
  EXPECT_EQ(s.training.group_size, 8);
  EXPECT_EQ(s.training.memory_limit_bytes, s.cluster.gpu.memory_bytes);
  const Scenario from_yaml = parse_scenario_string(
      "model: {preset: nd-48x1536}\ncluster: {preset: titan-rtx-8-pcie3}\ntraining: {max_micro_batch: 8}\n");
  const PlanReport a = plan_scenario(ValidScenario(s), Calibration{}, PlanRequest{.with_baselines = true});
  const PlanReport b =
      plan_scenario(ValidScenario(from_yaml), Calibration{}, PlanRequest{.with_baselines = true});
  s.name = from_yaml.name;
  s.source_file = from_yaml.source_file;
  EXPECT_EQ(report_to_json(a, s).dump(), report_to_json(b, from_yaml).dump());
}

TEST(ScenarioInCode, EveryZeroDivisorIsNamed) {
  const auto issue = [](const std::function<void(Scenario&)>& edit) {
    Scenario s = in_code();
    resolve_defaults(s);
    edit(s);
    return field_of(
        [&] { plan_scenario(ValidScenario(s), Calibration{}, PlanRequest{.with_baselines = false}); });
  };
  EXPECT_EQ(issue([](Scenario& s) { s.cluster.gpus_per_node = 0; }), "cluster.gpus_per_node");
  EXPECT_EQ(issue([](Scenario& s) { s.cluster.nodes = 0; }), "cluster.nodes");
  EXPECT_EQ(issue([](Scenario& s) { s.cluster.gpu.peak_flops_per_second_fp16 = 0; }),
            "cluster.gpu.peak_fp16");
  EXPECT_EQ(issue([](Scenario& s) { s.cluster.gpu.hbm_bytes_per_second = 0; }), "cluster.gpu.hbm_bandwidth");
  EXPECT_EQ(issue([](Scenario& s) { s.cluster.pcie.gpu_link_bytes_per_second = 0; }),
            "cluster.intra_node.gpu_link_bandwidth");
  EXPECT_EQ(issue([](Scenario& s) {
              s.cluster.nodes = 2;
              s.cluster.network.nic_bytes_per_second = 0;
            }),
            "cluster.network.nic_rate");
  EXPECT_EQ(issue([](Scenario& s) { s.model.operators.clear(); }), "model.operators");
  EXPECT_EQ(issue([](Scenario& s) { s.model.sequence_length = 0; }), "model.sequence_length");
  EXPECT_EQ(issue([](Scenario& s) { s.model.operators[3].forward_flops_per_sample = -1; }),
            "model.operators[3].forward_flops_per_sample");
  EXPECT_EQ(issue([](Scenario& s) { s.training.group_size = 3; }), "training.group_size");
  EXPECT_EQ(issue([](Scenario& s) { s.training.memory_limit_bytes = s.cluster.gpu.memory_bytes + 1; }),
            "training.memory_limit");
  EXPECT_EQ(issue([](Scenario& s) { s.training.runtime_reserve_bytes = s.training.memory_limit_bytes; }),
            "training.runtime_reserve");
  EXPECT_EQ(issue([](Scenario& s) { s.training.gradient_accumulation_steps = 0; }),
            "training.gradient_accumulation_steps");
  EXPECT_EQ(issue([](Scenario& s) { s.training.slice_granularities.clear(); }),
            "training.slice_granularities");
  EXPECT_EQ(issue([](Scenario& s) { s.execution.prefetch_depth = -1; }), "execution.prefetch_depth");
  EXPECT_EQ(issue([](Scenario&) {}), "(no error)");
}

// The remaining checks of scenario_issues, each named by its field.
TEST(ScenarioInCode, EveryOtherInvariantIsNamed) {
  const auto issue = [](const std::function<void(Scenario&)>& edit) {
    Scenario s = in_code();
    resolve_defaults(s);
    edit(s);
    const std::vector<ScenarioIssue> issues = scenario_issues(s);
    return issues.empty() ? std::string("(no issue)") : issues.front().field;
  };
  EXPECT_EQ(issue([](Scenario& s) { s.cluster.gpu.achievable_fraction = 0; }),
            "cluster.gpu.achievable_fraction");
  EXPECT_EQ(issue([](Scenario& s) { s.cluster.gpu.memory_bytes = 0; }), "cluster.gpu.memory");
  EXPECT_EQ(issue([](Scenario& s) { s.cluster.pcie.gpus_per_switch = 0; }), "cluster.intra_node");
  EXPECT_EQ(issue([](Scenario& s) { s.cluster.pcie.gpus_per_switch = 1; }),
            "cluster.intra_node.gpus_per_switch");
  EXPECT_EQ(issue([](Scenario& s) { s.cluster.pcie.latency_seconds = -1; }), "cluster.intra_node.latency");
  EXPECT_EQ(issue([](Scenario& s) {
              s.cluster.nodes = 2;
              s.cluster.network.nic_bytes_per_second = 1e9;
              s.cluster.network.nics_per_node = 0;
            }),
            "cluster.network.nics_per_node");
  EXPECT_EQ(issue([](Scenario& s) {
              s.cluster.nodes = 2;
              s.cluster.network.nic_bytes_per_second = 1e9;
              s.cluster.network.oversubscription = 0.5;
            }),
            "cluster.network.oversubscription");
  EXPECT_EQ(issue([](Scenario& s) { s.model.operators[2].name.clear(); }), "model.operators[2].name");
  EXPECT_EQ(issue([](Scenario& s) { s.model.operators[2].active_parameters = -1; }),
            "model.operators[2].active_parameters");
  EXPECT_EQ(issue([](Scenario& s) { s.model.operators[2].workspace_bytes_per_sample = -1; }),
            "model.operators[2].activation_bytes_per_sample");
  EXPECT_EQ(issue([](Scenario& s) { s.training.micro_batch = -1; }), "training.micro_batch");
  EXPECT_EQ(issue([](Scenario& s) { s.training.max_micro_batch = 0; }), "training.max_micro_batch");
  EXPECT_EQ(issue([](Scenario& s) { s.training.global_batch = -8; }), "training.global_batch");
  EXPECT_EQ(issue([](Scenario& s) { s.training.runtime_reserve_bytes = -1; }), "training.runtime_reserve");
  EXPECT_EQ(issue([](Scenario& s) { s.training.slice_granularities = {0}; }), "training.slice_granularities");
  EXPECT_EQ(issue([](Scenario& s) { s.execution.bucket_bytes = -1; }), "execution.bucket");
  EXPECT_EQ(issue([](Scenario& s) {
              s.planner.cost_model = CostModelKind::paper;
              s.planner.paper.beta_seconds_per_byte = 0;
            }),
            "planner.paper.beta");
}

TEST(ScenarioInCode, TheParserPointsAtTheLineOfACheckFromCore) {
  try {
    parse_scenario_string(
        "model: {preset: nd-48x1536}\ncluster: {preset: titan-rtx-8-pcie3}\ntraining:\n"
        "  memory_limit: 8GB\n  runtime_reserve: 9GB\n",
        "s.yaml");
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 5);
    EXPECT_EQ(e.field(), "training.runtime_reserve");
  }
}

// Defect: the planner shared cost tables between operators whose key omitted backward FLOPs.
TEST(CostClasses, OperatorsThatDifferOnlyInBackwardFlopsAreCostedApart) {
  const Scenario s = parse_scenario_string(
      "model:\n  sequence_length: 1024\n  operators:\n"
      "    - {name: a, kind: mlp, parameters: 1000000, forward_flops_per_sample: 2e12, "
      "backward_flops_per_sample: 2e12}\n"
      "    - {name: b, kind: mlp, parameters: 1000000, forward_flops_per_sample: 2e12, "
      "backward_flops_per_sample: 2e13}\n"
      "cluster: {preset: titan-rtx-8-pcie3}\n");
  CostModelOptions options;
  options.collectives = scenario_collectives(s);  // what the search prices every strategy with
  const auto model = make_cost_model(ValidScenario(s), Calibration{}, options);
  const SearchSpace space = full_space(s.training);
  const PlanInstance inst = build_instance(ValidScenario(s), Calibration{}, space, 1);
  for (std::size_t i = 0; i < 2; ++i) {
    for (std::size_t k = 0; k < inst.choices[i].size(); ++k) {
      EXPECT_EQ(inst.problem.classes[i][k].seconds, model->cost(i, inst.choices[i][k], 1).seconds) << i;
    }
  }
  const StrategyResult r = plan_strategy(ValidScenario(s), Calibration{}, space);
  ASSERT_TRUE(r.fits);
  EXPECT_DOUBLE_EQ(r.plan.predicted.iteration_seconds,
                   evaluate_plan(ValidScenario(s), Calibration{}, r.plan).iteration_seconds);
}

}  // namespace
}  // namespace shardscope
