// Comparison statistics and rendering: relative errors, Spearman's rho, Mann-Whitney's U over strategy pairs,
// Markdown tables and JSON.
#include "validate/fit/comparison.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "planner/core/units.hpp"
#include "validate/fit/number_text.hpp"

namespace shardscope::fit {

namespace {

std::string value_text(double v, const std::string& unit) {
  return unit == "B" ? units::format_bytes(v) : units::format_duration(v);
}

std::string error_text(const std::optional<double>& predicted, double measured) {
  if (!predicted || !(measured > 0)) return "-";  // no relative error of nothing measured
  return number_text("%+.2f %%", 100 * (*predicted - measured) / measured);
}

// Average ranks (1-based, ties sharing their mean rank); `ties`, when given, gets the sum of t^3 - t over
// the groups of t equal values (the tie correction of rank tests).
std::vector<double> ranks(const std::vector<double>& v, double* ties = nullptr) {
  std::vector<std::size_t> order(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  if (ties != nullptr) *ties = 0;
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
    const double average = 0.5 * static_cast<double>(i + j) + 1.0;
    for (std::size_t k = i; k <= j; ++k) r[order[k]] = average;
    const double t = static_cast<double>(j - i + 1);
    if (ties != nullptr) *ties += t * t * t - t;
    i = j + 1;
  }
  return r;
}

nlohmann::ordered_json summary_json(const ErrorSummary& s) {
  return {{"points", s.points}, {"mape", s.mape}, {"max_abs_error", s.max_abs_error}, {"bias", s.bias}};
}

// Throughput = samples / seconds; rows without a sample count rank by 1 / seconds (one batch for all).
double rate(const ComparedRow& r, double seconds) { return (r.samples > 0 ? r.samples : 1) / seconds; }

// The Mann-Whitney test of `a` against `b`: U (the pairs in which a's value is larger, ties counting one
// half) from a's rank sum in the pooled values, and the two-sided p-value of the normal approximation with
// tie and continuity corrections.
struct MannWhitney {
  double u = 0, p = 1;
};
MannWhitney mann_whitney(const std::vector<double>& a, const std::vector<double>& b) {
  MannWhitney m;
  if (a.empty() || b.empty()) return m;
  std::vector<double> pooled = a;
  pooled.insert(pooled.end(), b.begin(), b.end());
  double ties = 0;
  const std::vector<double> r = ranks(pooled, &ties);
  const double n1 = static_cast<double>(a.size()), n2 = static_cast<double>(b.size()), n = n1 + n2;
  double rank_sum_a = 0;
  for (std::size_t i = 0; i < a.size(); ++i) rank_sum_a += r[i];
  m.u = rank_sum_a - n1 * (n1 + 1) / 2;
  const double variance = n1 * n2 / 12.0 * ((n + 1) - ties / (n * (n - 1)));
  if (!(variance > 0)) return m;
  const double z = std::max(0.0, std::fabs(m.u - 0.5 * n1 * n2) - 0.5) / std::sqrt(variance);
  m.p = std::min(1.0, std::erfc(z / std::sqrt(2.0)));
  return m;
}

PairVerdict verdict(const ComparedRow& faster, const ComparedRow& slower, bool simulator) {
  const std::optional<double>& f = simulator ? faster.simulator : faster.planner;
  const std::optional<double>& s = simulator ? slower.simulator : slower.planner;
  if (!f || !s || !(*f > 0) || !(*s > 0)) return PairVerdict::none;
  const double rf = rate(faster, *f), rs = rate(slower, *s);
  return rf > rs ? PairVerdict::agrees : (rf < rs ? PairVerdict::reversed : PairVerdict::tie);
}

// Every pair of iteration rows that ran their own plan and carry their iterations; the faster is the one
// whose throughputs are stochastically larger (U above half the pairs), the measured medians breaking a tie.
// The probability the planner's prediction gives `faster` running faster than `slower` (nothing without a
// spread or a prediction of either).
std::optional<double> order_probability(const ComparedRow& faster, const ComparedRow& slower, double sd) {
  if (!(sd > 0) || !faster.planner || !slower.planner || !(*faster.planner > 0) || !(*slower.planner > 0))
    return std::nullopt;
  const double log_ratio = std::log(rate(faster, *faster.planner) / rate(slower, *slower.planner));
  return 0.5 * std::erfc(-log_ratio / (sd * std::sqrt(2.0)));
}

std::vector<StrategyPair> strategy_pairs(const std::vector<ComparedRow>& rows, double pair_sd) {
  std::vector<const ComparedRow*> own;
  for (const ComparedRow& r : rows)
    if (r.measured > 0 && r.same_plan_as.empty() && !r.iteration_samples.empty()) own.push_back(&r);
  const auto rates = [](const ComparedRow& r) {
    std::vector<double> out;
    for (double s : r.iteration_samples) out.push_back(rate(r, s));
    return out;
  };
  std::vector<StrategyPair> pairs;
  for (std::size_t i = 0; i < own.size(); ++i) {
    for (std::size_t j = i + 1; j < own.size(); ++j) {
      const ComparedRow* a = own[i];
      const ComparedRow* b = own[j];
      const std::vector<double> ra = rates(*a), rb = rates(*b);
      const MannWhitney test = mann_whitney(ra, rb);
      const double half = 0.5 * static_cast<double>(ra.size() * rb.size());
      if (test.u < half || (test.u == half && rate(*a, a->measured) < rate(*b, b->measured))) std::swap(a, b);
      StrategyPair p;
      p.faster = a->strategy;
      p.slower = b->strategy;
      p.faster_iterations = a->iteration_samples.size();
      p.slower_iterations = b->iteration_samples.size();
      p.p_value = test.p;
      p.resolved = p.p_value < kPairLevel;
      p.planner = verdict(*a, *b, false);
      p.simulator = verdict(*a, *b, true);
      p.planner_probability = order_probability(*a, *b, pair_sd);
      pairs.push_back(p);
    }
  }
  return pairs;
}

std::size_t count_pairs(const std::vector<StrategyPair>& pairs, bool simulator) {
  std::size_t n = 0;
  for (const StrategyPair& p : pairs)
    n += p.resolved && (simulator ? p.simulator : p.planner) == PairVerdict::agrees ? 1 : 0;
  return n;
}

// The mean probability the planner gives the measured order of the resolved pairs (nothing when none has
// one).
std::optional<double> mean_order_probability(const std::vector<StrategyPair>& pairs) {
  double sum = 0;
  int n = 0;
  for (const StrategyPair& p : pairs) {
    if (!p.resolved || !p.planner_probability) continue;
    sum += *p.planner_probability;
    ++n;
  }
  if (n == 0) return std::nullopt;
  return sum / n;
}

std::size_t resolved_pairs(const std::vector<StrategyPair>& pairs) {
  std::size_t n = 0;
  for (const StrategyPair& p : pairs) n += p.resolved ? 1 : 0;
  return n;
}

nlohmann::ordered_json optional_json(const std::optional<double>& v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

}  // namespace

ErrorSummary summarize(const std::vector<ComparedRow>& rows, bool simulator) {
  ErrorSummary s;
  for (const ComparedRow& r : rows) {
    const std::optional<double>& p = simulator ? r.simulator : r.planner;
    if (!p || !(r.measured > 0)) continue;
    const double e = (*p - r.measured) / r.measured;
    ++s.points;
    s.mape += std::fabs(e);
    s.bias += e;
    s.max_abs_error = std::max(s.max_abs_error, std::fabs(e));
  }
  if (s.points > 0) {
    s.mape /= static_cast<double>(s.points);
    s.bias /= static_cast<double>(s.points);
  }
  return s;
}

PairSpread pair_spread(const std::vector<double>& log_errors) {
  PairSpread out;
  double sum_squares = 0;
  for (std::size_t i = 0; i < log_errors.size(); ++i) {
    for (std::size_t j = i + 1; j < log_errors.size(); ++j) {
      const double d = log_errors[i] - log_errors[j];
      sum_squares += d * d;
      ++out.pairs;
    }
  }
  if (out.pairs > 0) out.sd = std::sqrt(sum_squares / out.pairs);
  return out;
}

std::optional<CalibrationPredictionError> iteration_prediction_error(const Comparison& comparison,
                                                                     const std::string& scored_on) {
  std::vector<double> log_errors;
  CalibrationPredictionError e;
  for (const ComparisonSection& section : comparison.sections) {
    if (section.name != "iteration") continue;
    for (const ComparedRow& row : section.rows) {
      if (!row.same_plan_as.empty() || !row.planner || !(*row.planner > 0) || !(row.measured > 0)) continue;
      const double error = row.measured / *row.planner - 1;
      ++e.rows;
      e.mape += std::abs(error);
      e.bias += error;
      e.worst = std::max(e.worst, std::abs(error));
      log_errors.push_back(std::log1p(error));
    }
  }
  if (e.rows == 0) return std::nullopt;
  e.mape /= e.rows;
  e.bias /= e.rows;
  const PairSpread pairs = pair_spread(log_errors);
  e.pairs = pairs.pairs;
  e.pair_sd = pairs.sd;
  e.scored_on = scored_on;
  return e;
}

PairSpread merge_pair_spreads(const PairSpread& a, const PairSpread& b) {
  PairSpread out{a.pairs + b.pairs, 0};
  if (out.pairs > 0)
    out.sd = std::sqrt((a.pairs * a.sd * a.sd + b.pairs * b.sd * b.sd) / static_cast<double>(out.pairs));
  return out;
}

std::optional<double> spearman(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() < 3 || a.size() != b.size()) return std::nullopt;
  const std::vector<double> ra = ranks(a), rb = ranks(b);
  const double n = static_cast<double>(a.size());
  double ma = 0, mb = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    ma += ra[i] / n;
    mb += rb[i] / n;
  }
  double cov = 0, va = 0, vb = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    cov += (ra[i] - ma) * (rb[i] - mb);
    va += (ra[i] - ma) * (ra[i] - ma);
    vb += (rb[i] - mb) * (rb[i] - mb);
  }
  if (va <= 0 || vb <= 0) return std::nullopt;
  return cov / std::sqrt(va * vb);
}

double mann_whitney_p(const std::vector<double>& a, const std::vector<double>& b) {
  return mann_whitney(a, b).p;
}

void finish_comparison(Comparison& c) {
  for (ComparisonSection& s : c.sections) {
    s.planner = summarize(s.rows, false);
    s.simulator = summarize(s.rows, true);
    if (s.name != "iteration") continue;
    c.pairs = strategy_pairs(s.rows, c.pair_sd);
    std::vector<double> measured, planner, simulator, measured_sim;
    for (const ComparedRow& r : s.rows) {
      if (!(r.measured > 0)) continue;
      if (r.planner && *r.planner > 0) {
        measured.push_back(rate(r, r.measured));
        planner.push_back(rate(r, *r.planner));
      }
      if (r.simulator && *r.simulator > 0) {
        measured_sim.push_back(rate(r, r.measured));
        simulator.push_back(rate(r, *r.simulator));
      }
    }
    c.spearman_planner = spearman(measured, planner);
    c.spearman_simulator = spearman(measured_sim, simulator);
  }
}

int size_band(double bytes) {
  constexpr double kMiB = 1024.0 * 1024.0;
  constexpr double kEdges[] = {kMiB / 16, kMiB, 16 * kMiB, 256 * kMiB};
  int band = 0;
  for (double edge : kEdges) band += bytes >= edge ? 1 : 0;
  return band;
}

std::string size_band_name(int band) {
  constexpr const char* kNames[] = {"< 64 KiB", "64 KiB - 1 MiB", "1 - 16 MiB", "16 - 256 MiB", ">= 256 MiB"};
  return kNames[std::clamp(band, 0, 4)];
}

std::string comparison_markdown(const Comparison& c) {
  std::ostringstream out;
  out << "# Predicted vs measured: " << c.scenario << "\n\n";
  out << "Measured: `" << c.measured_file << "`; calibration: " << c.calibration
      << "; simulator: " << (c.simulator_available ? "shardscope-sim" : "not available in this build")
      << "\n\n";
  out << "| section | planner MAPE | planner max | planner bias | simulator MAPE | simulator max | simulator "
         "bias | points |\n|---|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const ComparisonSection& s : c.sections) {
    const auto pct = [](double v) { return number_text("%.2f %%", 100 * v); };
    const bool sim = s.simulator.points > 0, planner = s.planner.points > 0;  // no MAPE over 0 points
    out << "| " << s.name << " | " << (planner ? pct(s.planner.mape) : "-") << " | "
        << (planner ? pct(s.planner.max_abs_error) : "-") << " | "
        << (planner ? number_text("%+.2f %%", 100 * s.planner.bias) : "-") << " | "
        << (sim ? pct(s.simulator.mape) : "-") << " | " << (sim ? pct(s.simulator.max_abs_error) : "-")
        << " | " << (sim ? number_text("%+.2f %%", 100 * s.simulator.bias) : "-") << " | " << s.planner.points
        << " |\n";
  }
  out << "\nSpearman rank correlation of throughput (samples/s) across strategies: planner "
      << (c.spearman_planner ? number_text("%.3f", *c.spearman_planner) : "- (fewer than 3 strategies)")
      << ", simulator " << (c.spearman_simulator ? number_text("%.3f", *c.spearman_simulator) : "-") << "\n";
  out << "\nStrategy pairs that the measurements order (two-sided Mann-Whitney U over the strategies' "
         "measured iterations, p < "
      << number_text("%.2f", kPairLevel) << "): ";
  if (c.pairs.empty()) {
    out << "none to test (fewer than two strategies with their own measured iterations in the file)\n";
  } else {
    out << resolved_pairs(c.pairs) << " of " << c.pairs.size() << "; of these the planner orders "
        << count_pairs(c.pairs, false) << " as measured, the simulator "
        << (c.simulator_available ? std::to_string(count_pairs(c.pairs, true)) : std::string("-")) << "\n";
    if (const std::optional<double> mean = mean_order_probability(c.pairs)) {
      out << "\nWith the calibration's pair spread (" << number_text("%.2f", 100 * c.pair_sd)
          << " % rms on a predicted ratio), the planner gives the measured order of those pairs a "
             "probability of "
          << number_text("%.3f", *mean) << " on average\n";
    }
  }
  for (const ComparisonSection& s : c.sections) {
    out << "\n## " << s.name << "\n\n| strategy | item | measured | planner | error | simulator | error |\n"
        << "|---|---|---:|---:|---:|---:|---:|\n";
    for (const ComparedRow& r : s.rows) {
      out << "| " << r.strategy << " | " << (r.item.empty() ? "-" : r.item) << " | "
          << value_text(r.measured, s.unit) << " | " << (r.planner ? value_text(*r.planner, s.unit) : "-")
          << " | " << error_text(r.planner, r.measured) << " | "
          << (r.simulator ? value_text(*r.simulator, s.unit) : "-") << " | "
          << error_text(r.simulator, r.measured) << " |\n";
    }
  }
  if (!c.pairs.empty()) {
    const bool odds = c.pair_sd > 0;
    out << "\n## strategy pairs\n\n| faster (measured samples/s) | slower | iterations | p | ordered | "
           "planner "
           "| simulator |"
        << (odds ? " planner P(measured order) |" : "") << "\n|---|---|---:|---:|---|---|---|"
        << (odds ? "---:|" : "") << "\n";
    for (const StrategyPair& p : c.pairs) {
      out << "| " << p.faster << " | " << p.slower << " | " << p.faster_iterations << " / "
          << p.slower_iterations << " | " << number_text("%.3g", p.p_value) << " | "
          << (p.resolved ? "yes" : "no") << " | " << to_string(p.planner) << " | " << to_string(p.simulator)
          << " |";
      if (odds)
        out << " " << (p.planner_probability ? number_text("%.3f", *p.planner_probability) : "-") << " |";
      out << "\n";
    }
  }
  if (!c.notes.empty()) {
    out << "\nNotes\n\n";
    for (const std::string& n : c.notes) out << "- " << n << "\n";
  }
  return out.str();
}

nlohmann::ordered_json comparison_json(const Comparison& c) {
  nlohmann::ordered_json j;
  j["format"] = "shardscope-comparison";
  j["version"] = 1;
  j["scenario"] = c.scenario;
  j["measured"] = c.measured_file;
  j["calibration"] = c.calibration;
  j["simulator_available"] = c.simulator_available;
  j["spearman"] = {{"planner", optional_json(c.spearman_planner)},
                   {"simulator", optional_json(c.spearman_simulator)}};
  j["sections"] = nlohmann::ordered_json::array();
  for (const ComparisonSection& s : c.sections) {
    nlohmann::ordered_json e;
    e["name"] = s.name;
    e["unit"] = s.unit;
    e["planner"] = summary_json(s.planner);
    e["simulator"] = summary_json(s.simulator);
    e["rows"] = nlohmann::ordered_json::array();
    for (const ComparedRow& r : s.rows) {
      e["rows"].push_back({{"strategy", r.strategy},
                           {"item", r.item},
                           {"measured", r.measured},
                           {"planner", optional_json(r.planner)},
                           {"simulator", optional_json(r.simulator)},
                           {"count", r.count},
                           {"samples", r.samples}});
    }
    j["sections"].push_back(e);
  }
  nlohmann::ordered_json pairs;
  pairs["level"] = kPairLevel;
  pairs["resolved"] = resolved_pairs(c.pairs);
  pairs["planner_agrees"] = count_pairs(c.pairs, false);
  pairs["simulator_agrees"] = count_pairs(c.pairs, true);
  if (c.pair_sd > 0) {  // only with a calibration that states its pairs: older comparisons read the same
    pairs["pair_sd"] = c.pair_sd;
    pairs["planner_mean_order_probability"] = optional_json(mean_order_probability(c.pairs));
  }
  pairs["rows"] = nlohmann::ordered_json::array();
  for (const StrategyPair& p : c.pairs) {
    nlohmann::ordered_json row = {{"faster", p.faster},
                                  {"slower", p.slower},
                                  {"faster_iterations", p.faster_iterations},
                                  {"slower_iterations", p.slower_iterations},
                                  {"p_value", p.p_value},
                                  {"resolved", p.resolved},
                                  {"planner", to_string(p.planner)},
                                  {"simulator", to_string(p.simulator)}};
    if (c.pair_sd > 0) row["planner_probability"] = optional_json(p.planner_probability);
    pairs["rows"].push_back(row);
  }
  j["pairs"] = pairs;
  j["notes"] = c.notes;
  return j;
}

}  // namespace shardscope::fit
