// Parsing of the scenario's `planner:` section: cost model choice, paper coefficients, overlap, prefetch.
#include "planner/io/planner_options_parser.hpp"

#include "planner/io/internal/yaml_reader.hpp"
#include "planner/io/runtime_profiles.hpp"

namespace shardscope {

void parse_planner_options(const YAML::Node& node, const std::string& file, PlannerOptions& out) {
  if (!node.IsDefined() || node.IsNull()) return;
  const YamlMap map(node, file, "planner");
  for (const char* moved : {"overlap", "prefetch_depth"}) {
    if (map.has(moved))
      map.fail(moved, std::string("moved to the execution: section (execution.") + moved + ")");
  }
  map.reject_unknown({"cost_model", "paper", "calibration"});
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
  out.calibration_file = map.optional_string("calibration").value_or("");
}

}  // namespace shardscope

namespace shardscope {

void parse_execution_options(const YAML::Node& node, const std::string& file, ExecutionOptions& out) {
  if (!node.IsDefined() || node.IsNull()) return;
  const YamlMap map(node, file, "execution");
  map.reject_unknown({"overlap", "prefetch_depth", "bucket", "collectives", "cross_entropy", "compile",
                      "float8", "reduce_dtype", "runtime"});
  out.overlap = map.boolean_or("overlap", out.overlap);
  out.prefetch_depth = static_cast<int>(map.integer_or("prefetch_depth", out.prefetch_depth, 0, 64));
  out.bucket_bytes = static_cast<double>(map.bytes_or("bucket", 0, 0, std::int64_t{1} << 40));
  out.collectives = map.choice_or("collectives", out.collectives);
  out.cross_entropy = map.choice_or("cross_entropy", out.cross_entropy);
  out.kernel_options.compile = map.boolean_or("compile", out.kernel_options.compile);
  out.kernel_options.float8 = map.choice_or("float8", out.kernel_options.float8);
  out.reduce_dtype = map.choice_or("reduce_dtype", out.reduce_dtype);
  if (map.has("runtime")) out.runtime = runtime_profile(map.choice<RuntimeName>("runtime"));
}

}  // namespace shardscope
