// What simulating an iteration program costs, counted without a simulator: the activities the iteration
// simulator starts (sim/iteration_accounting.cpp counts with this), for its size check and for a sweep's
// cost estimates.
#pragma once

#include <cstdint>

#include "planner/cost/collective_cost.hpp"
#include "planner/program/iteration_program.hpp"

namespace shardscope {

// Rings of more ranks than this run the simulator's coarse flow model (one flow per ring edge for all steps)
// by default.
inline constexpr int kCoarseAboveRanks = 16;

class ProgramSize {
 public:
  // A task without bytes (compute, or a collective of nothing) is one activity per GPU; a ring collective
  // one message per ring step and GPU, or one flow per GPU in the coarse model (rings of more than
  // `coarse_above` ranks); an NCCL collective (cost.model() nccl) its communicators' flows once their
  // channels merge (planner/cost/nccl_flows.hpp); a collective over one rank nothing; a compute task's
  // mesh collective that runs as flows (MeshExchange::runs_as_flows, all-to-alls of groups up to
  // `coarse_above` ranks) one flow from each GPU to every other of its group (an all-to-all) or to its ring
  // neighbour (a context-parallel exchange).
  ProgramSize(const IterationProgram& program, const CollectiveCost& cost, int gpus,
              int coarse_above = kCoarseAboveRanks);

  // Every task of one micro-step on every GPU, and the tasks that run once after the last micro-step.
  std::int64_t step_activities() const { return step_activities_; }
  std::int64_t closing_activities() const { return closing_activities_; }
  // The messages and flows of one micro-step (its collectives only).
  std::int64_t step_messages() const { return step_messages_; }
  // The whole iteration with `micro_steps` micro-steps simulated.
  std::int64_t activities(std::int64_t micro_steps) const {
    return micro_steps * step_activities_ + closing_activities_;
  }

 private:
  std::int64_t step_activities_ = 0, closing_activities_ = 0, step_messages_ = 0;
};

}  // namespace shardscope
