// What a micro-benchmark run is asked for (`shardscope-validate bench`), whichever backend runs it.
#pragma once

namespace shardscope::validate {

struct BenchOptions {
  double min_bytes = 8;
  double max_bytes = 64.0 * 1048576;  // nccl-tests goes to 1 GiB on GPUs; memory-bound here
  int iterations = 20;                // timed iterations per size (nccl-tests -n)
  int warmup = 1;                     // untimed iterations per size (nccl-tests -w)
  int group_size = 0;                 // intra-group size M (0: ranks per node)
  double timeout_seconds = 60;
  double min_seconds = 0.2;  // GEMM / bandwidth repetitions until this much time (at least 3)
};

}  // namespace shardscope::validate
