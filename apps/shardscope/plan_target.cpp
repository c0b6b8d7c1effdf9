// Node-count search for a throughput target: doubling, then bisection; the curve as a table and as JSON.
#include "apps/shardscope/plan_target.hpp"

#include <algorithm>
#include <map>

#include "planner/core/units.hpp"
#include "present/text_table.hpp"

namespace shardscope::cli {
namespace {

bool reaches(const TargetPoint& p, double target) {
  return p.refusal.empty() && p.fits && p.tokens_per_second >= target;
}

}  // namespace

const TargetPoint* TargetSearch::best() const {
  const TargetPoint* out = nullptr;
  for (const TargetPoint& p : curve)
    if (p.refusal.empty() && p.fits && (out == nullptr || p.tokens_per_second > out->tokens_per_second))
      out = &p;
  return out;
}

TargetSearch search_node_count(double target, int gpus_per_node, std::int64_t global_batch,
                               const std::function<TargetPoint(int nodes)>& plan_at) {
  TargetSearch s;
  s.target_tokens_per_second = target;
  s.gpus_per_node = std::max(1, gpus_per_node);
  s.max_nodes = std::max(1, kMaxTargetGpus / s.gpus_per_node);
  std::map<int, TargetPoint> planned;
  const auto at = [&](int nodes) -> const TargetPoint& {
    auto it = planned.find(nodes);
    if (it == planned.end()) it = planned.emplace(nodes, plan_at(nodes)).first;
    return it->second;
  };
  if (global_batch > 0) {
    for (int nodes = 1; nodes <= s.max_nodes; ++nodes) {
      if (global_batch % (static_cast<std::int64_t>(nodes) * s.gpus_per_node) != 0) continue;
      if (reaches(at(nodes), target)) {
        s.nodes = nodes;
        break;
      }
    }
    for (const auto& [nodes, point] : planned) s.curve.push_back(point);
    return s;
  }
  s.bisected = true;
  int below = 0, above = 0;  // the largest count known short of the target, the smallest known to reach it
  for (int nodes = 1;; nodes = std::min(2 * nodes, s.max_nodes)) {
    if (reaches(at(nodes), target)) {
      above = nodes;
      break;
    }
    below = nodes;
    if (nodes == s.max_nodes) break;
  }
  while (above > 0 && above - below > 1) {
    const int mid = below + (above - below) / 2;
    if (reaches(at(mid), target)) {
      above = mid;
    } else {
      below = mid;
    }
  }
  if (above > 0) s.nodes = above;
  for (const auto& [nodes, point] : planned) s.curve.push_back(point);
  return s;
}

void write_target_search(std::ostream& os, const TargetSearch& s, const std::string& cluster) {
  os << "Target " << units::format_count(s.target_tokens_per_second) << " tokens/s on " << cluster
     << " nodes of " << s.gpus_per_node << " GPUs: ";
  if (s.nodes) {
    const auto it = std::find_if(s.curve.begin(), s.curve.end(),
                                 [&](const TargetPoint& p) { return p.nodes == *s.nodes; });
    os << *s.nodes << " node(s), " << it->gpus << " GPUs, reach "
       << units::format_count(it->tokens_per_second) << " tokens/s\n";
  } else {
    os << "no count up to " << s.max_nodes << " nodes reaches it\n";
  }
  os << (s.bisected
             ? "(node counts doubled, then bisected; the rate is taken to grow with the count in between)\n\n"
             : "(every node count whose GPUs divide the global batch, in order)\n\n");
  present::TextTable table({"nodes", "GPUs", "micro-batch", "steps", "tokens/s", "tokens/s/GPU", "target"});
  for (const TargetPoint& p : s.curve) {
    if (!p.refusal.empty()) {
      table.add(
          {std::to_string(p.nodes), std::to_string(p.gpus), "-", "-", "-", "-", "invalid: " + p.refusal});
    } else if (!p.fits) {
      table.add({std::to_string(p.nodes), std::to_string(p.gpus), "-", "-", "-", "-", "does not fit"});
    } else {
      table.add({std::to_string(p.nodes), std::to_string(p.gpus), std::to_string(p.micro_batch),
                 std::to_string(p.accumulation_steps), units::format_count(p.tokens_per_second),
                 units::format_count(p.tokens_per_second / p.gpus),
                 p.tokens_per_second >= s.target_tokens_per_second ? "reached" : "short"});
    }
  }
  table.print(os);
  for (const TargetPoint& p : s.curve)
    if (!p.refusal.empty()) os << "  " << p.nodes << " node(s) invalid: " << p.refusal << "\n";
}

nlohmann::ordered_json target_search_json(const TargetSearch& s) {
  nlohmann::ordered_json j;
  j["tokens_per_second"] = s.target_tokens_per_second;
  j["gpus_per_node"] = s.gpus_per_node;
  j["max_nodes"] = s.max_nodes;
  j["nodes"] = s.nodes ? nlohmann::ordered_json(*s.nodes) : nlohmann::ordered_json();
  nlohmann::ordered_json curve = nlohmann::ordered_json::array();
  for (const TargetPoint& p : s.curve) {
    nlohmann::ordered_json row = {{"nodes", p.nodes}, {"gpus", p.gpus}, {"fits", p.fits}};
    if (!p.refusal.empty()) row["refusal"] = p.refusal;
    if (p.refusal.empty() && p.fits) {
      row["micro_batch"] = p.micro_batch;
      row["accumulation_steps"] = p.accumulation_steps;
      row["tokens_per_second"] = p.tokens_per_second;
    }
    curve.push_back(std::move(row));
  }
  j["curve"] = std::move(curve);
  return j;
}

}  // namespace shardscope::cli
