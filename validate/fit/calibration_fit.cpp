// The calibration fit as a whole: checks the measurements describe the cluster, runs the link and compute
// fits, then prices every collective point with the planner's own CollectiveCost under the fitted
// calibration (the check that the written file reproduces what it was fitted on).
#include "validate/fit/calibration_fit.hpp"

#include <algorithm>
#include <map>

#include "planner/core/error.hpp"
#include "planner/cost/collective_cost.hpp"

namespace shardscope::fit {

std::string describe_points(const std::vector<PointRef>& points, const std::string& section) {
  std::map<std::string, std::vector<std::size_t>> by_file;
  std::vector<std::string> order;
  for (const PointRef& p : points) {
    if (by_file.count(p.file) == 0) order.push_back(p.file);
    by_file[p.file].push_back(p.index);
  }
  std::string out;
  for (const std::string& file : order) {
    std::vector<std::size_t> idx = by_file[file];
    std::sort(idx.begin(), idx.end());
    std::string ranges;
    for (std::size_t i = 0; i < idx.size();) {
      std::size_t j = i;
      while (j + 1 < idx.size() && idx[j + 1] == idx[j] + 1) ++j;
      if (!ranges.empty()) ranges += ", ";
      ranges += std::to_string(idx[i]);
      if (j > i) ranges += "-" + std::to_string(idx[j]);
      i = j + 1;
    }
    if (!out.empty()) out += "; ";
    out += file + ": " + section + "[" + ranges + "]";
  }
  return out;
}

namespace {

void check_machine(const Measurements& m, const Cluster& cluster) {
  if (m.machine.ranks != cluster.gpus()) {
    throw InputError(m.file, 0, "machine.ranks",
                     std::to_string(m.machine.ranks) + " ranks measured, but the cluster " + cluster.name +
                         " has " + std::to_string(cluster.gpus()) +
                         " GPUs: fit with the cluster of the machine measured "
                         "(shardscope-validate describe, or a preset with --nodes)");
  }
}

// Every collective point priced by the planner under the fitted calibration.
void check_with_planner(const std::vector<Measurements>& files, const Cluster& cluster,
                        const FitOptions& options, FitResult& result) {
  std::vector<double> observed, predicted;
  std::vector<PointRef> refs;
  std::map<int, CollectiveCost> costs;
  for (const Measurements& m : files) {
    for (const CollectiveSample& s : m.collectives) {
      if (s.group_size <= 1) continue;
      const SampleRing ring = sample_ring(cluster, s, m.file);
      auto it = costs.find(ring.group_size_argument);
      if (it == costs.end()) {
        it = costs
                 .emplace(ring.group_size_argument,
                          CollectiveCost(cluster, ring.group_size_argument, result.calibration))
                 .first;
      }
      observed.push_back(s.time_seconds);
      predicted.push_back(it->second.seconds(s.op, ring.group, s.bytes));
      refs.push_back({m.file, s.index});
    }
  }
  if (observed.empty()) return;
  QuantityFit f;
  f.quantity = "collectives (planner check)";
  f.unit = "points";
  f.value = static_cast<double>(observed.size());
  f.points = describe_points(refs, "collectives");
  f.point_count = observed.size();
  f.residuals = relative_residuals(observed, predicted);
  f.r_squared = r_squared_of_logs(observed, predicted);
  f.written = false;
  f.note = "CollectiveCost::seconds with the fitted calibration; R^2 of log time";
  if (f.r_squared && *f.r_squared < options.min_r_squared) {
    throw InputError(files.front().file, 0, "links",
                     "the planner's collective costs under the fitted calibration miss the points (R^2 " +
                         std::to_string(*f.r_squared) + "): " + f.points);
  }
  result.quantities.push_back(f);
}

}  // namespace

FitResult fit_calibration(const std::vector<Measurements>& files, const Cluster& cluster,
                          const FitOptions& options) {
  FitResult result;
  result.cluster = cluster.name;
  for (const Measurements& m : files) {
    check_machine(m, cluster);
    result.inputs.push_back(m.file);
  }
  result.calibration.slice_overhead_seconds = Calibration{}.slice_overhead_seconds;
  fit_links(files, cluster, options, result);
  fit_compute(files, cluster, options, result);
  check_with_planner(files, cluster, options, result);
  if (result.quantities.empty()) {
    throw InputError(files.empty() ? std::string("<no file>") : files.front().file, 0, "",
                     "nothing to fit: no collectives, gemms, overlap or reserve_bytes in the measurements");
  }
  return result;
}

}  // namespace shardscope::fit
