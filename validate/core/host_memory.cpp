// keep_freed_host_memory: mallopt's trim and mmap thresholds; minor_page_faults: getrusage.
#include "validate/core/host_memory.hpp"

#include <sys/resource.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <climits>

namespace shardscope::validate {

void keep_freed_host_memory() {
#if defined(__GLIBC__)
  mallopt(M_TRIM_THRESHOLD, INT_MAX);           // never give the heap's top back
  mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);  // the largest the library allows on 64-bit systems
#endif
}

long minor_page_faults() {
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  return usage.ru_minflt;
}

}  // namespace shardscope::validate
