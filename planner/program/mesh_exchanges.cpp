// Mesh collectives of an operator's passes as the program's compute tasks carry them.
#include "planner/program/mesh_exchanges.hpp"

#include <algorithm>

namespace shardscope {

PassExchanges mesh_exchanges(const ComputeModel& compute, const Operator& op, double samples, int slices) {
  PassExchanges out;
  const double cuts = static_cast<double>(std::max(slices, 1));
  for (const TensorCollective& c : op.tensor_collectives) {
    std::vector<MeshExchange>& pass = c.backward ? out.backward : out.forward;
    const bool first_all_to_all =
        c.all_to_all &&
        std::none_of(pass.begin(), pass.end(), [](const MeshExchange& e) { return e.all_to_all; });
    const ComputeModel::MeshCollectivePrice price =
        compute.mesh_collective_price(op, c, c.bytes_per_sample * samples);
    MeshExchange e;
    e.axis = c.axis;
    e.kind = c.kind;
    e.all_to_all = c.all_to_all;
    e.overlapped = c.overlapped;
    e.before = c.all_to_all ? first_all_to_all : c.kind == CollectiveKind::all_gather;
    e.bytes = c.bytes_per_sample * samples / cuts;
    e.seconds = price.seconds / cuts;
    e.latency_seconds = price.latency_seconds / cuts;
    e.group_ranks = price.group_ranks;
    pass.push_back(e);
  }
  return out;
}

std::vector<MeshExchange> scaled_exchanges(std::vector<MeshExchange> exchanges, double fraction) {
  for (MeshExchange& e : exchanges) {
    e.bytes *= fraction;
    e.seconds *= fraction;
    e.latency_seconds *= fraction;
  }
  return exchanges;
}

}  // namespace shardscope
