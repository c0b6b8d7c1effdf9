// Pipeline parallelism: the schedules, the micro-batches a stage keeps in flight, the bubble, and the
// iteration time of a pipeline's stages composed by a schedule.
#pragma once

#include <vector>

#include "planner/core/names.hpp"

namespace shardscope {

enum class PipelineSchedule { gpipe, one_f_one_b, interleaved };

template <>
struct EnumNames<PipelineSchedule> {
  static constexpr NameEntry<PipelineSchedule> table[] = {
      {PipelineSchedule::gpipe, "gpipe", "every micro-batch's forward, then every backward (GPipe)"},
      {PipelineSchedule::one_f_one_b, "1f1b",
       "one forward, one backward in the steady state (PipeDream-Flush)"},
      {PipelineSchedule::interleaved, "interleaved",
       "1F1B over virtual_stages model chunks per GPU (Megatron-LM's interleaved schedule)"},
  };
};

// One pipeline stage of a scenario the pipeline search made (stages 1: no pipeline). The cost model keeps
// in_flight_micro_batches micro-batches' activations for backward instead of one.
struct PipelineStage {
  int stages = 1;
  int index = 0;  // 0: the stage holding the embedding
  double in_flight_micro_batches = 1;
  // Bytes the runtime's receive buffers hold beyond the activations counted (receive_buffers_beyond_
  // activations x one boundary tensor, under RuntimeProfile::pipeline_keeps_receive_buffers; else 0): held
  // all iteration, priced with the runtime reserve.
  double receive_buffer_bytes = 0;
  bool pipelined() const { return stages > 1; }
};

// A run of consecutive layers.
struct LayerRange {
  int first = 0;
  int layers = 0;
};

// The interleaved schedule's model chunks of stage `stage`: the layers cut into stages x virtual_stages
// chunks as evenly as they go (the first layers mod chunks one layer longer), chunk k on stage k mod stages.
std::vector<LayerRange> interleaved_chunks(int layers, int stages, int virtual_stages, int stage);

// The micro-batches whose activations stage `stage` (0-based) of `stages` holds at its peak, of
// `micro_batches` per iteration: GPipe all of them; 1F1B min(stages - stage, micro_batches); interleaved,
// in units of the stage's whole model, the model chunks Megatron-LM's schedule runs forward before its first
// backward plus one, 2 (stages - stage - 1) + (virtual_stages - 1) stages + 1 (at most micro_batches x
// virtual_stages), divided by virtual_stages.
double in_flight_micro_batches(PipelineSchedule schedule, int stages, int virtual_stages, int stage,
                               int micro_batches);

// The receive buffers PyTorch's pipeline stage keeps all iteration (stage.py, _prepare_forward_infra and
// _prepare_backward_infra: one per micro-batch and model chunk for the activation it receives, unless the
// chunk is the model's first, and one for the gradient it receives, unless the chunk is the model's last),
// less those the stage's activations already count (the received inputs of the micro-batches in flight, in
// proportion to the chunks that receive one), in boundary tensors.
double receive_buffers_beyond_activations(PipelineSchedule schedule, int stages, int virtual_stages,
                                          int stage, int micro_batches);

// The bubble's share of the ideal time: (stages - 1) / micro_batches, interleaved (stages - 1) /
// (virtual_stages x micro_batches).
double bubble_fraction(PipelineSchedule schedule, int stages, int virtual_stages, int micro_batches);

// One stage's times for one micro-batch of the steady state: its forward and backward (with the data-parallel
// collectives its plan waits for in a micro-step), and what its iteration adds once (the last micro-step's
// gradient reductions and the optimizer update). forward_seconds is the forward's part of step_seconds (the
// step split as its compute splits; pipeline_schedule.hpp runs forwards and backwards apart).
struct StageTiming {
  double step_seconds = 0;
  double tail_seconds = 0;
  double forward_seconds = 0;
};

// Activation or gradient sends a stage makes per micro-batch: one per model chunk and direction that has a
// neighbour (2 virtual_stages, less the first stage's backward send and the last stage's forward send).
int boundary_sends_per_micro_batch(int stages, int virtual_stages, int stage);

// The iteration of `timings` (one per stage, in order) under the schedule, each send taking
// boundary_seconds: the first micro-batch's way through every stage and back (its steps, divided among the
// virtual stages, and 2 (stages - 1) sends), then micro_batches - 1 / virtual_stages steps of the slowest
// stage with its sends, then the longest tail. Uniform stages without sends: (m + p - 1) t for GPipe and
// 1F1B, (m + (p - 1) / v) t interleaved. A closed form the tests check the op-by-op run against
// (pipeline_schedule.hpp, what the search prices): above it where every stage's forward is the same share of
// its step, possibly below where the shares differ.
double pipeline_iteration_seconds(PipelineSchedule schedule, int virtual_stages, int micro_batches,
                                  const std::vector<StageTiming>& timings, double boundary_seconds);

}  // namespace shardscope
