// The iteration executor: stream cursors, partner waits, memory and trace, steady state, ring and NCCL runs.
#include "sim/internal/iteration_executor.hpp"

#include <algorithm>
#include <cmath>
#include <simgrid/kernel/Timer.hpp>
#include <simgrid/s4u.hpp>
#include <string>

#include "planner/cost/nccl_model.hpp"
#include "sim/collectives/ring_actor.hpp"

namespace sg4 = simgrid::s4u;

namespace shardscope::sim {
namespace {

double total(const MemoryBytes& m) {
  double t = 0;
  for (double v : m) t += v;
  return t;
}

}  // namespace

IterationExecutor::IterationExecutor(const IterationProgram& program, const RingContext& rings,
                                     const Platform& platform, IterationLog& log, bool steady_state,
                                     int unproven_step_limit, SimulationObserver* observer)
    : program_(program),
      rings_(rings),
      platform_(platform),
      log_(log),
      observer_(observer),
      unproven_step_limit_(unproven_step_limit) {
  const std::size_t length = program.step_tasks;
  exchange_orders_.resize(program.tasks.size());
  overlapped_orders_.resize(program.tasks.size());
  for (std::size_t i = 0; i < program.tasks.size(); ++i) {
    const auto s = static_cast<std::size_t>(program.tasks[i].stream == Task::Stream::compute ? 0 : 1);
    (i < length ? step_order_[s] : update_order_[s]).push_back(i);
    if (program.tasks[i].mesh_exchanges.empty()) continue;
    exchange_orders_[i] = exchange_order(program.tasks[i]);
    overlapped_orders_[i] = overlapped_exchanges(program.tasks[i]);
  }
  steady_.watching = steady_state && program.micro_steps > kSteadyStateAboveSteps && length > 0;
  gpus_.reserve(static_cast<std::size_t>(rings.gpus));
  for (int rank = 0; rank < rings.gpus; ++rank) {
    Gpu& gpu = gpus_.emplace_back();
    if (steady_.watching) gpu.last_times.assign(2 * length, 0.0);
    gpu.done.assign(program.tasks.size(), 0);
    gpu.current = program.resident;
    gpu.peak_bytes = total(gpu.current);
    gpu.allocated_peak_bytes = allocated_bytes(gpu);
    if (log_.traced(rank)) log_.memory.push_back({rank, 0.0, gpu.current});
  }
}

void IterationExecutor::start() {
  for (int rank = 0; rank < rings_.gpus; ++rank) {
    queue_.push_back({rank, 0, false});
    queue_.push_back({rank, 1, false});
  }
  drain();
}

void IterationExecutor::on_completion(const sg4::Activity& activity) {
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

GpuResult IterationExecutor::result(int rank, double iteration_seconds) const {
  const Gpu& gpu = gpus_[static_cast<std::size_t>(rank)];
  double step_compute_seconds = 0;  // the same on every GPU
  for (std::size_t i = 0; i < program_.step_tasks; ++i) {
    const Task& t = program_.tasks[i];
    if (t.total_bytes <= 0) step_compute_seconds += t.compute_seconds;
  }
  const double compute_seconds =
      gpu.compute_seconds + static_cast<double>(skipped_steps_) * step_compute_seconds;
  return {rank, gpu.peak_bytes, gpu.allocated_peak_bytes, compute_seconds,
          iteration_seconds - compute_seconds};
}

bool IterationExecutor::current(int stream, std::size_t cursor, std::size_t& index, int& step) const {
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

void IterationExecutor::drain() {
  if (draining_) return;  // an outer drain handles what this call queued
  draining_ = true;
  while (!queue_.empty()) {
    const Event e = queue_.front();
    queue_.pop_front();
    if (e.part == Event::Part::segment) {
      end_segment(e.rank);
      continue;
    }
    if (e.part == Event::Part::overlap) {
      end_overlapped(e.rank);
      continue;
    }
    if (e.ended) end_task(e.rank, e.stream);
    if (!cancelled_) advance(e.rank, e.stream);
  }
  draining_ = false;
  if (observer_ != nullptr && !cancelled_ && ++events_ % kEventsPerReport == 0) {
    observer_->progress(sg4::Engine::get_clock(), log_.messages);
    cancelled_ = cancelled_ || observer_->cancelled();
  }
}

void IterationExecutor::advance(int rank, int stream) {
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
    if (index < program_.step_tasks && step == 0)
      gpu.gradients_produced_bytes += task.gradients_produced_bytes;
    allocate(rank, gpu, task.alloc_at_start, shown(index, st.start_seconds));
    if (task.total_bytes > 0) {
      join_collective(rank, task, index, step);  // ends through an ended event
    } else if (!task.mesh_exchanges.empty()) {
      st.segment = 0;
      gpu.compute_seconds += task.compute_seconds;
      run_segment(rank);  // ends through an ended event after its last segment
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

bool IterationExecutor::partner_done(const Gpu& gpu, const Task& task, std::size_t index, int step) const {
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

void IterationExecutor::end_task(int rank, int stream) {
  Gpu& gpu = gpus_[static_cast<std::size_t>(rank)];
  Stream& st = gpu.streams[static_cast<std::size_t>(stream)];
  std::size_t index = 0;
  int step = 0;
  current(stream, st.cursor, index, step);
  const Task& task = program_.tasks[index];
  const double end_seconds = sg4::Engine::get_clock();
  release(rank, gpu, task.free_at_end, shown(index, end_seconds));
  if (log_.traced(rank) && (stream != 0 || task.mesh_exchanges.empty())) {  // else traced by segments
    TraceEvent event;
    event.rank = rank;
    event.stream = stream;
    event.name = task_name(program_, index, step);
    event.start_seconds = shown(index, st.start_seconds);
    event.end_seconds = shown(index, end_seconds);
    if (task.stream == Task::Stream::comm && task.total_bytes > 0) describe_collective(rank, task, event);
    log_.trace.push_back(std::move(event));
  }
  if (index < program_.step_tasks && steady_.watching) {
    watch_step(gpu, index, step, st.start_seconds, end_seconds);
  }
  ++gpu.done[index];
  ++st.cursor;
  st.busy = false;
  if (gpu.streams[static_cast<std::size_t>(1 - stream)].blocked) queue_.push_back({rank, 1 - stream, false});
}

void IterationExecutor::describe_collective(int rank, const Task& task, TraceEvent& event) const {
  event.collective = to_string(task.kind);
  event.group = to_string(task.group);
  event.bytes = task.total_bytes;
  const RingSeat seat = seat_of(task.group, rank, rings_.gpus, rings_.group_size);
  if (seat.size <= 1) {  // a group of one: nothing crosses a link
    event.algorithm = "none";
    return;
  }
  if (rings_.nccl == nullptr) {
    event.algorithm =
        coarse_ring(static_cast<std::size_t>(seat.size), rings_.coarse_above) ? "ring-coarse" : "ring";
    event.channels = 1;
    return;
  }
  const auto family = rings_.nccl->find(nccl_key(task));
  const NcclFamily* topologies = rings_.cost.nccl_family(task.group);
  if (family == rings_.nccl->end() || topologies == nullptr || topologies->copies.empty()) return;
  const NcclEstimate& pick = family->second.estimate;
  event.algorithm = std::string(to_string(pick.algorithm)) + "/" + std::string(to_string(pick.protocol));
  const NcclTopology& topology = topologies->copies.front();
  // NVLS runs one channel per member of a node (sim/README.md, "NVLS"); rings, trees and PAT the
  // topology's channels.
  const bool nvls = pick.algorithm == NcclAlgorithm::nvls || pick.algorithm == NcclAlgorithm::nvls_tree;
  event.channels = nvls ? static_cast<int>(nccl_node_members(topology, 0).size()) : topology.channels;
}

double IterationExecutor::shown(std::size_t index, double seconds) const {
  return index < program_.step_tasks ? seconds
                                     : seconds + static_cast<double>(skipped_steps_) * steady_.period;
}

void IterationExecutor::watch_step(Gpu& gpu, std::size_t index, int step, double start_seconds,
                                   double end_seconds) {
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

void IterationExecutor::allocate(int rank, Gpu& gpu, const MemoryBytes& bytes, double now_seconds) {
  for (std::size_t c = 0; c < kMemoryCategories; ++c) gpu.current[c] += bytes[c];
  gpu.peak_bytes = std::max(gpu.peak_bytes, total(gpu.current));
  gpu.allocated_peak_bytes = std::max(gpu.allocated_peak_bytes, allocated_bytes(gpu));
  if (log_.traced(rank)) log_.memory.push_back({rank, now_seconds, gpu.current});
}

double IterationExecutor::allocated_bytes(const Gpu& gpu) const {
  return total(gpu.current) - gpu.current[index_of(MemoryCategory::reserve)] -
         program_.resident[index_of(MemoryCategory::gradients)] + gpu.gradients_produced_bytes;
}

void IterationExecutor::release(int rank, Gpu& gpu, const MemoryBytes& bytes, double now_seconds) {
  for (std::size_t c = 0; c < kMemoryCategories; ++c) gpu.current[c] -= bytes[c];
  if (log_.traced(rank)) log_.memory.push_back({rank, now_seconds, gpu.current});
}

void IterationExecutor::send_flow(int from, int to, std::uint64_t bytes, const Flow* nccl_flow,
                                  ActivityTag* tag) {
  sg4::CommPtr flow = sg4::Comm::sendto_init(platform_.host(from), platform_.host(to));
  flow->set_payload_size(bytes);
  flow->set_data(tag);
  if (nccl_flow != nullptr) {
    flow_weight_.start(*flow, static_cast<double>(bytes), nccl_flow->channels,
                       nccl_flow->route_latency_seconds);
  } else {
    flow->start();
  }
  holder_.started(flow);
}

std::function<void(std::size_t)> IterationExecutor::member_ended(
    std::shared_ptr<const std::vector<int>> ranks, const Task& task) {
  return [this, ranks, stream = task.stream == Task::Stream::compute ? 0 : 1](std::size_t position) {
    queue_.push_back({(*ranks)[position], stream, true});
  };
}

std::size_t IterationExecutor::run_number(std::size_t index, int step) const {
  const std::size_t length = program_.step_tasks;
  return index < length ? static_cast<std::size_t>(step) * length + index
                        : static_cast<std::size_t>(program_.micro_steps) * length + (index - length);
}

void IterationExecutor::join_collective(int rank, const Task& task, std::size_t index, int step) {
  const RingSeat seat = seat_of(task.group, rank, rings_.gpus, rings_.group_size);
  const auto key = std::make_tuple(run_number(index, step), static_cast<int>(task.group), seat.id);
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
        [this](int from, int to, std::uint64_t bytes, const Flow* nccl_flow, ActivityTag* tag) {
          send_flow(from, to, bytes, nccl_flow, tag);
        },
        member_ended(ranks, task));
    it = runs_.emplace(key, std::move(made)).first;
    run_keys_.emplace(it->second.get(), key);
  }
  RingRun* run = it->second.get();
  run->join(static_cast<std::size_t>(seat.position));
  if (run->finished()) forget(run);
}

void IterationExecutor::forget(RingRun* run) {
  const auto key = run_keys_.find(run);
  runs_.erase(key->second);
  run_keys_.erase(key);
}

void IterationExecutor::join_nccl(const Task& task, const RingSeat& seat, const RunKey& key) {
  auto it = nccl_runs_.find(key);
  if (it == nccl_runs_.end()) {
    std::vector<std::shared_ptr<Flow>> flows;
    const auto family = rings_.nccl->find(nccl_key(task));
    if (seat.size > 1 && family != rings_.nccl->end())
      flows = family->second.copies.at(static_cast<std::size_t>(seat.id));
    auto ranks = rings_.ring(task.group, seat);
    auto made = std::make_unique<NcclRun>(
        ranks->size(), std::move(flows),
        [this](int from, int to, std::uint64_t bytes, const Flow* nccl_flow, ActivityTag* tag) {
          send_flow(from, to, bytes, nccl_flow, tag);
        },
        member_ended(ranks, task));
    it = nccl_runs_.emplace(key, std::move(made)).first;
    nccl_keys_.emplace(it->second.get(), key);
  }
  NcclRun* run = it->second.get();
  run->join(static_cast<std::size_t>(seat.position));
  if (run->finished()) forget(run);
}

void IterationExecutor::forget(NcclRun* run) {
  const auto key = nccl_keys_.find(run);
  nccl_runs_.erase(key->second);
  nccl_keys_.erase(key);
}

}  // namespace shardscope::sim
