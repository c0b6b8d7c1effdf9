// BatchRow: what the planner found at one batch size of one strategy (reported to observers and in JSON).
#pragma once

#include <cstdint>
#include <string_view>

namespace shardscope {

enum class BatchStatus {
  solved,        // a plan fits; the row carries its time, throughput and peak memory
  pruned,        // the LP bound shows this batch cannot beat the best so far
  does_not_fit,  // no plan of the space fits the memory limit (the scan stops here)
};

// The JSON and table spelling: "solved", "pruned", "does-not-fit".
std::string_view batch_status_name(BatchStatus status);

struct BatchRow {
  std::int64_t micro_batch = 0;
  int gradient_accumulation_steps = 1;
  BatchStatus status = BatchStatus::does_not_fit;
  double iteration_seconds = 0;    // when solved
  double samples_per_second = 0;   // when solved
  double peak_memory_bytes = 0;    // when solved, runtime reserve included
  double lower_bound_seconds = 0;  // when solved or pruned
  bool operator==(const BatchRow&) const = default;
};

}  // namespace shardscope
