// Link fit: each collective sample is mapped to the ring the planner prices for its group on the cluster
// (bottleneck class, contention of the rings running at once, path latency); per link class, alpha comes
// from the latency-bound sizes, bandwidth from the bandwidth-bound sizes, each collective kind's factor on
// that bandwidth from its own rate there, and the efficiency of every measured message size from the rest
// with the kind factors divided out (planner/core/calibration.hpp's table, log-linear between sizes).
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "planner/core/error.hpp"
#include "planner/cost/collective_cost.hpp"
#include "validate/fit/calibration_fit.hpp"

namespace shardscope::fit {

namespace {

// The probe calibration that isolates one class: a large alpha and a small bandwidth make it the ring's
// latency and bottleneck, so the ring's numbers divided by the probe's are its path factor and contention.
constexpr double kProbeAlphaSeconds = 1.0;
constexpr double kProbeBytesPerSecond = 1e6;

struct LinkPoint {
  PointRef ref;
  CollectiveKind op = CollectiveKind::all_reduce;
  GroupKind group = GroupKind::global;
  int group_size = 0;
  double message_bytes = 0;  // one ring step's message
  int steps = 1;
  double alpha_factor = 1;  // ring alpha / class alpha
  double contention = 1;    // class bandwidth / ring bandwidth (rings sharing a link)
  double kind_factor = 1;   // the class's collective_efficiency for this point's kind (1 until fitted)
  double time_seconds = 0;
  // bytes at the class's bandwidth
  double x() const { return contention * message_bytes / kind_factor; }
  double y() const { return time_seconds / static_cast<double>(steps); }  // seconds per step
};

std::vector<double> distinct_sizes(const std::vector<LinkPoint>& points) {
  std::set<double> sizes;
  for (const LinkPoint& p : points) sizes.insert(p.message_bytes);
  return {sizes.begin(), sizes.end()};
}

std::vector<LinkPoint> with_sizes(const std::vector<LinkPoint>& points, double lo, double hi) {
  std::vector<LinkPoint> out;
  for (const LinkPoint& p : points) {
    if (p.message_bytes >= lo && p.message_bytes <= hi) out.push_back(p);
  }
  return out;
}

std::vector<PointRef> refs(const std::vector<LinkPoint>& points) {
  std::vector<PointRef> out;
  for (const LinkPoint& p : points) out.push_back(p.ref);
  return out;
}

// y = alpha_factor * alpha + x * slope, weighted by 1 / y^2 (relative residuals): {alpha, slope}.
std::pair<double, double> line_fit(const std::vector<LinkPoint>& points) {
  std::vector<std::vector<double>> rows;
  std::vector<double> y, w;
  for (const LinkPoint& p : points) {
    rows.push_back({p.alpha_factor, p.x()});
    y.push_back(p.y());
    w.push_back(1.0 / (p.y() * p.y()));
  }
  const std::vector<double> x = least_squares(rows, y, w);
  return {x[0], x[1]};
}

[[noreturn]] void refuse(const std::string& quantity, const std::vector<LinkPoint>& points,
                         const std::string& why) {
  throw InputError(points.front().ref.file, 0, quantity,
                   why + " (points: " + describe_points(refs(points), "collectives") + ")");
}

std::string percent(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3g", v);
  return buffer;
}

// A doubled message that takes less than a third of the time is no transport's behaviour: the points of one
// operation on one group are inconsistent (a scrambled file, a broken clock). Refused naming both points.
void refuse_falling_times(const std::string& name, const std::vector<LinkPoint>& points) {
  std::map<std::tuple<int, int, int>, std::vector<const LinkPoint*>> series;
  for (const LinkPoint& p : points)
    series[{static_cast<int>(p.op), static_cast<int>(p.group), p.group_size}].push_back(&p);
  for (auto& [key, ps] : series) {
    std::stable_sort(ps.begin(), ps.end(), [](const LinkPoint* a, const LinkPoint* b) {
      return a->message_bytes < b->message_bytes;
    });
    for (std::size_t i = 1; i < ps.size(); ++i) {
      const LinkPoint& a = *ps[i - 1];
      const LinkPoint& b = *ps[i];
      if (b.message_bytes > a.message_bytes && b.time_seconds < a.time_seconds / 3) {
        refuse(name + ".bandwidth", {a, b},
               "the time falls from " + percent(a.time_seconds) + " s to " + percent(b.time_seconds) +
                   " s as the message grows from " + percent(a.message_bytes) + " to " +
                   percent(b.message_bytes) + " bytes: the points are inconsistent");
      }
    }
  }
}

// Refuses a class with too few points or message sizes to fit alpha and bandwidth.
void check_enough_points(const std::string& name, const std::vector<LinkPoint>& points,
                         std::size_t size_count, const FitOptions& options) {
  if (points.size() >= options.min_link_points && size_count >= options.min_link_sizes) return;
  refuse(name, points,
         "too few points to fit alpha and bandwidth: " + std::to_string(points.size()) + " points at " +
             std::to_string(size_count) + " message sizes, need at least " +
             std::to_string(options.min_link_points) + " points at " +
             std::to_string(options.min_link_sizes) + " sizes");
}

// Seconds per byte of `some` once alpha is paid (weighted by 1 / y^2, as line_fit).
double slope_after_alpha(const std::vector<LinkPoint>& some, double alpha) {
  double num = 0, den = 0;
  for (const LinkPoint& p : some) {
    const double w = 1.0 / (p.y() * p.y());
    num += w * p.x() * (p.y() - p.alpha_factor * alpha);
    den += w * p.x() * p.x();
  }
  return num / den;
}

// Each size's own slope once alpha is paid, every operation and group pooled.
double slope_at(const std::vector<LinkPoint>& all, double size, double alpha) {
  return slope_after_alpha(with_sizes(all, size, size), alpha);
}

// Each kind's rate at the largest sizes (a line through its points; with a single size, its seconds per
// byte once alpha is paid). With two or more kinds, each gets the factor rate / the fastest kind's rate:
// the kinds are compared at the same sizes, so a cache that slows every kind's largest sizes alike stays
// in the efficiency table and out of the factors. One kind alone gets no factor (it would only trade
// places with the bandwidth).
std::map<CollectiveKind, double> kind_factors(
    const std::map<CollectiveKind, std::vector<LinkPoint>>& big_by_op, double alpha) {
  std::map<CollectiveKind, double> kind_rate;
  for (const auto& [op, points_of_op] : big_by_op) {
    double slope = 0;
    if (distinct_sizes(points_of_op).size() >= 2) slope = line_fit(points_of_op).second;
    if (!(slope > 0)) slope = slope_after_alpha(points_of_op, alpha);
    if (slope > 0) kind_rate[op] = 1.0 / slope;
  }
  std::map<CollectiveKind, double> kind_factor;
  if (kind_rate.size() >= 2) {
    double fastest = 0;
    for (const auto& [op, rate] : kind_rate) fastest = std::max(fastest, rate);
    for (const auto& [op, rate] : kind_rate) kind_factor[op] = std::clamp(rate / fastest, 1e-3, 1.0);
  }
  return kind_factor;
}

// The points with their kind's factor divided out (what the bandwidth and the efficiency table are fitted
// on).
std::vector<LinkPoint> with_kind_factors(const std::vector<LinkPoint>& points,
                                         const std::map<CollectiveKind, double>& kind_factor) {
  std::vector<LinkPoint> factored = points;
  for (LinkPoint& p : factored) {
    const auto it = kind_factor.find(p.op);
    if (it != kind_factor.end()) p.kind_factor = it->second;
  }
  return factored;
}

// The bandwidth is the fastest rate of the larger half of the sizes. Where the rate only grows with the
// size (a GPU link, a network) that is the largest sizes' rate; where caches make middle sizes faster (MPI
// over one machine's memory), the larger sizes run below it and their efficiency says by how much.
double fastest_bandwidth(const std::vector<LinkPoint>& factored, const std::vector<double>& sizes,
                         double alpha) {
  double bandwidth = 0;
  for (std::size_t s = sizes.size() / 2; s < sizes.size(); ++s) {
    const double g = slope_at(factored, sizes[s], alpha);
    if (g > 0) bandwidth = std::max(bandwidth, 1.0 / g);
  }
  return bandwidth;
}

// Efficiency per size: the latency-bound sizes (the first `band`) share one (the slope of their line); the
// others their own. As a table of whole byte counts, increasing.
std::vector<std::pair<double, double>> efficiency_table(const std::vector<LinkPoint>& factored,
                                                        const std::vector<double>& sizes, std::size_t band,
                                                        double alpha, double bandwidth, double slope_small) {
  std::map<double, double> efficiency;
  const double e_small = slope_small > 0 ? std::clamp(1.0 / (slope_small * bandwidth), 1e-3, 1.0) : -1.0;
  for (std::size_t s = band; s < sizes.size(); ++s) {
    const double g = slope_at(factored, sizes[s], alpha);
    efficiency[sizes[s]] = g > 0 ? std::clamp(1.0 / (g * bandwidth), 1e-3, 1.0) : 1.0;
  }
  for (std::size_t s = 0; s < band && s < sizes.size(); ++s) {
    if (efficiency.count(sizes[s]) != 0) continue;
    efficiency[sizes[s]] =
        e_small > 0 ? e_small : (efficiency.empty() ? 1.0 : efficiency.upper_bound(sizes[s])->second);
  }
  std::vector<std::pair<double, double>> table;
  for (const auto& [bytes, factor] : efficiency) {
    const double whole = std::max(1.0, std::round(bytes));
    if (!table.empty() && whole <= table.back().first) continue;
    table.emplace_back(whole, factor);
  }
  return table;
}

// One reported quantity: what it is, and how its points are judged.
struct QuantitySpec {
  std::string quantity;
  std::string unit;
  double value = 0;
  bool log_r_squared = false;  // R^2 of log time (the efficiency curve's scale) instead of time
  std::string note;            // the model the points should follow
  double accepted_rms = 0;     // a low R^2 passes when the RMS relative residual is at most this
};

using PointModel = std::function<double(const LinkPoint&)>;

// Judges a quantity by the model it was fitted with on its points, refusing a poor fit; appends it.
void judge_quantity(const QuantitySpec& spec, const std::vector<LinkPoint>& ps, const PointModel& predict,
                    const FitOptions& options, FitResult& result) {
  std::vector<double> obs, pred;
  for (const LinkPoint& p : ps) {
    obs.push_back(p.time_seconds);
    pred.push_back(predict(p));
  }
  QuantityFit f;
  f.quantity = spec.quantity;
  f.unit = spec.unit;
  f.value = spec.value;
  f.points = describe_points(refs(ps), "collectives");
  f.point_count = ps.size();
  f.residuals = relative_residuals(obs, pred);
  f.r_squared = spec.log_r_squared ? r_squared_of_logs(obs, pred) : r_squared(obs, pred);
  f.note = spec.note;
  // A flat line (latency-bound sizes) leaves little variance to explain, so its R^2 says nothing; it
  // passes when its residuals are small instead.
  if (f.r_squared && *f.r_squared < options.min_r_squared && f.residuals.rms_relative > spec.accepted_rms) {
    refuse(spec.quantity, ps,
           "R^2 " + percent(*f.r_squared) + " is below " + percent(options.min_r_squared) +
               (spec.accepted_rms > 0 ? " and the RMS residual " + percent(100 * f.residuals.rms_relative) +
                                            " % is above " + percent(100 * spec.accepted_rms) + " %"
                                      : std::string()) +
               ": the points do not follow " + spec.note);
  }
  result.quantities.push_back(f);
}

// Time predicted by a line alpha + bytes x slope per step.
PointModel line(double intercept, double slope) {
  return [intercept, slope](const LinkPoint& p) {
    return p.steps * (p.alpha_factor * intercept + p.x() * slope);
  };
}

// What one class's fit found, and the points each quantity is judged on.
struct ClassFit {
  std::string name;  // "links.<class>"
  LinkClass link_class = LinkClass::nvlink;
  double alpha = 0;
  double bandwidth = 0;
  double alpha_big = 0, slope_big = 0, slope_small = 0;  // the lines at the largest and smallest sizes
  std::vector<LinkPoint> small, big, factored;
  std::map<CollectiveKind, std::vector<LinkPoint>> big_by_op;
  std::map<CollectiveKind, double> kind_factor;
  std::size_t table_size = 0;
};

// Reports each quantity judged by the model it was fitted with: alpha and bandwidth by their lines, the
// efficiency curve by the whole model (alpha + bytes / (efficiency x bandwidth)).
void report_class(const ClassFit& c, const FitOptions& options, FitResult& result) {
  // A factored point's x() already carries its kind's factor.
  const PointModel model = [&](const LinkPoint& p) {
    const double e = message_efficiency_factor(result.calibration, c.link_class, p.message_bytes);
    return p.steps * (p.alpha_factor * c.alpha + p.x() / (e * c.bandwidth));
  };
  judge_quantity({.quantity = c.name + ".alpha",
                  .unit = "s",
                  .value = c.alpha,
                  .note = "a line alpha + bytes x slope at the smallest sizes",
                  .accepted_rms = options.max_alpha_rms},
                 c.small, line(c.alpha, c.slope_small), options, result);
  // The bandwidth is judged with the efficiency curve (below), not by a line: a line through the largest
  // sizes is reported (its R^2 says how far the link is from plain alpha-beta there), and so is each
  // operation's own (a CPU reduces in memory, so its reduce-scatter runs slower per byte than its
  // all-gather: the ratio of their rates is the kind's collective_efficiency, written below).
  constexpr double kReported = std::numeric_limits<double>::infinity();
  judge_quantity(
      {.quantity = c.name + ".bandwidth",
       .unit = "B/s",
       .value = c.bandwidth,
       .note = "the fastest rate of the larger sizes, kind factors divided out; R^2 of a line alpha + "
               "bytes x slope at the largest sizes",
       .accepted_rms = kReported},
      c.big, line(c.alpha_big, c.slope_big), options, result);
  for (const auto& [op, points_of_op] : c.big_by_op) {
    if (c.big_by_op.size() < 2 || distinct_sizes(points_of_op).size() < 2) continue;
    const auto [alpha_op, slope_op] = line_fit(points_of_op);
    if (!(slope_op > 0)) continue;
    judge_quantity({.quantity = c.name + ".bandwidth." + to_string(op),
                    .unit = "B/s",
                    .value = 1.0 / slope_op,
                    .note = "a line alpha + bytes x slope at the largest sizes, this operation",
                    .accepted_rms = kReported},
                   points_of_op, line(alpha_op, slope_op), options, result);
    result.quantities.back().written = false;
  }
  // Each kind's factor, judged by the whole model on that kind's points.
  for (const auto& [op, factor] : c.kind_factor) {
    std::vector<LinkPoint> of_kind;
    for (const LinkPoint& p : c.factored) {
      if (p.op == op) of_kind.push_back(p);
    }
    judge_quantity(
        {.quantity = c.name + ".collective_efficiency." + to_string(op),
         .unit = "fraction",
         .value = factor,
         .log_r_squared = true,
         .note = "this kind's rate at the largest sizes / the fastest kind's; R^2 of log time under "
                 "the whole model",
         .accepted_rms = kReported},
        of_kind, model, options, result);
  }
  judge_quantity({.quantity = c.name + ".message_efficiency",
                  .unit = "points",
                  .value = static_cast<double>(c.table_size),
                  .log_r_squared = true,
                  .note = "alpha + bytes / (efficiency(size) x bandwidth) at every size (R^2 of log time)",
                  .accepted_rms = 0.0},
                 c.factored, model, options, result);
}

// Fits one link class; appends its three quantities and sets the calibration's entries for it.
void fit_class(LinkClass lc, const std::vector<LinkPoint>& points, const FitOptions& options,
               FitResult& result) {
  ClassFit c;
  c.name = std::string("links.") + to_string(lc);
  c.link_class = lc;
  const std::vector<double> sizes = distinct_sizes(points);
  check_enough_points(c.name, points, sizes.size(), options);
  const std::size_t band = std::max<std::size_t>(2, (sizes.size() + 2) / 3);
  c.small = with_sizes(points, sizes.front(), sizes[band - 1]);
  c.big = with_sizes(points, sizes[sizes.size() - band], sizes.back());
  refuse_falling_times(c.name, points);
  std::tie(c.alpha_big, c.slope_big) = line_fit(c.big);
  std::tie(c.alpha, c.slope_small) = line_fit(c.small);
  if (!(c.alpha >= 0)) {
    refuse(c.name + ".alpha", c.small,
           "negative alpha (" + percent(c.alpha) + " s) at the smallest sizes: the points are inconsistent");
  }
  for (const LinkPoint& p : c.big) c.big_by_op[p.op].push_back(p);
  c.kind_factor = kind_factors(c.big_by_op, c.alpha);
  c.factored = with_kind_factors(points, c.kind_factor);
  c.bandwidth = fastest_bandwidth(c.factored, sizes, c.alpha);
  if (!(c.slope_big > 0) || !(c.bandwidth > 0)) {
    refuse(c.name + ".bandwidth", c.big,
           "the time does not grow with the message size at the largest sizes, so "
           "no bandwidth fits");
  }
  const double slope_small_factored =
      c.kind_factor.empty() ? c.slope_small
                            : line_fit(with_sizes(c.factored, sizes.front(), sizes[band - 1])).second;
  const std::vector<std::pair<double, double>> table =
      efficiency_table(c.factored, sizes, band, c.alpha, c.bandwidth, slope_small_factored);
  c.table_size = table.size();
  const auto index = static_cast<std::size_t>(lc);
  result.calibration.links[index] = LinkCalibration{c.alpha, c.bandwidth};
  result.calibration.link_message_efficiency[index] = table;
  for (const auto& [op, factor] : c.kind_factor) {
    result.calibration.collective_efficiency[index][static_cast<std::size_t>(op)] = factor;
  }
  report_class(c, options, result);
}

}  // namespace

SampleRing sample_ring(const Cluster& cluster, const CollectiveSample& sample, const std::string& file) {
  const int n = cluster.gpus();
  const std::string field = "collectives[" + std::to_string(sample.index) + "].group_size";
  const int g = sample.group_size;
  SampleRing ring;
  ring.group = sample.group;
  if (sample.group == GroupKind::global) {
    if (g != n) {
      throw InputError(file, 0, field,
                       "group \"all\" of " + std::to_string(g) + " ranks on a cluster of " +
                           std::to_string(n) + " GPUs (" + cluster.name + ")");
    }
    ring.group_size_argument = n;
  } else {
    if (n % g != 0) {
      throw InputError(file, 0, field,
                       std::to_string(g) + " ranks do not divide the cluster's " + std::to_string(n) +
                           " GPUs (" + cluster.name + ")");
    }
    ring.group_size_argument = sample.group == GroupKind::intra ? g : n / g;
  }
  ring.link_class =
      CollectiveCost(cluster, ring.group_size_argument, Calibration{}).ring(ring.group).bottleneck;
  return ring;
}

void fit_links(const std::vector<Measurements>& files, const Cluster& cluster, const FitOptions& options,
               FitResult& result) {
  std::map<LinkClass, std::vector<LinkPoint>> by_class;
  for (const Measurements& m : files) {
    for (const CollectiveSample& s : m.collectives) {
      if (s.group_size <= 1) {
        ++result.ignored_points;
        continue;
      }
      const SampleRing sr = sample_ring(cluster, s, m.file);
      Calibration probe;
      probe.links[static_cast<std::size_t>(sr.link_class)] =
          LinkCalibration{kProbeAlphaSeconds, kProbeBytesPerSecond};
      const RingLink ring = CollectiveCost(cluster, sr.group_size_argument, probe).ring(sr.group);
      LinkPoint p;
      p.ref = {m.file, s.index};
      p.op = s.op;
      p.group = s.group;
      p.group_size = s.group_size;
      p.message_bytes = ring_message_bytes(s);
      p.steps = sample_ring_steps(s);
      p.alpha_factor = ring.alpha_seconds / kProbeAlphaSeconds;
      p.contention = kProbeBytesPerSecond / ring.bytes_per_second;
      p.time_seconds = s.time_seconds;
      by_class[sr.link_class].push_back(p);
    }
  }
  for (const auto& [lc, points] : by_class) fit_class(lc, points, options, result);
}

}  // namespace shardscope::fit
