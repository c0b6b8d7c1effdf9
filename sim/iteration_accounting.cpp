// Link bytes from ring seats or NCCL flows, the result's totals, and the activity counts of the size check.
#include "sim/internal/iteration_accounting.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <utility>

#include "planner/cost/collective_cost.hpp"
#include "sim/collectives/ring_actor.hpp"

namespace shardscope::sim {

std::vector<LinkUsage> link_usage(const IterationProgram& program, const Platform& platform, int gpus,
                                  int group_size, const NcclFamilies& nccl, const ExchangeFamilies& exchanges,
                                  double iteration_seconds) {
  std::map<std::pair<std::string, bool>, LinkUsage> usage;
  const auto add_flows = [&](const NcclFamilyFlows& family) {
    for (const auto& f : family.flows) {
      for (const Platform::RouteHop& hop : platform.route(f->from, f->to)) {
        LinkUsage& u = usage[{hop.link, hop.up}];
        u.link = hop.link;
        u.direction = hop.up ? "up" : "down";
        u.bytes_per_second = hop.bytes_per_second;
        u.bytes += f->bytes;
      }
    }
  };
  const auto add = [&](const Task& t) {
    for (const MeshExchange& e : t.mesh_exchanges) {
      if (const auto family = exchanges.find(exchange_key(e)); family != exchanges.end())
        add_flows(family->second);
    }
    if (t.total_bytes <= 0) return;
    if (const auto family = nccl.find(nccl_key(t)); family != nccl.end()) {
      add_flows(family->second);
      return;
    }
    for (int rank = 0; rank < gpus; ++rank) {
      const RingSeat seat = seat_of(t.group, rank, gpus, group_size);
      if (seat.size <= 1) continue;
      const double sent_bytes =
          ring_steps(t.kind, seat.size) * t.total_bytes / static_cast<double>(seat.size);
      for (const Platform::RouteHop& hop : platform.route(rank, seat.right)) {
        LinkUsage& u = usage[{hop.link, hop.up}];
        u.link = hop.link;
        u.direction = hop.up ? "up" : "down";
        u.bytes_per_second = hop.bytes_per_second;
        u.bytes += sent_bytes;
      }
    }
  };
  // In the order the tasks run: each micro-step, then the update.
  for (int step = 0; step < program.micro_steps; ++step) {
    for (std::size_t i = 0; i < program.step_tasks; ++i) add(program.tasks[i]);
  }
  for (std::size_t i = program.step_tasks; i < program.tasks.size(); ++i) add(program.tasks[i]);
  std::vector<LinkUsage> links;
  for (auto& [key, u] : usage) {
    u.utilisation = u.bytes / (u.bytes_per_second * iteration_seconds);
    links.push_back(u);
  }
  return links;
}

IterationResult assemble_result(const IterationProgram& program, double iteration_seconds,
                                const IterationExecutor& executor, int gpus, IterationLog log) {
  IterationResult result;
  result.iteration_seconds = iteration_seconds;
  for (int rank = 0; rank < gpus; ++rank) result.gpus.push_back(executor.result(rank, iteration_seconds));
  result.samples_per_second = program.samples_per_iteration / iteration_seconds;
  result.tokens_per_second = program.tokens_per_iteration / iteration_seconds;
  // Estimate: every task without bytes counts as one execution per GPU (zero-time ones included).
  std::int64_t executions = 0;
  for (std::size_t i = 0; i < program.tasks.size(); ++i) {
    if (program.tasks[i].total_bytes > 0) continue;
    executions += i < program.step_tasks ? program.micro_steps : 1;
  }
  result.activities = log.messages + executions * static_cast<std::int64_t>(gpus);
  result.trace = std::move(log.trace);
  result.memory = std::move(log.memory);
  std::stable_sort(result.trace.begin(), result.trace.end(), [](const TraceEvent& a, const TraceEvent& b) {
    return a.rank != b.rank ? a.rank < b.rank : a.start_seconds < b.start_seconds;
  });
  return result;
}

}  // namespace shardscope::sim
