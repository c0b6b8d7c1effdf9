// Plans record their configuration: mismatches with a scenario are errors at the plan's line, digests warn.
#include "planner/search/plan_check.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>

#include "planner/core/digest.hpp"
#include "planner/core/error.hpp"
#include "planner/core/units.hpp"
#include "planner/cost/cost_model.hpp"
#include "planner/io/scenario_parser.hpp"
#include "planner/report/internal/plan_json_tree.hpp"
#include "planner/report/plan_json.hpp"
#include "planner/search/planner.hpp"
#include "planner/search/search_space.hpp"

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
  const StrategyResult r = plan_strategy(ValidScenario(s), Calibration{}, space_by_name("fsdp", s.training));
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
    EXPECT_THROW((void)evaluate_plan(ValidScenario(s), c, plan), InputError);
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
  EXPECT_GT(evaluate_plan(ValidScenario(s), Calibration{}, plan).iteration_seconds, 0);
}

// A plan built in code with too few or too many operators for the model (a file is matched by name on read).
TEST(PlanCheck, EvaluatingAPlanWithAnotherOperatorCountIsAnError) {
  const Scenario s = load();
  Plan plan = plan_file_for(s);
  plan.operators.pop_back();
  try {
    (void)evaluate_plan(ValidScenario(s), Calibration{}, plan);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("plan.operators"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("the plan has " + std::to_string(plan.operators.size())),
              std::string::npos)
        << e.what();
  }
  plan.operators.push_back(plan.operators.back());
  plan.operators.push_back(plan.operators.back());
  EXPECT_THROW((void)evaluate_plan(ValidScenario(s), Calibration{}, plan), InputError);
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

// The text of line `line` (1-based) of `text`.
std::string line_text(const std::string& text, int line) {
  std::size_t begin = 0;
  for (int i = 1; i < line && begin != std::string::npos; ++i) begin = text.find('\n', begin) + 1;
  return text.substr(begin, text.find('\n', begin) - begin);
}

// `plan` written to a file, edited by `edit`, and read back (so the errors carry the edited lines).
Plan edited(const Plan& plan, const Model& model, const std::function<void(nlohmann::ordered_json&)>& edit,
            std::string& text) {
  nlohmann::ordered_json json = plan_to_json(plan);
  edit(json);
  text = json.dump(2);
  return plan_from_json_string(text, "plan.json", model);
}

// Finding 8 of issue 9: a plan's choices must be in its scenario's space, each refused at its line.
TEST(PlanCheck, ScopesThatBreakParosRuleAreAnErrorAtTheOperatorsLine) {
  const Scenario s = load();
  std::string text;
  const Plan plan = edited(
      plan_file_for(s), s.model,
      [](auto& j) {
        j["operators"][3]["p_scope"] = "G";
        j["operators"][3]["g_scope"] = "I";
        j["operators"][3]["os_scope"] = "N";
      },
      text);
  const InputError e = check_error(plan, s);
  EXPECT_EQ(e.field(), "plan.operators[3].os_scope");
  EXPECT_NE(line_text(text, e.line()).find("\"os_scope\": \"N\""), std::string::npos) << e.what();
  EXPECT_NE(
      std::string(e.what()).find("has scopes GIN (parameters, gradients, optimizer); PaRO's rule needs the "
                                 "optimizer scope at least as fine as the other two"),
      std::string::npos)
      << e.what();
  // Every one of PaRO's 14 combinations passes.
  for (const Scopes& scopes : paro_scopes()) {
    Plan ok = plan;
    ok.operators[3].scopes = scopes;
    EXPECT_NO_THROW((void)check_plan_configuration(ok, s, Calibration{})) << scopes.name();
  }
}

TEST(PlanCheck, ASliceCountOutsideTheScenariosGranularitiesIsAnError) {
  const Scenario s = load(", precision: mixed-fp16, slice_granularities: [1, 2, 4]");
  std::string text;
  for (const int slices : {8, 3}) {
    const Plan plan = edited(
        plan_file_for(s), s.model,
        [&](auto& j) {
          j["operators"][5]["slices"] = slices;
          j["operators"][5]["sharded_slices"] = 1;
        },
        text);
    const InputError e = check_error(plan, s);
    EXPECT_EQ(e.field(), "plan.operators[5].slices");
    EXPECT_NE(line_text(text, e.line()).find("\"slices\": " + std::to_string(slices)), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("is cut into " + std::to_string(slices) +
                                         " slices; the scenario's slice_granularities are 1, 2, 4"),
              std::string::npos)
        << e.what();
  }
  // An operator that cannot be split takes one slice, whatever the granularities.
  Scenario unsplittable = s;
  unsplittable.model.operators[5].splittable = false;
  Plan plan = plan_file_for(s);
  plan.model_digest = model_digest(unsplittable.model);
  plan.operators[5].slices = 2;
  plan.operators[5].sharded_slices = 2;
  const InputError e = check_error(plan, unsplittable);
  EXPECT_NE(std::string(e.what()).find("cannot be split, but the plan cuts it into 2 slices"),
            std::string::npos);
}

TEST(PlanCheck, CheckpointingThatThePolicyForbidsIsAnError) {
  const Scenario s = load(", precision: mixed-fp16, checkpointing: all");
  std::string text;
  const Plan plan = edited(
      plan_file_for(s), s.model, [](auto& j) { j["operators"][2]["checkpoint"] = false; }, text);
  const InputError e = check_error(plan, s);
  EXPECT_EQ(e.field(), "plan.operators[2].checkpoint");
  EXPECT_NE(line_text(text, e.line()).find("\"checkpoint\": false"), std::string::npos);
  EXPECT_NE(std::string(e.what()).find("is not checkpointed; the scenario's checkpointing is 'all'"),
            std::string::npos)
      << e.what();
}

TEST(PlanCheck, NonBooleanFlagsAreErrorsAtTheirLine) {
  const Scenario s = load();
  for (const nlohmann::ordered_json& value : {nlohmann::ordered_json("yes"), nlohmann::ordered_json(1)}) {
    for (const char* key : {"checkpoint", "secondary_parameter_partition"}) {
      nlohmann::ordered_json json = plan_to_json(plan_file_for(s));
      json["operators"][4][key] = value;
      const std::string text = json.dump(2);
      try {
        (void)plan_from_json_string(text, "plan.json", s.model);
        ADD_FAILURE() << key << " = " << value.dump();
      } catch (const InputError& e) {
        EXPECT_EQ(e.field(), std::string("plan.operators[4].") + key);
        EXPECT_NE(line_text(text, e.line()).find(key), std::string::npos);
        EXPECT_NE(std::string(e.what()).find("expected true or false"), std::string::npos);
      }
    }
  }
}

TEST(PlanCheck, APlanForAnotherModelWithTheSameOperatorNamesIsAnError) {
  const Scenario wide = parse_scenario_string(
      "model: {transformer: {layers: 4, hidden: 2048, heads: 16, vocab: 50257, sequence_length: 1024}}\n"
      "cluster: {preset: titan-rtx-8-pcie3}\ntraining: {max_micro_batch: 4}\n",
      "wide.yaml");
  const Scenario narrow = parse_scenario_string(
      "model: {transformer: {layers: 4, hidden: 1024, heads: 16, vocab: 50257, sequence_length: 1024}}\n"
      "cluster: {preset: titan-rtx-8-pcie3}\ntraining: {max_micro_batch: 4}\n",
      "narrow.yaml");
  std::string text;
  const Plan plan = plan_file_for(wide, &text);
  // The names match, so the file reads; the sizes do not, so the plan is refused.
  const Plan read = plan_from_json_string(text, "plan.json", narrow.model);
  const InputError e = check_error(read, narrow);
  EXPECT_EQ(e.field(), "plan.model_digest");
  EXPECT_EQ(e.line(), line_of(text, "\"model_digest\""));
  EXPECT_NE(std::string(e.what()).find(
                "the plan was made for another model (digest " + format_digest(model_digest(wide.model)) +
                "; this scenario's model has " + format_digest(model_digest(narrow.model))),
            std::string::npos)
      << e.what();
  EXPECT_NO_THROW((void)check_plan_configuration(plan, wide, Calibration{}));
}

TEST(PlanCheck, APlanOverTheMemoryLimitIsRefusedWithTheNumbers) {
  Scenario roomy = load();
  roomy.training.memory_limit_bytes = 16000000000;
  const Plan plan = plan_file_for(roomy);
  const PlanPrediction p = evaluate_plan(ValidScenario(roomy), Calibration{}, plan);
  ASSERT_GT(p.peak_memory_bytes, 6e9);
  Scenario tight = roomy;
  tight.training.memory_limit_bytes = 6000000000;
  EXPECT_EQ(check_plan_configuration(plan, tight, Calibration{}).size(), 1u);  // the digest warns
  try {
    (void)evaluate_plan(ValidScenario(tight), Calibration{}, plan);
    ADD_FAILURE() << "no error";
  } catch (const PlanDoesNotFit& e) {
    EXPECT_DOUBLE_EQ(e.peak_bytes(), p.peak_memory_bytes);
    EXPECT_EQ(e.limit_bytes(), 6e9);
    const std::string expected = "plan.json: the plan needs " + units::format_bytes(p.peak_memory_bytes) +
                                 " per GPU at its peak, over the memory limit of 5.59 GiB by " +
                                 units::format_bytes(p.peak_memory_bytes - 6e9) + ";";
    EXPECT_EQ(std::string(e.what()).rfind(expected, 0), 0u) << e.what();
  }
  // Past the device as well: both excesses are named.
  tight.cluster.gpu.memory_bytes = 6000000000;
  try {
    (void)evaluate_plan(ValidScenario(tight), Calibration{}, plan);
    ADD_FAILURE() << "no error";
  } catch (const PlanDoesNotFit& e) {
    EXPECT_NE(std::string(e.what()).find("(and over the device's 5.59 GiB by "), std::string::npos)
        << e.what();
  }
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
  EXPECT_GT(evaluate_plan(ValidScenario(roomier), calibrated, plan).iteration_seconds, 0);
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
  PlanRequest without_baselines;
  without_baselines.with_baselines = false;
  const PlanReport report = plan_scenario(ValidScenario(s), Calibration{}, without_baselines);
  ASSERT_TRUE(report.best.fits);
  const Plan& plan = report.best.plan;
  ASSERT_EQ(report.best.operator_costs.size(), s.model.operators.size());
  Scenario at = s;
  at.training.gradient_accumulation_steps = plan.gradient_accumulation_steps;
  CostModelOptions options;
  options.collectives = plan.collectives;  // the scenario's, as every strategy's (execution.collectives)
  const auto model = make_cost_model(ValidScenario(at), Calibration{}, options);
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
  EXPECT_EQ(plan.predicted.iteration_seconds,
            evaluate_plan(ValidScenario(s), Calibration{}, plan).iteration_seconds);
  const auto json = report_to_json(report, s);
  ASSERT_EQ(json.at("operator_costs").size(), plan.operators.size());
  EXPECT_EQ(json.at("operator_costs")[3].at("name"), plan.operators[3].name);
  EXPECT_EQ(json.at("operator_costs")[3].at("memory").at("optimizer_bytes").get<double>(),
            report.best.operator_costs[3].memory.optimizer_bytes);
}

}  // namespace
}  // namespace shardscope
