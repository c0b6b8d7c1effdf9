// Sweep grids: parsing, deterministic expansion (product, zip, filters), stable point ids, and errors that
// name the grid file, line and field.
#include "planner/io/sweep_grid.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "planner/core/error.hpp"
#include "planner/search/search_space.hpp"
#include "test_util.hpp"

namespace shardscope {
namespace {

using test::expect_input_error;

const std::string kSweeps = std::string(SHARDSCOPE_SOURCE_DIR) + "/scenarios/sweeps";

SweepGrid grid(const std::string& text) {
  return parse_sweep_grid(text, "g.yaml", kSweeps, strategy_lookup());
}

std::vector<std::string> ids(const SweepGrid& g) {
  const GridResolver resolver(g);
  std::vector<std::string> out;
  for (const GridPoint& p : expand_grid(g)) out.push_back(resolver.resolve(p).id);
  return out;
}

TEST(SweepGrid, ProductTurnsTheLastAxisFastest) {
  const SweepGrid g =
      grid("base: ../default.yaml\naxes:\n  model: [nd-48x1536, nd-64x1536]\n  cluster.nodes: [1, 2, 3]\n");
  const std::vector<GridPoint> points = expand_grid(g);
  ASSERT_EQ(points.size(), 6u);
  EXPECT_EQ(points[1].values[0].second, "nd-48x1536");
  EXPECT_EQ(points[1].values[1].second, "2");
  EXPECT_EQ(points[3].values[0].second, "nd-64x1536");
  EXPECT_EQ(points[3].values[1].second, "1");
  for (std::size_t i = 0; i < points.size(); ++i) EXPECT_EQ(points[i].index, i);
}

TEST(SweepGrid, ZipPairsValuesAndFiltersDropPoints) {
  const SweepGrid zipped = grid(
      "base: ../default.yaml\ncombine: zip\naxes:\n  model: [nd-48x1536, nd-64x1536]\n  cluster.nodes: [1, "
      "2]\n");
  const std::vector<GridPoint> z = expand_grid(zipped);
  ASSERT_EQ(z.size(), 2u);
  EXPECT_EQ(z[1].values[1].second, "2");
  const SweepGrid filtered = grid(
      "base: ../default.yaml\naxes:\n  model: [nd-48x1536, nd-64x1536]\n  cluster.nodes: [1, 2, "
      "3]\nfilters:\n"
      "  - exclude: {model: nd-64x1536, cluster.nodes: [2, 3]}\n  - only: {cluster.nodes: [1, 2]}\n");
  const std::vector<GridPoint> f = expand_grid(filtered);
  ASSERT_EQ(f.size(), 3u);  // (48,1) (48,2) (64,1)
  EXPECT_EQ(f[2].values[0].second, "nd-64x1536");
  EXPECT_EQ(f[2].index, 2u);
}

TEST(SweepGrid, IdsAreStableDistinctAndIgnoreSpelling) {
  const SweepGrid a = grid("base: ../default.yaml\naxes:\n  training.memory_limit: [8GB, 16GB]\n");
  const SweepGrid b = grid(
      "# the same two points, spelled otherwise\nbase: ../default.yaml\naxes:\n"
      "  training.memory_limit: [8000MB, 16000000000]\n");
  const std::vector<std::string> ia = ids(a);
  EXPECT_EQ(ia, ids(b));
  EXPECT_EQ(ia, ids(a));
  EXPECT_NE(ia[0], ia[1]);
  EXPECT_EQ(ia[0].size(), 16u);
  // The strategies a point reports are part of its id.
  const SweepGrid s = grid("base: ../default.yaml\naxes:\n  strategy: [fsdp, ddp]\n");
  const std::vector<std::string> is = ids(s);
  EXPECT_NE(is[0], is[1]);
  const GridResolver resolver(s);
  EXPECT_EQ(resolver.resolve(expand_grid(s)[1]).strategies, std::vector<std::string>{"ddp"});
}

TEST(SweepGrid, WithoutABaseTheAxesGiveModelAndCluster) {
  const SweepGrid g = grid(
      "name: nobase\nset: {cluster.nodes: 2}\naxes:\n  model: [../hf/llama-2-7b.json, llama-7b]\n"
      "  cluster: [dgx-a100]\n");
  const GridResolver resolver(g);
  const ResolvedPoint p = resolver.resolve(expand_grid(g)[0]);
  EXPECT_EQ(p.scenario.cluster.gpus(), 16);
  EXPECT_GT(p.scenario.model.parameters(), 6'000'000'000);
  EXPECT_EQ(p.scenario.name, "nobase");
}

TEST(SweepGrid, ShippedGridsExpand) {
  // Every grid in scenarios/sweeps/ loads, expands to the listed number of points and resolves each point
  // (its scenario validated) to an id of its own; a grid shipped without an entry here fails.
  const std::map<std::string, std::size_t> expected_points = {
      {"example.yaml", 4},       {"osdp-8gpu.yaml", 22},           {"osdp-16gpu.yaml", 22},
      {"paro-llama-7b.yaml", 5}, {"paro-llama-7b-memory.yaml", 5}, {"paro-llama-65b.yaml", 3},
      {"bench-1100.yaml", 1100}, {"osdp-8gpu-tp.yaml", 66},        {"osdp-16gpu-tp.yaml", 88},
  };
  std::set<std::string> seen;
  for (const auto& entry : std::filesystem::directory_iterator(kSweeps)) {
    const std::string name = entry.path().filename().string();
    if (entry.path().extension() != ".yaml") continue;
    seen.insert(name);
    SCOPED_TRACE(name);
    const SweepGrid g = load_sweep_grid(entry.path().string(), strategy_lookup());
    const auto count = expected_points.find(name);
    ASSERT_NE(count, expected_points.end()) << "a shipped grid this test does not list";
    EXPECT_EQ(expand_grid(g).size(), count->second);
    std::set<std::string> distinct;
    for (const std::string& id : ids(g)) distinct.insert(id);
    EXPECT_EQ(distinct.size(), count->second);
  }
  for (const auto& [name, count] : expected_points)
    EXPECT_EQ(seen.count(name), 1u) << name << " is not shipped";
}

TEST(SweepGrid, ErrorsNameTheGridFileAndField) {
  expect_input_error([] { grid("base: ../default.yaml\naxes:\n  model: []\n"); }, "g.yaml", 3, "axes.model",
                     "non-empty list");
  expect_input_error([] { grid("base: ../default.yaml\naxes: {model: [a]}\ncombine: zap\n"); }, "g.yaml", 3,
                     "combine", "zip");
  expect_input_error(
      [] { grid("base: ../default.yaml\ncombine: zip\naxes:\n  model: [a, b]\n  cluster.nodes: [1]\n"); },
      "g.yaml", 5, "axes.cluster.nodes", "one length");
  expect_input_error([] { grid("base: ../default.yaml\naxes:\n  strategy: [fsdpp]\n"); }, "g.yaml", 3,
                     "axes.strategy", "fsdp");
  expect_input_error(
      [] { grid("base: ../default.yaml\naxes:\n  model: [a]\nfilters:\n  - exclude: {modle: a}\n"); },
      "g.yaml", -1, "filters[0].exclude.modle", "names no axis");
  expect_input_error([] { grid("base: ../default.yaml\naxis:\n  model: [a]\n"); }, "g.yaml", 2, "axis",
                     "unknown key");
  // A bad value is blamed on the axis's line in the grid file.
  const SweepGrid bad = grid("base: ../default.yaml\naxes:\n  training.memory_limit: [8GB, lots]\n");
  const GridResolver resolver(bad);
  expect_input_error([&] { resolver.resolve(expand_grid(bad)[1]); }, "g.yaml:3", 0, "training.memory_limit",
                     "expected");
}

// Issue 30, 4: a field varied twice, or varied and fixed, where one write replaces the other.
TEST(SweepGrid, AxesThatReplaceEachOtherAreRefused) {
  expect_input_error(
      [] { grid("base: ../default.yaml\naxes:\n  model: [nd-48x1536]\n  model.preset: [nd-64x1536]\n"); },
      "g.yaml", 4, "axes.model.preset", "overlaps the axis model");
  expect_input_error(
      [] { grid("base: ../default.yaml\nset: {model.preset: nd-64x1536}\naxes:\n  model: [nd-48x1536]\n"); },
      "g.yaml", 4, "axes.model", "overlaps set: model.preset");
  expect_input_error(
      [] {
        grid(
            "base: ../default.yaml\naxes:\n  training.memory_limit: [8GB]\n  training: [{memory_limit: "
            "16GB}]\n");
      },
      "g.yaml", 4, "axes.training", "overlaps the axis training.memory_limit");
  // Refining what an earlier write gave is not an overlap: a cluster preset, then its node count.
  EXPECT_EQ(
      expand_grid(grid("base: ../default.yaml\naxes:\n  cluster: [dgx-a100]\n  cluster.nodes: [1, 2]\n"))
          .size(),
      2u);
  EXPECT_EQ(
      expand_grid(grid("base: ../default.yaml\nset: {cluster.nodes: 2}\naxes:\n  model: [nd-48x1536]\n"))
          .size(),
      1u);
}

// Issue 30, 13: a filter value that is no value of its axis, and filters that leave nothing.
TEST(SweepGrid, FiltersNameAxisValuesAndLeaveSomePoints) {
  expect_input_error(
      [] {
        grid(
            "base: ../default.yaml\naxes:\n  cluster.nodes: [1, 2]\nfilters:\n  - only: {cluster.nodes: "
            "3}\n");
      },
      "g.yaml", -1, "filters[0].only.cluster.nodes", "'3' is not a value of the axis (1, 2)");
  const SweepGrid none = grid(
      "base: ../default.yaml\naxes:\n  cluster.nodes: [1, 2]\nfilters:\n  - only: {cluster.nodes: 1}\n"
      "  - exclude: {cluster.nodes: 1}\n");
  expect_input_error([&] { expand_grid(none); }, "g.yaml", 5, "filters", "leave none");
}

}  // namespace
}  // namespace shardscope
