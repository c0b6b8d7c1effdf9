// Calibration file parsing: link alpha/bandwidth per class (with message and per-collective efficiency),
// achievable fraction per operator kind (with a product-size efficiency table, or a product-shape model),
// element-wise bandwidth, overheads.
#include "planner/io/calibration_parser.hpp"

#include <limits>

#include "planner/core/error.hpp"
#include "planner/core/scenario_check.hpp"
#include "planner/io/internal/pair_spread.hpp"
#include "planner/io/internal/yaml_reader.hpp"

namespace shardscope {

namespace {

// An efficiency table `key:` under `parent`: {SIZE_KEY, factor} points, sizes increasing
// (`message_efficiency` by bytes under the top level or one link class, `gemm_efficiency.KIND` by FLOPs).
std::vector<std::pair<double, double>> parse_efficiency_table(const YamlMap& parent, const std::string& key,
                                                              const std::string& size_key) {
  const std::string& file = parent.file();
  std::vector<std::pair<double, double>> table;
  const YAML::Node list = parent.raw(key);
  if (!list.IsSequence() || list.size() == 0 || list.size() > 1000) {
    parent.fail(key, "expected a list of {" + size_key + ", factor} points");
  }
  const std::string at = parent.path().empty() ? key : parent.path() + "." + key;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const YamlMap point(list[i], file, at + "[" + std::to_string(i) + "]", parent.line(key));
    point.reject_unknown({size_key, "factor"});
    const double size = size_key == "bytes"
                            ? static_cast<double>(point.bytes(size_key, 1, std::int64_t{1} << 50))
                            : point.number(size_key, 1.0, 1e21);
    const double factor = point.number("factor", 1e-3, 1.0);
    if (!table.empty() && size <= table.back().first) {
      point.fail(size_key, "sizes must increase from one point to the next");
    }
    table.emplace_back(size, factor);
  }
  return table;
}

// A `collective_efficiency:` mapping under one link class: a factor in (0, 1] per collective kind named.
std::array<std::optional<double>, 3> parse_collective_efficiency(const YamlMap& entry) {
  const YamlMap factors = entry.map("collective_efficiency");
  factors.reject_unknown(names<CollectiveKind>());
  std::array<std::optional<double>, 3> out;
  for (CollectiveKind kind : values<CollectiveKind>()) {
    const std::string key = to_string(kind);
    if (!factors.has(key)) continue;
    const double factor =
        factors.number(key, std::numeric_limits<double>::lowest(), std::numeric_limits<double>::max());
    if (!(factor > 0 && factor <= 1)) {
      factors.fail(key,
                   "expected a factor above 0 and at most 1 (the share of the class bandwidth this "
                   "collective reaches), got " +
                       factors.raw(key).Scalar());
    }
    out[static_cast<std::size_t>(kind)] = factor;
  }
  return out;
}

// `runtime:`: a runtime profile's fitted host costs (durations) and kernel efficiencies (fractions; the
// half-rate size in FLOPs), each optional.
RuntimeCalibration parse_runtime_fits(const YamlMap& map) {
  map.reject_unknown({"host_forward_per_operator", "host_backward_per_operator", "gemm_fraction",
                      "gemm_half_rate_flops", "attention_forward_fraction", "attention_backward_fraction",
                      "elementwise_fraction"});
  RuntimeCalibration r;
  const auto duration = [&](const char* key, std::optional<double>& out) {
    if (map.has(key)) out = map.duration(key);
  };
  const auto fraction = [&](const char* key, std::optional<double>& out) {
    if (map.has(key)) out = map.number(key, 1e-3, 1.0);
  };
  duration("host_forward_per_operator", r.host_forward_seconds);
  duration("host_backward_per_operator", r.host_backward_seconds);
  fraction("gemm_fraction", r.gemm_fraction);
  if (map.has("gemm_half_rate_flops")) r.gemm_half_rate_flops = map.number("gemm_half_rate_flops", 0, 1e15);
  fraction("attention_forward_fraction", r.attention_forward_fraction);
  fraction("attention_backward_fraction", r.attention_backward_fraction);
  fraction("elementwise_fraction", r.elementwise_fraction);
  return r;
}

// `prediction_error`: the rows a calibration was scored on and its errors there.
CalibrationPredictionError parse_prediction_error(const YamlMap& root) {
  const YamlMap m = root.map("prediction_error");
  m.reject_unknown({"rows", "mape", "bias", "worst", "scored_on", "pairs", "pair_sd"});
  CalibrationPredictionError e;
  e.rows = static_cast<int>(m.integer("rows", 1, 1000000));
  e.mape = m.number("mape", 0, 10);
  e.bias = m.number("bias", -10, 10);
  e.worst = m.number("worst", e.mape, 10);
  e.scored_on = m.string("scored_on");
  read_pair_spread(m, e.pairs, e.pair_sd);
  return e;
}

Calibration parse_calibration(const YamlMap& root) {
  const std::string& file = root.file();
  root.reject_unknown({"links", "achievable_fraction", "overlap_slowdown", "slice_overhead",
                       "runtime_reserve", "message_efficiency", "gemm_efficiency", "product_shapes",
                       "elementwise_bandwidth", "runtime", "prediction_error"});
  Calibration cal;
  cal.source_file = file;
  if (root.has("links")) {
    const YamlMap links = root.map("links");
    links.reject_unknown(names<LinkClass>());
    for (LinkClass lc : values<LinkClass>()) {
      if (!links.has(to_string(lc))) continue;
      const YamlMap entry = links.map(to_string(lc));
      entry.reject_unknown({"alpha", "bandwidth", "message_efficiency", "collective_efficiency"});
      const auto index = static_cast<std::size_t>(lc);
      if (entry.has("message_efficiency"))
        cal.link_message_efficiency[index] = parse_efficiency_table(entry, "message_efficiency", "bytes");
      if (entry.has("collective_efficiency"))
        cal.collective_efficiency[index] = parse_collective_efficiency(entry);
      // alpha and bandwidth come together; a class may give only its efficiency table or factors
      if ((entry.has("message_efficiency") || entry.has("collective_efficiency")) && !entry.has("alpha") &&
          !entry.has("bandwidth")) {
        continue;
      }
      LinkCalibration c;
      c.alpha_seconds = entry.duration("alpha");
      c.bytes_per_second = entry.bandwidth("bandwidth");
      cal.links[index] = c;
    }
  }
  if (root.has("achievable_fraction")) {
    const YamlMap fractions = root.map("achievable_fraction");
    fractions.reject_unknown(names<OperatorKind>());
    for (OperatorKind k : values<OperatorKind>()) {
      if (fractions.has(to_string(k))) {
        cal.achievable_fraction[static_cast<std::size_t>(k)] = fractions.number(to_string(k), 1e-4, 1.0);
      }
    }
  }
  if (root.has("prediction_error")) cal.prediction_error = parse_prediction_error(root);
  cal.overlap_slowdown = root.number_or("overlap_slowdown", cal.overlap_slowdown, 0.0, 10.0);
  cal.slice_overhead_seconds = root.duration_or("slice_overhead", cal.slice_overhead_seconds);
  if (root.has("message_efficiency")) {
    cal.message_efficiency = parse_efficiency_table(root, "message_efficiency", "bytes");
  }
  if (root.has("gemm_efficiency")) {
    const YamlMap tables = root.map("gemm_efficiency");
    tables.reject_unknown(names<OperatorKind>());
    for (OperatorKind k : values<OperatorKind>()) {
      if (tables.has(to_string(k))) {
        cal.gemm_efficiency[static_cast<std::size_t>(k)] =
            parse_efficiency_table(tables, to_string(k), "flops");
      }
    }
  }
  if (root.has("product_shapes")) {
    const YamlMap shapes = root.map("product_shapes");
    shapes.reject_unknown({"half_rate_flops", "operand_bandwidth", "misaligned_fraction", "alignment",
                           "misaligned_dimensions"});
    ProductShapeModel model;
    model.half_rate_flops = shapes.number_or("half_rate_flops", 0.0, 0.0, 1e21);
    model.operand_bytes_per_second = shapes.bandwidth("operand_bandwidth");
    model.misaligned_fraction = shapes.number_or("misaligned_fraction", 0.0, 0.0, 1.0);
    model.alignment_elements = static_cast<int>(shapes.integer_or("alignment", 8, 1, 4096));
    if (shapes.has("misaligned_dimensions")) {
      model.misaligned_dimensions = *parse_name<MisalignedDimensions>(
          shapes.choice("misaligned_dimensions", names<MisalignedDimensions>()));
    }
    cal.product_shapes = model;
  }
  cal.elementwise_bytes_per_second = root.bandwidth_or("elementwise_bandwidth", 0.0);
  if (root.has("runtime")) cal.runtime = parse_runtime_fits(root.map("runtime"));
  if (root.has("runtime_reserve")) {
    cal.runtime_reserve_bytes = static_cast<double>(root.bytes("runtime_reserve", 0, std::int64_t{1} << 44));
  }
  return cal;
}

}  // namespace

Calibration parse_calibration_string(const std::string& text, const std::string& file) {
  return parse_calibration(YamlMap(parse_yaml_mapping(text, file), file, ""));
}

Calibration parse_calibration_string(const std::string& text, const std::string& file,
                                     const Scenario& scenario) {
  const YamlMap root(parse_yaml_mapping(text, file), file, "");
  Calibration cal = parse_calibration(root);
  const std::vector<ScenarioIssue> issues = calibration_issues(cal, scenario);
  if (!issues.empty()) {
    throw InputError(file, field_line(root, issues.front().field), issues.front().field,
                     issues.front().message);
  }
  return cal;
}

Calibration load_calibration_file(const std::string& path) {
  return parse_calibration_string(read_text_file(path, "calibration"), path);
}

Calibration scenario_calibration(const Scenario& scenario) {
  const std::string& path = scenario.planner.calibration_file;
  if (path.empty()) return Calibration{};
  return parse_calibration_string(read_text_file(path, "calibration"), path, scenario);
}

}  // namespace shardscope
