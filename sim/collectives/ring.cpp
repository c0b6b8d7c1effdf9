// Ring all-gather / reduce-scatter / all-reduce as per-rank actors: the step model (N-1 rendezvous steps of
// N concurrent transfers) and a coarse model (one flow per ring edge carrying steps x chunk, plus latency).
#include <cmath>
#include <simgrid/s4u.hpp>

#include "sim/collectives/ring_actor.hpp"
#include "sim/collectives/schedule.hpp"

namespace sg4 = simgrid::s4u;

namespace shardscope::sim {
namespace {
char token = 0;  // payload pointer; sizes are simulated
}

void run_ring_phase(const RingPhase& phase, std::size_t position, std::int64_t& messages) {
  const std::vector<int>& ranks = *phase.ranks;
  const std::size_t n = ranks.size();
  if (n <= 1 || phase.steps <= 0) return;
  sg4::Mailbox* self = sg4::Mailbox::by_name(phase.name + "#" + std::to_string(ranks[position]));
  sg4::Mailbox* right = sg4::Mailbox::by_name(phase.name + "#" + std::to_string(ranks[(position + 1) % n]));
  // A message at efficiency e occupies the links like chunk / e bytes at full bandwidth.
  const double effective = phase.chunk_bytes / phase.efficiency;
  const auto chunk = static_cast<std::uint64_t>(std::llround(effective));
  if (phase.coarse) {
    // Pipelined: the whole phase's data leaves in one flow; the per-step latencies are added once.
    if (phase.coarse_latency_seconds > 0) sg4::this_actor::sleep_for(phase.coarse_latency_seconds);
    const auto total = static_cast<std::uint64_t>(std::llround(effective * phase.steps));
    sg4::CommPtr send = right->put_async(&token, total);
    char* received = nullptr;
    sg4::CommPtr recv = self->get_async<char>(&received);
    recv->wait();
    send->wait();
    ++messages;
    return;
  }
  for (int step = 0; step < phase.steps; ++step) {
    // A step ends when this rank's chunk has left and the left neighbour's chunk has arrived.
    sg4::CommPtr send = right->put_async(&token, chunk);
    char* received = nullptr;
    sg4::CommPtr recv = self->get_async<char>(&received);
    recv->wait();
    send->wait();
    ++messages;
  }
}

RingPhase make_phase(const ScheduleRequest& r, const std::string& name, std::vector<int> ranks,
                     double chunk_bytes, int steps, GroupKind group, CollectiveKind kind) {
  RingPhase phase;
  phase.name = r.tag + name;
  phase.ranks = std::make_shared<const std::vector<int>>(std::move(ranks));
  phase.chunk_bytes = chunk_bytes;
  if (r.cost != nullptr) phase.efficiency = r.cost->message_efficiency(kind, group, chunk_bytes);
  phase.steps = steps;
  phase.coarse = coarse_ring(phase.ranks->size(), r.coarse_above);
  const double latency = r.latency_by_group[static_cast<std::size_t>(group)];
  phase.coarse_latency_seconds = steps > 1 ? (steps - 1) * latency : 0;
  return phase;
}

std::vector<int> intra_group(int group, int group_size) {
  std::vector<int> ranks;
  for (int l = 0; l < group_size; ++l) ranks.push_back(group * group_size + l);
  return ranks;
}

std::vector<int> inter_group(int local, int group_size, int ranks) {
  std::vector<int> out;
  for (int r = local; r < ranks; r += group_size) out.push_back(r);
  return out;
}

std::vector<RankSchedule> ring_schedule(const ScheduleRequest& r) {
  const int n = r.ranks;
  std::vector<int> all(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) all[static_cast<std::size_t>(i)] = i;
  const int steps = ring_steps(r.kind, n);
  // Every rank runs the same phase: one ring of N ranks, shared.
  const RingPhase phase =
      make_phase(r, "ring", std::move(all), r.total_bytes / n, steps, GroupKind::global, r.kind);
  return std::vector<RankSchedule>(static_cast<std::size_t>(n), RankSchedule{Stage{{phase}}});
}

}  // namespace shardscope::sim
