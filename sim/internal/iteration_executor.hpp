// Runs an IterationProgram on every GPU's compute and communication streams from SimGrid's callbacks.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <simgrid/s4u/Activity.hpp>
#include <tuple>
#include <vector>

#include "planner/program/iteration_program.hpp"
#include "sim/flow_weight.hpp"
#include "sim/internal/activity_holder.hpp"
#include "sim/internal/iteration_rings.hpp"
#include "sim/iteration_sim.hpp"
#include "sim/nccl_run.hpp"
#include "sim/platform.hpp"
#include "sim/ring_run.hpp"
#include "sim/simulation_observer.hpp"

namespace shardscope::sim {

// What the iteration records. SimGrid calls back into the executor from one thread, so every GPU appends
// here without a lock.
struct IterationLog {
  std::vector<unsigned char> traced_ranks;  // per rank: whether it keeps its trace events and memory samples
  bool traced(int rank) const { return traced_ranks[static_cast<std::size_t>(rank)] != 0; }
  std::vector<TraceEvent> trace;
  std::vector<MemorySample> memory;
  std::int64_t messages = 0;          // ring messages sent
  std::int64_t finished_streams = 0;  // streams that ran their last task
};

// Above this many micro-steps the simulator looks for a steady state (as the planner's schedule does).
using shardscope::kSteadyStateAboveSteps;

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
                    SimulationObserver* observer);

  // Starts every stream (rank order, compute before communication); call before the engine runs.
  void start();

  // SimGrid's completion signal, for every activity: ours are ring flows carrying an ActivityTag.
  void on_completion(const simgrid::s4u::Activity& activity);

  bool cancelled() const { return cancelled_; }
  bool gave_up() const { return gave_up_; }

  // Micro-steps not simulated because the ones before them repeated (steady state), and the seconds each
  // adds.
  int skipped_steps() const { return skipped_steps_; }
  double step_period_seconds() const { return steady_.period; }

  GpuResult result(int rank, double iteration_seconds) const;

 private:
  using RunKey = std::tuple<std::size_t, int, int>;  // run number, group kind, ring id
  struct Stream {
    std::size_t cursor = 0;  // tasks of this stream begun and ended, over all micro-steps
    bool busy = false;       // its current task has begun
    bool blocked = false;    // its current task waits on the other stream
    bool finished = false;
    double start_seconds = 0;
    std::size_t segment = 0;  // a compute task with mesh exchanges: which of exchange_order runs
    double segment_start_seconds = 0;
    int pending = 0;               // the kernels' segment: its timer and its overlapped exchanges not ended
    std::size_t overlap_next = 0;  // which of the task's overlapped exchanges runs
    double overlap_start_seconds = 0;
  };
  struct Gpu {
    std::vector<int> done;           // finished runs per task position
    std::vector<double> last_times;  // start and end of each micro-step task's latest run (steady state)
    MemoryBytes current{};
    double peak_bytes = 0;
    // Allocated tensors (memory_peak.hpp): current less the reserve, the gradients counted only once the
    // first micro-step's backward tasks have produced them.
    double gradients_produced_bytes = 0;
    double allocated_peak_bytes = 0;
    double compute_seconds = 0;
    std::array<Stream, 2> streams;
  };
  // A stream to advance, or (ended) whose current task has ended.
  struct Event {
    int rank = 0;
    int stream = 0;
    bool ended = false;
    // Part of the current compute task that ended: a segment (an exchange or the kernels), or an
    // exchange beside the kernels.
    enum class Part : unsigned char { task, segment, overlap } part = Part::task;
  };
  // Task position and micro-step (0 for an update task) under a stream's cursor; false past its end.
  bool current(int stream, std::size_t cursor, std::size_t& index, int& step) const;

  // Handles the queued events in order (the outer call only), then reports progress now and then.
  void drain();

  // Begins the stream's tasks in order until one runs for a while, waits on the other stream, or none is
  // left.
  void advance(int rank, int stream);

  // Whether the run of the partner task that `task` (at `index`, in micro-step `step`) depends on is done:
  // done[w] counts the finished runs of position w, one per micro-step.
  bool partner_done(const Gpu& gpu, const Task& task, std::size_t index, int step) const;

  // The stream's current task has ended: memory, trace, done count; the other stream may go on.
  void end_task(int rank, int stream);
  // A collective task's trace fields: kind, group, bytes, the algorithm that runs it and its channels.
  void describe_collective(int rank, const Task& task, TraceEvent& event) const;

  // A time as the trace shows it: the update's tasks run after the skipped micro-steps.
  double shown(std::size_t index, double seconds) const;

  // Compares a micro-step task's run with its run in the step before; once two whole steps in a row are
  // copies of their predecessors with one period, the rest repeat it: the streams stop after the
  // micro-steps already begun, and the skipped ones add their period each (the state a micro-step starts
  // from is made of the step before it: prefetch and waits reach one step back).
  void watch_step(Gpu& gpu, std::size_t index, int step, double start_seconds, double end_seconds);

  // The GPU's allocated tensors now (the reserve left out, gradients as produced so far).
  double allocated_bytes(const Gpu& gpu) const;
  // A task's memory is taken or given back (peak, and the memory trace of traced ranks).
  void allocate(int rank, Gpu& gpu, const MemoryBytes& bytes, double now_seconds);
  void release(int rank, Gpu& gpu, const MemoryBytes& bytes, double now_seconds);

  // Starts one flow of a ring or NCCL run between two GPUs, tagged so its completion finds the run.
  // Starts one flow: a ring's, or an NCCL flow (its route's latency already waited, shared as the channels
  // it stands for).
  void send_flow(int from, int to, std::uint64_t bytes, const Flow* nccl_flow, ActivityTag* tag);

  // What a run calls when its member at `position` is done: that GPU's stream of `task` ends.
  std::function<void(std::size_t)> member_ended(std::shared_ptr<const std::vector<int>> ranks,
                                                const Task& task);

  // A compute task with mesh exchanges runs them and its kernels in exchange_order, one segment at a time:
  // an all-to-all the simulator runs as flows joins its group's run, the rest are timers of their seconds.
  // The kernels' segment runs its timer and the task's overlapped exchanges one after another beside it,
  // and ends when both have.
  void run_segment(int rank);
  void end_segment(int rank);
  void run_overlapped(int rank);
  void end_overlapped(int rank);
  // An exchange that runs as flows: this run of its group's flows (made by the group's first member).
  void join_exchange(int rank, std::size_t run_number, int exchange, const MeshExchange& e, Event::Part part);
  void trace_exchange(int rank, const MeshExchange& e, int stream, double start_seconds);
  // The compute stream's current task, its position and micro-step.
  struct ComputeTask {
    Stream& stream;
    const Task& task;
    std::size_t index;
    int step;
  };
  ComputeTask compute_task(int rank);
  // Every run of a task (as if every micro-step were written out) has its own number.
  std::size_t run_number(std::size_t index, int step) const;

  // Joins this run of the task's ring: every run of a task (as if every micro-step were written out) and
  // every ring of its group kind is its own RingRun, made by its first member.
  void join_collective(int rank, const Task& task, std::size_t index, int step);

  // A finished run is dropped.
  void forget(RingRun* run);

  // The nccl model: this run of the task's communicator (seat.id of its family), made by its first member.
  void join_nccl(const Task& task, const RingSeat& seat, const RunKey& key);

  void forget(NcclRun* run);

  const IterationProgram& program_;
  const RingContext& rings_;
  const Platform& platform_;
  IterationLog& log_;
  ActivityHolder holder_;
  FlowWeight flow_weight_;  // NCCL flows that stand for several channels
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
  // NCCL runs and the mesh exchanges' runs (group kind slot kExchangeRunBase + the exchange's index in its
  // task), and each exchange group's ranks.
  static constexpr int kExchangeRunBase = 16;
  std::map<std::pair<int, int>, std::shared_ptr<const std::vector<int>>> exchange_groups_;
  // Per task position: its blocking exchanges' order (exchange_order) and its overlapped ones, found once.
  std::vector<std::vector<int>> exchange_orders_, overlapped_orders_;
  std::map<RunKey, std::unique_ptr<NcclRun>> nccl_runs_;
  std::map<const NcclRun*, RunKey> nccl_keys_;
};

}  // namespace shardscope::sim
