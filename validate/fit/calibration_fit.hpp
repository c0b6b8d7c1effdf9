// Fits a Calibration to measurements (least squares, Eigen): alpha, bandwidth and message efficiency per
// link class, achievable fraction per operator kind, overlap slowdown, runtime reserve; every quantity with
// its points, residuals and R^2. A fit that the points cannot support is refused (InputError, exit 2).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "planner/core/calibration.hpp"
#include "planner/core/cluster.hpp"
#include "validate/fit/least_squares.hpp"
#include "validate/measurements/measurements.hpp"

namespace shardscope::fit {

struct FitOptions {
  double min_r_squared = 0.9;  // refused below (bandwidth, efficiency curve, GEMM fraction, planner check)
  // Alpha's flat line is also accepted when its RMS relative residual is at most this: R^2 means nothing
  // for a flat line, and MPI and NCCL use other algorithms than a ring for small messages (2-rank MPI
  // all-reduce is one exchange, not two ring steps), so one per-step alpha fits every operation only to
  // within about a factor of two.
  double max_alpha_rms = 1.0;
  std::size_t min_link_points = 4;     // collective points per link class
  std::size_t min_link_sizes = 3;      // distinct message sizes per link class
  std::size_t min_gemm_points = 2;     // GEMM points per operator kind
  double max_negative_overlap = 0.05;  // a slowdown below -this is refused; between it and 0 is written as 0
  // Also fit the product-shape model (each product by its shape: size, operand bytes, alignment) and the
  // element-wise bandwidth; they replace the per-kind size tables (calibrate --product-shapes).
  bool product_shapes = false;
};

struct QuantityFit {
  std::string quantity;  // "links.pcie-same-switch.alpha", "achievable_fraction.mlp", "overlap_slowdown", ...
  std::string unit;      // "s", "B/s", "fraction", "B"
  double value = 0;
  std::string points;  // which points it was fitted on ("m.json: collectives[0-13]")
  std::size_t point_count = 0;
  Residuals residuals;              // of time (or bytes) predicted by the fitted quantity
  std::optional<double> r_squared;  // nothing when undefined (points too alike)
  bool written = true;              // false: reported only, not a calibration.yaml field
  std::string note;
};

struct FitResult {
  Calibration calibration;
  std::vector<QuantityFit> quantities;  // in a fixed order: links by class, fractions by kind, the rest
  std::vector<std::string> inputs;      // measurement files
  std::string cluster;
  std::size_t ignored_points = 0;  // collectives of one rank (nothing to time)
};

// Which ring the planner prices for a collective sample on `cluster`, and its link class.
struct SampleRing {
  int group_size_argument = 1;  // the planner's group size M (CollectiveCost) that yields this group
  GroupKind group = GroupKind::global;
  LinkClass link_class = LinkClass::network;  // the ring's bottleneck class on the nominal cluster
};
// Throws InputError (measurement file, field collectives[i].group_size) when the group does not exist on
// the cluster.
SampleRing sample_ring(const Cluster& cluster, const CollectiveSample& sample, const std::string& file);

FitResult fit_calibration(const std::vector<Measurements>& files, const Cluster& cluster,
                          const FitOptions& options = {});

// One point of a fit: the file and the index in its section.
struct PointRef {
  std::string file;
  std::size_t index = 0;
};
// "a.json: collectives[0-3, 7]; b.json: collectives[2]".
std::string describe_points(const std::vector<PointRef>& points, const std::string& section);

// Parts of the fit (link_fit.cpp, compute_fit.cpp, product_shape_fit.cpp), appending their quantities and
// setting the calibration.
void fit_links(const std::vector<Measurements>& files, const Cluster& cluster, const FitOptions& options,
               FitResult& result);
void fit_compute(const std::vector<Measurements>& files, const Cluster& cluster, const FitOptions& options,
                 FitResult& result);
void fit_product_shapes(const std::vector<Measurements>& files, const Cluster& cluster,
                        const FitOptions& options, FitResult& result);

// Every product of the files sorted by FLOPs (then shape) and dealt alternately: the even ones to `fit`, the
// odd ones to `score` (each file keeps its other sections in both).
struct ProductHalves {
  std::vector<Measurements> fit, score;
};
ProductHalves split_products(const std::vector<Measurements>& files);

// The compute fit scored on products it did not see: every product of the files sorted by FLOPs (then
// shape), the even ones fitted (as calibrate would, product shapes too when the options ask), the odd ones
// priced by that fit and compared with their measured times.
struct HoldoutScore {
  std::size_t fitted_on = 0;
  std::vector<double> errors;  // per scored product: predicted / measured - 1
  double mean_absolute_relative = 0;
  double time_weighted_relative = 0;  // sum |predicted - measured| / sum measured
  Residuals residuals;
};
HoldoutScore holdout_score(const std::vector<Measurements>& files, const Cluster& cluster,
                           const FitOptions& options);

}  // namespace shardscope::fit
