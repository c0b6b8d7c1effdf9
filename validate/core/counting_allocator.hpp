// CountingAllocator: takes and gives back the program's buffers by memory category and keeps the high-water
// mark of the bytes in use, the executor's measured peak (the counting allocator the planner predicts). The
// blocks come from a MemorySource (the cuda backend's device pool), or are counted only.
#pragma once

#include <cstddef>
#include <mutex>
#include <vector>

#include "planner/program/iteration_program.hpp"

namespace shardscope::validate {

// Where counted blocks come from when not from host memory: acquire returns a block of `bytes`, give_back
// takes it back (both throw on failure).
class MemorySource {
 public:
  virtual ~MemorySource() = default;
  virtual void* acquire(std::size_t bytes) = 0;
  virtual void give_back(void* block, std::size_t bytes) = 0;
};

class CountingAllocator {
 public:
  CountingAllocator() = default;
  // Blocks from `source`, which must outlive the allocator.
  explicit CountingAllocator(MemorySource& source) : source_(&source) {}
  // Gives the blocks still held back to the source.
  ~CountingAllocator();
  CountingAllocator(const CountingAllocator&) = delete;
  CountingAllocator& operator=(const CountingAllocator&) = delete;

  // Takes `bytes` of `category`: a block of that size from the source, or only the count without one (0
  // bytes takes nothing).
  void allocate(MemoryCategory category, double bytes);
  // Gives back `bytes` of `category`: the newest block of exactly that size when there is one (a buffer the
  // program frees), else newest blocks first, where a block larger than what is left is shrunk in the count
  // (its memory stays until the rest of it is given back). Throws std::logic_error on more than held.
  void release(MemoryCategory category, double bytes);
  double in_use_bytes() const;
  double peak_bytes() const;
  // Starts a new peak window at the bytes in use now.
  void reset_peak();

 private:
  struct Block {
    void* source_block = nullptr;  // the source's block (none without a source: counted only)
    std::size_t size_bytes = 0;
    double counted_bytes = 0;
  };
  void give_back(Block& block);
  MemorySource* source_ = nullptr;
  mutable std::mutex mutex_;
  std::vector<Block> blocks_[kMemoryCategories];
  double in_use_bytes_ = 0;
  double peak_bytes_ = 0;
};

}  // namespace shardscope::validate
