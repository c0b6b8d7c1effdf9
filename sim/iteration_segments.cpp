// The iteration executor's compute tasks with mesh exchanges: blocking segments, the kernels with the
// overlapped exchanges beside them, and each exchange's run of flows among its group.
#include <simgrid/kernel/Timer.hpp>
#include <simgrid/s4u.hpp>
#include <string>

#include "sim/internal/iteration_executor.hpp"
#include "sim/simulation_error.hpp"

namespace sg4 = simgrid::s4u;

namespace shardscope::sim {

IterationExecutor::ComputeTask IterationExecutor::compute_task(int rank) {
  Stream& stream = gpus_[static_cast<std::size_t>(rank)].streams[0];
  std::size_t index = 0;
  int step = 0;
  current(0, stream.cursor, index, step);
  return {stream, program_.tasks[index], index, step};
}

void IterationExecutor::run_segment(int rank) {
  const auto [st, task, index, step] = compute_task(rank);
  const std::vector<int>& order = exchange_orders_[index];
  if (st.segment >= order.size()) {
    queue_.push_back({rank, 0, true});
    return;
  }
  const double now = sg4::Engine::get_clock();
  st.segment_start_seconds = now;
  const int which = order[st.segment];
  const auto segment_ended = [this, rank] {
    queue_.push_back({rank, 0, false, Event::Part::segment});
    drain();
  };
  if (which < 0) {  // the kernels, alone on the GPU's compute stream, with the overlapped exchanges beside
    simgrid::kernel::timer::Timer::set(now + kernel_seconds(task), segment_ended);
    st.pending = 1;
    if (!overlapped_orders_[index].empty()) {
      ++st.pending;
      st.overlap_next = 0;
      run_overlapped(rank);
    }
    return;
  }
  const MeshExchange& e = task.mesh_exchanges[static_cast<std::size_t>(which)];
  if (e.runs_as_flows(rings_.coarse_above)) {
    join_exchange(rank, run_number(index, step), which, e, Event::Part::segment);
  } else {  // timed as priced
    simgrid::kernel::timer::Timer::set(now + e.seconds, segment_ended);
  }
}

void IterationExecutor::end_segment(int rank) {
  const auto [st, task, index, step] = compute_task(rank);
  const int which = exchange_orders_[index][st.segment];
  if (which >= 0) {
    trace_exchange(rank, task.mesh_exchanges[static_cast<std::size_t>(which)], 0, st.segment_start_seconds);
  } else {
    if (log_.traced(rank)) {
      TraceEvent event;
      event.rank = rank;
      event.name = task_name(program_, index, step);
      event.start_seconds = shown(index, st.segment_start_seconds);
      event.end_seconds = shown(index, sg4::Engine::get_clock());
      log_.trace.push_back(std::move(event));
    }
    if (--st.pending > 0) return;  // its overlapped exchanges go on
  }
  ++st.segment;
  run_segment(rank);
}

void IterationExecutor::run_overlapped(int rank) {
  const auto [st, task, index, step] = compute_task(rank);
  const int which = overlapped_orders_[index][st.overlap_next];
  const MeshExchange& e = task.mesh_exchanges[static_cast<std::size_t>(which)];
  st.overlap_start_seconds = sg4::Engine::get_clock();
  if (e.runs_as_flows(rings_.coarse_above)) {
    join_exchange(rank, run_number(index, step), which, e, Event::Part::overlap);
    return;
  }
  simgrid::kernel::timer::Timer::set(st.overlap_start_seconds + e.seconds, [this, rank] {
    queue_.push_back({rank, 0, false, Event::Part::overlap});
    drain();
  });
}

void IterationExecutor::end_overlapped(int rank) {
  const auto [st, task, index, step] = compute_task(rank);
  const std::vector<int>& overlapped = overlapped_orders_[index];
  // Beside the kernels: shown on the communication lane, where the compute lane's kernels do not hide it.
  trace_exchange(rank, task.mesh_exchanges[static_cast<std::size_t>(overlapped[st.overlap_next])], 1,
                 st.overlap_start_seconds);
  if (++st.overlap_next < overlapped.size()) {
    run_overlapped(rank);
    return;
  }
  if (--st.pending > 0) return;  // the kernels go on
  ++st.segment;
  run_segment(rank);
}

void IterationExecutor::trace_exchange(int rank, const MeshExchange& e, int stream, double start_seconds) {
  if (!log_.traced(rank)) return;
  const auto [st, task, index, step] = compute_task(rank);
  TraceEvent event;
  event.rank = rank;
  event.stream = stream;
  event.collective = e.all_to_all ? "all-to-all" : std::string(to_string(e.kind));
  event.name = std::string(exchange_abbreviation(e)) + " " + task_name(program_, index, step);
  event.start_seconds = shown(index, start_seconds);
  event.end_seconds = shown(index, sg4::Engine::get_clock());
  event.group = to_string(e.axis);
  event.bytes = e.bytes;
  event.algorithm = !e.runs_as_flows(rings_.coarse_above) ? "priced" : e.all_to_all ? "pairs" : "ring";
  event.channels = e.runs_as_flows(rings_.coarse_above) ? 1 : 0;
  log_.trace.push_back(std::move(event));
}

void IterationExecutor::join_exchange(int rank, std::size_t run, int exchange, const MeshExchange& e,
                                      Event::Part part) {
  const int size = e.group_ranks, id = rank / size;
  const auto key = std::make_tuple(run, kExchangeRunBase + exchange, id);
  auto it = nccl_runs_.find(key);
  if (it == nccl_runs_.end()) {
    const auto family = rings_.exchanges == nullptr ? ExchangeFamilies::const_iterator{}
                                                    : rings_.exchanges->find(exchange_key(e));
    if (rings_.exchanges == nullptr || family == rings_.exchanges->end())
      throw SimulationError("a mesh exchange without its flows");
    auto& ranks = exchange_groups_[{size, id}];
    if (!ranks) {
      std::vector<int> members(static_cast<std::size_t>(size));
      for (int p = 0; p < size; ++p) members[static_cast<std::size_t>(p)] = id * size + p;
      ranks = std::make_shared<const std::vector<int>>(std::move(members));
    }
    auto made = std::make_unique<NcclRun>(
        ranks->size(), family->second.copies.at(static_cast<std::size_t>(id)),
        [this](int from, int to, std::uint64_t bytes, const Flow* flow, ActivityTag* tag) {
          send_flow(from, to, bytes, flow, tag);
        },
        [this, members = ranks, part](std::size_t position) {
          queue_.push_back({(*members)[position], 0, false, part});
        });
    it = nccl_runs_.emplace(key, std::move(made)).first;
    nccl_keys_.emplace(it->second.get(), key);
  }
  NcclRun* exchange_run = it->second.get();
  exchange_run->join(static_cast<std::size_t>(rank % size));
  if (exchange_run->finished()) forget(exchange_run);
}

}  // namespace shardscope::sim
