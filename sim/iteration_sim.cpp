// Executes an IterationProgram on every GPU: compute and communication actors synchronised per task,
// collectives as ring phases among the group's ranks, memory and trace recorded as tasks start and end.
#include "sim/iteration_sim.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
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

// The ring of ranks that `rank` joins for a collective over `group`, in ring order.
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

std::size_t position_in(const std::vector<int>& ring, int rank) {
  return static_cast<std::size_t>(std::find(ring.begin(), ring.end(), rank) - ring.begin());
}

double total(const MemoryBytes& m) {
  double t = 0;
  for (double v : m) t += v;
  return t;
}

// The ordered (rank, right neighbour) pairs of every ring the program uses: the only routes the platform
// needs.
std::vector<std::pair<int, int>> routed_pairs(const IterationProgram& program, int gpus, int group_size) {
  std::set<GroupKind> groups;
  for (const Task& t : program.tasks) {
    if (t.total_bytes > 0) groups.insert(t.group);
  }
  std::set<std::pair<int, int>> pairs;
  for (GroupKind g : groups) {
    for (int r = 0; r < gpus; ++r) {
      const std::vector<int> ring = ring_of(g, r, gpus, group_size);
      if (ring.size() > 1) pairs.emplace(r, ring[(position_in(ring, r) + 1) % ring.size()]);
    }
  }
  return {pairs.begin(), pairs.end()};
}

// What every rank needs to turn a collective task into a ring phase.
struct RingContext {
  const CollectiveCost& cost;
  const Calibration& calibration;
  int gpus = 0;
  int group_size = 0;
  int coarse_above = 0;
};

// The ring phase that task `index` runs among `ring` (the same on every rank of the ring).
RingPhase ring_phase_for(const Task& task, std::size_t index, const std::vector<int>& ring,
                         const RingContext& context) {
  RingPhase phase;
  phase.name = "t" + std::to_string(index) + "g" + std::to_string(ring.front()) + "k" +
               std::to_string(static_cast<int>(task.group));
  phase.ranks = ring;
  phase.chunk_bytes = task.total_bytes / static_cast<double>(ring.size());
  phase.efficiency = message_efficiency_factor(context.calibration, phase.chunk_bytes);
  phase.steps = ring_steps(task.kind, static_cast<int>(ring.size()));
  phase.coarse = static_cast<int>(ring.size()) > context.coarse_above;
  phase.coarse_latency_seconds =
      phase.steps > 1 ? (phase.steps - 1) * context.cost.ring(task.group).alpha_seconds : 0;
  return phase;
}

// What all actors of the iteration record. SimGrid runs its actors one at a time (cooperative contexts
// in one thread), so every actor appends here without a lock.
struct IterationLog {
  int trace_ranks = 0;  // ranks below this keep their trace events and memory samples
  std::vector<TraceEvent> trace;
  std::vector<MemorySample> memory;
  std::int64_t messages = 0;          // ring messages sent
  std::int64_t finished_streams = 0;  // actors that ran their last task
};

// One GPU's two streams executing the program: the compute and communication actors of a rank share
// this state (tasks done, memory in use) and wait on each other through its condition variable.
class GpuStreams {
 public:
  GpuStreams(const IterationProgram& program, const RingContext& rings, int rank, IterationLog& log)
      : program_(program),
        rings_(rings),
        rank_(rank),
        traced_(rank < log.trace_ranks),
        log_(log),
        done_(program.tasks.size(), 0),
        mutex_(sg4::Mutex::create()),
        changed_(sg4::ConditionVariable::create()),
        current_(program.resident),
        peak_bytes_(total(current_)) {
    if (traced_) log_.memory.push_back({rank_, 0.0, current_});
  }

  // The body of the actor running `stream`: its tasks in program order.
  void run(Task::Stream stream) {
    for (std::size_t i = 0; i < program_.tasks.size(); ++i) {
      const Task& task = program_.tasks[i];
      if (task.stream != stream) continue;
      wait_for(task.wait_for_other);
      const double start_seconds = sg4::Engine::get_clock();
      allocate(task.alloc_at_start, start_seconds);
      if (task.total_bytes > 0) {
        execute_collective(task, i);
      } else if (task.compute_seconds > 0) {
        execute_compute(task);
      }
      const double end_seconds = sg4::Engine::get_clock();
      release(task.free_at_end, end_seconds);
      if (traced_) {
        log_.trace.push_back(
            {rank_, task.stream == Task::Stream::compute ? 0 : 1, task.name, start_seconds, end_seconds});
      }
      mark_done(i);
    }
    ++log_.finished_streams;
  }

  GpuResult result(double iteration_seconds) const {
    return {rank_, peak_bytes_, compute_seconds_, iteration_seconds - compute_seconds_};
  }

 private:
  void wait_for(int task) {
    if (task < 0) return;
    std::unique_lock lock(*mutex_);
    while (!done_[static_cast<std::size_t>(task)]) changed_->wait(lock);
  }

  void mark_done(std::size_t task) {
    std::unique_lock lock(*mutex_);
    done_[task] = 1;
    changed_->notify_all();
  }

  void allocate(const MemoryBytes& bytes, double now_seconds) {
    for (std::size_t c = 0; c < kMemoryCategories; ++c) current_[c] += bytes[c];
    peak_bytes_ = std::max(peak_bytes_, total(current_));
    if (traced_) log_.memory.push_back({rank_, now_seconds, current_});
  }

  void release(const MemoryBytes& bytes, double now_seconds) {
    for (std::size_t c = 0; c < kMemoryCategories; ++c) current_[c] -= bytes[c];
    if (traced_) log_.memory.push_back({rank_, now_seconds, current_});
  }

  void execute_collective(const Task& task, std::size_t index) {
    const std::vector<int> ring = ring_of(task.group, rank_, rings_.gpus, rings_.group_size);
    run_ring_phase(ring_phase_for(task, index, ring, rings_), position_in(ring, rank_), log_.messages);
  }

  void execute_compute(const Task& task) {
    sg4::this_actor::execute(task.compute_seconds * sg4::this_actor::get_host()->get_speed());
    compute_seconds_ += task.compute_seconds;
  }

  const IterationProgram& program_;
  const RingContext& rings_;
  int rank_;
  bool traced_;
  IterationLog& log_;
  std::vector<char> done_;
  sg4::MutexPtr mutex_;
  sg4::ConditionVariablePtr changed_;
  MemoryBytes current_;
  double peak_bytes_ = 0;
  double compute_seconds_ = 0;
};

// Creates every rank's state and its two actors (rank order, compute before communication).
void start_streams(std::vector<GpuStreams>& streams, const IterationProgram& program,
                   const RingContext& rings, const Platform& platform, IterationLog& log) {
  streams.reserve(static_cast<std::size_t>(rings.gpus));  // the actors keep pointers into it
  for (int rank = 0; rank < rings.gpus; ++rank) {
    GpuStreams* gpu = &streams.emplace_back(program, rings, rank, log);
    sg4::Host* host = platform.host(rank);
    sg4::Actor::create("rank" + std::to_string(rank) + "-compute", host,
                       [gpu]() { gpu->run(Task::Stream::compute); });
    sg4::Actor::create("rank" + std::to_string(rank) + "-comm", host,
                       [gpu]() { gpu->run(Task::Stream::comm); });
  }
}

// Runs `body`, translating SimGrid's exceptions into SimulationError.
double translate_simgrid_errors(const std::function<double()>& body) {
  try {
    return body();
  } catch (const simgrid::Exception& e) {
    throw SimulationError(std::string("SimGrid: ") + e.what());
  }
}

// Bytes per link direction: every ring step sends one chunk from each rank to its right neighbour.
std::vector<LinkUsage> link_usage(const IterationProgram& program, const Platform& platform, int gpus,
                                  int group_size, double iteration_seconds) {
  std::map<std::pair<std::string, bool>, LinkUsage> usage;
  for (const Task& t : program.tasks) {
    if (t.total_bytes <= 0) continue;
    for (int rank = 0; rank < gpus; ++rank) {
      const std::vector<int> ring = ring_of(t.group, rank, gpus, group_size);
      if (ring.size() <= 1) continue;
      const double sent_bytes = ring_steps(t.kind, static_cast<int>(ring.size())) * t.total_bytes /
                                static_cast<double>(ring.size());
      for (const Platform::RouteHop& hop :
           platform.route(rank, ring[(position_in(ring, rank) + 1) % ring.size()])) {
        LinkUsage& u = usage[{hop.link, hop.up}];
        u.link = hop.link;
        u.direction = hop.up ? "up" : "down";
        u.bytes_per_second = hop.bytes_per_second;
        u.bytes += sent_bytes;
      }
    }
  }
  std::vector<LinkUsage> links;
  for (auto& [key, u] : usage) {
    u.utilisation = u.bytes / (u.bytes_per_second * iteration_seconds);
    links.push_back(u);
  }
  return links;
}

// The result without links: per-GPU numbers, rates, the activity estimate and the trace sorted by rank
// and start time.
IterationResult assemble_result(const IterationProgram& program, double iteration_seconds,
                                const std::vector<GpuStreams>& streams, IterationLog log) {
  IterationResult result;
  result.iteration_seconds = iteration_seconds;
  for (const GpuStreams& gpu : streams) result.gpus.push_back(gpu.result(iteration_seconds));
  result.samples_per_second = program.samples_per_iteration / iteration_seconds;
  result.tokens_per_second = program.tokens_per_iteration / iteration_seconds;
  // Estimate: every task without bytes counts as one execution per GPU (zero-time ones included).
  std::int64_t executions = 0;
  for (const Task& t : program.tasks) executions += t.total_bytes > 0 ? 0 : 1;
  result.activities = log.messages + executions * static_cast<std::int64_t>(streams.size());
  result.trace = std::move(log.trace);
  result.memory = std::move(log.memory);
  std::stable_sort(result.trace.begin(), result.trace.end(), [](const TraceEvent& a, const TraceEvent& b) {
    return a.rank != b.rank ? a.rank < b.rank : a.start_seconds < b.start_seconds;
  });
  return result;
}

}  // namespace

IterationResult simulate_iteration(const Scenario& scenario, const Calibration& calibration, const Plan& plan,
                                   const IterationOptions& options) {
  const IterationProgram program = build_iteration_program(
      scenario, calibration, plan, options.prefetch_depth, !options.overlap, options.bucket_bytes);
  const int gpus = scenario.cluster.gpus();
  const int group_size = scenario.training.group_size;
  const CollectiveCost cost(scenario.cluster, group_size, calibration);
  const RingContext rings{cost, calibration, gpus, group_size, options.coarse_above};

  IterationLog log;
  log.trace_ranks = options.trace_ranks;
  std::optional<Platform> platform;
  std::vector<GpuStreams> streams;
  const double iteration_seconds = translate_simgrid_errors([&] {
    sg4::Engine& engine = create_engine();
    platform.emplace(scenario.cluster, routed_pairs(program, gpus, group_size));
    start_streams(streams, program, rings, *platform, log);
    return run_to_completion(engine, log.finished_streams, 2 * static_cast<std::int64_t>(gpus),
                             "the iteration");
  });
  IterationResult result = assemble_result(program, iteration_seconds, streams, std::move(log));
  result.links = link_usage(program, *platform, gpus, group_size, iteration_seconds);
  return result;
}

}  // namespace shardscope::sim
