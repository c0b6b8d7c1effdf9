// Link fit: each collective sample is mapped to the ring the planner prices for its group on the cluster
// (bottleneck class, contention of the rings running at once, path latency); per link class, alpha comes
// from the latency-bound sizes, bandwidth from the bandwidth-bound sizes, each collective kind's factor on
// that bandwidth from its own rate there, and the efficiency of every measured message size from the rest
// with the kind factors divided out (planner/core/calibration.hpp's table, log-linear between sizes).
#include <algorithm>
#include <cmath>
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

// Fits one link class; appends its three quantities and sets the calibration's entries for it.
void fit_class(LinkClass lc, const std::vector<LinkPoint>& points, const FitOptions& options,
               FitResult& result) {
  const std::string name = std::string("links.") + to_string(lc);
  const std::vector<double> sizes = distinct_sizes(points);
  if (points.size() < options.min_link_points || sizes.size() < options.min_link_sizes) {
    refuse(name, points,
           "too few points to fit alpha and bandwidth: " + std::to_string(points.size()) + " points at " +
               std::to_string(sizes.size()) + " message sizes, need at least " +
               std::to_string(options.min_link_points) + " points at " +
               std::to_string(options.min_link_sizes) + " sizes");
  }
  const std::size_t band = std::max<std::size_t>(2, (sizes.size() + 2) / 3);
  const std::vector<LinkPoint> small = with_sizes(points, sizes.front(), sizes[band - 1]);
  const std::vector<LinkPoint> big = with_sizes(points, sizes[sizes.size() - band], sizes.back());

  refuse_falling_times(name, points);
  const auto [alpha_big, slope_big] = line_fit(big);
  const auto [alpha_small, slope_small] = line_fit(small);
  const double alpha =
      alpha_small;  // captured by lambdas below (clang 14 cannot capture a structured binding)
  if (!(alpha >= 0)) {
    refuse(name + ".alpha", small,
           "negative alpha (" + percent(alpha) + " s) at the smallest sizes: the points are inconsistent");
  }
  // Seconds per byte of `some` once alpha is paid (weighted by 1 / y^2, as line_fit).
  const auto slope_after_alpha = [&alpha](const std::vector<LinkPoint>& some) {
    double num = 0, den = 0;
    for (const LinkPoint& p : some) {
      const double w = 1.0 / (p.y() * p.y());
      num += w * p.x() * (p.y() - p.alpha_factor * alpha);
      den += w * p.x() * p.x();
    }
    return num / den;
  };
  // Each size's own, every operation and group pooled.
  const auto slope_at = [&](const std::vector<LinkPoint>& all, double size) {
    return slope_after_alpha(with_sizes(all, size, size));
  };
  // Each kind's rate at the largest sizes (a line through its points; with a single size, its seconds per
  // byte once alpha is paid). With two or more kinds, each gets the factor rate / the fastest kind's rate:
  // the kinds are compared at the same sizes, so a cache that slows every kind's largest sizes alike stays
  // in the efficiency table and out of the factors. One kind alone gets no factor (it would only trade
  // places with the bandwidth).
  std::map<CollectiveKind, std::vector<LinkPoint>> big_by_op;
  for (const LinkPoint& p : big) big_by_op[p.op].push_back(p);
  std::map<CollectiveKind, double> kind_rate;
  for (const auto& [op, points_of_op] : big_by_op) {
    double slope = 0;
    if (distinct_sizes(points_of_op).size() >= 2) slope = line_fit(points_of_op).second;
    if (!(slope > 0)) slope = slope_after_alpha(points_of_op);
    if (slope > 0) kind_rate[op] = 1.0 / slope;
  }
  std::map<CollectiveKind, double> kind_factor;
  if (kind_rate.size() >= 2) {
    double fastest = 0;
    for (const auto& [op, rate] : kind_rate) fastest = std::max(fastest, rate);
    for (const auto& [op, rate] : kind_rate) kind_factor[op] = std::clamp(rate / fastest, 1e-3, 1.0);
  }
  // The bandwidth and the efficiency table are fitted on the points with their kind's factor divided out.
  std::vector<LinkPoint> factored = points;
  for (LinkPoint& p : factored) {
    const auto it = kind_factor.find(p.op);
    if (it != kind_factor.end()) p.kind_factor = it->second;
  }
  // The bandwidth is the fastest rate of the larger half of the sizes. Where the rate only grows with the
  // size (a GPU link, a network) that is the largest sizes' rate; where caches make middle sizes faster (MPI
  // over one machine's memory), the larger sizes run below it and their efficiency says by how much.
  double bandwidth = 0;
  for (std::size_t s = sizes.size() / 2; s < sizes.size(); ++s) {
    const double g = slope_at(factored, sizes[s]);
    if (g > 0) bandwidth = std::max(bandwidth, 1.0 / g);
  }
  if (!(slope_big > 0) || !(bandwidth > 0)) {
    refuse(name + ".bandwidth", big,
           "the time does not grow with the message size at the largest sizes, so "
           "no bandwidth fits");
  }
  const double slope_small_factored =
      kind_factor.empty() ? slope_small
                          : line_fit(with_sizes(factored, sizes.front(), sizes[band - 1])).second;
  // Efficiency per size: the latency-bound sizes share one (the slope of their line); the others their own.
  std::map<double, double> efficiency;
  const double e_small =
      slope_small_factored > 0 ? std::clamp(1.0 / (slope_small_factored * bandwidth), 1e-3, 1.0) : -1.0;
  for (std::size_t s = band; s < sizes.size(); ++s) {
    const double g = slope_at(factored, sizes[s]);
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
  const auto index = static_cast<std::size_t>(lc);
  result.calibration.links[index] = LinkCalibration{alpha, bandwidth};
  result.calibration.link_message_efficiency[index] = table;
  for (const auto& [op, factor] : kind_factor) {
    result.calibration.collective_efficiency[index][static_cast<std::size_t>(op)] = factor;
  }

  // Each quantity is judged by the model it was fitted with: alpha and bandwidth by their lines, the
  // efficiency curve by the whole model (alpha + bytes / (efficiency x bandwidth)).
  const auto line = [](double intercept, double slope) {
    return [intercept, slope](const LinkPoint& p) {
      return p.steps * (p.alpha_factor * intercept + p.x() * slope);
    };
  };
  // A factored point's x() already carries its kind's factor.
  const auto model = [&](const LinkPoint& p) {
    const double e = message_efficiency_factor(result.calibration, lc, p.message_bytes);
    return p.steps * (p.alpha_factor * alpha + p.x() / (e * bandwidth));
  };
  const auto quantity = [&](const std::string& q, const std::string& unit, double value,
                            const std::vector<LinkPoint>& ps, const auto& predict, bool log_r2,
                            const std::string& note, double accepted_rms) {
    std::vector<double> obs, pred;
    for (const LinkPoint& p : ps) {
      obs.push_back(p.time_seconds);
      pred.push_back(predict(p));
    }
    QuantityFit f;
    f.quantity = q;
    f.unit = unit;
    f.value = value;
    f.points = describe_points(refs(ps), "collectives");
    f.point_count = ps.size();
    f.residuals = relative_residuals(obs, pred);
    f.r_squared = log_r2 ? r_squared_of_logs(obs, pred) : r_squared(obs, pred);
    f.note = note;
    // A flat line (latency-bound sizes) leaves little variance to explain, so its R^2 says nothing; it
    // passes when its residuals are small instead.
    if (f.r_squared && *f.r_squared < options.min_r_squared && f.residuals.rms_relative > accepted_rms) {
      refuse(q, ps,
             "R^2 " + percent(*f.r_squared) + " is below " + percent(options.min_r_squared) +
                 (accepted_rms > 0 ? " and the RMS residual " + percent(100 * f.residuals.rms_relative) +
                                         " % is above " + percent(100 * accepted_rms) + " %"
                                   : std::string()) +
                 ": the points do not follow " + note);
    }
    result.quantities.push_back(f);
  };
  quantity(name + ".alpha", "s", alpha, small, line(alpha, slope_small), false,
           "a line alpha + bytes x slope at the smallest sizes", options.max_alpha_rms);
  // The bandwidth is judged with the efficiency curve (below), not by a line: a line through the largest
  // sizes is reported (its R^2 says how far the link is from plain alpha-beta there), and so is each
  // operation's own (a CPU reduces in memory, so its reduce-scatter runs slower per byte than its
  // all-gather: the ratio of their rates is the kind's collective_efficiency, written below).
  constexpr double kReported = std::numeric_limits<double>::infinity();
  quantity(name + ".bandwidth", "B/s", bandwidth, big, line(alpha_big, slope_big), false,
           "the fastest rate of the larger sizes, kind factors divided out; R^2 of a line alpha + bytes x "
           "slope at the largest sizes",
           kReported);
  for (const auto& [op, points_of_op] : big_by_op) {
    if (big_by_op.size() < 2 || distinct_sizes(points_of_op).size() < 2) continue;
    const auto [alpha_op, slope_op] = line_fit(points_of_op);
    if (!(slope_op > 0)) continue;
    quantity(name + ".bandwidth." + to_string(op), "B/s", 1.0 / slope_op, points_of_op,
             line(alpha_op, slope_op), false,
             "a line alpha + bytes x slope at the largest sizes, this operation", kReported);
    result.quantities.back().written = false;
  }
  // Each kind's factor, judged by the whole model on that kind's points.
  for (const auto& [op, factor] : kind_factor) {
    std::vector<LinkPoint> of_kind;
    for (const LinkPoint& p : factored) {
      if (p.op == op) of_kind.push_back(p);
    }
    quantity(name + ".collective_efficiency." + to_string(op), "fraction", factor, of_kind, model, true,
             "this kind's rate at the largest sizes / the fastest kind's; R^2 of log time under the whole "
             "model",
             kReported);
  }
  quantity(name + ".message_efficiency", "points", static_cast<double>(table.size()), factored, model, true,
           "alpha + bytes / (efficiency(size) x bandwidth) at every size (R^2 of log time)", 0.0);
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
