// Executes an IterationProgram on every GPU: compute and communication actors synchronised per task,
// collectives as ring phases among the group's ranks, memory and trace recorded as tasks start and end.
#include "sim/iteration_sim.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <simgrid/Exception.hpp>
#include <simgrid/kernel/Timer.hpp>
#include <simgrid/s4u.hpp>
#include <tuple>

#include "planner/cost/collective_cost.hpp"
#include "planner/cost/nccl_model.hpp"
#include "sim/collectives/ring_actor.hpp"
#include "sim/collectives/schedule.hpp"
#include "sim/engine.hpp"
#include "sim/internal/activity_holder.hpp"
#include "sim/nccl_run.hpp"
#include "sim/platform.hpp"
#include "sim/resources.hpp"
#include "sim/ring_run.hpp"
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

// Under the nccl collective model: per distinct collective of the program (kind, group kind, bytes), the
// flows of every communicator of its family under NCCL's pick, fitted together once the platform exists.
using NcclKey = std::tuple<int, int, double>;  // kind, group kind, total bytes
using NcclFamilies = std::map<NcclKey, NcclFamilyFlows>;

NcclKey nccl_key(const Task& t) {
  return {static_cast<int>(t.kind), static_cast<int>(t.group), t.total_bytes};
}

NcclFamilies nccl_families(const IterationProgram& program, const CollectiveCost& cost) {
  NcclFamilies families;
  if (cost.model() != CollectiveModel::nccl) return families;
  for (const Task& t : program.tasks) {
    if (t.total_bytes <= 0 || cost.group_ranks(t.group) <= 1 || families.count(nccl_key(t)) > 0) continue;
    families.emplace(nccl_key(t), nccl_family_flows(*cost.nccl_family(t.group), t.kind, t.total_bytes,
                                                    cost.nccl_collective(t.kind, t.group, t.total_bytes)));
  }
  return families;
}

// The ordered (rank, right neighbour) pairs of every ring the program uses, or the pairs of every NCCL
// flow: the only routes the platform needs.
std::vector<std::pair<int, int>> routed_pairs(const IterationProgram& program, int gpus, int group_size,
                                              const NcclFamilies& nccl, bool nccl_model) {
  std::set<std::pair<int, int>> pairs;
  if (nccl_model) {
    for (const auto& [key, family] : nccl) {
      for (const auto& f : family.flows) pairs.emplace(f->from, f->to);
    }
    return {pairs.begin(), pairs.end()};
  }
  std::set<GroupKind> groups;
  for (const Task& t : program.tasks) {
    if (t.total_bytes > 0) groups.insert(t.group);
  }
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
  const NcclFamilies* nccl = nullptr;  // the nccl model's fitted flows (nullptr: rings)
  // Each ring's ranks, built once and shared by its members' phases. SimGrid runs one actor at a time
  // (cooperative contexts in one thread), so the actors fill it without a lock.
  mutable std::map<std::pair<GroupKind, int>, std::shared_ptr<const std::vector<int>>> rings;

  std::shared_ptr<const std::vector<int>> ring(GroupKind group, const RingSeat& seat) const {
    auto& ranks = rings[{group, seat.id}];
    if (!ranks) ranks = std::make_shared<const std::vector<int>>(ring_ranks(group, seat, gpus, group_size));
    return ranks;
  }
};

// The ring phase that a collective task runs among its ring (the same on every rank of the ring).
RingPhase ring_phase_for(const Task& task, const RingSeat& seat, const RingContext& context) {
  RingPhase phase;
  phase.ranks = context.ring(task.group, seat);
  phase.chunk_bytes = task.total_bytes / static_cast<double>(seat.size);
  phase.efficiency = context.cost.message_efficiency(task.kind, task.group, phase.chunk_bytes);
  phase.steps = ring_steps(task.kind, seat.size);
  phase.coarse = coarse_ring(static_cast<std::size_t>(seat.size), context.coarse_above);
  phase.coarse_latency_seconds =
      phase.steps > 1 ? (phase.steps - 1) * context.cost.ring(task.group).alpha_seconds : 0;
  return phase;
}

// What the iteration records. SimGrid calls back into the executor from one thread, so every GPU appends
// here without a lock.
struct IterationLog {
  int trace_ranks = 0;  // ranks below this keep their trace events and memory samples
  std::vector<TraceEvent> trace;
  std::vector<MemorySample> memory;
  std::int64_t messages = 0;          // ring messages sent
  std::int64_t finished_streams = 0;  // streams that ran their last task
};

// Above this many micro-steps the simulator looks for a steady state (as the planner's schedule does).
constexpr int kSteadyStateAboveSteps = 64;

// Runs the program on every GPU's compute and communication streams without actors: each stream is a
// cursor over its tasks, advanced from SimGrid's completion callbacks (maestro's context). A stream whose
// task waits on the other stream's task stops until that one is done; a collective joins its ring's
// RingRun, a compute task is a timer. No actor means no stack, no context switch and no simcall per task.
// What remains superlinear is SimGrid 3.32's: an activity started outside an actor belongs to maestro, and
// each one that ends is removed from maestro's std::list of running activities by a linear scan (about one
// flow per GPU in flight), so the cost per flow grows with the GPUs.
class IterationExecutor {
 public:
  // Without a proven steady state, micro-step `unproven_step_limit` does not start: the run stops and
  // gave_up() says so.
  IterationExecutor(const IterationProgram& program, const RingContext& rings, const Platform& platform,
                    IterationLog& log, bool steady_state, int unproven_step_limit,
                    SimulationObserver* observer)
      : program_(program),
        rings_(rings),
        platform_(platform),
        log_(log),
        observer_(observer),
        unproven_step_limit_(unproven_step_limit) {
    const std::size_t length = program.step_tasks;
    for (std::size_t i = 0; i < program.tasks.size(); ++i) {
      const auto s = static_cast<std::size_t>(program.tasks[i].stream == Task::Stream::compute ? 0 : 1);
      (i < length ? step_order_[s] : update_order_[s]).push_back(i);
    }
    steady_.watching = steady_state && program.micro_steps > kSteadyStateAboveSteps && length > 0;
    gpus_.reserve(static_cast<std::size_t>(rings.gpus));
    for (int rank = 0; rank < rings.gpus; ++rank) {
      Gpu& gpu = gpus_.emplace_back();
      if (steady_.watching) gpu.last_times.assign(2 * length, 0.0);
      gpu.done.assign(program.tasks.size(), 0);
      gpu.current = program.resident;
      gpu.peak_bytes = total(gpu.current);
      if (rank < log_.trace_ranks) log_.memory.push_back({rank, 0.0, gpu.current});
    }
  }

  // Starts every stream (rank order, compute before communication); call before the engine runs.
  void start() {
    for (int rank = 0; rank < rings_.gpus; ++rank) {
      queue_.push_back({rank, 0, false});
      queue_.push_back({rank, 1, false});
    }
    drain();
  }

  // SimGrid's completion signal, for every activity: ours are ring flows carrying an ActivityTag.
  void on_completion(const sg4::Activity& activity) {
    holder_.completed(activity);
    const auto* tag = activity.get_data<ActivityTag>();
    if (tag != nullptr && tag->nccl != nullptr) {
      NcclRun* nccl = tag->nccl;
      nccl->on_flow_completed(log_.messages);
      if (nccl->finished()) forget(nccl);
      drain();
      return;
    }
    if (tag == nullptr || tag->run == nullptr) return;
    RingRun* run = tag->run;
    run->on_flow_completed(tag->index, log_.messages);
    if (run->finished()) forget(run);
    drain();
  }

  bool cancelled() const { return cancelled_; }
  bool gave_up() const { return gave_up_; }

  // Micro-steps not simulated because the ones before them repeated (steady state), and the seconds each
  // adds.
  int skipped_steps() const { return skipped_steps_; }
  double step_period_seconds() const { return steady_.period; }

  GpuResult result(int rank, double iteration_seconds) const {
    const Gpu& gpu = gpus_[static_cast<std::size_t>(rank)];
    double step_compute_seconds = 0;  // the same on every GPU
    for (std::size_t i = 0; i < program_.step_tasks; ++i) {
      const Task& t = program_.tasks[i];
      if (t.total_bytes <= 0) step_compute_seconds += t.compute_seconds;
    }
    const double compute_seconds =
        gpu.compute_seconds + static_cast<double>(skipped_steps_) * step_compute_seconds;
    return {rank, gpu.peak_bytes, compute_seconds, iteration_seconds - compute_seconds};
  }

 private:
  using RunKey = std::tuple<std::size_t, int, int>;  // run number, group kind, ring id
  struct Stream {
    std::size_t cursor = 0;  // tasks of this stream begun and ended, over all micro-steps
    bool busy = false;       // its current task has begun
    bool blocked = false;    // its current task waits on the other stream
    bool finished = false;
    double start_seconds = 0;
  };
  struct Gpu {
    std::vector<int> done;           // finished runs per task position
    std::vector<double> last_times;  // start and end of each micro-step task's latest run (steady state)
    MemoryBytes current{};
    double peak_bytes = 0;
    double compute_seconds = 0;
    std::array<Stream, 2> streams;
  };
  // A stream to advance, or (ended) whose current task has ended.
  struct Event {
    int rank = 0;
    int stream = 0;
    bool ended = false;
  };
  // Task position and micro-step (0 for an update task) under a stream's cursor; false past its end.
  bool current(int stream, std::size_t cursor, std::size_t& index, int& step) const {
    const auto s = static_cast<std::size_t>(stream);
    const std::size_t per_step = step_order_[s].size();
    const std::size_t stepped = per_step * static_cast<std::size_t>(steps_to_run_);
    if (cursor < stepped) {
      index = step_order_[s][cursor % per_step];
      step = static_cast<int>(cursor / per_step);
      return true;
    }
    if (cursor - stepped < update_order_[s].size()) {
      index = update_order_[s][cursor - stepped];
      step = 0;
      return true;
    }
    return false;
  }

  void drain() {
    if (draining_) return;  // an outer drain handles what this call queued
    draining_ = true;
    while (!queue_.empty()) {
      const Event e = queue_.front();
      queue_.pop_front();
      if (e.ended) end_task(e.rank, e.stream);
      if (!cancelled_) advance(e.rank, e.stream);
    }
    draining_ = false;
    if (observer_ != nullptr && !cancelled_ && ++events_ % kEventsPerReport == 0) {
      observer_->progress(sg4::Engine::get_clock(), log_.messages);
      cancelled_ = cancelled_ || observer_->cancelled();
    }
  }

  // Begins the stream's tasks in order until one runs for a while, waits on the other stream, or none is
  // left.
  void advance(int rank, int stream) {
    Gpu& gpu = gpus_[static_cast<std::size_t>(rank)];
    Stream& st = gpu.streams[static_cast<std::size_t>(stream)];
    while (!st.busy && !st.finished) {
      std::size_t index = 0;
      int step = 0;
      if (!current(stream, st.cursor, index, step)) {
        st.finished = true;
        ++log_.finished_streams;
        return;
      }
      const Task& task = program_.tasks[index];
      if (index < program_.step_tasks && steady_.watching && step >= unproven_step_limit_) {
        gave_up_ = cancelled_ = true;  // no steady state within the steps the size check allowed
        return;
      }
      st.blocked = !partner_done(gpu, task, index, step);
      if (st.blocked) return;
      st.busy = true;
      st.start_seconds = sg4::Engine::get_clock();
      if (index < program_.step_tasks) highest_step_begun_ = std::max(highest_step_begun_, step);
      allocate(rank, gpu, task.alloc_at_start, shown(index, st.start_seconds));
      if (task.total_bytes > 0) {
        join_collective(rank, task, index, step);  // ends through an ended event
      } else if (task.compute_seconds > 0) {
        // A GPU's compute stream runs one task at a time and nothing else computes on its host: the task
        // takes its seconds exactly, so a timer replaces an execution (no activity, nothing to share).
        simgrid::kernel::timer::Timer::set(st.start_seconds + task.compute_seconds, [this, rank] {
          queue_.push_back({rank, 0, true});
          drain();
        });
        gpu.compute_seconds += task.compute_seconds;
      } else {
        end_task(rank, stream);
      }
    }
  }

  // Whether the run of the partner task that `task` (at `index`, in micro-step `step`) depends on is done:
  // done[w] counts the finished runs of position w, one per micro-step.
  bool partner_done(const Gpu& gpu, const Task& task, std::size_t index, int step) const {
    if (task.wait_for_other < 0) return true;
    const auto w = static_cast<std::size_t>(task.wait_for_other);
    const std::size_t length = program_.step_tasks;
    int run = 0;  // which run of w (0-based) must be done
    if (index < length) {
      run = task.waits_on_previous_step ? step - 1 : step;
      if (run < 0) return true;  // the first micro-step has none before it
    } else if (w < length) {
      run = steps_to_run_ - 1;  // the update waits on the last micro-step run
    }
    return gpu.done[w] > run;
  }

  // The stream's current task has ended: memory, trace, done count; the other stream may go on.
  void end_task(int rank, int stream) {
    Gpu& gpu = gpus_[static_cast<std::size_t>(rank)];
    Stream& st = gpu.streams[static_cast<std::size_t>(stream)];
    std::size_t index = 0;
    int step = 0;
    current(stream, st.cursor, index, step);
    const Task& task = program_.tasks[index];
    const double end_seconds = sg4::Engine::get_clock();
    release(rank, gpu, task.free_at_end, shown(index, end_seconds));
    if (rank < log_.trace_ranks) {
      log_.trace.push_back({rank, stream, task_name(program_, index, step), shown(index, st.start_seconds),
                            shown(index, end_seconds)});
    }
    if (index < program_.step_tasks && steady_.watching) {
      watch_step(gpu, index, step, st.start_seconds, end_seconds);
    }
    ++gpu.done[index];
    ++st.cursor;
    st.busy = false;
    if (gpu.streams[static_cast<std::size_t>(1 - stream)].blocked)
      queue_.push_back({rank, 1 - stream, false});
  }

  // A time as the trace shows it: the update's tasks run after the skipped micro-steps.
  double shown(std::size_t index, double seconds) const {
    return index < program_.step_tasks ? seconds
                                       : seconds + static_cast<double>(skipped_steps_) * steady_.period;
  }

  // Compares a micro-step task's run with its run in the step before; once two whole steps in a row are
  // copies of their predecessors with one period, the rest repeat it: the streams stop after the
  // micro-steps already begun, and the skipped ones add their period each (the state a micro-step starts
  // from is made of the step before it: prefetch and waits reach one step back).
  void watch_step(Gpu& gpu, std::size_t index, int step, double start_seconds, double end_seconds) {
    double& last_start = gpu.last_times[2 * index];
    double& last_end = gpu.last_times[2 * index + 1];
    if (step > 0) {
      const double d_start = start_seconds - last_start, d_end = end_seconds - last_end;
      const auto period = steady_.periods.try_emplace(step, d_start).first->second;
      const double tolerance = 1e-9 * std::max(std::abs(period), 1e-9);
      bool& shifted = steady_.shifted.try_emplace(step, true).first->second;
      shifted = shifted && std::abs(d_start - period) <= tolerance && std::abs(d_end - period) <= tolerance;
    }
    last_start = start_seconds;
    last_end = end_seconds;
    const auto runs_per_step = static_cast<std::int64_t>(program_.step_tasks) * rings_.gpus;
    if (++steady_.ended[step] < runs_per_step || step < 2) return;
    const bool repeats = steady_.shifted[step] && steady_.shifted[step - 1] &&
                         std::abs(steady_.periods[step] - steady_.periods[step - 1]) <=
                             1e-9 * std::max(std::abs(steady_.periods[step]), 1e-9);
    steady_.ended.erase(step - 1);
    steady_.shifted.erase(step - 2);
    steady_.periods.erase(step - 2);
    if (!repeats || steps_to_run_ < program_.micro_steps) return;
    const int run = std::max(highest_step_begun_ + 1, step + 1);
    if (run >= program_.micro_steps) return;
    steady_.watching = false;
    steady_.period = steady_.periods[step];
    steps_to_run_ = run;
    skipped_steps_ = program_.micro_steps - run;
  }

  void allocate(int rank, Gpu& gpu, const MemoryBytes& bytes, double now_seconds) {
    for (std::size_t c = 0; c < kMemoryCategories; ++c) gpu.current[c] += bytes[c];
    gpu.peak_bytes = std::max(gpu.peak_bytes, total(gpu.current));
    if (rank < log_.trace_ranks) log_.memory.push_back({rank, now_seconds, gpu.current});
  }

  void release(int rank, Gpu& gpu, const MemoryBytes& bytes, double now_seconds) {
    for (std::size_t c = 0; c < kMemoryCategories; ++c) gpu.current[c] -= bytes[c];
    if (rank < log_.trace_ranks) log_.memory.push_back({rank, now_seconds, gpu.current});
  }

  // Starts one flow of a ring or NCCL run between two GPUs, tagged so its completion finds the run.
  void send_flow(int from, int to, std::uint64_t bytes, ActivityTag* tag) {
    sg4::CommPtr flow = sg4::Comm::sendto_init(platform_.host(from), platform_.host(to));
    flow->set_payload_size(bytes);
    flow->set_data(tag);
    flow->start();
    holder_.started(flow);
  }

  // What a run calls when its member at `position` is done: that GPU's stream of `task` ends.
  template <typename Ranks>
  auto member_ended(Ranks ranks, const Task& task) {
    return [this, ranks, stream = task.stream == Task::Stream::compute ? 0 : 1](std::size_t position) {
      queue_.push_back({(*ranks)[position], stream, true});
    };
  }

  // Joins this run of the task's ring: every run of a task (as if every micro-step were written out) and
  // every ring of its group kind is its own RingRun, made by its first member.
  void join_collective(int rank, const Task& task, std::size_t index, int step) {
    const std::size_t length = program_.step_tasks;
    const std::size_t run_number =
        index < length ? static_cast<std::size_t>(step) * length + index
                       : static_cast<std::size_t>(program_.micro_steps) * length + (index - length);
    const RingSeat seat = seat_of(task.group, rank, rings_.gpus, rings_.group_size);
    const auto key = std::make_tuple(run_number, static_cast<int>(task.group), seat.id);
    if (rings_.nccl != nullptr) {
      join_nccl(task, seat, key);
      return;
    }
    auto it = runs_.find(key);
    if (it == runs_.end()) {
      RingPhase phase = ring_phase_for(task, seat, rings_);
      auto ranks = phase.ranks;
      auto made = std::make_unique<RingRun>(
          std::move(phase),
          [this](int from, int to, std::uint64_t bytes, ActivityTag* tag) {
            send_flow(from, to, bytes, tag);
          },
          member_ended(ranks, task));
      it = runs_.emplace(key, std::move(made)).first;
      run_keys_.emplace(it->second.get(), key);
    }
    RingRun* run = it->second.get();
    run->join(static_cast<std::size_t>(seat.position));
    if (run->finished()) forget(run);
  }

  void forget(RingRun* run) {
    const auto key = run_keys_.find(run);
    runs_.erase(key->second);
    run_keys_.erase(key);
  }

  // The nccl model: this run of the task's communicator (seat.id of its family), made by its first member.
  void join_nccl(const Task& task, const RingSeat& seat, const RunKey& key) {
    auto it = nccl_runs_.find(key);
    if (it == nccl_runs_.end()) {
      std::vector<std::shared_ptr<Flow>> flows;
      const auto family = rings_.nccl->find(nccl_key(task));
      if (seat.size > 1 && family != rings_.nccl->end())
        flows = family->second.copies.at(static_cast<std::size_t>(seat.id));
      auto ranks = rings_.ring(task.group, seat);
      auto made = std::make_unique<NcclRun>(
          ranks->size(), std::move(flows),
          [this](int from, int to, std::uint64_t bytes, ActivityTag* tag) {
            send_flow(from, to, bytes, tag);
          },
          member_ended(ranks, task));
      it = nccl_runs_.emplace(key, std::move(made)).first;
      nccl_keys_.emplace(it->second.get(), key);
    }
    NcclRun* run = it->second.get();
    run->join(static_cast<std::size_t>(seat.position));
    if (run->finished()) forget(run);
  }

  void forget(NcclRun* run) {
    const auto key = nccl_keys_.find(run);
    nccl_runs_.erase(key->second);
    nccl_keys_.erase(key);
  }

  const IterationProgram& program_;
  const RingContext& rings_;
  const Platform& platform_;
  IterationLog& log_;
  ActivityHolder holder_;
  std::array<std::vector<std::size_t>, 2> step_order_, update_order_;  // task positions per stream
  std::vector<Gpu> gpus_;
  std::deque<Event> queue_;
  bool draining_ = false;
  SimulationObserver* observer_ = nullptr;
  static constexpr std::int64_t kEventsPerReport = 4096;
  std::int64_t events_ = 0;
  bool cancelled_ = false;  // no task starts any more
  int unproven_step_limit_ = 0;
  bool gave_up_ = false;                     // stopped at unproven_step_limit_
  int steps_to_run_ = program_.micro_steps;  // micro-steps simulated (fewer once a steady state is proven)
  int highest_step_begun_ = 0;
  int skipped_steps_ = 0;
  // Micro-step k is a copy of micro-step k - 1 shifted in time when every task of every GPU starts and ends
  // exactly `period` later (to rounding); `ended` counts the task runs of each step still watched.
  struct SteadyState {
    bool watching = false;
    std::map<int, std::int64_t> ended;
    std::map<int, bool> shifted;
    std::map<int, double> periods;
    double period = 0;
  } steady_;
  std::map<RunKey, std::unique_ptr<RingRun>> runs_;
  std::map<const RingRun*, RunKey> run_keys_;
  std::map<RunKey, std::unique_ptr<NcclRun>> nccl_runs_;
  std::map<const NcclRun*, RunKey> nccl_keys_;
};

// Runs `body`, translating SimGrid's exceptions into SimulationError.
double translate_simgrid_errors(const std::function<double()>& body) {
  try {
    return body();
  } catch (const simgrid::Exception& e) {
    throw SimulationError(std::string("SimGrid: ") + e.what());
  }
}

// Bytes per link direction: every ring step sends one chunk from each rank to its right neighbour; under
// the nccl model every flow of the collective's family carries its payload.
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

// The result without links: per-GPU numbers, rates, the activity estimate and the trace sorted by rank
// and start time.
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

// Flows of one NCCL collective over its whole family (0: not an nccl collective).
std::int64_t nccl_flows(const NcclFamilies& nccl, const Task& t) {
  const auto family = nccl.find(nccl_key(t));
  return family == nccl.end() ? 0 : static_cast<std::int64_t>(family->second.flows.size());
}

// Ring messages of one micro-step on all GPUs: per rank one per coarse flow or step-model step (nccl: every
// flow of the family).
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

// The simulation's size: no actor (IterationExecutor), and per task on every rank one execution or, for a
// collective, one flow per ring (coarse model) or one message per ring step (step model); under the nccl
// model every flow of the collective's family. `micro_steps` are counted (the program's, or the most a
// steady-state proof may take).
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

}  // namespace

void check_iteration_size(const Scenario& scenario, const IterationOptions& options) {
  const std::int64_t gpus = scenario.cluster.gpus();
  const TrainingConfig& t = scenario.training;
  std::int64_t micro_steps = std::max(1, t.gradient_accumulation_steps);
  if (t.global_batch > 0) {
    const std::int64_t largest =
        std::max<std::int64_t>(1, t.micro_batch > 0 ? t.micro_batch : t.max_micro_batch);
    micro_steps = std::max<std::int64_t>(1, t.global_batch / (largest * std::max<std::int64_t>(1, gpus)));
  }
  const auto operators = static_cast<std::int64_t>(scenario.model.operators.size());
  const auto activities = [&](std::int64_t steps) { return 2 * operators * steps * gpus; };
  if (options.steady_state && options.steady_state_proof_steps > 0 && micro_steps > kSteadyStateAboveSteps &&
      activities(micro_steps) > options.max_activities) {
    micro_steps = std::min<std::int64_t>(micro_steps, options.steady_state_proof_steps);
  }
  check_simulation_size({"the iteration", gpus, 0, activities(micro_steps)}, options.max_activities);
}

IterationResult simulate_iteration(const Scenario& scenario, const Calibration& calibration, const Plan& plan,
                                   const IterationOptions& options, SimulationObserver* observer) {
  const int gpus = scenario.cluster.gpus();
  const int group_size = scenario.training.group_size;
  check_simulation_size({"the iteration", gpus, 0, 0});
  const IterationProgram program = build_iteration_program(
      scenario, calibration, plan, options.prefetch_depth, !options.overlap, options.bucket_bytes);
  const CollectiveCost cost(scenario.cluster, group_size, calibration,
                            plan_collectives(scenario.execution, plan));
  const bool nccl_model = cost.model() == CollectiveModel::nccl;
  NcclFamilies nccl = nccl_families(program, cost);
  const NcclFamilies no_families;
  const auto size_at = [&](int micro_steps) {
    return iteration_size(program, gpus, group_size, options.coarse_above, nccl_model ? nccl : no_families,
                          micro_steps);
  };
  SimulationSize size = size_at(program.micro_steps);
  const std::int64_t every_step_activities = size.activities;
  int unproven_step_limit = program.micro_steps;
  if (options.steady_state && options.steady_state_proof_steps > 0 &&
      program.micro_steps > kSteadyStateAboveSteps && size.activities > options.max_activities) {
    unproven_step_limit = std::min(program.micro_steps, std::max(1, options.steady_state_proof_steps));
    size = size_at(unproven_step_limit);
  }
  check_simulation_size(size, options.max_activities);
  const RingContext rings{
      cost, calibration, gpus, group_size, options.coarse_above, nccl_model ? &nccl : nullptr, {}};

  IterationLog log;
  log.trace_ranks = options.trace_ranks;
  std::optional<Platform> platform;
  std::optional<IterationExecutor> executor;
  const double iteration_seconds = translate_simgrid_errors([&] {
    sg4::Engine& engine = create_engine();
    platform.emplace(scenario.cluster, calibration,
                     routed_pairs(program, gpus, group_size, nccl, nccl_model));
    for (auto& [key, family] : nccl) fit_nccl_flows(family.flows, family.estimate, *platform);
    executor.emplace(program, rings, *platform, log, options.steady_state, unproven_step_limit, observer);
    sg4::Activity::on_completion_cb([&executor](const sg4::Activity& a) { executor->on_completion(a); });
    executor->start();
    try {
      return run_to_completion(engine, log.finished_streams, 2 * static_cast<std::int64_t>(gpus),
                               "the iteration");
    } catch (const SimulationError&) {
      if (executor->gave_up()) {
        throw SimulationError(
            "the iteration's " + std::to_string(program.micro_steps) +
            " micro-steps did not repeat (no steady state) within the first " +
            std::to_string(unproven_step_limit) + ", and simulating every one needs about " +
            std::to_string(every_step_activities) + " simulated activities; the simulator runs at most " +
            std::to_string(options.max_activities) + ": use fewer accumulation steps");
      }
      if (executor->cancelled()) throw SimulationCancelled();  // the streams stopped on purpose
      throw;
    }
  });
  const int skipped = executor->skipped_steps();
  log.messages += skipped * step_messages(program, gpus, group_size, options.coarse_above, nccl);
  const double total_seconds = iteration_seconds + skipped * executor->step_period_seconds();
  IterationResult result = assemble_result(program, total_seconds, *executor, gpus, std::move(log));
  result.steady_state_micro_steps = skipped;
  result.links = link_usage(program, *platform, gpus, group_size, nccl, total_seconds);
  if (observer != nullptr) observer->progress(total_seconds, result.activities);
  return result;
}

}  // namespace shardscope::sim
