// plan --target-tokens-per-second X: the fewest nodes of the scenario's cluster whose recommended plan
// reaches X tokens/s, found by doubling the node count and then bisecting, with every count it planned.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace shardscope::cli {

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

// The curve as a table with the answer line; and as JSON ("target").
void write_target_search(std::ostream& os, const TargetSearch& search, const std::string& cluster);
nlohmann::ordered_json target_search_json(const TargetSearch& search);

}  // namespace shardscope::cli
