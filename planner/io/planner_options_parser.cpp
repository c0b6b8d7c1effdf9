// Parsing of the scenario's `planner:` section: cost model choice, paper coefficients, overlap, prefetch.
#include "planner/io/planner_options_parser.hpp"

#include "planner/io/yaml_reader.hpp"

namespace shardscope {

void parse_planner_options(const YAML::Node& node, const std::string& file, PlannerOptions& out) {
  if (!node.IsDefined() || node.IsNull()) return;
  const YamlMap map(node, file, "planner");
  map.reject_unknown({"cost_model", "paper", "overlap", "prefetch_depth", "calibration"});
  out.cost_model = map.choice_or("cost_model", CostModelKind::topology);
  if (map.has("paper")) {
    const YamlMap paper = map.map("paper");
    paper.reject_unknown({"alpha", "beta", "beta_seconds_per_byte"});
    out.paper.alpha_seconds = paper.duration("alpha");
    if (paper.has("beta") == paper.has("beta_seconds_per_byte")) {
      paper.fail("beta",
                 "give exactly one of beta (a bandwidth such as 12GB/s; beta = 1/bandwidth) or "
                 "beta_seconds_per_byte");
    }
    out.paper.beta_seconds_per_byte =
        paper.has("beta") ? 1.0 / paper.bandwidth("beta") : paper.number("beta_seconds_per_byte", 1e-18, 1.0);
  } else if (out.cost_model == CostModelKind::paper) {
    map.fail("paper", "missing; cost_model: paper needs paper: {alpha, beta}");
  }
  out.overlap = map.boolean_or("overlap", false);
  out.prefetch_depth = static_cast<int>(map.integer_or("prefetch_depth", 1, 0, 64));
  out.calibration_file = map.optional_string("calibration").value_or("");
}

}  // namespace shardscope
