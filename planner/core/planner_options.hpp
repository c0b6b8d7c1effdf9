// PlannerOptions: the `planner:` section of a scenario (cost model choice and its coefficients).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "planner/core/names.hpp"

namespace shardscope {

enum class CostModelKind { topology, paper };

template <>
struct EnumNames<CostModelKind> {
  static constexpr NameEntry<CostModelKind> table[] = {
      {CostModelKind::topology, "topology", "link classes, ring collectives, compute roofline (default)"},
      {CostModelKind::paper, "paper", "the OSDP paper's alpha-beta-gamma model with hand-given coefficients"},
  };
};

// Coefficients of the OSDP paper's model (cost_model: paper), given by hand so the paper's numbers
// can be reproduced: alpha (latency per step), beta (seconds per byte) and per-operator gamma and
// memory terms (given in the explicit operator list).
struct PaperCoefficients {
  double alpha_seconds = 0;
  double beta_seconds_per_byte = 0;
};

struct PlannerOptions {
  CostModelKind cost_model = CostModelKind::topology;
  PaperCoefficients paper;
  std::string calibration_file;  // optional calibration.yaml, resolved relative to the scenario
};

}  // namespace shardscope
