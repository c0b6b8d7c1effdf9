// Executes an IterationProgram on every GPU: compute and communication actors synchronised per task,
// collectives as ring phases among the group's ranks, memory and trace recorded as tasks start and end.
#include "sim/iteration_sim.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <simgrid/Exception.hpp>
#include <simgrid/s4u.hpp>

#include "planner/cost/collective_cost.hpp"
#include "sim/collectives/ring_actor.hpp"
#include "sim/engine.hpp"
#include "sim/platform.hpp"
#include "sim/simulation_error.hpp"

namespace sg4 = simgrid::s4u;

namespace shardscope::sim {
namespace {

struct RankState {
  std::vector<char> done;
  sg4::MutexPtr mutex;
  sg4::ConditionVariablePtr changed;
  MemoryBytes current{};
  double peak = 0;
  double compute_seconds = 0;
};

std::vector<int> ring_of(GroupKind group, int rank, int gpus, int group_size) {
  std::vector<int> ranks;
  switch (group) {
    case GroupKind::intra:
      for (int l = 0; l < group_size; ++l) ranks.push_back(rank / group_size * group_size + l);
      break;
    case GroupKind::inter:
      for (int r = rank % group_size; r < gpus; r += group_size) ranks.push_back(r);
      break;
    case GroupKind::global:
      for (int r = 0; r < gpus; ++r) ranks.push_back(r);
      break;
  }
  return ranks;
}

double total(const MemoryBytes& m) {
  double t = 0;
  for (double v : m) t += v;
  return t;
}

}  // namespace

IterationResult simulate_iteration(const Scenario& scenario, const Calibration& calibration, const Plan& plan,
                                   const IterationOptions& options) {
  const IterationProgram program = build_iteration_program(
      scenario, calibration, plan, options.prefetch_depth, !options.overlap, options.bucket_bytes);
  const Cluster& cluster = scenario.cluster;
  const int gpus = cluster.gpus();
  const int group_size = scenario.training.group_size;
  const CollectiveCost cost(cluster, group_size, calibration);

  std::set<std::pair<int, int>> pairs;
  std::set<GroupKind> groups;
  for (const Task& t : program.tasks) {
    if (t.total_bytes > 0) groups.insert(t.group);
  }
  for (GroupKind g : groups) {
    for (int r = 0; r < gpus; ++r) {
      const std::vector<int> ring = ring_of(g, r, gpus, group_size);
      const auto pos = static_cast<std::size_t>(std::find(ring.begin(), ring.end(), r) - ring.begin());
      if (ring.size() > 1) pairs.emplace(r, ring[(pos + 1) % ring.size()]);
    }
  }

  IterationResult result;
  std::vector<RankState> states(static_cast<std::size_t>(gpus));
  std::int64_t messages = 0;
  std::int64_t finished_streams = 0;
  try {
    sg4::Engine& engine = create_engine();
    Platform platform(cluster, std::vector<std::pair<int, int>>(pairs.begin(), pairs.end()));
    for (int rank = 0; rank < gpus; ++rank) {
      RankState& st = states[static_cast<std::size_t>(rank)];
      st.done.assign(program.tasks.size(), 0);
      st.mutex = sg4::Mutex::create();
      st.changed = sg4::ConditionVariable::create();
      st.current = program.resident;
      st.peak = total(st.current);
      const bool traced = rank < options.trace_ranks;
      if (traced) result.memory.push_back({rank, 0.0, st.current});
      auto stream_body = [&program, &st, &result, &messages, &finished_streams, &options, &cost, &calibration,
                          rank, gpus, group_size, traced](Task::Stream stream) {
        sg4::Host* host = sg4::this_actor::get_host();
        for (std::size_t i = 0; i < program.tasks.size(); ++i) {
          const Task& t = program.tasks[i];
          if (t.stream != stream) continue;
          if (t.wait_for_other >= 0) {
            std::unique_lock lock(*st.mutex);
            while (!st.done[static_cast<std::size_t>(t.wait_for_other)]) st.changed->wait(lock);
          }
          const double start = sg4::Engine::get_clock();
          for (std::size_t c = 0; c < kMemoryCategories; ++c) st.current[c] += t.alloc_at_start[c];
          st.peak = std::max(st.peak, total(st.current));
          if (traced) result.memory.push_back({rank, start, st.current});
          if (t.total_bytes > 0) {
            const std::vector<int> ring = ring_of(t.group, rank, gpus, group_size);
            RingPhase phase;
            phase.name = "t" + std::to_string(i) + "g" + std::to_string(ring.front()) + "k" +
                         std::to_string(static_cast<int>(t.group));
            phase.ranks = ring;
            phase.chunk_bytes = t.total_bytes / static_cast<double>(ring.size());
            phase.efficiency = message_efficiency_factor(calibration, phase.chunk_bytes);
            const int n = static_cast<int>(ring.size());
            phase.steps = (t.kind == CollectiveKind::all_reduce ? 2 : 1) * (n - 1);
            phase.coarse = n > options.coarse_above;
            phase.coarse_latency_seconds =
                phase.steps > 1 ? (phase.steps - 1) * cost.ring(t.group).alpha_seconds : 0;
            const auto pos =
                static_cast<std::size_t>(std::find(ring.begin(), ring.end(), rank) - ring.begin());
            run_ring_phase(phase, pos, messages);
          } else if (t.compute_seconds > 0) {
            sg4::this_actor::execute(t.compute_seconds * host->get_speed());
            st.compute_seconds += t.compute_seconds;
          }
          const double end = sg4::Engine::get_clock();
          for (std::size_t c = 0; c < kMemoryCategories; ++c) st.current[c] -= t.free_at_end[c];
          if (traced) {
            result.memory.push_back({rank, end, st.current});
            result.trace.push_back({rank, t.stream == Task::Stream::compute ? 0 : 1, t.name, start, end});
          }
          std::unique_lock lock(*st.mutex);
          st.done[i] = 1;
          st.changed->notify_all();
        }
        ++finished_streams;
      };
      sg4::Host* host = platform.host(rank);
      sg4::Actor::create("rank" + std::to_string(rank) + "-compute", host,
                         [stream_body]() { stream_body(Task::Stream::compute); });
      sg4::Actor::create("rank" + std::to_string(rank) + "-comm", host,
                         [stream_body]() { stream_body(Task::Stream::comm); });
    }
    result.iteration_seconds =
        run_to_completion(engine, finished_streams, 2 * static_cast<std::int64_t>(gpus), "the iteration");
    // Bytes per link direction: every ring step sends one chunk from each rank to its right neighbour.
    std::map<std::pair<std::string, bool>, LinkUsage> usage;
    for (const Task& t : program.tasks) {
      if (t.total_bytes <= 0) continue;
      for (int rank = 0; rank < gpus; ++rank) {
        const std::vector<int> ring = ring_of(t.group, rank, gpus, group_size);
        if (ring.size() <= 1) continue;
        const auto pos = static_cast<std::size_t>(std::find(ring.begin(), ring.end(), rank) - ring.begin());
        const int steps =
            (t.kind == CollectiveKind::all_reduce ? 2 : 1) * (static_cast<int>(ring.size()) - 1);
        const double sent = steps * t.total_bytes / static_cast<double>(ring.size());
        for (const Platform::RouteHop& hop : platform.route(rank, ring[(pos + 1) % ring.size()])) {
          LinkUsage& u = usage[{hop.link, hop.up}];
          u.link = hop.link;
          u.direction = hop.up ? "up" : "down";
          u.bytes_per_second = hop.bytes_per_second;
          u.bytes += sent;
        }
      }
    }
    for (auto& [key, u] : usage) {
      u.utilisation = u.bytes / (u.bytes_per_second * result.iteration_seconds);
      result.links.push_back(u);
    }
  } catch (const simgrid::Exception& e) {
    throw SimulationError(std::string("SimGrid: ") + e.what());
  }
  for (int rank = 0; rank < gpus; ++rank) {
    const RankState& st = states[static_cast<std::size_t>(rank)];
    result.gpus.push_back({rank, st.peak, st.compute_seconds, result.iteration_seconds - st.compute_seconds});
  }
  result.samples_per_second = program.samples_per_iteration / result.iteration_seconds;
  result.tokens_per_second = program.tokens_per_iteration / result.iteration_seconds;
  std::int64_t executions = 0;
  for (const Task& t : program.tasks) executions += t.total_bytes > 0 ? 0 : 1;
  result.activities = messages + executions * gpus;
  std::stable_sort(result.trace.begin(), result.trace.end(), [](const TraceEvent& a, const TraceEvent& b) {
    return a.rank != b.rank ? a.rank < b.rank : a.start_seconds < b.start_seconds;
  });
  return result;
}

}  // namespace shardscope::sim
