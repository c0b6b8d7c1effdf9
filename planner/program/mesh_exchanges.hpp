// The mesh collectives inside an operator's compute tasks, per pass, as the iteration program records them.
#pragma once

#include <vector>

#include "planner/core/model.hpp"
#include "planner/cost/compute_model.hpp"
#include "planner/program/iteration_program.hpp"

namespace shardscope {

struct PassExchanges {
  std::vector<MeshExchange> forward, backward;
};

// The operator's mesh collectives (Operator::tensor_collectives) at `samples` samples, each slice's task
// holding 1 / slices of every one (bytes and seconds, as the program divides the pass's seconds among its
// slices). In a pass an all-gather runs before the kernels and a reduction after them; of its all-to-alls the
// first (a dispatch) runs before and the others after (Megatron's sequence-parallel regions and an MoE
// layer's dispatch and combine); an overlapped one (ring attention's) beside them.
PassExchanges mesh_exchanges(const ComputeModel& compute, const Operator& op, double samples, int slices);

// The exchanges a recompute runs: the forward's, scaled by the share of the forward it runs again.
std::vector<MeshExchange> scaled_exchanges(std::vector<MeshExchange> exchanges, double fraction);

}  // namespace shardscope
