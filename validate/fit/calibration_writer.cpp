// calibration.yaml writer: links (alpha, bandwidth, collective_efficiency, message_efficiency), achievable
// fractions (and the product-size efficiency table), overlap slowdown, slice overhead, runtime reserve, in
// the parser's spelling and units.
#include "validate/fit/calibration_writer.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "planner/core/printable.hpp"
#include "planner/core/units.hpp"

namespace shardscope::fit {

namespace {

std::string exact(double v) { return units::format_general(v, 17); }

void write_table(std::ostringstream& out, const std::vector<std::pair<double, double>>& table,
                 const std::string& indent) {
  out << indent << "message_efficiency:\n";
  for (const auto& [bytes, factor] : table) {
    out << indent << "  - {bytes: " << static_cast<long long>(std::llround(bytes))
        << ", factor: " << exact(factor) << "}\n";
  }
}

void write_gemm_tables(std::ostringstream& out, const Calibration& calibration) {
  bool any = false;
  for (OperatorKind k : values<OperatorKind>()) {
    const auto& table = calibration.gemm_efficiency[static_cast<std::size_t>(k)];
    if (table.empty()) continue;
    if (!any) out << "gemm_efficiency:\n";
    any = true;
    out << "  " << to_string(k) << ":\n";
    for (const auto& [flops, factor] : table) {
      out << "    - {flops: " << exact(flops) << ", factor: " << exact(factor) << "}\n";
    }
  }
}

// `runtime:` with the fitted host costs (seconds) and kernel efficiencies, only those the fit set.
void write_runtime_fits(std::ostream& out, const RuntimeCalibration& r) {
  if (!r.any()) return;
  out << "runtime:\n";
  const auto line = [&](const char* key, const std::optional<double>& value, const char* unit) {
    if (value) out << "  " << key << ": " << exact(*value) << unit << "\n";
  };
  line("host_forward_per_operator", r.host_forward_seconds, "s");
  line("host_backward_per_operator", r.host_backward_seconds, "s");
  line("gemm_fraction", r.gemm_fraction, "");
  line("gemm_half_rate_flops", r.gemm_half_rate_flops, "");
  line("attention_forward_fraction", r.attention_forward_fraction, "");
  line("attention_backward_fraction", r.attention_backward_fraction, "");
  line("elementwise_fraction", r.elementwise_fraction, "");
}

}  // namespace

std::string calibration_yaml(const Calibration& calibration, const std::string& header) {
  std::ostringstream out;
  std::istringstream lines(header);
  for (std::string line; std::getline(lines, line);) out << "# " << line << "\n";
  bool any_link = false;
  for (LinkClass lc : values<LinkClass>()) {
    const auto i = static_cast<std::size_t>(lc);
    const auto& kinds = calibration.collective_efficiency[i];
    const bool any_kind =
        std::any_of(kinds.begin(), kinds.end(), [](const auto& f) { return f.has_value(); });
    if (!calibration.links[i] && calibration.link_message_efficiency[i].empty() && !any_kind) continue;
    if (!any_link) out << "links:\n";
    any_link = true;
    out << "  " << to_string(lc) << ":\n";
    if (calibration.links[i]) {
      out << "    alpha: " << exact(calibration.links[i]->alpha_seconds) << "s\n";
      out << "    bandwidth: " << exact(calibration.links[i]->bytes_per_second) << "B/s\n";
    }
    if (any_kind) {
      out << "    collective_efficiency:\n";
      for (CollectiveKind kind : values<CollectiveKind>()) {
        const auto& factor = kinds[static_cast<std::size_t>(kind)];
        if (factor) out << "      " << to_string(kind) << ": " << exact(*factor) << "\n";
      }
    }
    if (!calibration.link_message_efficiency[i].empty()) {
      write_table(out, calibration.link_message_efficiency[i], "    ");
    }
  }
  bool any_fraction = false;
  for (OperatorKind k : values<OperatorKind>()) {
    const auto& f = calibration.achievable_fraction[static_cast<std::size_t>(k)];
    if (!f) continue;
    if (!any_fraction) out << "achievable_fraction:\n";
    any_fraction = true;
    out << "  " << to_string(k) << ": " << exact(*f) << "\n";
  }
  write_gemm_tables(out, calibration);
  if (calibration.product_shapes) {
    const ProductShapeModel& m = *calibration.product_shapes;
    out << "product_shapes:\n";
    out << "  half_rate_flops: " << exact(m.half_rate_flops) << "\n";
    out << "  operand_bandwidth: " << exact(m.operand_bytes_per_second) << "B/s\n";
    out << "  misaligned_fraction: " << exact(m.misaligned_fraction) << "\n";
    out << "  alignment: " << m.alignment_elements << "\n";
    out << "  misaligned_dimensions: " << to_string(m.misaligned_dimensions) << "\n";
  }
  if (calibration.elementwise_bytes_per_second > 0)
    out << "elementwise_bandwidth: " << exact(calibration.elementwise_bytes_per_second) << "B/s\n";
  out << "overlap_slowdown: " << exact(calibration.overlap_slowdown) << "\n";
  out << "slice_overhead: " << exact(calibration.slice_overhead_seconds) << "s\n";
  if (!calibration.message_efficiency.empty()) write_table(out, calibration.message_efficiency, "");
  write_runtime_fits(out, calibration.runtime);
  if (calibration.runtime_reserve_bytes) {
    out << "runtime_reserve: " << static_cast<long long>(std::llround(*calibration.runtime_reserve_bytes))
        << "\n";
  }
  if (const auto& e = calibration.prediction_error) {
    out << "prediction_error:  # tokens/s per GPU on rows the fit never saw\n";
    out << "  rows: " << e->rows << "\n  mape: " << exact(e->mape) << "\n  bias: " << exact(e->bias)
        << "\n  worst: " << exact(e->worst) << "\n  scored_on: " << double_quoted(e->scored_on) << "\n";
    if (e->pairs > 0) out << "  pairs: " << e->pairs << "\n  pair_sd: " << exact(e->pair_sd) << "\n";
  }
  return out.str();
}

}  // namespace shardscope::fit
