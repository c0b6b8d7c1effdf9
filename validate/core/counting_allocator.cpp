// Counting allocator: real blocks per memory category, bytes in use and their high-water mark.
#include "validate/core/counting_allocator.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <stdexcept>
#include <string>

namespace shardscope::validate {

CountingAllocator::~CountingAllocator() {
  for (std::vector<Block>& blocks : blocks_) {
    for (Block& block : blocks) {
      try {
        give_back(block);
      } catch (...) {  // a failing device at exit: the process ends anyway
      }
    }
  }
}

void CountingAllocator::give_back(Block& block) {
  if (block.source_block == nullptr) return;
  void* taken = block.source_block;
  block.source_block = nullptr;
  source_->give_back(taken, block.size_bytes);
}

void CountingAllocator::allocate(MemoryCategory category, double bytes) {
  if (bytes <= 0) return;
  // With a source (the cuda backend's device pool) a block is a real allocation there. Without one it is
  // counted only: the cpu backend's kernels run on shared scratch and would never touch it, and a real host
  // block cost either an mmap and a munmap per buffer (about 2.5 ms of a 56 ms iteration on the build
  // machine) or, from the heap, fragmentation that made plans with the same tasks measure up to 17 % apart.
  Block block;
  block.size_bytes = static_cast<std::size_t>(std::ceil(bytes));
  block.counted_bytes = bytes;
  if (source_ != nullptr) block.source_block = source_->acquire(block.size_bytes);
  const std::lock_guard lock(mutex_);
  blocks_[index_of(category)].push_back(std::move(block));
  in_use_bytes_ += bytes;
  peak_bytes_ = std::max(peak_bytes_, in_use_bytes_);
}

void CountingAllocator::release(MemoryCategory category, double bytes) {
  if (bytes <= 0) return;
  const std::lock_guard lock(mutex_);
  std::vector<Block>& blocks = blocks_[index_of(category)];
  // A release of one whole buffer gives back that buffer: the newest block of exactly its size. Taking the
  // newest block instead shrank a buffer another stream had just taken (a prefetched gather) while the
  // released one stayed held: the device pool then held up to 4.6 % over the program's peak on an H100.
  for (auto it = blocks.rbegin(); it != blocks.rend(); ++it) {
    if (std::abs(it->counted_bytes - bytes) > 1e-6 * std::max(1.0, bytes)) continue;
    in_use_bytes_ -= it->counted_bytes;
    give_back(*it);
    blocks.erase(std::next(it).base());
    return;
  }
  double left = bytes;
  // Sums of doubles: what is left below a millionth of a byte per block is rounding, not a buffer.
  while (left > 1e-6 * static_cast<double>(blocks.size() + 1)) {
    if (blocks.empty()) {
      throw std::logic_error("counting allocator: " + std::string(to_string(category)) + " gives back " +
                             std::to_string(bytes) + " bytes, more than it holds");
    }
    Block& last = blocks.back();
    const double taken = std::min(left, last.counted_bytes);
    last.counted_bytes -= taken;
    left -= taken;
    in_use_bytes_ -= taken;
    if (last.counted_bytes <= 1e-6) {
      give_back(last);
      blocks.pop_back();
    }
  }
}

double CountingAllocator::in_use_bytes() const {
  const std::lock_guard lock(mutex_);
  return in_use_bytes_;
}

double CountingAllocator::peak_bytes() const {
  const std::lock_guard lock(mutex_);
  return peak_bytes_;
}

void CountingAllocator::reset_peak() {
  const std::lock_guard lock(mutex_);
  peak_bytes_ = in_use_bytes_;
}

}  // namespace shardscope::validate
