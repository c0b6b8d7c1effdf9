// The OSDP search recurrence in C++, the reference the planner benchmarks compare against.
#pragma once

#include <cstdint>
#include <vector>

#include "planner/search/solvers/mckp.hpp"

namespace shardscope::bench {

// A C++ port (our own code, not a copy) of the recurrence in OSDP's public search engine
// (github.com/Youhe-Jiang/IJCAI2023-OptimalShardedDataParallel,
// optimal-sharded-data-parallel-master/Search_Engine.py, SearchAlg.fit): a DP over layers i, memory
// v = 0..max_mem in MB and the layer's strategy s (OSDP: 4 per layer),
//   f_i[v][s] = time[i][s] + min over s' of f_{i-1}[v - mem[i][s]][s']   (+inf where v < mem[i][s]),
// f_{-1} = 0, answer min over s of f_{L-1}[max_mem][s], the plan read back through the argmin marks
// (layers x MB x strategies of them). Memory is additive per layer, as in OSDP's profiles.
struct OsdpRecurrenceResult {
  bool feasible = false;
  double seconds = 0;
  std::vector<int> picks;  // strategy per layer
  std::int64_t cells = 0;  // (layer, MB, strategy) cells evaluated, each a min over the strategies
};

// `mem_mb[i][s]` whole MB, `seconds[i][s]`; every layer has `strategies` entries (+inf seconds: absent).
OsdpRecurrenceResult osdp_recurrence(const std::vector<std::vector<std::int64_t>>& mem_mb,
                                     const std::vector<std::vector<double>>& seconds, std::int64_t max_mem_mb,
                                     int strategies);

// The recurrence's input for an instance whose classes have at most `strategies` items: memory is the
// resident bytes in whole MB (rounded up), and the capacity leaves room for the largest transient of any
// item (OSDP has no max term), so any plan it returns fits the instance.
struct OsdpInput {
  std::vector<std::vector<std::int64_t>> mem_mb;
  std::vector<std::vector<double>> seconds;
  std::int64_t max_mem_mb = 0;
  int strategies = 4;
};
OsdpInput osdp_input(const McProblem& problem, int strategies = 4);

}  // namespace shardscope::bench
