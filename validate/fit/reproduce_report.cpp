// Markdown and JSON of a reproduction: the summary table (per source and part, and over all sources) first,
// then each source's rows with their settings, predictions and errors. Fixed formats: byte-identical output
// for the same inputs.
#include "validate/fit/reproduce_report.hpp"

#include <sstream>

#include "validate/fit/number_text.hpp"

namespace shardscope::fit {

namespace {

std::string percent(double fraction) { return number_text("%.1f %%", 100 * fraction); }
std::string signed_percent(double fraction) { return number_text("%+.1f %%", 100 * fraction); }

void summary_row(std::ostream& out, const std::string& source, const std::string& part,
                 const ReproduceSummary& s, bool simulated) {
  const bool any = s.predicted > 0;
  out << "| " << source << " | " << part << " | " << s.rows << " | " << s.predicted << " | " << s.not_fitting
      << " | " << (any ? percent(s.mape) : "-") << " | " << (any ? signed_percent(s.bias) : "-") << " | "
      << (any ? percent(s.worst_abs_error) + " (" + s.worst_row + ")" : "-") << " | " << s.over_25_percent
      << " | " << (s.spearman ? number_text("%.3f", *s.spearman) : "-") << " | "
      << (s.memory_mape ? percent(*s.memory_mape) : "-") << " |";
  if (simulated) {
    out << " " << s.simulated << " | " << (s.simulated > 0 ? percent(s.simulator_mape) : "-") << " | "
        << (s.simulated > 0 ? signed_percent(s.simulator_bias) : "-") << " |";
  }
  out << "\n";
}

void summary_table(std::ostream& out, const Reproduction& r) {
  bool simulated = false;
  for (const SourceReproduction& s : r.sources) simulated = simulated || s.simulated;
  out << "| source | part | rows | predicted | not fitting | MAPE | bias | worst | > 25 % | Spearman | "
         "memory MAPE |"
      << (simulated ? " simulated | simulator MAPE | simulator bias |" : "")
      << "\n|---|---|---:|---:|---:|---:|---:|---|---:|---:|---:|" << (simulated ? "---:|---:|---:|" : "")
      << "\n";
  for (const SourceReproduction& s : r.sources) {
    summary_row(out, "`" + s.file + "`", "fit", s.fit, simulated);
    summary_row(out, "`" + s.file + "`", "held out", s.held_out, simulated);
  }
  summary_row(out, "every source", "fit", r.fit, simulated);
  summary_row(out, "every source", "held out", r.held_out, simulated);
  summary_row(out, "every source", "all", r.all, simulated);
}

std::string throughput_text(double tokens_per_second) { return number_text("%.0f", tokens_per_second); }

void row_table(std::ostream& out, const SourceReproduction& s) {
  out << "\n## `" << s.file << "`\n\n"
      << s.source << "; runtime profile `" << s.runtime_profile << "`; memory column: " << s.memory_meaning
      << "\n\n";
  out << "| row | part | model | GPUs | micro-batch | accumulation | checkpointing | strategy | measured "
         "tok/s/GPU "
         "| planner | error |";
  if (s.simulated) out << " simulator | error |";
  out << " measured GiB | planner GiB | error |\n|---|---|---|---:|---:|---:|---|---|---:|---:|---:|";
  if (s.simulated) out << "---:|---:|";
  out << "---:|---:|---:|\n";
  for (const RowPrediction& p : s.rows) {
    out << "| " << p.id << " | " << (p.part == PublishedPart::fit ? "fit" : "held out") << " | " << p.model
        << " | " << p.gpus << " | " << p.micro_batch << " | " << p.accumulation_steps << " | "
        << p.checkpointing << " | " << p.strategy << " | "
        << throughput_text(p.measured_tokens_per_second_per_gpu) << " | ";
    if (p.fits) {
      out << throughput_text(p.predicted_tokens_per_second_per_gpu) << " | " << signed_percent(p.error)
          << " |";
    } else {
      if (p.why_not.empty())
        out << "does not fit (" << number_text("%.2f", p.shortfall_gib) << " GiB short) | - |";
      else
        out << "does not fit (" << p.why_not << ") | - |";
    }
    if (s.simulated) {
      out << " "
          << (p.simulated_tokens_per_second_per_gpu ? throughput_text(*p.simulated_tokens_per_second_per_gpu)
                                                    : "-")
          << " | " << (p.simulated_error ? signed_percent(*p.simulated_error) : "-") << " |";
    }
    out << " " << (p.measured_memory_gib ? number_text("%.2f", *p.measured_memory_gib) : "-") << " | "
        << (p.fits ? number_text("%.2f", p.predicted_memory_gib) : "-") << " | "
        << (p.memory_error ? signed_percent(*p.memory_error) : "-") << " |\n";
  }
}

nlohmann::ordered_json summary_json(const ReproduceSummary& s) {
  nlohmann::ordered_json j;
  j["rows"] = s.rows;
  j["predicted"] = s.predicted;
  j["not_fitting"] = s.not_fitting;
  j["mape"] = s.mape;
  j["bias"] = s.bias;
  j["worst_abs_error"] = s.worst_abs_error;
  j["worst_row"] = s.worst_row;
  j["over_25_percent"] = s.over_25_percent;
  j["spearman"] = s.spearman ? nlohmann::ordered_json(*s.spearman) : nlohmann::ordered_json();
  j["memory_mape"] = s.memory_mape ? nlohmann::ordered_json(*s.memory_mape) : nlohmann::ordered_json();
  j["pairs"] = s.pairs.pairs;
  j["pair_sd"] = s.pairs.pairs > 0 ? nlohmann::ordered_json(s.pairs.sd) : nlohmann::ordered_json();
  j["simulated"] = s.simulated;
  j["simulator_mape"] = s.simulated > 0 ? nlohmann::ordered_json(s.simulator_mape) : nlohmann::ordered_json();
  j["simulator_bias"] = s.simulated > 0 ? nlohmann::ordered_json(s.simulator_bias) : nlohmann::ordered_json();
  return j;
}

template <typename T>
nlohmann::ordered_json optional_json(const std::optional<T>& value) {
  return value ? nlohmann::ordered_json(*value) : nlohmann::ordered_json();
}

nlohmann::ordered_json row_json(const RowPrediction& p) {
  nlohmann::ordered_json j;
  j["id"] = p.id;
  j["part"] = p.part == PublishedPart::fit ? "fit" : "held_out";
  j["model"] = p.model;
  j["gpus"] = p.gpus;
  j["micro_batch"] = p.micro_batch;
  j["gradient_accumulation_steps"] = p.accumulation_steps;
  j["checkpointing"] = p.checkpointing;
  j["strategy"] = p.strategy;
  j["fits"] = p.fits;
  j["shortfall_gib"] = p.shortfall_gib;
  if (!p.why_not.empty()) j["why_not"] = p.why_not;
  j["measured_tokens_per_second_per_gpu"] = p.measured_tokens_per_second_per_gpu;
  j["predicted_tokens_per_second_per_gpu"] =
      p.fits ? nlohmann::ordered_json(p.predicted_tokens_per_second_per_gpu) : nlohmann::ordered_json();
  j["error"] = p.fits ? nlohmann::ordered_json(p.error) : nlohmann::ordered_json();
  j["simulated_tokens_per_second_per_gpu"] = optional_json(p.simulated_tokens_per_second_per_gpu);
  j["simulated_error"] = optional_json(p.simulated_error);
  j["measured_memory_gib"] = optional_json(p.measured_memory_gib);
  j["predicted_memory_gib"] =
      p.fits ? nlohmann::ordered_json(p.predicted_memory_gib) : nlohmann::ordered_json();
  j["memory_error"] = optional_json(p.memory_error);
  return j;
}

std::vector<RowPrediction> every_row(const std::vector<SourceReproduction>& sources) {
  std::vector<RowPrediction> rows;
  for (const SourceReproduction& s : sources) rows.insert(rows.end(), s.rows.begin(), s.rows.end());
  return rows;
}

}  // namespace

Reproduction make_reproduction(std::vector<SourceReproduction> sources, std::string calibration) {
  Reproduction r;
  r.calibration = std::move(calibration);
  r.sources = std::move(sources);
  const std::vector<RowPrediction> rows = every_row(r.sources);
  r.fit = summarize_rows(rows, PublishedPart::fit);
  r.held_out = summarize_rows(rows, PublishedPart::held_out);
  r.all = summarize_rows(rows, std::nullopt);
  // Pairs only within a source: two tables' rows differ in cluster and framework, not in what is compared.
  r.fit.pairs = r.held_out.pairs = r.all.pairs = {};
  for (const SourceReproduction& s : r.sources) {
    r.fit.pairs = merge_pair_spreads(r.fit.pairs, s.fit.pairs);
    r.held_out.pairs = merge_pair_spreads(r.held_out.pairs, s.held_out.pairs);
    r.all.pairs = merge_pair_spreads(r.all.pairs, s.all.pairs);
  }
  return r;
}

std::string reproduction_markdown(const Reproduction& r) {
  std::ostringstream out;
  out << "# Published measurements, predicted\n\nCalibration: " << r.calibration
      << ". Error = predicted / measured - 1 in tokens/s per GPU (positive: shardscope predicts faster); "
         "MAPE and bias over the rows predicted to fit; Spearman: rank agreement of predicted and measured "
         "throughput within the set.\n\n";
  summary_table(out, r);
  for (const SourceReproduction& s : r.sources) row_table(out, s);
  return out.str();
}

nlohmann::ordered_json reproduction_json(const Reproduction& r) {
  nlohmann::ordered_json j;
  j["calibration"] = r.calibration;
  j["fit"] = summary_json(r.fit);
  j["held_out"] = summary_json(r.held_out);
  j["all"] = summary_json(r.all);
  j["sources"] = nlohmann::ordered_json::array();
  for (const SourceReproduction& s : r.sources) {
    nlohmann::ordered_json source;
    source["file"] = s.file;
    source["source"] = s.source;
    source["runtime_profile"] = s.runtime_profile;
    source["memory_meaning"] = s.memory_meaning;
    source["fit"] = summary_json(s.fit);
    source["held_out"] = summary_json(s.held_out);
    source["all"] = summary_json(s.all);
    source["rows"] = nlohmann::ordered_json::array();
    for (const RowPrediction& p : s.rows) source["rows"].push_back(row_json(p));
    j["sources"].push_back(std::move(source));
  }
  return j;
}

}  // namespace shardscope::fit
