// Plan files: round trip through JSON, and plans that do not match the model are clear errors.
#include "planner/io/plan_json.hpp"

#include <gtest/gtest.h>

#include "planner/core/error.hpp"
#include "planner/core/transformer.hpp"

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
  EXPECT_EQ(plan_to_json(back).dump(), plan_to_json(p).dump());
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
