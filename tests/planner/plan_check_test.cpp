// Plans record their configuration: mismatches with a scenario are errors at the plan's line, digests warn.
#include "planner/search/plan_check.hpp"

#include <gtest/gtest.h>

#include "planner/core/digest.hpp"
#include "planner/core/error.hpp"
#include "planner/cost/cost_model.hpp"
#include "planner/io/plan_json.hpp"
#include "planner/io/scenario_parser.hpp"
#include "planner/search/planner.hpp"

namespace shardscope {
namespace {

std::string scenario_text(const std::string& training) {
  return "model: {preset: nd-48x1536}\ncluster: {preset: titan-rtx-8-pcie3}\n"
         "training: {memory_limit: 8GB, runtime_reserve: 512MiB, max_micro_batch: 4" +
         training + "}\n";
}

Scenario load(const std::string& training = ", precision: mixed-fp16") {
  return parse_scenario_string(scenario_text(training), "s.yaml");
}

// A plan made for `s`, written to and read back from a plan file (so it carries lines).
Plan plan_file_for(const Scenario& s, std::string* text = nullptr) {
  const StrategyResult r = plan_strategy(s, Calibration{}, space_by_name("fsdp", s.training));
  EXPECT_TRUE(r.fits);
  const std::string json = plan_to_json(r.plan).dump(2);
  if (text) *text = json;
  return plan_from_json_string(json, "plan.json", s.model);
}

int line_of(const std::string& text, const std::string& needle) {
  const std::size_t pos = text.find(needle);
  return 1 +
         static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(pos), '\n'));
}

InputError check_error(const Plan& plan, const Scenario& s, const Calibration& c = Calibration{}) {
  try {
    (void)check_plan_configuration(plan, s, c);
  } catch (const InputError& e) {
    // evaluate_plan refuses the same plan.
    EXPECT_THROW((void)evaluate_plan(s, c, plan), InputError);
    return e;
  }
  ADD_FAILURE() << "no error";
  return InputError("", 0, "", "");
}

TEST(PlanCheck, APlanMatchesTheScenarioItWasMadeFor) {
  const Scenario s = load();
  const Plan plan = plan_file_for(s);
  EXPECT_EQ(plan.group_size, 8);
  EXPECT_EQ(plan.precision, Precision::mixed_fp16);
  EXPECT_EQ(plan.sequence_length_tokens, s.model.sequence_length);
  EXPECT_EQ(plan.cost_model, CostModelKind::topology);
  EXPECT_EQ(plan.scenario_digest, scenario_digest(s));
  EXPECT_EQ(plan.calibration_digest, calibration_digest(Calibration{}));
  EXPECT_TRUE(check_plan_configuration(plan, s, Calibration{}).empty());
  EXPECT_GT(evaluate_plan(s, Calibration{}, plan).iteration_seconds, 0);
}

// A plan built in code with too few or too many operators for the model (a file is matched by name on read).
TEST(PlanCheck, EvaluatingAPlanWithAnotherOperatorCountIsAnError) {
  const Scenario s = load();
  Plan plan = plan_file_for(s);
  plan.operators.pop_back();
  try {
    (void)evaluate_plan(s, Calibration{}, plan);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("plan.operators"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("the plan has " + std::to_string(plan.operators.size())),
              std::string::npos)
        << e.what();
  }
  plan.operators.push_back(plan.operators.back());
  plan.operators.push_back(plan.operators.back());
  EXPECT_THROW((void)evaluate_plan(s, Calibration{}, plan), InputError);
}

TEST(PlanCheck, AGroupSizeMismatchIsAnErrorAtThePlansLine) {
  std::string text;
  const Plan plan = plan_file_for(load(", precision: mixed-fp16, group_size: 4"), &text);
  const InputError e = check_error(plan, load(", precision: mixed-fp16, group_size: 8"));
  EXPECT_EQ(e.line(), line_of(text, "\"group_size\""));
  EXPECT_EQ(std::string(e.what()),
            "plan.json:" + std::to_string(e.line()) +
                ": plan.group_size: the plan was made for group size 4, the scenario has 8; re-plan with "
                "`shardscope plan --out` for this scenario");
}

TEST(PlanCheck, EachCheckedFieldIsAnError) {
  const Scenario made_for = load();
  std::string text;
  const Plan plan = plan_file_for(made_for, &text);
  struct Case {
    std::string training, field, message;
  };
  ASSERT_GT(plan.micro_batch, 1);  // so that a global batch can miss it
  const std::string b = std::to_string(plan.micro_batch);
  const std::string other_b = std::to_string(plan.micro_batch - 1);
  const std::vector<Case> cases = {
      {", precision: mixed-bf16", "precision", "made for precision mixed-fp16, the scenario has mixed-bf16"},
      {", precision: mixed-fp16, micro_batch: " + other_b, "batch_size",
       "made for micro-batch " + b + ", the scenario has " + other_b},
      {", precision: mixed-fp16, gradient_accumulation_steps: 2", "gradient_accumulation_steps",
       "made for gradient accumulation steps 1, the scenario has 2"},
      {", precision: mixed-fp16, global_batch: " + std::to_string(8 * 3 * plan.micro_batch),
       "gradient_accumulation_steps", "made for gradient accumulation steps 1, the scenario has 3"},
      {", precision: mixed-fp16, global_batch: " + std::to_string(8 * plan.micro_batch + 8), "batch_size",
       "does not divide the scenario's global batch"},
  };
  for (const Case& c : cases) {
    const InputError e = check_error(plan, load(c.training));
    EXPECT_EQ(e.field(), "plan." + c.field) << c.training;
    EXPECT_EQ(e.line(), line_of(text, "\"" + c.field + "\"")) << c.training;
    EXPECT_NE(std::string(e.what()).find(c.message), std::string::npos) << e.what();
  }
  // Sequence length and cost model: the same scenario with one value changed.
  Scenario longer = made_for;
  longer.model.sequence_length *= 2;
  InputError e = check_error(plan, longer);
  EXPECT_EQ(e.field(), "plan.sequence_length_tokens");
  EXPECT_NE(std::string(e.what()).find("the plan was made for sequence length " +
                                       std::to_string(made_for.model.sequence_length)),
            std::string::npos);
  Scenario paper = made_for;
  paper.planner.cost_model = CostModelKind::paper;
  e = check_error(plan, paper);
  EXPECT_EQ(e.field(), "plan.cost_model");
  EXPECT_NE(std::string(e.what()).find("made for cost model topology, the scenario has paper"),
            std::string::npos);
}

TEST(PlanCheck, ADifferentDigestAloneIsAWarning) {
  const Scenario s = load();
  const Plan plan = plan_file_for(s);
  Scenario roomier = s;
  roomier.training.memory_limit_bytes += std::int64_t{1} << 30;
  std::vector<std::string> warnings = check_plan_configuration(plan, roomier, Calibration{});
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].rfind("warning: plan.json:", 0), 0u) << warnings[0];
  EXPECT_NE(warnings[0].find("plan.scenario_digest: the plan was made for a different scenario"),
            std::string::npos)
      << warnings[0];
  Calibration calibrated;
  calibrated.overlap_slowdown = 0.2;
  warnings = check_plan_configuration(plan, s, calibrated);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("plan.calibration_digest"), std::string::npos) << warnings[0];
  EXPECT_GT(evaluate_plan(roomier, calibrated, plan).iteration_seconds, 0);
}

TEST(PlanCheck, TheScenarioDigestIgnoresCommentsSpellingAndNames) {
  const Scenario a = load();
  const Scenario b = parse_scenario_string(
      "# a comment\nname: other\nmodel:   {preset: nd-48x1536}\ncluster: {preset: titan-rtx-8-pcie3}\n"
      "training: {precision: mixed-fp16, max_micro_batch: 4, runtime_reserve: 512MiB, memory_limit: "
      "8000MB}\n",
      "b.yaml");
  EXPECT_EQ(scenario_digest(a), scenario_digest(b));
  EXPECT_NE(scenario_digest(a), scenario_digest(load(", precision: mixed-fp16, group_size: 4")));
  EXPECT_EQ(format_digest(fnv1a_64("")), "cbf29ce484222325");  // the FNV-1a 64 offset basis
  EXPECT_EQ(format_digest(fnv1a_64("a")), "af63dc4c8601ec8c");
}

TEST(PlanCheck, TheStrategyResultCarriesEachOperatorsCostAndMemory) {
  const Scenario s = load(", precision: mixed-fp16, global_batch: 64");
  const PlanReport report = plan_scenario(s, Calibration{}, false);
  ASSERT_TRUE(report.best.fits);
  const Plan& plan = report.best.plan;
  ASSERT_EQ(report.best.operator_costs.size(), s.model.operators.size());
  Scenario at = s;
  at.training.gradient_accumulation_steps = plan.gradient_accumulation_steps;
  const auto model = make_cost_model(at, Calibration{});
  double seconds = 0;
  for (std::size_t i = 0; i < plan.operators.size(); ++i) {
    const ItemCost c = model->cost(i, plan.operators[i], plan.micro_batch);
    const MemoryBreakdown m = model->memory(i, plan.operators[i], plan.micro_batch);
    const OperatorCost& got = report.best.operator_costs[i];
    EXPECT_EQ(got.cost.seconds, c.seconds) << i;
    EXPECT_EQ(got.cost.resident_bytes, c.resident_bytes) << i;
    EXPECT_EQ(got.cost.transient_bytes, c.transient_bytes) << i;
    EXPECT_EQ(got.memory.parameter_bytes, m.parameter_bytes) << i;
    EXPECT_EQ(got.memory.gradient_bytes, m.gradient_bytes) << i;
    EXPECT_EQ(got.memory.optimizer_bytes, m.optimizer_bytes) << i;
    EXPECT_EQ(got.memory.activation_bytes, m.activation_bytes) << i;
    EXPECT_EQ(got.memory.gathered_bytes, m.gathered_bytes) << i;
    EXPECT_EQ(got.memory.workspace_bytes, m.workspace_bytes) << i;
    seconds += c.seconds;
  }
  // The operators' costs add up to the search's objective; the prediction is the whole plan's schedule.
  EXPECT_NEAR(seconds, report.best.search_seconds, 1e-9 * seconds);
  EXPECT_EQ(plan.predicted.iteration_seconds, evaluate_plan(s, Calibration{}, plan).iteration_seconds);
  const auto json = report_to_json(report, s);
  ASSERT_EQ(json.at("operator_costs").size(), plan.operators.size());
  EXPECT_EQ(json.at("operator_costs")[3].at("name"), plan.operators[3].name);
  EXPECT_EQ(json.at("operator_costs")[3].at("memory").at("optimizer_bytes").get<double>(),
            report.best.operator_costs[3].memory.optimizer_bytes);
}

}  // namespace
}  // namespace shardscope
