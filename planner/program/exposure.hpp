// Which collectives an iteration hides behind compute and which it waits for: each collective's time split
// into the part the compute stream overlaps and the part it is exposed, by stage, kind and group.
#pragma once

#include <cstdint>
#include <vector>

#include "planner/cost/collective_calls.hpp"
#include "planner/cost/collective_cost.hpp"

namespace shardscope {

struct IterationProgram;  // iteration_program.hpp (not included: its Task would clash with search's pool)

// The collectives of one stage, kind and group over one iteration (every micro-step and the update).
struct CollectiveExposure {
  CollectiveCall::Stage stage = CollectiveCall::Stage::forward_gather;
  CollectiveKind kind = CollectiveKind::all_gather;
  GroupKind group = GroupKind::global;
  std::int64_t collectives = 0;
  double seconds = 0;          // their time at their alpha-beta price
  double exposed_seconds = 0;  // of it, the time the compute stream has nothing to run
};

struct ProgramExposure {
  double iteration_seconds = 0;
  double compute_seconds = 0;  // the compute stream's busy time on kernels (collectives it runs excluded)
  // The iteration's time without compute: iteration_seconds - compute_seconds, every second of it spent
  // waiting for a collective (the sum of the rows' exposed_seconds).
  double exposed_seconds = 0;
  std::vector<CollectiveExposure> rows;  // in order of stage, kind and group; only those that occur

  double collective_seconds() const {  // every collective's time, exposed or not
    double total = 0;
    for (const CollectiveExposure& r : rows) total += r.seconds;
    return total;
  }
};

// The program scheduled as schedule_program does it, every micro-step run: a collective's exposed time is
// the part of its run during which the compute stream is idle (before the compute stream's first kernel,
// between kernels, after its last). A collective on the compute stream (overlap off) is exposed whole.
ProgramExposure program_exposure(const IterationProgram& program, const CollectiveCost& collectives);

}  // namespace shardscope
