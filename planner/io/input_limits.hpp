// Limits on one input file (scenario, cluster, calibration, plan, Hugging Face config): they bound the memory
// a parser may take, whatever the file holds (docs/scenarios.md, "Limits").
#pragma once

#include <cstddef>
#include <cstdint>

namespace shardscope {

// Bytes of one input file: a 20,000-operator scenario takes about 2 MB.
inline constexpr std::uintmax_t kMaxInputFileBytes = std::uintmax_t{32} << 20;  // 32 MiB
inline constexpr const char* kMaxInputFileText = "32 MiB";

// YAML nodes (keys, values, list items) or JSON values of one file, counted before the tree is built: a
// parsed node costs yaml-cpp about 500 bytes, so the limit keeps a tree near 500 MB (a 20,000-operator
// scenario has about 100,000 to 500,000 nodes).
inline constexpr std::size_t kMaxInputNodes = 1'000'000;

// Lists and mappings (JSON arrays and objects) nested inside each other: far more than any input needs, and
// far below what would make a parser recurse or copy paths per level ("nesting too deep" names this limit).
inline constexpr int kMaxNestingDepth = 64;

}  // namespace shardscope
