// The published-rows fit as a command: prints each parameter's start and fitted value and each part's MAPE,
// bias and worst row before and after, then writes the calibration (and, with --report, the rows as JSON).
#include "apps/shardscope/calibrate_published.hpp"

#include <algorithm>
#include <optional>
#include <ostream>

#include "apps/shardscope/option_checks.hpp"
#include "apps/shardscope/output_file.hpp"
#include "planner/core/names.hpp"
#include "planner/core/runtime_profile.hpp"
#include "planner/io/calibration_parser.hpp"
#include "validate/fit/calibration_writer.hpp"
#include "validate/fit/number_text.hpp"
#include "validate/fit/published_fit.hpp"
#include "validate/fit/reproduce_report.hpp"

namespace shardscope::cli {

namespace {

std::string summary_text(const fit::ReproduceSummary& s) {
  if (s.predicted == 0) return "no rows predicted";
  return fit::number_text("MAPE %5.1f %%", 100 * s.mape) +
         fit::number_text(", bias %+6.1f %%", 100 * s.bias) +
         fit::number_text(", worst %5.1f %%", 100 * s.worst_abs_error) + " (" + s.worst_row + "), " +
         std::to_string(s.over_25_percent) + " over 25 %, " + std::to_string(s.predicted) + " rows";
}

void print_fit(const fit::PublishedFit& f, std::ostream& out) {
  out << "Runtime " << f.runtime << " on " << f.gpu << ": " << f.evaluations << " evaluations over "
      << f.fit_rows << " fit rows (objective: mean |ln(predicted / measured)| tokens/s per GPU)\n\n";
  out << "  parameter                       start          fitted\n";
  for (const fit::FittedParameter& p : f.parameters)
    out << "  " << p.name << std::string(p.name.size() < 30 ? 30 - p.name.size() : 1, ' ')
        << fit::number_text("%-14.4g", p.start) << " " << fit::number_text("%.4g", p.fitted) << "\n";
  if (f.free == fit::PublishedFreeParameters::peak) {
    out << "  (one factor, " << fit::number_text("%.4f", f.peak_factor)
        << ", on the fractions of peak: an effective peak_fp16 of "
        << fit::number_text("%.4g", f.peak_flops_per_second / 1e12)
        << " TFLOPS; element-wise work and the host time as they were)\n";
  } else {
    out << "  (host_backward_per_operator fitted at twice host_forward_per_operator)\n";
  }
  for (std::size_t i = 0; i < f.after.size(); ++i) {
    out << "\n" << f.after[i].file << "\n";
    out << "  fit part       before: " << summary_text(f.before[i].fit) << "\n";
    out << "                 after:  " << summary_text(f.after[i].fit) << "\n";
    out << "  held-out part  before: " << summary_text(f.before[i].held_out) << "\n";
    out << "                 after:  " << summary_text(f.after[i].held_out) << "\n";
  }
}

// The held-out rows' errors after the fit, over every table: what a plan priced with the calibration states
// as its uncertainty. None when no held-out row was predicted.
std::optional<CalibrationPredictionError> held_out_error(const fit::PublishedFit& f) {
  CalibrationPredictionError e;
  fit::PairSpread pairs;
  std::string files;
  for (const fit::SourceReproduction& source : f.after) {
    const fit::ReproduceSummary& h = source.held_out;
    if (h.predicted == 0) continue;
    e.mape += h.mape * h.predicted;
    e.bias += h.bias * h.predicted;
    e.worst = std::max(e.worst, h.worst_abs_error);
    e.rows += h.predicted;
    pairs = fit::merge_pair_spreads(pairs, h.pairs);
    files += (files.empty() ? "" : ", ") + source.file;
  }
  if (e.rows == 0) return std::nullopt;
  e.mape /= e.rows;
  e.bias /= e.rows;
  e.worst = std::max(e.worst, e.mape);
  e.pairs = pairs.pairs;
  e.pair_sd = pairs.sd;
  e.scored_on = "held-out rows of " + files + " under " + f.runtime + " on " + f.gpu;
  return e;
}

}  // namespace

void run_calibrate_published(const PublishedCalibrateOptions& o, std::ostream& out) {
  refuse_input_as_output("--out", o.out, o.files);
  if (!o.report.empty()) refuse_input_as_output("--report", o.report, o.files);
  refuse_shared_outputs({{"--out", o.out}, {"--report", o.report}});
  const OutputFile calibration_file("--out", o.out);
  const OutputFile report_file = o.report.empty() ? OutputFile() : OutputFile("--report", o.report);
  std::vector<fit::PublishedTable> tables;
  for (const std::string& file : o.files) tables.push_back(fit::load_published_file(file));
  fit::PublishedFitOptions options;
  if (!o.runtime.empty()) options.runtime = parse_name<RuntimeName>(o.runtime);
  if (!o.free.empty()) options.free = parse_name<fit::PublishedFreeParameters>(o.free).value();
  const fit::PublishedFit f = fit::fit_published(tables, options);
  print_fit(f, out);
  Calibration calibration;
  calibration.runtime = f.calibration;
  calibration.prediction_error = held_out_error(f);
  std::string header = "Fitted by `shardscope calibrate --published` (runtime " + f.runtime + ", " + f.gpu +
                       ") on the fit rows of:\n";
  for (const std::string& file : o.files) header += "  " + file + "\n";
  header +=
      "Held-out rows were not used; score them with `shardscope reproduce FILE --calibration` this file.";
  const std::string yaml = fit::calibration_yaml(calibration, header);
  parse_calibration_string(yaml, o.out);  // what is written must read back
  std::string report;
  if (report_file.requested())
    report = fit::reproduction_json(fit::make_reproduction(f.after, "`" + o.out + "`")).dump(2) + "\n";
  write_together({{&calibration_file, yaml}, {&report_file, report}});
  out << "\nWrote " << o.out << (report_file.requested() ? " and " + o.report : std::string()) << "\n";
}

}  // namespace shardscope::cli
