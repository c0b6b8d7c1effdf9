// ProgramSize: activities per task (executions, ring messages, NCCL's merged flows) summed over a program.
#include "planner/program/program_size.hpp"

#include <map>
#include <tuple>

#include "planner/cost/nccl_flows.hpp"

namespace shardscope {
namespace {

// Flows of one NCCL collective over every communicator of its group kind, each (kind, group, bytes) counted
// once.
class NcclFlowCount {
 public:
  explicit NcclFlowCount(const CollectiveCost& cost) : cost_(cost) {}
  std::int64_t operator()(const Task& t) {
    const auto key = std::make_tuple(static_cast<int>(t.kind), static_cast<int>(t.group), t.total_bytes);
    const auto found = counted_.find(key);
    if (found != counted_.end()) return found->second;
    std::int64_t flows = 0;
    const NcclEstimate estimate = cost_.nccl_collective(t.kind, t.group, t.total_bytes);
    for (const NcclTopology& copy : cost_.nccl_family(t.group)->copies)
      flows += static_cast<std::int64_t>(nccl_edges(copy, t.kind, t.total_bytes, estimate).size());
    return counted_[key] = flows;
  }

 private:
  const CollectiveCost& cost_;
  std::map<std::tuple<int, int, double>, std::int64_t> counted_;
};

}  // namespace

ProgramSize::ProgramSize(const IterationProgram& program, const CollectiveCost& cost, int gpus,
                         int coarse_above) {
  NcclFlowCount nccl_flows(cost);
  const bool nccl = cost.model() == CollectiveModel::nccl;
  for (std::size_t i = 0; i < program.tasks.size(); ++i) {
    const Task& t = program.tasks[i];
    std::int64_t activities = 0, messages = 0;
    const int ranks = t.total_bytes > 0 ? cost.group_ranks(t.group) : 1;
    if (t.total_bytes <= 0) {
      activities = gpus;
    } else if (ranks > 1 && nccl) {
      messages = nccl_flows(t);
    } else if (ranks > 1) {
      const int steps = ring_steps(t.kind, ranks);
      messages = steps <= 0 ? 0 : static_cast<std::int64_t>(gpus) * (ranks > coarse_above ? 1 : steps);
    }
    for (const MeshExchange& e : t.mesh_exchanges) {  // an all-to-all: each rank's flow to every other
      if (e.runs_as_flows(coarse_above))
        messages += static_cast<std::int64_t>(gpus) * (e.all_to_all ? e.group_ranks - 1 : 1);
    }
    if (i < program.step_tasks) {
      step_activities_ += activities + messages;
      step_messages_ += messages;
    } else {
      closing_activities_ += activities + messages;
    }
  }
}

}  // namespace shardscope
