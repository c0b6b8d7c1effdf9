// The scenario fields an editor offers: each path is one the scenario parser knows, set as `--set` sets it.
#include "present/scenario_fields.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "planner/core/error.hpp"
#include "planner/io/scenario_document.hpp"

namespace shardscope::present {
namespace {

TEST(ScenarioFields, EveryPathIsAKnownFieldAndSaysWhatItIs) {
  std::set<std::string> seen;
  for (const ScenarioField& field : scenario_fields()) {
    EXPECT_TRUE(seen.insert(field.path).second) << field.path << " twice";
    EXPECT_FALSE(field.label.empty()) << field.path;
    EXPECT_FALSE(field.what.empty()) << field.path;
    ScenarioDocument doc("model: {preset: nd-48x1536}\ncluster: {preset: dgx-a100}\n", "fields.yaml");
    doc.set(field.path, "0");  // a value the parser may refuse, but never for an unknown key
    try {
      (void)doc.scenario();
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()).find("unknown key"), std::string::npos) << e.what();
    }
  }
}

TEST(ScenarioFields, EnumFieldsListTheirNames) {
  for (const ScenarioField& field : scenario_fields()) {
    if (field.path == "training.precision") EXPECT_NE(field.what.find("mixed-fp16"), std::string::npos);
    if (field.path == "execution.collectives") EXPECT_NE(field.what.find("nccl"), std::string::npos);
  }
}

}  // namespace
}  // namespace shardscope::present
