// Sweep grids (scenarios/sweeps/*.yaml): a base scenario, axes over any field path, zip or product, filters;
// expanded deterministically into points, each with a stable id (the digest of its resolved scenario).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "planner/core/scenario.hpp"
#include "planner/core/strategy_lookup.hpp"
#include "planner/io/scenario_overrides.hpp"

namespace shardscope {

// One axis: a field path (or `strategy`, which picks the strategies a point reports) and its values as
// YAML text, in the file's order.
struct GridAxis {
  std::string path;
  std::vector<std::string> values;
  int line = 0;
};

// A filter: `exclude` drops the points matching every listed axis, `only` keeps just those; a listed axis
// matches when the point's value is one of the given values.
struct GridFilter {
  bool exclude = true;
  std::vector<std::pair<std::string, std::vector<std::string>>> conditions;
};

struct SweepGrid {
  std::string file;      // the grid file, for messages
  std::string base_dir;  // its folder: relative paths in it resolve here
  std::string name;
  std::string base_scenario;            // the base scenario file (resolved against base_dir), or "" for none
  std::vector<ScenarioOverride> fixed;  // `set:`, applied to every point before its axes
  std::vector<std::string> strategies;  // the strategies each point reports ("" entries never); empty: all
  bool zip = false;                     // combine: zip (else product)
  std::vector<GridAxis> axes;
  std::vector<GridFilter> filters;
  int filters_line = 0;  // where filters: is, for messages
  // Each strategy as the grid spells it (a `strategy` axis value, or a `strategies:` entry) -> the registry's
  // name.
  std::map<std::string, std::string> strategy_spelling;
};

// A point before it is resolved: its place in the expansion and its axis values.
struct GridPoint {
  std::size_t index = 0;                                    // in the expanded (filtered) list
  std::vector<std::pair<std::string, std::string>> values;  // axis path -> value, in axis order
};

// Reads and checks a grid file (InputError naming file, line and field); strategy names are checked against
// `strategies` (planner/search's strategy_lookup()).
SweepGrid load_sweep_grid(const std::string& path, const StrategyLookup& strategies);
SweepGrid parse_sweep_grid(const std::string& text, const std::string& file, const std::string& base_dir,
                           const StrategyLookup& strategies);

// The points in order: the product (last axis fastest) or the zip of the axes, filtered; deterministic.
std::vector<GridPoint> expand_grid(const SweepGrid& grid);

// A point resolved: its scenario, the strategies it reports, and its id.
struct ResolvedPoint {
  Scenario scenario;
  std::vector<std::string> strategies;  // empty: every strategy
  std::string id;                       // 16 hex digits
};

// Resolves points of one grid, reading the base scenario once.
class GridResolver {
 public:
  explicit GridResolver(const SweepGrid& grid);
  ~GridResolver();
  GridResolver(const GridResolver&) = delete;
  GridResolver& operator=(const GridResolver&) = delete;
  // The point's scenario (the base with its model and cluster axes, then `set:`, then its other axes
  // applied) and id: the FNV-1a digest of the
  // resolved scenario's digest and the strategies it reports, so it does not change with spelling, comments
  // or axis order. An error names the grid file and the axis.
  ResolvedPoint resolve(const GridPoint& point) const;

 private:
  struct Tree;
  const SweepGrid& grid_;
  std::unique_ptr<Tree> base_;
};

}  // namespace shardscope
