// Link bytes from ring seats or NCCL flows, the result's totals, and the activity counts of the size check.
#include "sim/internal/iteration_accounting.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <utility>

#include "planner/cost/collective_cost.hpp"
#include "sim/collectives/ring_actor.hpp"

namespace shardscope::sim {
namespace {

// Flows of one NCCL collective over its whole family (0: not an nccl collective).
std::int64_t nccl_flows(const NcclFamilies& nccl, const Task& t) {
  const auto family = nccl.find(nccl_key(t));
  return family == nccl.end() ? 0 : static_cast<std::int64_t>(family->second.flows.size());
}

}  // namespace

std::vector<LinkUsage> link_usage(const IterationProgram& program, const Platform& platform, int gpus,
                                  int group_size, const NcclFamilies& nccl, double iteration_seconds) {
  std::map<std::pair<std::string, bool>, LinkUsage> usage;
  const auto add = [&](const Task& t) {
    if (t.total_bytes <= 0) return;
    if (const auto family = nccl.find(nccl_key(t)); family != nccl.end()) {
      for (const auto& f : family->second.flows) {
        for (const Platform::RouteHop& hop : platform.route(f->from, f->to)) {
          LinkUsage& u = usage[{hop.link, hop.up}];
          u.link = hop.link;
          u.direction = hop.up ? "up" : "down";
          u.bytes_per_second = hop.bytes_per_second;
          u.bytes += f->bytes;
        }
      }
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

std::int64_t step_messages(const IterationProgram& program, int gpus, int group_size, int coarse_above,
                           const NcclFamilies& nccl) {
  std::int64_t per_rank = 0, flows = 0;
  for (std::size_t i = 0; i < program.step_tasks; ++i) {
    const Task& t = program.tasks[i];
    if (!nccl.empty()) {
      flows += t.total_bytes > 0 ? nccl_flows(nccl, t) : 0;
      continue;
    }
    const RingSeat seat = seat_of(t.group, 0, gpus, group_size);
    if (t.total_bytes <= 0 || seat.size <= 1) continue;
    const int steps = ring_steps(t.kind, seat.size);
    if (steps > 0) per_rank += coarse_ring(static_cast<std::size_t>(seat.size), coarse_above) ? 1 : steps;
  }
  return per_rank * gpus + flows;
}

SimulationSize iteration_size(const IterationProgram& program, int gpus, int group_size, int coarse_above,
                              const NcclFamilies& nccl, int micro_steps) {
  SimulationSize size{"the iteration", gpus, 0, 0};
  std::int64_t per_rank = 0, flows = 0;
  for (std::size_t i = 0; i < program.tasks.size(); ++i) {
    const Task& t = program.tasks[i];
    const std::int64_t runs = i < program.step_tasks ? micro_steps : 1;
    const RingSeat seat = seat_of(t.group, 0, gpus, group_size);
    if (t.total_bytes <= 0) {
      per_rank += runs;
    } else if (!nccl.empty()) {
      flows += runs * nccl_flows(nccl, t);
    } else if (seat.size > 1) {
      const bool coarse = coarse_ring(static_cast<std::size_t>(seat.size), coarse_above);
      per_rank += runs * (coarse ? 1 : ring_steps(t.kind, seat.size));
    }
  }
  size.activities = per_rank * gpus + flows;
  return size;
}

}  // namespace shardscope::sim
