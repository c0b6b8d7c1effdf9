// Node-count search for a throughput target: doubling, then bisection; the curve as a table and as JSON.
#include "apps/shardscope/plan_target.hpp"

#include <algorithm>

#include "planner/core/units.hpp"
#include "present/text_table.hpp"

namespace shardscope::cli {

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
      table.add({std::to_string(p.nodes), std::to_string(p.gpus), "-", "-", "-", "-", "invalid (below)"});
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
