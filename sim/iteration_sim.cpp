// Executes an IterationProgram on every GPU: compute and communication actors synchronised per task,
// collectives as ring phases among the group's ranks, memory and trace recorded as tasks start and end.
#include "sim/iteration_sim.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <simgrid/Exception.hpp>
#include <simgrid/s4u.hpp>

#include "planner/cost/collective_cost.hpp"
#include "sim/collectives/ring_actor.hpp"
#include "sim/engine.hpp"
#include "sim/platform.hpp"
#include "sim/resources.hpp"
#include "sim/simulation_error.hpp"

namespace sg4 = simgrid::s4u;

namespace shardscope::sim {
namespace {

// Where `rank` sits in the ring it joins for a collective over `group` (ring order: consecutive ranks
// inside a group, the same local rank across groups, or all ranks), found by arithmetic, not by search.
struct RingSeat {
  int id = 0;        // which ring of the group kind
  int size = 0;      // its ranks
  int position = 0;  // this rank's index in it
  int right = 0;     // the rank it sends to
};

RingSeat seat_of(GroupKind group, int rank, int gpus, int group_size) {
  switch (group) {
    case GroupKind::intra: {
      const int position = rank % group_size, first = rank - position;
      return {rank / group_size, group_size, position, first + (position + 1) % group_size};
    }
    case GroupKind::inter: {
      const int size = gpus / group_size, position = rank / group_size;
      return {rank % group_size, size, position, rank % group_size + (position + 1) % size * group_size};
    }
    case GroupKind::global:
      break;
  }
  return {0, gpus, rank, (rank + 1) % gpus};
}

// The ranks of the ring `seat` belongs to, in ring order.
std::vector<int> ring_ranks(GroupKind group, const RingSeat& seat, int gpus, int group_size) {
  std::vector<int> ranks;
  ranks.reserve(static_cast<std::size_t>(seat.size));
  switch (group) {
    case GroupKind::intra:
      for (int l = 0; l < group_size; ++l) ranks.push_back(seat.id * group_size + l);
      break;
    case GroupKind::inter:
      for (int r = seat.id; r < gpus; r += group_size) ranks.push_back(r);
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
      const RingSeat seat = seat_of(g, r, gpus, group_size);
      if (seat.size > 1) pairs.emplace(r, seat.right);
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
  // Each ring's ranks, built once and shared by its members' phases. SimGrid runs one actor at a time
  // (cooperative contexts in one thread), so the actors fill it without a lock.
  mutable std::map<std::pair<GroupKind, int>, std::shared_ptr<const std::vector<int>>> rings;

  std::shared_ptr<const std::vector<int>> ring(GroupKind group, const RingSeat& seat) const {
    auto& ranks = rings[{group, seat.id}];
    if (!ranks) ranks = std::make_shared<const std::vector<int>>(ring_ranks(group, seat, gpus, group_size));
    return ranks;
  }
};

// The ring phase that task `index` runs among `ring` (the same on every rank of the ring).
RingPhase ring_phase_for(const Task& task, std::size_t index, const RingSeat& seat,
                         const RingContext& context) {
  RingPhase phase;
  phase.ranks = context.ring(task.group, seat);
  phase.name = "t" + std::to_string(index) + "g" + std::to_string(phase.ranks->front()) + "k" +
               std::to_string(static_cast<int>(task.group));
  phase.chunk_bytes = task.total_bytes / static_cast<double>(seat.size);
  phase.efficiency = context.cost.message_efficiency(task.group, phase.chunk_bytes);
  phase.steps = ring_steps(task.kind, seat.size);
  phase.coarse = coarse_ring(static_cast<std::size_t>(seat.size), context.coarse_above);
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

  // The body of the actor running `stream`: its tasks in program order, the micro-step's tasks once per
  // micro-step, then the update's.
  void run(Task::Stream stream) {
    const std::size_t length = program_.step_tasks;
    for (int step = 0; step < program_.micro_steps && length > 0; ++step) {
      for (std::size_t i = 0; i < length; ++i) {
        if (program_.tasks[i].stream == stream) run_task(i, step);
      }
    }
    for (std::size_t i = length; i < program_.tasks.size(); ++i) {
      if (program_.tasks[i].stream == stream) run_task(i, 0);
    }
    ++log_.finished_streams;
  }

  GpuResult result(double iteration_seconds) const {
    return {rank_, peak_bytes_, compute_seconds_, iteration_seconds - compute_seconds_};
  }

 private:
  // Task `index` of micro-step `step` (an update task: step 0).
  void run_task(std::size_t index, int step) {
    const Task& task = program_.tasks[index];
    wait_for_partner(task, index, step);
    const double start_seconds = sg4::Engine::get_clock();
    allocate(task.alloc_at_start, start_seconds);
    // Each run of a task has its own number (as if every micro-step were written out): its mailboxes.
    const std::size_t length = program_.step_tasks;
    const std::size_t run = index < length
                                ? static_cast<std::size_t>(step) * length + index
                                : static_cast<std::size_t>(program_.micro_steps) * length + (index - length);
    if (task.total_bytes > 0) {
      execute_collective(task, run);
    } else if (task.compute_seconds > 0) {
      execute_compute(task);
    }
    const double end_seconds = sg4::Engine::get_clock();
    release(task.free_at_end, end_seconds);
    if (traced_) {
      log_.trace.push_back({rank_, task.stream == Task::Stream::compute ? 0 : 1,
                            task_name(program_, index, step), start_seconds, end_seconds});
    }
    mark_done(index);
  }

  // Waits for the run of the partner task that `task` (at `index`, in micro-step `step`) depends on: done_[w]
  // counts the finished runs of position w, one per micro-step.
  void wait_for_partner(const Task& task, std::size_t index, int step) {
    if (task.wait_for_other < 0) return;
    const auto w = static_cast<std::size_t>(task.wait_for_other);
    const std::size_t length = program_.step_tasks;
    int run = 0;  // which run of w (0-based) must be done
    if (index < length) {
      run = task.waits_on_previous_step ? step - 1 : step;
      if (run < 0) return;  // the first micro-step has none before it
    } else if (w < length) {
      run = program_.micro_steps - 1;  // the update waits on the last micro-step
    }
    std::unique_lock lock(*mutex_);
    while (done_[w] <= run) changed_->wait(lock);
  }

  void mark_done(std::size_t task) {
    std::unique_lock lock(*mutex_);
    ++done_[task];
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
    const RingSeat seat = seat_of(task.group, rank_, rings_.gpus, rings_.group_size);
    run_ring_phase(ring_phase_for(task, index, seat, rings_), static_cast<std::size_t>(seat.position),
                   log_.messages);
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
  std::vector<int> done_;  // finished runs per task position
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
  const auto add = [&](const Task& t) {
    if (t.total_bytes <= 0) return;
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
  for (std::size_t i = 0; i < program.tasks.size(); ++i) {
    if (program.tasks[i].total_bytes > 0) continue;
    executions += i < program.step_tasks ? program.micro_steps : 1;
  }
  result.activities = log.messages + executions * static_cast<std::int64_t>(streams.size());
  result.trace = std::move(log.trace);
  result.memory = std::move(log.memory);
  std::stable_sort(result.trace.begin(), result.trace.end(), [](const TraceEvent& a, const TraceEvent& b) {
    return a.rank != b.rank ? a.rank < b.rank : a.start_seconds < b.start_seconds;
  });
  return result;
}

// The simulation's size: two actors per GPU, and per task on every rank one execution or, for a collective,
// one flow per ring (coarse model) or one message per ring step (step model).
SimulationSize iteration_size(const IterationProgram& program, int gpus, int group_size, int coarse_above) {
  SimulationSize size{"the iteration", gpus, 2 * static_cast<std::int64_t>(gpus), 0};
  std::int64_t per_rank = 0;
  for (std::size_t i = 0; i < program.tasks.size(); ++i) {
    const Task& t = program.tasks[i];
    const std::int64_t runs = i < program.step_tasks ? program.micro_steps : 1;
    const RingSeat seat = seat_of(t.group, 0, gpus, group_size);
    if (t.total_bytes <= 0) {
      per_rank += runs;
    } else if (seat.size > 1) {
      const bool coarse = coarse_ring(static_cast<std::size_t>(seat.size), coarse_above);
      per_rank += runs * (coarse ? 1 : ring_steps(t.kind, seat.size));
    }
  }
  size.activities = per_rank * gpus;
  return size;
}

}  // namespace

void check_iteration_size(const Scenario& scenario) {
  const std::int64_t gpus = scenario.cluster.gpus();
  const TrainingConfig& t = scenario.training;
  std::int64_t micro_steps = std::max(1, t.gradient_accumulation_steps);
  if (t.global_batch > 0) {
    const std::int64_t largest =
        std::max<std::int64_t>(1, t.micro_batch > 0 ? t.micro_batch : t.max_micro_batch);
    micro_steps = std::max<std::int64_t>(1, t.global_batch / (largest * std::max<std::int64_t>(1, gpus)));
  }
  const auto operators = static_cast<std::int64_t>(scenario.model.operators.size());
  check_simulation_size({"the iteration", gpus, 2 * gpus, 2 * operators * micro_steps * gpus});
}

IterationResult simulate_iteration(const Scenario& scenario, const Calibration& calibration, const Plan& plan,
                                   const IterationOptions& options) {
  const int gpus = scenario.cluster.gpus();
  const int group_size = scenario.training.group_size;
  check_simulation_size({"the iteration", gpus, 2 * static_cast<std::int64_t>(gpus), 0});
  const IterationProgram program = build_iteration_program(
      scenario, calibration, plan, options.prefetch_depth, !options.overlap, options.bucket_bytes);
  const SimulationSize size = iteration_size(program, gpus, group_size, options.coarse_above);
  check_simulation_size(size);
  const CollectiveCost cost(scenario.cluster, group_size, calibration);
  const RingContext rings{cost, calibration, gpus, group_size, options.coarse_above, {}};

  IterationLog log;
  log.trace_ranks = options.trace_ranks;
  std::optional<Platform> platform;
  std::vector<GpuStreams> streams;
  const double iteration_seconds = translate_simgrid_errors([&] {
    sg4::Engine& engine = create_engine();
    configure_actor_stacks(size);
    platform.emplace(scenario.cluster, calibration, routed_pairs(program, gpus, group_size));
    start_streams(streams, program, rings, *platform, log);
    return run_to_completion(engine, log.finished_streams, 2 * static_cast<std::int64_t>(gpus),
                             "the iteration");
  });
  IterationResult result = assemble_result(program, iteration_seconds, streams, std::move(log));
  result.links = link_usage(program, *platform, gpus, group_size, iteration_seconds);
  return result;
}

}  // namespace shardscope::sim
