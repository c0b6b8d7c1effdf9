// Expert-parallel all-to-alls as fitted pair flows, and the order a compute task runs its exchanges in.
#include "sim/internal/mesh_exchanges.hpp"

#include <algorithm>
#include <memory>
#include <set>
#include <string>

#include "sim/simulation_error.hpp"

namespace shardscope::sim {

ExchangeKey exchange_key(const MeshExchange& e) { return {e.bytes, e.seconds}; }

namespace {

NcclFamilyFlows family_of(const MeshExchange& e, int gpus) {
  if (gpus % e.group_ranks != 0) {
    throw SimulationError("an all-to-all group of " + std::to_string(e.group_ranks) +
                          " ranks does not divide the " + std::to_string(gpus) + " ranks");
  }
  NcclFamilyFlows out;
  out.estimate.latency_seconds = e.latency_seconds;
  out.estimate.bandwidth_seconds = e.seconds - e.latency_seconds;
  out.estimate.available = true;
  const int size = e.group_ranks;
  const double pair_bytes = e.bytes / size;
  out.copies.resize(static_cast<std::size_t>(gpus / size));
  for (int g = 0; g < gpus / size; ++g) {
    for (int a = g * size; a < (g + 1) * size; ++a) {
      for (int b = g * size; b < (g + 1) * size; ++b) {
        if (a == b) continue;
        auto flow = std::make_shared<Flow>();
        flow->from = a;
        flow->to = b;
        flow->bytes = pair_bytes;
        flow->wire_bytes = pair_bytes;
        out.copies[static_cast<std::size_t>(g)].push_back(flow);
        out.flows.push_back(std::move(flow));
      }
    }
  }
  return out;
}

}  // namespace

ExchangeFamilies exchange_families(const IterationProgram& program, int gpus) {
  ExchangeFamilies families;
  for (const Task& t : program.tasks) {
    for (const MeshExchange& e : t.mesh_exchanges) {
      if (e.pair_flows() && families.count(exchange_key(e)) == 0)
        families.emplace(exchange_key(e), family_of(e, gpus));
    }
  }
  return families;
}

std::vector<std::pair<int, int>> exchange_pairs(const ExchangeFamilies& families) {
  std::set<std::pair<int, int>> pairs;
  for (const auto& [key, family] : families) {
    for (const auto& f : family.flows) pairs.emplace(f->from, f->to);
  }
  return {pairs.begin(), pairs.end()};
}

void fit_exchange_families(ExchangeFamilies& families, const Platform& platform) {
  for (auto& [key, family] : families) fit_nccl_flows(family.flows, family.estimate, platform);
}

std::vector<int> exchange_order(const Task& task) {
  std::vector<int> order;
  const auto n = static_cast<int>(task.mesh_exchanges.size());
  for (int i = 0; i < n; ++i) {
    if (task.mesh_exchanges[static_cast<std::size_t>(i)].before) order.push_back(i);
  }
  order.push_back(-1);
  for (int i = 0; i < n; ++i) {
    if (!task.mesh_exchanges[static_cast<std::size_t>(i)].before) order.push_back(i);
  }
  return order;
}

const char* exchange_abbreviation(const MeshExchange& e) {
  if (e.all_to_all) return "A2A";
  switch (e.kind) {
    case CollectiveKind::all_gather:
      return "AG";
    case CollectiveKind::reduce_scatter:
      return "RS";
    case CollectiveKind::all_reduce:
      break;
  }
  return "AR";
}

double kernel_seconds(const Task& task) {
  double seconds = task.compute_seconds;
  for (const MeshExchange& e : task.mesh_exchanges) seconds -= e.seconds;
  return std::max(0.0, seconds);
}

}  // namespace shardscope::sim
