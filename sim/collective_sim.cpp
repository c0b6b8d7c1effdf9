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

constexpr double kMaxCollectiveBytes = 1125899906842624.0;  // 1 PiB

struct Prepared {
  Cluster cluster;
  int ranks = 0;
  int group_size = 0;
};

Prepared prepare(const Cluster& cluster, const CollectiveRequest& r) {
  Prepared p{cluster, r.gpus > 0 ? r.gpus : cluster.gpus(), 0};
  const std::string where = "collective";
  if (!(r.total_bytes > 0) || r.total_bytes > kMaxCollectiveBytes) {
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
    case CollectiveAlgorithm::nccl:
      break;  // built with its flows (nccl_schedule)
  }
  return ring_schedule(s);
}

char token = 0;  // flow payload pointer; sizes are simulated

// Runs this rank's flows of a stage in its own actor: every send is posted at once, and each receive
// once its flow's delay has passed (SimGrid starts a transfer when both sides have posted it, so the flow
// starts after its delay without a helper actor per send).
void run_flows(const Stage& stage, int rank, std::int64_t& messages) {
  std::vector<sg4::CommPtr> comms;
  std::vector<const Flow*> incoming;
  for (const std::shared_ptr<Flow>& f : stage.flows) {
    if (f->from == rank) {
      comms.push_back(sg4::Mailbox::by_name(f->mailbox)
                          ->put_async(&token, static_cast<std::uint64_t>(std::llround(f->wire_bytes))));
      ++messages;
    }
    if (f->to == rank) incoming.push_back(f.get());
  }
  std::stable_sort(incoming.begin(), incoming.end(),
                   [](const Flow* a, const Flow* b) { return a->delay_seconds < b->delay_seconds; });
  std::vector<char*> received(incoming.size(), nullptr);
  const double start = sg4::Engine::get_clock();
  for (std::size_t i = 0; i < incoming.size(); ++i) {
    const double wait = start + incoming[i]->delay_seconds - sg4::Engine::get_clock();
    if (wait > 0) sg4::this_actor::sleep_for(wait);
    comms.push_back(sg4::Mailbox::by_name(incoming[i]->mailbox)->get_async<char>(&received[i]));
  }
  for (auto& c : comms) c->wait();
}

std::string nccl_description(const CollectiveResult& r) {
  return "NCCL " + r.nccl_algorithm + "/" + r.nccl_protocol + ", " + std::to_string(r.nccl_channels) +
         " channel" + (r.nccl_channels == 1 ? "" : "s");
}

}  // namespace

std::string model_description(const CollectiveResult& result, int coarse_above) {
  if (!result.nccl_algorithm.empty()) return nccl_description(result);
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
  // Each phase is priced as the kind it runs (an all-reduce's reduce-scatter phase at the reduce-scatter
  // factor), as the simulator's schedules do (sim/collectives/*.cpp).
  const CollectiveKind rs = CollectiveKind::reduce_scatter, ag = CollectiveKind::all_gather;
  auto ab = [&](CollectiveKind kind, GroupKind group, int steps, double chunk) {
    return cost.ring_seconds(kind, group, steps, chunk);
  };
  const CollectiveKind kind = request.kind;
  const bool all_reduce = kind == CollectiveKind::all_reduce;
  switch (request.algorithm) {
    case CollectiveAlgorithm::ring:
      return cost.seconds(kind, GroupKind::global, x);
    case CollectiveAlgorithm::hierarchical_ring:
      if (all_reduce) {
        return ab(rs, GroupKind::intra, m - 1, x / m) + ab(kind, GroupKind::inter, 2 * (g - 1), x / n) +
               ab(ag, GroupKind::intra, m - 1, x / m);
      }
      return ab(kind, GroupKind::intra, m - 1, x / m) + ab(kind, GroupKind::inter, g - 1, x / n);
    case CollectiveAlgorithm::ho_ring: {
      const auto one = [&](CollectiveKind k) {
        return std::max(ab(k, GroupKind::intra, m - 1, x / n), ab(k, GroupKind::inter, g - 1, x / n)) +
               ab(k, GroupKind::intra, m - 1, (g - 1) * x / n);
      };
      return all_reduce ? one(rs) + one(ag) : one(kind);
    }
    case CollectiveAlgorithm::nccl: {
      const CollectiveCost nccl(p.cluster, m, calibration, CollectiveModel::nccl);
      // A group kind: the planner's charge for its family; global: NCCL's own pick for one communicator.
      if (request.nccl_group != GroupKind::global) return nccl.seconds(kind, request.nccl_group, x);
      return nccl_pick(*nccl.nccl(GroupKind::global), kind, x).seconds();
    }
  }
  return 0;
}

std::vector<double> sweep_sizes(double min_bytes, double max_bytes, const std::string& field) {
  if (!(min_bytes > 0)) throw InputError("collective", 0, field, "expected a smallest size above 0");
  if (max_bytes > kMaxCollectiveBytes)
    throw InputError("collective", 0, field, "expected sizes of at most 1 PiB");
  if (min_bytes > max_bytes) {
    throw InputError("collective", 0, field, "expected MIN:MAX with MIN at most MAX");
  }
  std::vector<double> sizes;
  for (double size = min_bytes; size <= max_bytes; size *= 2) sizes.push_back(size);
  return sizes;
}

CollectiveResult simulate_collective(const Cluster& cluster, const CollectiveRequest& request,
                                     const Calibration& calibration) {
  return simulate_collective_sweep(cluster, request, {request.total_bytes}, calibration).front();
}

namespace {

// Every size's schedules (per copy, every rank's; nccl: with its flows, fitted once the platform exists),
// the results' counts so far, the routes they use and the simulation's size.
struct SweepSchedules {
  std::vector<std::vector<std::vector<RankSchedule>>> runs;  // [size][copy][rank]
  std::vector<std::vector<NcclSchedule>> nccl_runs;          // [size][copy], nccl only
  std::vector<CollectiveResult> results;
  std::set<std::pair<int, int>> pairs;
  std::int64_t widest = 0;  // actors one rank runs at once in its widest stage
  SimulationSize size;
};

// Counts one copy's ring phases (once per ring: every member lists it) and their routes and activities.
void count_rings(const std::vector<RankSchedule>& ranks, std::set<std::pair<std::string, bool>>& rings,
                 SweepSchedules& out) {
  for (std::size_t rank = 0; rank < ranks.size(); ++rank) {
    for (const Stage& st : ranks[rank]) {
      for (const RingPhase& ph : st.phases) {
        if (!rings.emplace(ph.name, ph.coarse).second) continue;  // every member lists its ring
        const std::vector<int>& ring = *ph.ranks;
        for (std::size_t i = 0; i < ring.size(); ++i) out.pairs.emplace(ring[i], ring[(i + 1) % ring.size()]);
      }
      out.widest = std::max<std::int64_t>(out.widest, static_cast<std::int64_t>(st.phases.size()));
      for (const RingPhase& ph : st.phases) out.size.activities += ph.coarse ? 1 : ph.steps;
    }
  }
}

// What NCCL picked for a size: flows, algorithm, protocol and channels.
void record_nccl_pick(const NcclSchedule& n, const NcclTopology& t, CollectiveResult& result) {
  result.flows = static_cast<int>(n.flows.size());
  result.nccl_algorithm = to_string(n.estimate.algorithm);
  result.nccl_protocol = to_string(n.estimate.protocol);
  const bool nvls =
      n.estimate.algorithm == NcclAlgorithm::nvls || n.estimate.algorithm == NcclAlgorithm::nvls_tree;
  result.nccl_channels = nvls ? t.nvls_channels : t.channels;
}

// One size's schedules, copy by copy.
void schedule_size(const CollectiveRequest& request, const Prepared& p, const CollectiveCost& cost,
                   std::size_t k, double bytes, SweepSchedules& out) {
  const bool nccl = request.algorithm == CollectiveAlgorithm::nccl;
  std::set<std::pair<std::string, bool>> rings;  // every ring phase by name, and whether it is coarse
  for (int copy = 0; copy < request.concurrent; ++copy) {
    ScheduleRequest s{request.kind,
                      bytes,
                      p.ranks,
                      p.group_size,
                      request.coarse_above,
                      "s" + std::to_string(k) + "c" + std::to_string(copy) + "/",
                      {cost.ring(GroupKind::intra).alpha_seconds, cost.ring(GroupKind::inter).alpha_seconds,
                       cost.ring(GroupKind::global).alpha_seconds},
                      &p.cluster,
                      &cost,
                      request.nccl_group};
    if (nccl) {
      out.nccl_runs[k].push_back(nccl_schedule(s));
      out.runs[k].push_back(out.nccl_runs[k].back().ranks);
      for (const auto& f : out.nccl_runs[k].back().flows) out.pairs.emplace(f->from, f->to);
      out.size.activities += static_cast<std::int64_t>(out.nccl_runs[k].back().flows.size());
    } else {
      out.runs[k].push_back(schedule_for(request, s));
    }
    count_rings(out.runs[k].back(), rings, out);
  }
  for (const auto& ring : rings) ++(ring.second ? out.results[k].coarse_rings : out.results[k].step_rings);
  if (nccl) record_nccl_pick(out.nccl_runs[k].front(), *cost.nccl(request.nccl_group), out.results[k]);
}

// Fits each size's lone NCCL collective to the platform; its other copies contend alike.
void fit_sweep_flows(std::vector<std::vector<NcclSchedule>>& nccl_runs, const Platform& platform) {
  for (auto& copies : nccl_runs) {
    if (copies.empty()) continue;
    fit_nccl_flows(copies.front(), platform);  // the lone collective; the other copies contend alike
    for (std::size_t c = 1; c < copies.size(); ++c) {
      for (std::size_t i = 0; i < copies[c].flows.size(); ++i) {
        copies[c].flows[i]->wire_bytes = copies.front().flows[i]->wire_bytes;
        copies[c].flows[i]->delay_seconds = copies.front().flows[i]->delay_seconds;
      }
    }
  }
}

// `rank`'s position in a phase's ring.
std::size_t position_in(const RingPhase& phase, int rank) {
  return static_cast<std::size_t>(std::find(phase.ranks->begin(), phase.ranks->end(), rank) -
                                  phase.ranks->begin());
}

// One stage of a rank's schedule: its first phase in this actor, the others in helper actors, then its
// flows; returns once all are done.
void run_stage(const Stage& stage, int rank, sg4::Host* host, std::int64_t& messages) {
  std::vector<sg4::ActorPtr> helpers;
  for (std::size_t i = 1; i < stage.phases.size(); ++i) {
    const RingPhase* phase = &stage.phases[i];
    const std::size_t pos = position_in(*phase, rank);
    helpers.push_back(sg4::Actor::create(
        "helper", host, [phase, pos, &messages]() { run_ring_phase(*phase, pos, messages); }));
  }
  if (!stage.phases.empty())
    run_ring_phase(stage.phases.front(), position_in(stage.phases.front(), rank), messages);
  if (!stage.flows.empty()) run_flows(stage, rank, messages);
  for (auto& h : helpers) h->join();
}

// Starts one actor per copy and rank; each runs its schedule of every size in turn, all sizes separated by
// a barrier, and copy 0's rank 0 records when each size has ended.
void start_sweep_actors(const Platform& platform, const SweepSchedules& s, int concurrent, int ranks,
                        std::vector<CollectiveResult>& results, std::vector<double>& ends,
                        std::int64_t& finished, const sg4::BarrierPtr& barrier) {
  for (int copy = 0; copy < concurrent; ++copy) {
    for (int rank = 0; rank < ranks; ++rank) {
      sg4::Host* host = platform.host(rank);
      sg4::Actor::create("c" + std::to_string(copy) + "-rank" + std::to_string(rank), host,
                         [&runs = s.runs, &results, &ends, &finished, &barrier, copy, rank, host]() {
                           for (std::size_t k = 0; k < runs.size(); ++k) {
                             const RankSchedule& schedule =
                                 runs[k][static_cast<std::size_t>(copy)][static_cast<std::size_t>(rank)];
                             for (const Stage& stage : schedule)
                               run_stage(stage, rank, host, results[k].messages);
                             barrier->wait();  // every size starts when the previous one has ended everywhere
                             if (copy == 0 && rank == 0) ends[k] = sg4::Engine::get_clock();
                           }
                           ++finished;
                         });
    }
  }
}

// Each size's time (from the previous size's end) and bandwidths.
void record_bandwidths(const std::vector<double>& sizes, const std::vector<double>& ends, CollectiveKind kind,
                       int ranks, std::vector<CollectiveResult>& results) {
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    CollectiveResult& result = results[k];
    result.seconds = ends[k] - (k == 0 ? 0.0 : ends[k - 1]);
    if (result.seconds > 0) {  // one rank moves nothing in no time: no bandwidth (0, see the header)
      result.algbw_bytes_per_second = sizes[k] / result.seconds;
      result.busbw_bytes_per_second = result.algbw_bytes_per_second * busbw_factor(kind, ranks);
    }
  }
}

}  // namespace

std::vector<CollectiveResult> simulate_collective_sweep(const Cluster& cluster,
                                                        const CollectiveRequest& request,
                                                        const std::vector<double>& sizes,
                                                        const Calibration& calibration) {
  if (sizes.empty()) throw InputError("collective", 0, "sweep", "expected at least one size");
  for (const double bytes : sizes) {
    CollectiveRequest r = request;
    r.total_bytes = bytes;
    prepare(cluster, r);
  }
  CollectiveRequest first = request;
  first.total_bytes = sizes.front();
  const Prepared p = prepare(cluster, first);
  SweepSchedules s;
  // The GPU limit first: the schedules below are as large as the platform.
  s.size = SimulationSize{"the collective", p.ranks, 0, 0};
  check_simulation_size(s.size);
  const bool nccl = request.algorithm == CollectiveAlgorithm::nccl;
  const CollectiveCost cost(p.cluster, p.group_size, calibration,
                            nccl ? CollectiveModel::nccl : CollectiveModel::ring);
  s.runs.resize(sizes.size());
  s.nccl_runs.resize(sizes.size());
  s.results.resize(sizes.size());
  for (std::size_t k = 0; k < sizes.size(); ++k) schedule_size(request, p, cost, k, sizes[k], s);
  // Actors: per copy and rank one, plus a helper per extra concurrent phase of its widest stage (flows
  // run in the rank's own actor).
  s.size.actors = std::max<std::int64_t>(1, s.widest) * request.concurrent * p.ranks;
  check_simulation_size(s.size);
  std::int64_t finished = 0;
  const std::int64_t expected = static_cast<std::int64_t>(request.concurrent) * p.ranks;
  std::vector<double> ends(sizes.size(), 0.0);
  try {
    sg4::Engine& engine = create_engine();
    configure_actor_stacks(s.size);
    Platform platform(p.cluster, calibration,
                      std::vector<std::pair<int, int>>(s.pairs.begin(), s.pairs.end()));
    fit_sweep_flows(s.nccl_runs, platform);
    const sg4::BarrierPtr barrier = sg4::Barrier::create(static_cast<unsigned>(expected));
    start_sweep_actors(platform, s, request.concurrent, p.ranks, s.results, ends, finished, barrier);
    run_to_completion(engine, finished, expected, "the collective");
  } catch (const simgrid::Exception& e) {
    throw SimulationError(std::string("SimGrid: ") + e.what());
  }
  record_bandwidths(sizes, ends, request.kind, p.ranks, s.results);
  return s.results;
}

}  // namespace shardscope::sim
