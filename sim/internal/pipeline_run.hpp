// The schedule of a pipeline run on every GPU of every stage from SimGrid's callbacks: ops as timers, each
// op's output a flow to the same rank of the receiving stage.
#pragma once

#include <cstdint>
#include <deque>
#include <simgrid/s4u/Activity.hpp>
#include <vector>

#include "planner/core/pipeline_schedule.hpp"
#include "sim/internal/activity_holder.hpp"
#include "sim/platform.hpp"

namespace shardscope::sim {

struct PipelineRunShape {
  PipelineSchedule schedule = PipelineSchedule::one_f_one_b;
  int virtual_stages = 1;  // 1 unless interleaved
  int micro_batches = 1;
  int ranks_per_stage = 1;  // stage s's rank i is platform rank s x ranks_per_stage + i
  double send_bytes = 0;
  PipelineSends sends = PipelineSends::asynchronous;
};

// Runs the stages' orders like run_pipeline_schedule (pipeline_schedule.hpp), with each send a flow on the
// platform instead of a fixed time. Without actors: cursors advanced from timers and flow completions.
class PipelineRun {
 public:
  PipelineRun(const Platform& platform, const PipelineRunShape& shape, std::vector<StageDurations> stages);

  // Starts every GPU; call before the engine runs.
  void start();
  // SimGrid's completion signal: ours are the send flows.
  void on_completion(const simgrid::s4u::Activity& activity);

  const std::int64_t& finished_gpus() const { return finished_; }  // run_to_completion watches it
  std::int64_t gpus() const { return static_cast<std::int64_t>(cells_.size()); }
  std::int64_t sends() const { return sends_; }
  double mean_send_seconds() const { return sends_ > 0 ? send_seconds_ / static_cast<double>(sends_) : 0.0; }
  double slowest_send_seconds() const { return slowest_send_seconds_; }
  double started_at() const { return started_at_; }
  // Per stage: the latest end of its GPUs' tails and their mean busy time, from started_at().
  double stage_end_seconds(int stage) const;
  double stage_busy_seconds(int stage) const;
  // The run of each stage's first GPU (rank 0 of its data parallelism): ops, sends as their flows went, tail;
  // times from started_at().
  const ScheduledPipeline& first_ranks() const { return first_ranks_; }

 private:
  struct Cell {  // one GPU of one stage
    std::size_t cursor = 0;
    bool busy = false;
    bool waiting_send = false;  // a blocking send of its last op is under way
    bool done = false;
    double busy_seconds = 0;
    double end_seconds = 0;
  };
  struct Send {  // a flow in flight: where it lands and who waits on it
    int column = 0;
    std::size_t traced = 0;  // column 0: its index in first_ranks_'s sending stage's sends
    int from_stage = 0;
    int global_chunk = 0;  // the op it feeds
    int micro_batch = 0;
    bool backward = false;
    double start_seconds = 0;
  };
  Cell& cell(int stage, int column);
  std::vector<unsigned char>& ready(int column, bool backward);
  std::size_t ready_index(int global_chunk, int micro_batch) const;
  void advance(int stage, int column);
  void end_op(int stage, int column, PipelineOp op);
  void send(int stage, int column, const PipelineOp& op, int to_stage);

  const Platform& platform_;
  PipelineRunShape shape_;
  std::vector<StageDurations> durations_;
  int stages_ = 0;
  int chunks_ = 0;
  std::vector<std::vector<PipelineOp>> orders_;
  std::vector<Cell> cells_;  // stage-major
  // Per column: whether each global chunk's op of each micro-batch has its input (forward, backward).
  std::vector<std::vector<unsigned char>> forward_ready_, backward_ready_;
  std::deque<Send> sends_in_flight_;  // every flow's Send, its data points at it (a deque: stable)
  ActivityHolder holder_;
  std::int64_t finished_ = 0;
  std::int64_t sends_ = 0;
  double send_seconds_ = 0;
  double slowest_send_seconds_ = 0;
  double started_at_ = 0;
  ScheduledPipeline first_ranks_;
};

}  // namespace shardscope::sim
