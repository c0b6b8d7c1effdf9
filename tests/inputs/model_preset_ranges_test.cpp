// Every OSDP model preset lies inside its family's stated parameter range (OSDP, IJCAI 2023, Table 1), as its
// `source:` says.
#include <gtest/gtest.h>

#include <string>

#include "planner/io/preset_catalog.hpp"
#include "planner/io/scenario_parser.hpp"

namespace shardscope {
namespace {

struct Family {
  const char* prefix;
  const char* name;  // as the paper and the presets' `source:` name it
  double low_parameters;
  double high_parameters;
};

// OSDP (IJCAI 2023) Table 1, "Param. Num": N&D 1.3-2.9B, W&S 1.7-4B, I&C 0.9-2.3B.
constexpr Family kFamilies[] = {
    {"nd-", "N&D", 1.3e9, 2.9e9}, {"ws-", "W&S", 1.7e9, 4.0e9}, {"ic-", "I&C", 0.9e9, 2.3e9}};

TEST(ModelPresetRanges, EveryOsdpFamilyMemberIsInsideItsStatedRange) {
  int members = 0;
  for (const std::string& name : model_presets().names()) {
    for (const Family& f : kFamilies) {
      if (name.rfind(f.prefix, 0) != 0) continue;
      ++members;
      const Scenario s = parse_scenario_string(
          "model: {preset: " + name + "}\ncluster: {preset: titan-rtx-8-pcie3}\n", "s.yaml");
      const double parameters = static_cast<double>(s.model.parameters());
      EXPECT_GE(parameters, f.low_parameters) << name;
      EXPECT_LE(parameters, f.high_parameters) << name;
      // Its source names the family and the range it is checked against.
      const std::string text(model_presets().find(name)->text);
      EXPECT_NE(text.find(std::string(f.name) + " family"), std::string::npos) << name;
    }
  }
  EXPECT_EQ(members, 11);  // 4 N&D, 4 W&S, 3 I&C
}

}  // namespace
}  // namespace shardscope
