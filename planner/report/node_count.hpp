// The fewest nodes of a cluster whose recommended plan reaches a throughput target: node counts doubled,
// then bisected (or, with a global batch, every count dividing it in order), with every count planned.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "planner/report/pipeline_search.hpp"
#include "planner/search/planner.hpp"

namespace shardscope {

// One node count the search planned.
struct TargetPoint {
  int nodes = 0;
  int gpus = 0;
  bool fits = false;  // a plan fits the memory limit
  std::string
      refusal;  // non-empty: the scenario at this count is invalid (a global batch that does not divide)
  double tokens_per_second = 0;
  std::int64_t micro_batch = 0;
  int accumulation_steps = 0;
};

struct TargetSearch {
  double target_tokens_per_second = 0;
  int gpus_per_node = 0;
  int max_nodes = 0;                // the largest count it may try
  std::vector<TargetPoint> curve;   // every count planned, by node count
  bool bisected = false;            // doubling and bisection (no global batch), else every count dividing it
  std::optional<int> nodes;         // the fewest that reach the target
  const TargetPoint* best() const;  // the highest rate planned (nullptr when nothing fits)
};

// At most this many GPUs: the simulator's and the sweeps' scale; beyond it a typo, not a cluster.
inline constexpr int kMaxTargetGpus = 65536;

// Plans at node counts 1, 2, 4, ... until one reaches `target` (or max_nodes), then bisects between the last
// that did not and the first that did (the rate is taken to grow with the node count between them). With a
// global batch (> 0, in samples) only counts whose GPUs divide it are valid: those are planned in order up
// to the first that reaches the target, none assumed. `plan_at(nodes)` returns that count's point.
TargetSearch search_node_count(double target, int gpus_per_node, std::int64_t global_batch,
                               const std::function<TargetPoint(int nodes)>& plan_at);

// Fills `point` (its nodes and GPUs set) from the recommended plan of the report planned at its count.
void fill_target_point(TargetPoint& point, const PlanReport& report);
// The same from a pipeline search at its count (report/pipeline_search.hpp): its fastest pipeline's rate,
// micro-batch and micro-batches.
void fill_target_point(TargetPoint& point, const PipelineSearch& search);

}  // namespace shardscope
