// NCCL's collectives as SimGrid flows (planner/cost/nccl_flows.hpp's edges), fitted so that a lone collective
// takes NCCL's estimate.
#include <algorithm>
#include <cmath>
#include <map>
#include <simgrid/s4u.hpp>

#include "planner/cost/nccl_flows.hpp"
#include "sim/collectives/schedule.hpp"
#include "sim/platform.hpp"
#include "sim/simulation_error.hpp"

namespace sg4 = simgrid::s4u;

namespace shardscope::sim {
namespace {

std::shared_ptr<Flow> make_flow(std::string mailbox, const NcclEdge& edge) {
  auto flow = std::make_shared<Flow>();
  flow->mailbox = std::move(mailbox);
  flow->from = edge.from;
  flow->to = edge.to;
  flow->bytes = edge.bytes;
  flow->wire_bytes = edge.bytes;
  flow->channels = edge.channels;
  return flow;
}

}  // namespace

NcclSchedule nccl_schedule(const ScheduleRequest& r) {
  const NcclFamily* family = r.cost != nullptr ? r.cost->nccl_family(r.nccl_group) : nullptr;
  if (family == nullptr) throw SimulationError("the nccl schedule needs the nccl cost model");
  NcclSchedule out;
  // global: NCCL's own pick for the one communicator (as `collective` prints it); a group kind: the
  // planner's charge for its communicators, all at once.
  out.estimate = r.nccl_group == GroupKind::global
                     ? nccl_pick(family->copies.front(), r.kind, r.total_bytes)
                     : r.cost->nccl_collective(r.kind, r.nccl_group, r.total_bytes);
  out.ranks.assign(static_cast<std::size_t>(r.ranks), RankSchedule{Stage{}});
  for (std::size_t copy = 0; copy < family->copies.size(); ++copy) {
    const std::string prefix = family->copies.size() > 1 ? "g" + std::to_string(copy) + "." : "";
    // One mailbox per flow; the collective command runs every channel's flow on its own.
    const std::vector<NcclEdge> edges =
        nccl_edges(family->copies[copy], r.kind, r.total_bytes, out.estimate, /*merge_channels=*/false);
    for (std::size_t e = 0; e < edges.size(); ++e) {
      auto flow = make_flow(r.tag + prefix + "nccl." + std::to_string(e), edges[e]);
      out.flows.push_back(flow);
      out.ranks[static_cast<std::size_t>(edges[e].from)].front().flows.push_back(flow);
      out.ranks[static_cast<std::size_t>(edges[e].to)].front().flows.push_back(flow);
    }
  }
  return out;
}

NcclFamilyFlows nccl_family_flows(const NcclFamily& family, CollectiveKind kind, double total_bytes,
                                  const NcclEstimate& estimate, bool merge_channels) {
  NcclFamilyFlows out;
  out.estimate = estimate;
  out.copies.resize(family.copies.size());
  for (std::size_t copy = 0; copy < family.copies.size(); ++copy) {
    for (const NcclEdge& e : nccl_edges(family.copies[copy], kind, total_bytes, estimate, merge_channels))
      out.copies[copy].push_back(make_flow({}, e));
    out.flows.insert(out.flows.end(), out.copies[copy].begin(), out.copies[copy].end());
  }
  return out;
}

double fit_nccl_flows(NcclSchedule& schedule, const Platform& platform) {
  return fit_nccl_flows(schedule.flows, schedule.estimate, platform);
}

double fit_nccl_flows(const std::vector<std::shared_ptr<Flow>>& flows, const NcclEstimate& estimate,
                      const Platform& platform) {
  if (flows.empty() || !(estimate.bandwidth_seconds > 0)) return 1;
  std::map<std::pair<std::string, bool>, int> crossing;  // channels' flows per link direction
  for (const auto& f : flows) {
    for (const Platform::RouteHop& hop : platform.route(f->from, f->to))
      crossing[{hop.link, hop.up}] += f->channels;
  }
  const sg4::Engine* engine = sg4::Engine::get_instance();
  double slowest = 0;  // seconds of the slowest flow at full (unscaled) payload
  std::vector<double> path_latency, rate;
  for (const auto& f : flows) {
    double r = 0, latency = 0;
    bool first = true;
    for (const Platform::RouteHop& hop : platform.route(f->from, f->to)) {
      const double share = hop.bytes_per_second * f->channels / crossing[{hop.link, hop.up}];
      r = first ? share : std::min(r, share);
      first = false;
      latency += engine->split_duplex_link_by_name(hop.link)->get_link_up()->get_latency();
    }
    if (first) {
      throw SimulationError("no route between ranks " + std::to_string(f->from) + " and " +
                            std::to_string(f->to));
    }
    slowest = std::max(slowest, f->bytes / r);
    path_latency.push_back(latency);
    rate.push_back(r);
  }
  const double efficiency = slowest / estimate.bandwidth_seconds;
  // Flows carry whole bytes: the slowest flow's rounding is taken back from every sender's delay.
  double rounded_slowest = 0;
  for (std::size_t i = 0; i < flows.size(); ++i) {
    Flow& f = *flows[i];
    f.wire_bytes = std::max(1.0, std::round(f.bytes / efficiency));
    rounded_slowest = std::max(rounded_slowest, f.wire_bytes / rate[i]);
  }
  const double rounding = estimate.bandwidth_seconds - rounded_slowest;
  for (std::size_t i = 0; i < flows.size(); ++i) {
    flows[i]->delay_seconds = std::max(0.0, estimate.latency_seconds - path_latency[i] + rounding);
    flows[i]->route_latency_seconds = path_latency[i];
  }
  return efficiency;
}

}  // namespace shardscope::sim
