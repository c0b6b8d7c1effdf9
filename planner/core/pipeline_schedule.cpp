// Pipeline schedules op by op: each stage's order and the run of every stage's order with its times.
#include "planner/core/pipeline_schedule.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace shardscope {
namespace {

void check_counts(int stages, int virtual_stages, int stage, int micro_batches) {
  if (stages < 1 || virtual_stages < 1 || micro_batches < 1 || stage < 0 || stage >= stages)
    throw std::invalid_argument("pipeline_order: stage " + std::to_string(stage) + " of " +
                                std::to_string(stages) + ", " + std::to_string(virtual_stages) + " chunks, " +
                                std::to_string(micro_batches) + " micro-batches");
}

// Forwards first, then the remaining forwards and backwards in turn, then the remaining backwards.
std::vector<PipelineOp> one_forward_one_backward(const std::vector<PipelineOp>& forwards,
                                                 const std::vector<PipelineOp>& backwards, int warmup) {
  std::vector<PipelineOp> out(forwards.begin(), forwards.begin() + warmup);
  std::size_t next_forward = static_cast<std::size_t>(warmup), next_backward = 0;
  while (next_forward < forwards.size()) {
    out.push_back(forwards[next_forward++]);
    out.push_back(backwards[next_backward++]);
  }
  out.insert(out.end(), backwards.begin() + static_cast<long>(next_backward), backwards.end());
  return out;
}

}  // namespace

std::vector<PipelineOp> pipeline_order(PipelineSchedule schedule, int stages, int virtual_stages, int stage,
                                       int micro_batches) {
  check_counts(stages, virtual_stages, stage, micro_batches);
  const int v = schedule == PipelineSchedule::interleaved ? virtual_stages : 1;
  std::vector<PipelineOp> forwards, backwards;
  if (v == 1) {
    for (int i = 0; i < micro_batches; ++i) {
      forwards.push_back({i, 0, false});
      backwards.push_back({i, 0, true});
    }
  } else {
    if (micro_batches % stages != 0)
      throw std::invalid_argument("pipeline_order: " + std::to_string(micro_batches) +
                                  " micro-batches are not a multiple of " + std::to_string(stages) +
                                  " stages");
    const int group = stages * v;
    for (int k = 0; k < micro_batches * v; ++k) {
      const int micro_batch = (k / group) * stages + k % stages;
      const int chunk = (k % group) / stages;
      forwards.push_back({micro_batch, chunk, false});
      backwards.push_back({micro_batch, v - 1 - chunk, true});
    }
  }
  const int total = static_cast<int>(forwards.size());
  switch (schedule) {
    case PipelineSchedule::gpipe:
      return one_forward_one_backward(forwards, backwards, total);
    case PipelineSchedule::one_f_one_b:
      return one_forward_one_backward(forwards, backwards, std::min(stages - stage - 1, total));
    case PipelineSchedule::interleaved:
      return one_forward_one_backward(forwards, backwards,
                                      std::min(2 * (stages - stage - 1) + (v - 1) * stages, total));
  }
  throw std::invalid_argument("pipeline_order: unknown schedule");
}

int receiving_stage(const PipelineOp& op, int stage, int stages, int virtual_stages) {
  const int global = op.chunk * stages + stage;
  const int to = op.backward ? global - 1 : global + 1;
  return to >= 0 && to < stages * virtual_stages ? to % stages : -1;
}

double peak_in_flight(const std::vector<PipelineOp>& order, int virtual_stages) {
  long held = 0, peak = 0;
  for (const PipelineOp& op : order) {
    if (op.backward) {
      --held;
    } else {
      peak = std::max(peak, ++held);
    }
  }
  return static_cast<double>(peak) / std::max(virtual_stages, 1);
}

namespace {

constexpr double kNotYet = std::numeric_limits<double>::quiet_NaN();

// End times of every op, by global chunk and micro-batch.
struct Ends {
  int micro_batches = 0;
  std::vector<double> forward, backward;
  double& at(std::vector<double>& ends, int global_chunk, int micro_batch) {
    return ends[static_cast<std::size_t>(global_chunk) * static_cast<std::size_t>(micro_batches) +
                static_cast<std::size_t>(micro_batch)];
  }
};

}  // namespace

ScheduledPipeline run_pipeline_schedule(PipelineSchedule schedule, int virtual_stages, int micro_batches,
                                        const std::vector<StageDurations>& durations, double send_seconds,
                                        PipelineSends sends) {
  return run_pipeline_schedule(schedule, virtual_stages, micro_batches, durations,
                               std::vector<double>(durations.size(), send_seconds), sends);
}

int send_boundary(const PipelineOp& op, int stage, int stages, int virtual_stages) {
  return op.backward ? receiving_stage(op, stage, stages, virtual_stages) : stage;
}

ScheduledPipeline run_pipeline_schedule(PipelineSchedule schedule, int virtual_stages, int micro_batches,
                                        const std::vector<StageDurations>& durations,
                                        const std::vector<double>& send_seconds, PipelineSends sends) {
  const int p = static_cast<int>(durations.size());
  if (send_seconds.size() != durations.size())
    throw std::invalid_argument("run_pipeline_schedule: one send time per boundary, one boundary per stage");
  const auto boundary = [&](int b) { return send_seconds[static_cast<std::size_t>(b)]; };
  const int v = schedule == PipelineSchedule::interleaved ? virtual_stages : 1;
  const int chunks = p * v;
  std::vector<std::vector<PipelineOp>> orders;
  for (int r = 0; r < p; ++r) orders.push_back(pipeline_order(schedule, p, v, r, micro_batches));
  Ends ends{micro_batches,
            std::vector<double>(static_cast<std::size_t>(chunks) * static_cast<std::size_t>(micro_batches),
                                kNotYet),
            std::vector<double>(static_cast<std::size_t>(chunks) * static_cast<std::size_t>(micro_batches),
                                kNotYet)};
  ScheduledPipeline out;
  out.stages.resize(static_cast<std::size_t>(p));
  std::vector<double> free_at(static_cast<std::size_t>(p), 0.0);
  std::size_t left = 0;
  for (const auto& order : orders) left += order.size();
  while (left > 0) {
    std::size_t progressed = 0;
    for (int r = 0; r < p; ++r) {
      ScheduledStage& stage = out.stages[static_cast<std::size_t>(r)];
      const std::vector<PipelineOp>& order = orders[static_cast<std::size_t>(r)];
      const StageDurations& d = durations[static_cast<std::size_t>(r)];
      while (stage.ops.size() < order.size()) {
        const PipelineOp& op = order[stage.ops.size()];
        const int g = op.chunk * p + r;
        // The input: the neighbouring global chunk's op (sent), or this chunk's forward (the last chunk).
        double ready = 0;
        if (!op.backward && g > 0) {
          ready = ends.at(ends.forward, g - 1, op.micro_batch) + boundary((g - 1) % p);
        } else if (op.backward && g < chunks - 1) {
          ready = ends.at(ends.backward, g + 1, op.micro_batch) + boundary(r);
        } else if (op.backward) {
          ready = ends.at(ends.forward, g, op.micro_batch);
        }
        if (std::isnan(ready)) break;
        const double seconds = (op.backward ? d.backward_seconds : d.forward_seconds) / v;
        const double start = std::max(free_at[static_cast<std::size_t>(r)], ready);
        // A blocking send holds the stage until its output has arrived on the next stage.
        const int to = receiving_stage(op, r, p, v);
        const double send = to >= 0 ? boundary(send_boundary(op, r, p, v)) : 0.0;
        const double held = sends == PipelineSends::blocking ? send : 0.0;
        if (to >= 0) stage.sends.push_back({stage.ops.size(), to, start + seconds, start + seconds + send});
        free_at[static_cast<std::size_t>(r)] = start + seconds + held;
        ends.at(op.backward ? ends.backward : ends.forward, g, op.micro_batch) = start + seconds;
        stage.ops.push_back({op, start, start + seconds});
        stage.busy_seconds += seconds;
        ++progressed;
      }
    }
    if (progressed == 0)
      throw std::logic_error("run_pipeline_schedule: the stages' orders wait on each other");
    left -= progressed;
  }
  for (int r = 0; r < p; ++r) {
    ScheduledStage& stage = out.stages[static_cast<std::size_t>(r)];
    stage.tail_start_seconds = free_at[static_cast<std::size_t>(r)];
    stage.end_seconds = stage.tail_start_seconds + durations[static_cast<std::size_t>(r)].tail_seconds;
    stage.busy_seconds += durations[static_cast<std::size_t>(r)].tail_seconds;
    out.iteration_seconds = std::max(out.iteration_seconds, stage.end_seconds);
  }
  for (ScheduledStage& stage : out.stages) stage.idle_seconds = out.iteration_seconds - stage.busy_seconds;
  return out;
}

std::string op_label(const PipelineOp& op, int virtual_stages) {
  std::string out = (op.backward ? "B" : "F") + std::to_string(op.micro_batch);
  if (virtual_stages > 1) out += "." + std::to_string(op.chunk);
  return out;
}

}  // namespace shardscope
