// simulate_collective: builds the platform and per-rank actors for a collective schedule, runs SimGrid once,
// and reports time, algbw and busbw; plus the alpha-beta formula every algorithm must match uncontended.
#include "sim/collective_sim.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <simgrid/Exception.hpp>
#include <simgrid/s4u.hpp>

#include "planner/core/error.hpp"
#include "sim/collectives/schedule.hpp"
#include "sim/engine.hpp"
#include "sim/platform.hpp"
#include "sim/resources.hpp"
#include "sim/simulation_error.hpp"

namespace sg4 = simgrid::s4u;

namespace shardscope::sim {

double busbw_factor(CollectiveKind kind, int ranks) {
  const double n = ranks;
  return kind == CollectiveKind::all_reduce ? 2 * (n - 1) / n : (n - 1) / n;
}

namespace {

struct Prepared {
  Cluster cluster;
  int ranks = 0;
  int group_size = 0;
};

Prepared prepare(const Cluster& cluster, const CollectiveRequest& r) {
  Prepared p{cluster, r.gpus > 0 ? r.gpus : cluster.gpus(), 0};
  const std::string where = "collective";
  if (!(r.total_bytes > 0) || r.total_bytes > 1125899906842624.0) {
    throw InputError(where, 0, "bytes", "expected a size above 0 and at most 1 PiB");
  }
  if (p.ranks % cluster.gpus_per_node != 0) {
    throw InputError(where, 0, "gpus",
                     "expected a multiple of the " + std::to_string(cluster.gpus_per_node) +
                         " GPUs per node, got " + std::to_string(p.ranks));
  }
  if (p.ranks / cluster.gpus_per_node > 100000) throw InputError(where, 0, "gpus", "at most 100000 nodes");
  p.cluster.nodes = p.ranks / cluster.gpus_per_node;
  if (p.cluster.nodes > 1 && p.cluster.network.nic_bytes_per_second <= 0) {
    throw InputError(where, 0, "gpus", "the cluster has no network to join several nodes");
  }
  p.group_size = r.group_size > 0 ? r.group_size : cluster.gpus_per_node;
  if (p.group_size > p.ranks || p.ranks % p.group_size != 0) {
    throw InputError(where, 0, "group-size",
                     "group size " + std::to_string(p.group_size) + " does not divide the " +
                         std::to_string(p.ranks) + " GPUs");
  }
  if (r.concurrent < 1 || r.concurrent > 64)
    throw InputError(where, 0, "concurrent", "expected 1 to 64 copies");
  return p;
}

std::vector<RankSchedule> schedule_for(const CollectiveRequest& r, const ScheduleRequest& s) {
  switch (r.algorithm) {
    case CollectiveAlgorithm::ring:
      return ring_schedule(s);
    case CollectiveAlgorithm::hierarchical_ring:
      return hierarchical_ring_schedule(s);
    case CollectiveAlgorithm::ho_ring:
      return ho_ring_schedule(s);
  }
  return ring_schedule(s);
}

}  // namespace

std::string model_description(const CollectiveResult& result, int coarse_above) {
  if (result.coarse_rings == 0) return "step model";
  if (result.step_rings == 0) return "coarse flows";
  return "step model up to " + std::to_string(coarse_above) + " ranks, coarse flows above";
}

double alpha_beta_collective_seconds(const Cluster& cluster, const CollectiveRequest& request,
                                     const Calibration& calibration) {
  const Prepared p = prepare(cluster, request);
  const CollectiveCost cost(p.cluster, p.group_size, calibration);
  const double x = request.total_bytes;
  const int n = p.ranks, m = p.group_size, g = n / m;
  auto ab = [&](GroupKind group, int steps, double chunk) { return cost.ring_seconds(group, steps, chunk); };
  const bool all_reduce = request.kind == CollectiveKind::all_reduce;
  switch (request.algorithm) {
    case CollectiveAlgorithm::ring:
      return cost.seconds(request.kind, GroupKind::global, x);
    case CollectiveAlgorithm::hierarchical_ring:
      if (all_reduce)
        return 2 * ab(GroupKind::intra, m - 1, x / m) + ab(GroupKind::inter, 2 * (g - 1), x / n);
      return ab(GroupKind::intra, m - 1, x / m) + ab(GroupKind::inter, g - 1, x / n);
    case CollectiveAlgorithm::ho_ring: {
      const double one = std::max(ab(GroupKind::intra, m - 1, x / n), ab(GroupKind::inter, g - 1, x / n)) +
                         ab(GroupKind::intra, m - 1, (g - 1) * x / n);
      return all_reduce ? 2 * one : one;
    }
  }
  return 0;
}

CollectiveResult simulate_collective(const Cluster& cluster, const CollectiveRequest& request,
                                     const Calibration& calibration) {
  const Prepared p = prepare(cluster, request);
  // The GPU limit first: the schedules below are as large as the platform.
  SimulationSize size{"the collective", p.ranks, 0, 0};
  check_simulation_size(size);
  const CollectiveCost cost(p.cluster, p.group_size, calibration);
  std::vector<std::vector<RankSchedule>> copies;
  std::set<std::pair<int, int>> pairs;
  std::set<std::pair<std::string, bool>> rings;  // every ring phase by name, and whether it is coarse
  for (int copy = 0; copy < request.concurrent; ++copy) {
    ScheduleRequest s{request.kind,
                      request.total_bytes,
                      p.ranks,
                      p.group_size,
                      request.coarse_above,
                      "c" + std::to_string(copy) + "/",
                      {cost.ring(GroupKind::intra).alpha_seconds, cost.ring(GroupKind::inter).alpha_seconds,
                       cost.ring(GroupKind::global).alpha_seconds},
                      &cost};
    copies.push_back(schedule_for(request, s));
    for (const RankSchedule& rs : copies.back()) {
      for (const Stage& st : rs) {
        for (const RingPhase& ph : st.phases) {
          if (!rings.emplace(ph.name, ph.coarse).second) continue;  // every member lists its ring
          const std::vector<int>& ring = *ph.ranks;
          for (std::size_t i = 0; i < ring.size(); ++i) pairs.emplace(ring[i], ring[(i + 1) % ring.size()]);
        }
        size.actors = std::max<std::int64_t>(size.actors, static_cast<std::int64_t>(st.phases.size()));
        for (const RingPhase& ph : st.phases) size.activities += ph.coarse ? 1 : ph.steps;
      }
    }
  }
  // Actors: per copy and rank one, plus a helper per extra concurrent phase of a stage (counted above as
  // the widest stage of any rank).
  size.actors *= static_cast<std::int64_t>(copies.size()) * p.ranks;
  check_simulation_size(size);
  CollectiveResult result;
  for (const auto& ring : rings) ++(ring.second ? result.coarse_rings : result.step_rings);
  std::int64_t finished = 0;
  const std::int64_t expected = static_cast<std::int64_t>(copies.size()) * p.ranks;
  try {
    sg4::Engine& engine = create_engine();
    configure_actor_stacks(size);
    Platform platform(p.cluster, calibration, std::vector<std::pair<int, int>>(pairs.begin(), pairs.end()));
    for (std::size_t copy = 0; copy < copies.size(); ++copy) {
      for (int rank = 0; rank < p.ranks; ++rank) {
        const RankSchedule* schedule = &copies[copy][static_cast<std::size_t>(rank)];
        sg4::Host* host = platform.host(rank);
        sg4::Actor::create(
            "c" + std::to_string(copy) + "-rank" + std::to_string(rank), host,
            [schedule, rank, host, &result, &finished]() {
              for (const Stage& stage : *schedule) {
                std::vector<sg4::ActorPtr> helpers;
                for (std::size_t k = 1; k < stage.phases.size(); ++k) {
                  const RingPhase* phase = &stage.phases[k];
                  const std::size_t pos = static_cast<std::size_t>(
                      std::find(phase->ranks->begin(), phase->ranks->end(), rank) - phase->ranks->begin());
                  helpers.push_back(sg4::Actor::create("helper", host, [phase, pos, &result]() {
                    run_ring_phase(*phase, pos, result.messages);
                  }));
                }
                const RingPhase& first = stage.phases.front();
                const std::size_t pos = static_cast<std::size_t>(
                    std::find(first.ranks->begin(), first.ranks->end(), rank) - first.ranks->begin());
                run_ring_phase(first, pos, result.messages);
                for (auto& h : helpers) h->join();
              }
              ++finished;
            });
      }
    }
    result.seconds = run_to_completion(engine, finished, expected, "the collective");
  } catch (const simgrid::Exception& e) {
    throw SimulationError(std::string("SimGrid: ") + e.what());
  }
  if (result.seconds > 0) {  // one rank moves nothing in no time: no bandwidth (0, see the header)
    result.algbw_bytes_per_second = request.total_bytes / result.seconds;
    result.busbw_bytes_per_second = result.algbw_bytes_per_second * busbw_factor(request.kind, p.ranks);
  }
  return result;
}

}  // namespace shardscope::sim
