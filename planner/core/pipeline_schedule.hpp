// A pipeline schedule run op by op: each stage's order of forwards and backwards (GPipe, 1F1B, PyTorch's and
// Megatron-LM's interleaved 1F1B), executed with each stage's times and the sends between stages, so that the
// bubble can be seen and the closed form of pipeline.hpp checked.
#pragma once

#include <string>
#include <vector>

#include "planner/core/pipeline.hpp"

namespace shardscope {

// One forward or backward of one model chunk of one micro-batch on one stage.
struct PipelineOp {
  int micro_batch = 0;
  int chunk =
      0;  // the stage's model chunk (0 .. virtual_stages - 1); its global chunk is chunk x stages + stage
  bool backward = false;
};

// The order stage `stage` of `stages` runs its ops in. GPipe: every forward, then every backward, in
// micro-batch order. 1F1B: min(stages - stage - 1, m) forwards, then a forward and a backward in turn, then
// the remaining backwards. Interleaved (virtual_stages chunks, micro-batches a multiple of the stages): 2
// (stages - stage - 1) + (virtual_stages - 1) stages forwards (at most every chunk of every micro-batch),
// then in turn; forward k runs chunk (k / stages) mod v of micro-batch (k / (stages v)) stages + k mod
// stages, backward k the chunks in reverse (PyTorch's ScheduleInterleaved1F1B and Megatron-LM's
// forward_backward_pipelining_with_interleaving, without Megatron's all-forwards case at m = stages).
// Throws std::invalid_argument for counts the schedule cannot run (micro_batches_refusal says why first).
std::vector<PipelineOp> pipeline_order(PipelineSchedule schedule, int stages, int virtual_stages, int stage,
                                       int micro_batches);

// The stage (0-based) an op of stage `stage` sends its output to, the neighbouring global chunk's (a forward
// to the next, a backward to the one before; chunk c of stage r is global chunk c x stages + r), or -1 for
// the model's last chunk's forward and first chunk's backward, which send nothing.
int receiving_stage(const PipelineOp& op, int stage, int stages, int virtual_stages);

// The most model chunks' activations a stage holds at once under `order` (a forward takes one before it
// runs, a backward gives it back after), in units of the stage's whole model (chunks / virtual_stages).
double peak_in_flight(const std::vector<PipelineOp>& order, int virtual_stages);

// A stage's times for one micro-batch through its whole model (every chunk), and what it runs once after its
// last backward (gradient reductions and the optimizer update).
struct StageDurations {
  double forward_seconds = 0;
  double backward_seconds = 0;
  double tail_seconds = 0;
};

struct ScheduledOp {
  PipelineOp op;
  double start_seconds = 0;
  double end_seconds = 0;
};

// The send an op made: from its end until its output arrived on the receiving stage.
struct ScheduledSend {
  std::size_t op = 0;  // index into the stage's ops
  int to_stage = 0;
  double start_seconds = 0;
  double end_seconds = 0;
};

struct ScheduledStage {
  std::vector<ScheduledOp> ops;      // in the stage's order
  std::vector<ScheduledSend> sends;  // in the order of the ops that made them
  double tail_start_seconds = 0;
  double end_seconds = 0;   // its tail's end
  double busy_seconds = 0;  // forwards, backwards and tail
  double idle_seconds = 0;  // the bubble: end_seconds less busy_seconds, its wait for the last stage's end
};

struct ScheduledPipeline {
  std::vector<ScheduledStage> stages;
  double iteration_seconds = 0;  // the last stage to end
};

// How a stage sends an activation or its gradient to the next stage: `asynchronous`, posted and left to run
// while the stage goes on (PyTorch's pipelining schedules batch isend and wait on receives only); `blocking`,
// the stage waits until it has arrived (DeepSpeed's PipelineEngine, Megatron-LM without p2p overlap).
enum class PipelineSends { asynchronous, blocking };

// Runs every stage's order: an op starts when its stage has finished the one before (and the send that op
// made, when sends block) and its input has arrived, send_seconds after the op it needs ended on the
// neighbouring stage (a forward needs the previous global chunk's forward of its micro-batch, a backward the
// next chunk's backward; the last chunk's backward its own forward). Each chunk takes 1 / virtual_stages of
// its stage's times. Stages then wait for the slowest: iteration_seconds is the latest tail's end.
ScheduledPipeline run_pipeline_schedule(PipelineSchedule schedule, int virtual_stages, int micro_batches,
                                        const std::vector<StageDurations>& stages, double send_seconds,
                                        PipelineSends sends = PipelineSends::asynchronous);
// The same with one send time per boundary: send_seconds[s] between stage s and (s + 1) mod stages, either
// way (send_boundary). Throws std::invalid_argument unless there is one per stage.
ScheduledPipeline run_pipeline_schedule(PipelineSchedule schedule, int virtual_stages, int micro_batches,
                                        const std::vector<StageDurations>& stages,
                                        const std::vector<double>& send_seconds,
                                        PipelineSends sends = PipelineSends::asynchronous);

// The boundary an op's send crosses: a forward's from its stage to the next, a backward's from the stage
// before it (the receiver) to its own; meaningful where receiving_stage is not -1.
int send_boundary(const PipelineOp& op, int stage, int stages, int virtual_stages);

// "F3" or "B3" ("F3.1" for chunk 1 of micro-batch 3 under the interleaved schedule).
std::string op_label(const PipelineOp& op, int virtual_stages);

}  // namespace shardscope
