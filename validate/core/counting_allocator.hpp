// CountingAllocator: takes and gives back the program's buffers by memory category and keeps the high-water
// mark of the bytes in use, the executor's measured peak (the counting allocator the planner predicts).
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include "planner/program/iteration_program.hpp"

namespace shardscope::validate {

class CountingAllocator {
 public:
  // Takes `bytes` of `category` (a real allocation of that size; 0 bytes takes nothing).
  void allocate(MemoryCategory category, double bytes);
  // Gives back `bytes` of `category`, newest blocks first; a block larger than what is left is shrunk in the
  // count (its memory stays until the rest of it is given back). Throws std::logic_error on more than held.
  void release(MemoryCategory category, double bytes);
  double in_use_bytes() const;
  double peak_bytes() const;
  // Starts a new peak window at the bytes in use now.
  void reset_peak();

 private:
  struct Block {
    std::unique_ptr<std::byte[]> memory;
    double counted_bytes = 0;
  };
  mutable std::mutex mutex_;
  std::vector<Block> blocks_[kMemoryCategories];
  double in_use_bytes_ = 0;
  double peak_bytes_ = 0;
};

}  // namespace shardscope::validate
