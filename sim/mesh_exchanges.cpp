// Mesh exchanges as fitted flows (pairs for all-to-alls, rings for K/V), and a compute task's order of them.
#include "sim/internal/mesh_exchanges.hpp"

#include <algorithm>
#include <memory>
#include <set>
#include <string>

#include "sim/simulation_error.hpp"

namespace shardscope::sim {

ExchangeKey exchange_key(const MeshExchange& e) {
  return {e.all_to_all, e.group_ranks, e.bytes, e.seconds, e.latency_seconds};
}

namespace {

std::shared_ptr<Flow> flow_of(int from, int to, double bytes) {
  auto flow = std::make_shared<Flow>();
  flow->from = from;
  flow->to = to;
  flow->bytes = bytes;
  flow->wire_bytes = bytes;
  return flow;
}

NcclFamilyFlows family_of(const MeshExchange& e, int gpus) {
  const int size = e.group_ranks;
  if (gpus % size != 0) {
    throw SimulationError("a mesh group of " + std::to_string(size) + " ranks does not divide the " +
                          std::to_string(gpus) + " ranks");
  }
  NcclFamilyFlows out;
  out.estimate.latency_seconds = e.latency_seconds;
  out.estimate.bandwidth_seconds = e.seconds - e.latency_seconds;
  out.estimate.available = true;
  out.copies.resize(static_cast<std::size_t>(gpus / size));
  for (int g = 0; g < gpus / size; ++g) {
    auto& copy = out.copies[static_cast<std::size_t>(g)];
    const int first = g * size;
    for (int a = first; a < first + size; ++a) {
      if (!e.all_to_all) {  // a ring: every step's chunk to the next rank, in one flow
        copy.push_back(flow_of(a, first + (a - first + 1) % size, e.bytes * (size - 1) / size));
        continue;
      }
      for (int b = first; b < first + size; ++b) {
        if (a != b) copy.push_back(flow_of(a, b, e.bytes / size));
      }
    }
    out.flows.insert(out.flows.end(), copy.begin(), copy.end());
  }
  return out;
}

}  // namespace

ExchangeFamilies exchange_families(const IterationProgram& program, int gpus, int coarse_above) {
  ExchangeFamilies families;
  for (const Task& t : program.tasks) {
    for (const MeshExchange& e : t.mesh_exchanges) {
      if (e.runs_as_flows(coarse_above) && families.count(exchange_key(e)) == 0)
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
  const auto blocking = [&](int i, bool before) {
    const MeshExchange& e = task.mesh_exchanges[static_cast<std::size_t>(i)];
    return !e.overlapped && e.before == before;
  };
  for (int i = 0; i < n; ++i) {
    if (blocking(i, true)) order.push_back(i);
  }
  order.push_back(-1);
  for (int i = 0; i < n; ++i) {
    if (blocking(i, false)) order.push_back(i);
  }
  return order;
}

std::vector<int> overlapped_exchanges(const Task& task) {
  std::vector<int> out;
  for (std::size_t i = 0; i < task.mesh_exchanges.size(); ++i) {
    if (task.mesh_exchanges[i].overlapped) out.push_back(static_cast<int>(i));
  }
  return out;
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
  for (const MeshExchange& e : task.mesh_exchanges) {
    if (!e.overlapped) seconds -= e.seconds;
  }
  return std::max(0.0, seconds);
}

}  // namespace shardscope::sim
