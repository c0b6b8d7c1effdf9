// A PyTorch profiler (Kineto) Chrome trace read as measurements for `calibrate --torch-trace`: each matrix
// product kernel with the shape of the aten op that launched it (mm, addmm, bmm, baddbmm; one sample per
// shape and type, the median of its kernels that ran alone), each NCCL kernel as a collective of the size
// its record_param_comms op gives, the products that ran beside a collective as overlap samples, and the
// attention kernels (flash, memory-efficient, cuDNN) reported with their input shapes.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "validate/measurements/measurements.hpp"

namespace shardscope::fit {

struct TraceAttention {
  std::string op;           // "aten::_scaled_dot_product_flash_attention", ...
  std::vector<long> query;  // the query's dimensions (batch, heads, sequence, head dimension)
  double seconds = 0;       // its kernels, summed over the trace
  std::size_t kernels = 0;
};

// What the trace held beside the samples: the kernels of each kind and their time, for the report.
struct TraceSummary {
  std::size_t kernels = 0, product_kernels = 0, nccl_kernels = 0, overlapped_product_kernels = 0;
  double kernel_seconds = 0, product_seconds = 0, nccl_seconds = 0;
  std::vector<TraceAttention> attention;
};

// Throws InputError (file, field "traceEvents[i]...": what was expected) for text that is not a Chrome
// trace, an event of the wrong shape, a product op whose "Input Dims" do not describe a product, or a
// trace with no kernel at all (recorded without ProfilerActivity.CUDA).
Measurements parse_torch_trace(const std::string& text, const std::string& file,
                               TraceSummary* summary = nullptr);
// Reads FILE, or FILE.gz-compressed text when the name ends in .gz (in builds with zlib).
Measurements load_torch_trace(const std::string& path, TraceSummary* summary = nullptr);

}  // namespace shardscope::fit
