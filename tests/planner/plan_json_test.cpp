// Plan files: round trip through JSON; plans that do not match the model, and bad values, are errors at their
// line.
#include "planner/report/plan_json.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "planner/core/error.hpp"
#include "planner/core/transformer.hpp"
#include "planner/report/internal/plan_json_tree.hpp"

namespace shardscope {
namespace {

Model tiny() {
  TransformerSpec s;
  s.layers = 1;
  s.hidden = 64;
  s.heads = 4;
  s.vocab = 100;
  s.sequence_length = 16;
  return generate_transformer(s);
}

Plan plan_for(const Model& m) {
  Plan p;
  p.strategy = "test";
  p.micro_batch = 3;
  p.gradient_accumulation_steps = 2;
  p.group_size = 4;
  p.precision = Precision::mixed_fp16;
  p.sequence_length_tokens = 16;
  p.model_digest = 0xfedcba9876543210ULL;
  p.scenario_digest = 0x0123456789abcdefULL;
  p.calibration_digest = 42;
  for (const Operator& op : m.operators)
    p.operators.push_back({op.name, {ShardScope::I, ShardScope::G, ShardScope::G}, false, 4, 3, true});
  return p;
}

TEST(PlanJson, RoundTrip) {
  const Model m = tiny();
  const Plan p = plan_for(m);
  const Plan back = plan_from_json_string(plan_to_json(p).dump(), "p.json", m);
  ASSERT_EQ(back.operators.size(), p.operators.size());
  EXPECT_EQ(back.micro_batch, 3);
  EXPECT_EQ(back.operators[1].scopes.name(), "IGG");
  EXPECT_EQ(back.operators[1].sharded_slices, 3);
  EXPECT_TRUE(back.operators[1].checkpoint);
  EXPECT_EQ(back.precision, Precision::mixed_fp16);
  EXPECT_EQ(back.sequence_length_tokens, 16);
  EXPECT_EQ(back.model_digest, 0xfedcba9876543210ULL);
  EXPECT_EQ(back.scenario_digest, 0x0123456789abcdefULL);
  EXPECT_EQ(back.calibration_digest, 42u);
  EXPECT_EQ(plan_to_json(back).dump(), plan_to_json(p).dump());
  EXPECT_EQ(plan_to_json(p).at("scenario_digest"), "0123456789abcdef");
  EXPECT_EQ(back.source.file, "p.json");
}

// The line of the `occurrence`-th (1-based) appearance of `needle` in `text`.
int line_of(const std::string& text, const std::string& needle, int occurrence = 1) {
  std::size_t pos = std::string::npos;
  for (int i = 0; i < occurrence; ++i) pos = text.find(needle, pos == std::string::npos ? 0 : pos + 1);
  return 1 +
         static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(pos), '\n'));
}

InputError read_error(const std::string& text, const Model& m) {
  try {
    plan_from_json_string(text, "p.json", m);
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "no error for\n" << text;
  return InputError("", 0, "", "");
}

TEST(PlanJson, WrongTypeMissingFieldAndUnknownScopeNameTheirLine) {
  const Model m = tiny();
  auto json = plan_to_json(plan_for(m));
  json["group_size"] = "four";
  std::string text = json.dump(2);
  InputError e = read_error(text, m);
  EXPECT_EQ(e.line(), line_of(text, "\"group_size\""));
  EXPECT_EQ(e.field(), "plan.group_size");
  EXPECT_EQ(std::string(e.what()),
            "p.json:" + std::to_string(e.line()) + ": plan.group_size: expected an integer");

  json = plan_to_json(plan_for(m));
  json["operators"][2]["p_scope"] = "X";
  text = json.dump(2);
  e = read_error(text, m);
  EXPECT_EQ(e.line(), line_of(text, "\"p_scope\"", 3));
  EXPECT_EQ(std::string(e.what()), "p.json:" + std::to_string(e.line()) +
                                       ": plan.operators[2].p_scope: expected one of N, I, G, got 'X'");

  // A missing key points at its object: the operator's opening line.
  json = plan_to_json(plan_for(m));
  json["operators"][1].erase("slices");
  text = json.dump(2);
  e = read_error(text, m);
  EXPECT_EQ(e.field(), "plan.operators[1].slices");
  EXPECT_EQ(e.line(), line_of(text, "\"name\"", 2) - 1);  // the "{" above the second operator's name
  EXPECT_NE(std::string(e.what()).find("missing"), std::string::npos);

  json = plan_to_json(plan_for(m));
  json["operators"][0]["checkpoint"] = 1;
  text = json.dump(2);
  e = read_error(text, m);
  EXPECT_EQ(e.field(), "plan.operators[0].checkpoint");
  EXPECT_EQ(e.line(), line_of(text, "\"checkpoint\""));

  json = plan_to_json(plan_for(m));
  json["operators"][3]["slice"] = 2;
  text = json.dump(2);
  e = read_error(text, m);
  EXPECT_EQ(e.field(), "plan.operators[3].slice");
  EXPECT_EQ(e.line(), line_of(text, "\"slice\""));
  EXPECT_NE(std::string(e.what()).find("unknown key"), std::string::npos);

  json = plan_to_json(plan_for(m));
  json["scenario_digest"] = "xyz";
  text = json.dump(2);
  e = read_error(text, m);
  EXPECT_EQ(e.field(), "plan.scenario_digest");
  EXPECT_EQ(e.line(), line_of(text, "\"scenario_digest\""));
}

TEST(PlanJson, LinesAreRightInsideAReport) {
  const Model m = tiny();
  nlohmann::ordered_json report;
  report["scenario"] = "x";
  report["plan"] = plan_to_json(plan_for(m));
  report["plan"]["operators"][1]["sharded_slices"] = 9;
  const std::string text = report.dump(2);
  const InputError e = read_error(text, m);
  EXPECT_EQ(e.field(), "plan.operators[1].sharded_slices");
  EXPECT_EQ(e.line(), line_of(text, "\"sharded_slices\"", 2));
  // The same text parsed with different indentation reports the new line.
  const InputError flat = read_error(report.dump(), m);
  EXPECT_EQ(flat.line(), 1);
}

TEST(PlanJson, AnOldPlanWithoutItsConfigurationSaysToReplan) {
  const Model m = tiny();
  for (const char* key : {"precision", "sequence_length_tokens", "cost_model", "model_digest",
                          "scenario_digest", "calibration_digest"}) {
    auto json = plan_to_json(plan_for(m));
    json.erase(key);
    const InputError e = read_error(json.dump(2), m);
    EXPECT_EQ(e.field(), std::string("plan.") + key);
    EXPECT_EQ(e.line(), 0);  // a key missing from the top-level object: the whole file
    EXPECT_NE(std::string(e.what()).find("re-plan with `shardscope plan"), std::string::npos) << e.what();
  }
}

TEST(PlanJson, MalformedJsonNamesTheLine) {
  const InputError e = read_error("{\n  \"strategy\": \"x\",\n  oops\n}", tiny());
  EXPECT_EQ(e.line(), 3);
  EXPECT_NE(std::string(e.what()).find("malformed JSON"), std::string::npos);
}

TEST(PlanJson, MismatchedModelIsAnError) {
  const Model m = tiny();
  Plan p = plan_for(m);
  p.operators.pop_back();
  try {
    plan_from_json_string(plan_to_json(p).dump(), "p.json", m);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "plan.operators");
    EXPECT_NE(std::string(e.what()).find("the plan has 3 operators but the model has 4"), std::string::npos)
        << e.what();
  }
  p = plan_for(m);
  p.operators[2].name = "layer9.mlp";
  try {
    plan_from_json_string(plan_to_json(p).dump(), "p.json", m);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "plan.operators[2].name");
  }
}

TEST(PlanJson, BadValuesAreErrors) {
  const Model m = tiny();
  auto json = plan_to_json(plan_for(m));
  json["operators"][0]["p_scope"] = "X";
  EXPECT_THROW(plan_from_json_string(json.dump(), "p.json", m), InputError);
  json = plan_to_json(plan_for(m));
  json["operators"][0]["sharded_slices"] = 9;
  EXPECT_THROW(plan_from_json_string(json.dump(), "p.json", m), InputError);
  EXPECT_THROW(plan_from_json_string("{not json", "p.json", m), InputError);
  EXPECT_THROW(plan_from_json_string("{}", "p.json", m), InputError);
}

}  // namespace
}  // namespace shardscope
