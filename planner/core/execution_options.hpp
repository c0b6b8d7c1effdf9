// ExecutionOptions: how an iteration runs (overlap, prefetch, gradient buckets), read once from the scenario
// and fed alike to the planner's cost model, the simulator and the hardware run.
#pragma once

namespace shardscope {

struct ExecutionOptions {
  // Communication overlaps compute on a second stream (the planner charges max(compute, comm) plus the
  // calibrated overlap slowdown x the shorter one per micro-step; false: one stream, every task in order).
  bool overlap = true;
  int prefetch_depth = 1;   // gathered buffers in flight beyond the current one (FSDP's default is 1)
  double bucket_bytes = 0;  // gradient bucket size for the simulator (0: each slice reduced alone); the
                            // planner prices one reduce-scatter per slice either way
};

}  // namespace shardscope
