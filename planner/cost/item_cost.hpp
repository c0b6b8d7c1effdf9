// ItemCost: one operator choice's time and memory, as the cost model prices it and the solvers weigh it.
#pragma once

namespace shardscope {

struct ItemCost {
  double seconds = 0;          // this operator's share of one iteration (all micro-steps and the update)
  double resident_bytes = 0;   // knapsack weight
  double transient_bytes = 0;  // tau: a bound on the extra held while it runs (gathered buffers, its
                               // neighbours' prefetched ones, workspace), whatever its neighbours choose
};

}  // namespace shardscope
