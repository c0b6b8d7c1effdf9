// What every back end's kernels do alike: reserving for a program's work and running one task's work.
#include "validate/core/kernels.hpp"

namespace shardscope::validate {

void Kernels::reserve(const std::vector<KernelWork>& work) {
  for (const KernelWork& w : work) {
    for (const Gemm& g : w.gemms) reserve(g);
    reserve_bytes(w.elementwise_bytes);
  }
}

void Kernels::run(const KernelWork& work) {
  for (const Gemm& g : work.gemms) gemm(g);
  if (work.elementwise_bytes > 0) elementwise(work.elementwise_bytes);
}

}  // namespace shardscope::validate
