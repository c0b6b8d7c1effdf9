// A synthetic "machine" for testing the fitter (not evidence about real hardware): measurements JSON in the
// contract's format generated from a known ground-truth calibration on a cluster, by the planner's own cost
// formulas, with small deterministic noise. The fit must recover the truth; compare must score its
// predictions of iterations generated the same way.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "planner/core/calibration.hpp"
#include "planner/core/cluster.hpp"
#include "planner/core/scenario.hpp"

namespace shardscope::testing {

struct SyntheticMachine {
  Cluster cluster;
  Calibration truth;
  double noise = 0.01;  // each time is multiplied by 1 + u, u uniform in [-noise, noise]
  std::uint32_t seed = 12345;
};

// The truth the tests use on titan-rtx-8-pcie3: alpha, bandwidth and an efficiency table for each PCIe class,
// achievable fractions for attention, mlp and head, overlap slowdown 0.12, reserve 512 MiB.
SyntheticMachine titan_truth();

// Deterministic noise source (mt19937 bits mapped by hand, the same on every standard library).
class Noise {
 public:
  Noise(std::uint32_t seed, double amplitude) : engine_(seed), amplitude_(amplitude) {}
  double factor() { return 1.0 + amplitude_ * (2.0 * static_cast<double>(engine_()) / 4294967296.0 - 1.0); }

 private:
  std::mt19937 engine_;
  double amplitude_;
};

// Micro-benchmarks: all-reduce, all-gather and reduce-scatter, 8 B to 1 GiB (x2) on intra groups of 2 and 4,
// inter groups of 2 and all 8 ranks; GEMMs of six shapes (3e7-1.4e11 FLOPs) per kind, at the truth's fraction
// and product-size factor; overlap pairs; the reserve.
nlohmann::ordered_json micro_benchmarks(const SyntheticMachine& machine);

// Measured iterations of `strategies` on `scenario` (each at its best micro-batch under the scenario's own
// calibration, with its plan digest and the iteration program's tasks), timed with the truth.
nlohmann::ordered_json iterations(const SyntheticMachine& machine, const Scenario& scenario,
                                  const std::string& scenario_file,
                                  const std::vector<std::string>& strategies);

}  // namespace shardscope::testing
