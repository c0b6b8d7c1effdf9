// Node-count search for a throughput target: doubling, then bisection.
#include "planner/report/node_count.hpp"

#include <algorithm>
#include <map>

namespace shardscope {
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

void fill_target_point(TargetPoint& point, const PlanReport& report) {
  point.fits = report.best.fits;
  if (!point.fits) return;
  point.tokens_per_second = report.best.plan.predicted.tokens_per_second;
  point.micro_batch = report.best.plan.micro_batch;
  point.accumulation_steps = report.best.plan.gradient_accumulation_steps;
}

void fill_target_point(TargetPoint& point, const PipelineSearch& search) {
  point.fits = search.any_fits();
  if (!point.fits) return;
  const PipelineOption& best = search.options[search.best];
  point.tokens_per_second = best.tokens_per_second;
  point.micro_batch = best.micro_batch;
  point.accumulation_steps = best.micro_batches;
}

}  // namespace shardscope
