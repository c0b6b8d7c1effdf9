// Simulated collectives: ring, hierarchical ring, HO-Ring and NCCL's channels / tree as SimGrid flows on a
// cluster's platform.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "planner/core/calibration.hpp"
#include "planner/core/cluster.hpp"
#include "planner/core/names.hpp"
#include "planner/cost/collective_cost.hpp"
#include "sim/collectives/ring_actor.hpp"

namespace shardscope::sim {

enum class CollectiveAlgorithm { ring, hierarchical_ring, ho_ring, nccl };

}  // namespace shardscope::sim

template <>
struct shardscope::EnumNames<shardscope::sim::CollectiveAlgorithm> {
  using A = shardscope::sim::CollectiveAlgorithm;
  static constexpr NameEntry<A> table[] = {
      {A::ring, "ring", "one ring over all ranks"},
      {A::hierarchical_ring, "hring", "hierarchical: a ring inside each group and one across groups"},
      {A::ho_ring, "horing",
       "HO-Ring (PaRO): intra- and inter-group rings at once, then an intra-group forward"},
      {A::nccl, "nccl",
       "NCCL: a ring per channel over the NICs' rails or the double binary tree, protocol by size"},
  };
};

namespace shardscope::sim {

struct CollectiveRequest {
  CollectiveKind kind = CollectiveKind::all_gather;
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::ring;
  double total_bytes = 0;                // the full buffer (what every rank holds after an all-gather)
  int gpus = 0;                          // ranks 0..gpus-1 (0: the whole cluster)
  int group_size = 0;                    // GPUs per group for hierarchical algorithms (0: GPUs per node)
  int coarse_above = kCoarseAboveRanks;  // rings with more ranks run the coarse model (0: all coarse)
  int concurrent = 1;  // run this many copies at once on the same ranks (contention studies)
  // nccl: the communicators that run. global: one over the ranks; intra / inter: the planner's family of
  // that group kind (gpus / group_size groups of consecutive ranks; group_size communicators of stride
  // group_size), all at once, as a plan's collective task runs them.
  GroupKind nccl_group = GroupKind::global;
};

struct CollectiveResult {
  double seconds = 0;
  // total bytes / seconds; 0 when the collective takes no time (one rank: nothing is communicated)
  double algbw_bytes_per_second = 0;
  double busbw_bytes_per_second =
      0;  // nccl-tests: all-reduce x 2(n-1)/n, all-gather and reduce-scatter x (n-1)/n
  std::int64_t messages = 0;
  int step_rings = 0;    // ring phases (per copy, per stage) run by the step model
  int coarse_rings = 0;  // ... and by the coarse model
  int flows = 0;         // point-to-point flows per copy (nccl)
  // nccl: NCCL's pick and the channels it runs.
  std::string nccl_algorithm;
  std::string nccl_protocol;
  int nccl_channels = 0;
};

// The model a collective used, for its report: "step model", "coarse flows", or, when its rings differ
// in size, "step model up to N ranks, coarse flows above"; for nccl, e.g. "NCCL ring/Simple, 16 channels".
std::string model_description(const CollectiveResult& result, int coarse_above);

// Runs one simulation in this process (SimGrid allows one per process). Throws SimulationError or
// InputError (bad request: sizes, group size not dividing the GPUs, more GPUs than the cluster).
// The calibration (per link class alpha, bandwidth, message efficiency) shapes the platform's links and
// each ring step's message exactly as it shapes the planner's costs.
CollectiveResult simulate_collective(const Cluster& cluster, const CollectiveRequest& request,
                                     const Calibration& calibration = Calibration{});

// The same collective at each of `sizes` (bytes, request.total_bytes ignored), one after the other in one
// simulation (a barrier between sizes, as nccl-tests runs its sizes back to back).
std::vector<CollectiveResult> simulate_collective_sweep(const Cluster& cluster,
                                                        const CollectiveRequest& request,
                                                        const std::vector<double>& sizes,
                                                        const Calibration& calibration = Calibration{});

// nccl-tests' size ladder: min, 2 min, 4 min, ... up to max (-b MIN -e MAX -f 2). InputError naming
// `field` when min is not above 0, min > max, or max is above 1 PiB.
std::vector<double> sweep_sizes(double min_bytes, double max_bytes, const std::string& field);

// The same collective by the alpha-beta formula on an uncontended platform (the simulator must match it).
double alpha_beta_collective_seconds(const Cluster& cluster, const CollectiveRequest& request,
                                     const Calibration& calibration = Calibration{});

// nccl-tests' bus-bandwidth factor.
double busbw_factor(CollectiveKind kind, int ranks);

}  // namespace shardscope::sim
