// The names users type for a strategy (issue 36, item 4): PyTorch FSDP's sharding strategies, FSDP2's and
// DeepSpeed's stage numbers map to the registry, whatever the case or separator; no spelling names two
// entries; an alias says what it maps to.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <string>

#include "planner/io/sweep_grid.hpp"
#include "planner/search/search_space.hpp"

namespace shardscope {
namespace {

TEST(StrategyNames, FrameworkNamesMapToTheRegistry) {
  const std::map<std::string, std::string> expected = {
      {"NO_SHARD", "ddp"},
      {"stage-0", "ddp"},
      {"zero1", "zero-1"},
      {"stage_1", "zero-1"},
      {"SHARD_GRAD_OP", "zero-2"},
      {"stage-2", "zero-2"},
      {"FULL_SHARD", "fsdp"},
      {"fully_shard", "fsdp"},
      {"zero3", "fsdp"},
      {"Zero-3", "fsdp"},
      {"stage-3", "fsdp"},
      {"HYBRID_SHARD", "mics"},
      {"hsdp", "mics"},
      {"HSDP", "mics"},
      {"_HYBRID_SHARD_ZERO2", "paro-NII"},
      {"hpz", "zero++"},
      {"zeropp", "zero++"},
      {"paro_iig", "paro-IIG"},
  };
  for (const auto& [typed, name] : expected) {
    const Strategy* s = find_strategy(typed);
    ASSERT_NE(s, nullptr) << typed;
    EXPECT_EQ(s->name, name) << typed;
  }
  EXPECT_EQ(find_strategy("hybrid"), nullptr);
  EXPECT_EQ(find_strategy("stage-4"), nullptr);
}

// Each spelling (lower case, '_' as '-', leading separators dropped) belongs to one entry.
TEST(StrategyNames, NoSpellingNamesTwoStrategies) {
  std::map<std::string, std::string> owner;
  for (const Strategy& s : strategies()) {
    std::vector<std::string> spellings = s.aliases;
    spellings.push_back(s.name);
    for (std::string key : spellings) {
      std::transform(key.begin(), key.end(), key.begin(),
                     [](unsigned char c) { return c == '_' ? '-' : static_cast<char>(std::tolower(c)); });
      key.erase(0, std::min(key.find_first_not_of('-'), key.size()));
      const auto [it, inserted] = owner.emplace(key, s.name);
      EXPECT_TRUE(inserted) << key << " names both " << it->second << " and " << s.name;
      EXPECT_EQ(find_strategy(key), &s) << key;
    }
  }
}

TEST(StrategyNames, AnAliasSaysWhatItMapsTo) {
  EXPECT_EQ(
      strategy_alias_note("hsdp"),
      "'hsdp' is shardscope's mics: MiCS (FSDP hybrid shard): every state sharded inside a group (III)");
  EXPECT_EQ(strategy_alias_note("FSDP"), "");  // the registry's own name, in another case
  EXPECT_EQ(strategy_alias_note("paro_nng"), "");
  EXPECT_EQ(strategy_alias_note("nonsense"), "");
}

// A sweep grid's strategies are kept under the registry's names, so each point reports (and its id counts)
// `fsdp` whether the grid said zero-3, FULL_SHARD or fsdp; before, an alias matched no result and the point
// came out "does-not-fit" with no metrics.
TEST(StrategyNames, AGridsAliasesBecomeTheRegistrysNames) {
  const SweepGrid grid = parse_sweep_grid(
      "name: g\nstrategies: [zero-3, HSDP, _hybrid_shard_zero2]\naxes:\n  training.memory_limit: [8GB]\n",
      "g.yaml", ".", strategy_lookup());
  EXPECT_EQ(grid.strategies, (std::vector<std::string>{"fsdp", "mics", "paro-NII"}));
  EXPECT_EQ(grid.strategy_spelling.at("HSDP"), "mics");  // the spelling kept, for the note sweep prints
}

}  // namespace
}  // namespace shardscope
