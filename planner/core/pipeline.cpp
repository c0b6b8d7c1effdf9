// Pipeline schedules: in-flight micro-batches, the bubble and the composed iteration time.
#include "planner/core/pipeline.hpp"

#include <algorithm>

namespace shardscope {

double in_flight_micro_batches(PipelineSchedule schedule, int stages, int virtual_stages, int stage,
                               int micro_batches) {
  switch (schedule) {
    case PipelineSchedule::gpipe:
      return micro_batches;
    case PipelineSchedule::one_f_one_b:
      return std::min(stages - stage, micro_batches);
    case PipelineSchedule::interleaved: {
      const long chunks = 2L * (stages - stage - 1) + static_cast<long>(virtual_stages - 1) * stages + 1;
      const long most = static_cast<long>(micro_batches) * virtual_stages;
      return static_cast<double>(std::min(chunks, most)) / virtual_stages;
    }
  }
  return micro_batches;
}

std::vector<LayerRange> interleaved_chunks(int layers, int stages, int virtual_stages, int stage) {
  const int chunks = stages * virtual_stages;
  const int length = layers / chunks;
  const int longer = layers % chunks;
  std::vector<LayerRange> out;
  for (int k = stage; k < chunks; k += stages)
    out.push_back({k * length + std::min(k, longer), length + (k < longer ? 1 : 0)});
  return out;
}

double receive_buffers_beyond_activations(PipelineSchedule schedule, int stages, int virtual_stages,
                                          int stage, int micro_batches) {
  if (stages <= 1) return 0;
  const int v = schedule == PipelineSchedule::interleaved ? virtual_stages : 1;
  const double receiving_activations = v - (stage == 0 ? 1 : 0);
  const double receiving_gradients = v - (stage == stages - 1 ? 1 : 0);
  const double held_chunks = in_flight_micro_batches(schedule, stages, v, stage, micro_batches) * v;
  const double counted =
      std::min(receiving_activations * micro_batches, held_chunks * receiving_activations / v);
  return (receiving_activations + receiving_gradients) * micro_batches - counted;
}

double bubble_fraction(PipelineSchedule schedule, int stages, int virtual_stages, int micro_batches) {
  const double v = schedule == PipelineSchedule::interleaved ? virtual_stages : 1;
  return (stages - 1) / (v * micro_batches);
}

int boundary_sends_per_micro_batch(int stages, int virtual_stages, int stage) {
  if (stages <= 1) return 0;
  return 2 * virtual_stages - (stage == 0 ? 1 : 0) - (stage == stages - 1 ? 1 : 0);
}

double pipeline_iteration_seconds(PipelineSchedule schedule, int virtual_stages, int micro_batches,
                                  const std::vector<StageTiming>& timings, double boundary_seconds) {
  const int p = static_cast<int>(timings.size());
  const int v = schedule == PipelineSchedule::interleaved ? virtual_stages : 1;
  double first_way = 2.0 * (p - 1) * boundary_seconds;
  double slowest_step = 0;
  double longest_tail = 0;
  for (int r = 0; r < p; ++r) {
    const StageTiming& t = timings[static_cast<std::size_t>(r)];
    first_way += t.step_seconds / v;
    slowest_step =
        std::max(slowest_step, t.step_seconds + boundary_sends_per_micro_batch(p, v, r) * boundary_seconds);
    longest_tail = std::max(longest_tail, t.tail_seconds);
  }
  return first_way + (micro_batches - 1.0 / v) * slowest_step + longest_tail;
}

}  // namespace shardscope
