// The pipeline schedule's run on the platform: per GPU a cursor over its stage's order, ops as timers, sends
// as flows between the same ranks of neighbouring stages.
#include "sim/internal/pipeline_run.hpp"

#include <algorithm>
#include <simgrid/kernel/Timer.hpp>
#include <simgrid/s4u.hpp>
#include <utility>

namespace sg4 = simgrid::s4u;

namespace shardscope::sim {

PipelineRun::PipelineRun(const Platform& platform, const PipelineRunShape& shape,
                         std::vector<StageDurations> stages)
    : platform_(platform),
      shape_(shape),
      durations_(std::move(stages)),
      stages_(static_cast<int>(durations_.size())),
      chunks_(stages_ * shape.virtual_stages) {
  for (int s = 0; s < stages_; ++s)
    orders_.push_back(pipeline_order(shape.schedule, stages_, shape.virtual_stages, s, shape.micro_batches));
  cells_.resize(static_cast<std::size_t>(stages_) * static_cast<std::size_t>(shape.ranks_per_stage));
  const std::size_t entries =
      static_cast<std::size_t>(chunks_) * static_cast<std::size_t>(shape.micro_batches);
  forward_ready_.assign(static_cast<std::size_t>(shape.ranks_per_stage),
                        std::vector<unsigned char>(entries, 0));
  backward_ready_ = forward_ready_;
  first_ranks_.stages.resize(static_cast<std::size_t>(stages_));
  for (std::vector<unsigned char>& column : forward_ready_)  // the first chunk's forwards need no input
    for (int mb = 0; mb < shape.micro_batches; ++mb) column[ready_index(0, mb)] = 1;
}

PipelineRun::Cell& PipelineRun::cell(int stage, int column) {
  return cells_[static_cast<std::size_t>(stage) * static_cast<std::size_t>(shape_.ranks_per_stage) +
                static_cast<std::size_t>(column)];
}

std::vector<unsigned char>& PipelineRun::ready(int column, bool backward) {
  return (backward ? backward_ready_ : forward_ready_)[static_cast<std::size_t>(column)];
}

std::size_t PipelineRun::ready_index(int global_chunk, int micro_batch) const {
  return static_cast<std::size_t>(global_chunk) * static_cast<std::size_t>(shape_.micro_batches) +
         static_cast<std::size_t>(micro_batch);
}

void PipelineRun::start() {
  started_at_ = sg4::Engine::get_clock();
  for (int s = 0; s < stages_; ++s)
    for (int c = 0; c < shape_.ranks_per_stage; ++c) advance(s, c);
}

void PipelineRun::advance(int stage, int column) {
  Cell& me = cell(stage, column);
  if (me.busy || me.waiting_send || me.done) return;
  const std::vector<PipelineOp>& order = orders_[static_cast<std::size_t>(stage)];
  const StageDurations& d = durations_[static_cast<std::size_t>(stage)];
  const double now = sg4::Engine::get_clock();
  if (me.cursor == order.size()) {  // every op done: the tail
    me.busy = true;
    me.busy_seconds += d.tail_seconds;
    if (column == 0)
      first_ranks_.stages[static_cast<std::size_t>(stage)].tail_start_seconds = now - started_at_;
    simgrid::kernel::timer::Timer::set(now + d.tail_seconds, [this, stage, column] {
      Cell& c = cell(stage, column);
      c.busy = false;
      c.done = true;
      c.end_seconds = sg4::Engine::get_clock() - started_at_;
      if (column == 0) first_ranks_.stages[static_cast<std::size_t>(stage)].end_seconds = c.end_seconds;
      ++finished_;
    });
    return;
  }
  const PipelineOp op = order[me.cursor];
  const int g = op.chunk * stages_ + stage;
  if (ready(column, op.backward)[ready_index(g, op.micro_batch)] == 0) return;  // its input is on its way
  ++me.cursor;
  me.busy = true;
  const double seconds = (op.backward ? d.backward_seconds : d.forward_seconds) / shape_.virtual_stages;
  me.busy_seconds += seconds;
  if (column == 0)
    first_ranks_.stages[static_cast<std::size_t>(stage)].ops.push_back(
        {op, now - started_at_, now + seconds - started_at_});
  simgrid::kernel::timer::Timer::set(now + seconds, [this, stage, column, op] { end_op(stage, column, op); });
}

void PipelineRun::end_op(int stage, int column, PipelineOp op) {
  Cell& me = cell(stage, column);
  me.busy = false;
  const int g = op.chunk * stages_ + stage;
  if (!op.backward && g == chunks_ - 1) ready(column, true)[ready_index(g, op.micro_batch)] = 1;
  const int to = receiving_stage(op, stage, stages_, shape_.virtual_stages);
  if (to >= 0) {
    send(stage, column, op, to);
    me.waiting_send = shape_.sends == PipelineSends::blocking;
  }
  advance(stage, column);
}

void PipelineRun::send(int stage, int column, const PipelineOp& op, int to_stage) {
  const int g = op.chunk * stages_ + stage;
  Send& s = sends_in_flight_.emplace_back();
  s.column = column;
  s.from_stage = stage;
  s.global_chunk = op.backward ? g - 1 : g + 1;
  s.micro_batch = op.micro_batch;
  s.backward = op.backward;
  s.start_seconds = sg4::Engine::get_clock();
  if (column == 0) {
    ScheduledStage& traced = first_ranks_.stages[static_cast<std::size_t>(stage)];
    s.traced = traced.sends.size();
    traced.sends.push_back({traced.ops.size() - 1, to_stage, s.start_seconds - started_at_, 0.0});
  }
  const int from = stage * shape_.ranks_per_stage + column;
  const int to = to_stage * shape_.ranks_per_stage + column;
  sg4::CommPtr flow = sg4::Comm::sendto_init(platform_.host(from), platform_.host(to));
  flow->set_payload_size(static_cast<std::uint64_t>(shape_.send_bytes));
  flow->set_data(&s);
  flow->start();
  holder_.started(flow);
}

void PipelineRun::on_completion(const sg4::Activity& activity) {
  holder_.completed(activity);
  auto* s = activity.get_data<Send>();
  if (s == nullptr) return;
  const double seconds = sg4::Engine::get_clock() - s->start_seconds;
  if (s->column == 0)
    first_ranks_.stages[static_cast<std::size_t>(s->from_stage)].sends[s->traced].end_seconds =
        sg4::Engine::get_clock() - started_at_;
  ++sends_;
  send_seconds_ += seconds;
  slowest_send_seconds_ = std::max(slowest_send_seconds_, seconds);
  ready(s->column, s->backward)[ready_index(s->global_chunk, s->micro_batch)] = 1;
  const int receiver = s->global_chunk % stages_;
  if (shape_.sends == PipelineSends::blocking) {
    cell(s->from_stage, s->column).waiting_send = false;
    advance(s->from_stage, s->column);
  }
  advance(receiver, s->column);
}

double PipelineRun::stage_end_seconds(int stage) const {
  double end = 0;
  for (int c = 0; c < shape_.ranks_per_stage; ++c)
    end = std::max(end, cells_[static_cast<std::size_t>(stage * shape_.ranks_per_stage + c)].end_seconds);
  return end;
}

double PipelineRun::stage_busy_seconds(int stage) const {
  double busy = 0;
  for (int c = 0; c < shape_.ranks_per_stage; ++c)
    busy += cells_[static_cast<std::size_t>(stage * shape_.ranks_per_stage + c)].busy_seconds;
  return busy / shape_.ranks_per_stage;
}

}  // namespace shardscope::sim
