// The cpu-mpi pipeline run: each rank its stage's program, op by op in the schedule's order, MPI point to
// point between the stages' ranks, Eigen for the products and the stage's own MPI groups for its tail.
#include "validate/cpu/pipeline_run.hpp"

#include <mpi.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>

#include "planner/core/mesh.hpp"
#include "planner/core/pipeline_schedule.hpp"
#include "planner/program/iteration_program.hpp"
#include "planner/report/pipeline_search.hpp"
#include "validate/core/poll.hpp"
#include "validate/cpu/cpu_backend.hpp"
#include "validate/mpi/bench_mpi.hpp"
#include "validate/mpi/mpi_comm.hpp"

namespace shardscope::validate {
namespace {

// Why the harness cannot run `option` on `world` ranks (empty when it can).
std::string refusal(const PipelineSearch& search, const PipelineOption& option, int world) {
  if (search.schedule == PipelineSchedule::interleaved)
    return "the interleaved schedule is not run by the harness (GPipe and 1F1B are)";
  if (option.slice.degree > 1 || option.slice.context > 1)
    return "tensor and context parallelism are not run by the harness (its stages are data parallel)";
  const int gpus = option.stages * option.data_parallel;
  if (world != gpus)
    return "the pipeline runs on " + std::to_string(gpus) + " ranks and " + std::to_string(world) +
           " were launched (mpirun -n " + std::to_string(gpus) + ")";
  if (option.micro_batches > 16000)
    return std::to_string(option.micro_batches) + " micro-batches are more than the 16,000 MPI's tags number";
  return "";
}

// One rank's stage: its program, each task's work, its forward, backward and tail tasks.
struct StageRun {
  IterationProgram program;
  std::vector<KernelWork> work;
  std::vector<std::size_t> forward, backward, tail;
};

// A micro-step splits where its first backward (or recompute) begins: the tasks before it, both streams in
// program order, are the forward; the rest the backward. The tasks after the micro-steps are the tail.
StageRun stage_run(const PipelineStagePlan& stage, const Calibration& calibration, const WorkScale& scale) {
  const ValidScenario& v = *stage.scenario;
  StageRun out;
  out.program = build_iteration_program(v, calibration, stage.plan.plan, program_options(v.execution));
  std::size_t split = out.program.step_tasks;
  for (std::size_t i = 0; i < out.program.step_tasks; ++i) {
    const Task& t = out.program.tasks[i];
    if (t.stream == Task::Stream::compute && t.phase != Task::Phase::forward) {
      split = i;
      break;
    }
  }
  for (std::size_t i = 0; i < out.program.tasks.size(); ++i) {
    out.work.push_back(kernel_work(v.model, out.program.tasks[i], scale));
    (i >= out.program.step_tasks ? out.tail : i < split ? out.forward : out.backward).push_back(i);
  }
  return out;
}

// Waits for `request` at most `timeout_seconds`, else ExecutionError naming `what`.
void wait_for(MPI_Request& request, double timeout_seconds, const std::string& what) {
  const bool done = poll_until(
      [&] {
        int flag = 0;
        SHARDSCOPE_MPI_CHECK(MPI_Test(&request, &flag, MPI_STATUS_IGNORE));
        return flag != 0;
      },
      timeout_seconds, PollRest::yield);
  if (!done)
    throw ExecutionError(what + " did not complete within " + std::to_string(timeout_seconds) + " s");
}

// One rank of the pipeline: its place, its stage's work and backend, its buffers and counters.
class RankRun {
 public:
  RankRun(const PipelineSearch& search, const PipelineOption& option, const Calibration& calibration,
          const PipelineRunOptions& options, int rank)
      : option_(option),
        options_(options),
        rank_(rank),
        ranks_per_stage_(option.data_parallel),
        stage_(rank / option.data_parallel),
        order_(pipeline_order(search.schedule, option.stages, 1, stage_, option.micro_batches)),
        blocking_(option.stage_plans[0].scenario->execution.runtime.pipeline_sends_block),
        run_(stage_run(option.stage_plans[static_cast<std::size_t>(stage_)], calibration,
                       {option.micro_batch, options.compute_scale})),
        buffer_(static_cast<std::size_t>(std::max(1.0, option.boundary_bytes * options.compute_scale))),
        inputs_(order_.size()) {
    SHARDSCOPE_MPI_CHECK(MPI_Comm_split(MPI_COMM_WORLD, stage_, rank, &stage_comm_));
    groups_ = std::make_unique<MpiGroups>(option.stage_plans[0].scenario->training.group_size, stage_comm_);
    backend_ = std::make_unique<CpuBackend>(*groups_, buffers_, options.timeout_seconds, FaultInjection{});
    backend_->reserve(run_.program, run_.work);
  }
  ~RankRun() {
    backend_.reset();
    groups_.reset();
    if (stage_comm_ != MPI_COMM_NULL) MPI_Comm_free(&stage_comm_);
  }
  RankRun(const RankRun&) = delete;
  RankRun& operator=(const RankRun&) = delete;

  int stage() const { return stage_; }

  // One iteration from a barrier; `result` adds its op and tail times when `measured`.
  void iterate(bool measured, PipelineRankRun& result) {
    post_receives();  // before the barrier: every send finds its receive posted, so none waits on a receiver
    SHARDSCOPE_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    const double start = now_seconds();
    std::vector<MPI_Request> sends;
    double forward = 0, backward = 0, waiting = 0;
    for (std::size_t i = 0; i < order_.size(); ++i) {
      const PipelineOp& op = order_[i];
      if (receives_[i] != MPI_REQUEST_NULL) waiting += receive(op, i);
      const double began = now_seconds();
      run_tasks(op.backward ? run_.backward : run_.forward);
      (op.backward ? backward : forward) += now_seconds() - began;
      const int to = receiving_stage(op, stage_, option_.stages, 1);
      if (to >= 0) waiting += send(op, to, sends);
    }
    const double drained = now_seconds();
    for (MPI_Request& r : sends) wait_for(r, options_.timeout_seconds, "a send to the next stage");
    waiting += now_seconds() - drained;
    const double tail_began = now_seconds();
    run_tasks(run_.tail);
    const double end = now_seconds();
    if (!measured) return;
    const double m = option_.micro_batches;
    result.iteration_seconds.push_back(end - start);
    result.forward_seconds += forward / m;
    result.backward_seconds += backward / m;
    result.tail_seconds += end - tail_began;
    result.waiting_seconds += waiting;
    result.ops = static_cast<int>(order_.size());
    result.sends = static_cast<int>(sends.size());
  }

 private:
  // The tasks in program order on this thread: products on the kernels, collectives on the stage's groups
  // (every rank of the stage runs the same ops in the same order, so its collectives meet).
  void run_tasks(const std::vector<std::size_t>& tasks) {
    for (const std::size_t i : tasks) {
      const Task& t = run_.program.tasks[i];
      if (t.stream == Task::Stream::comm) {
        backend_->run_collective(t);
      } else {
        backend_->run_compute(run_.work[i]);
      }
    }
  }

  int peer(int stage) const { return stage * ranks_per_stage_ + rank_ % ranks_per_stage_; }
  static int tag(const PipelineOp& op) { return 2 * op.micro_batch + (op.backward ? 1 : 0); }

  // The stage an op's input comes from, or -1 (the model's first forward, the last stage's backwards).
  int source(const PipelineOp& op) const {
    const int from = op.backward ? stage_ + 1 : stage_ - 1;
    return from >= 0 && from < option_.stages ? from : -1;
  }

  // Every input of the iteration's ops, each into its own buffer (as the simulator's flows arrive whether or
  // not the receiver has reached the op: a blocking send then waits for the wire only, never on a receiver
  // that waits on it in turn).
  void post_receives() {
    receives_.assign(order_.size(), MPI_REQUEST_NULL);
    for (std::size_t i = 0; i < order_.size(); ++i) {
      const int from = source(order_[i]);
      if (from < 0) continue;
      std::vector<char>& into = inputs_[i];
      into.resize(buffer_.size());
      SHARDSCOPE_MPI_CHECK(MPI_Irecv(into.data(), static_cast<int>(into.size()), MPI_BYTE, peer(from),
                                     tag(order_[i]), MPI_COMM_WORLD, &receives_[i]));
    }
  }

  // Waits for op `index`'s input; the seconds it waited.
  double receive(const PipelineOp& op, std::size_t index) {
    const double began = now_seconds();
    wait_for(receives_[index], options_.timeout_seconds,
             std::string(op.backward ? "the gradient" : "the activation") + " of micro-batch " +
                 std::to_string(op.micro_batch) + " from stage " + std::to_string(source(op) + 1));
    return now_seconds() - began;
  }

  // Sends the op's output to stage `to`: posted, or (blocking sends) waited for; the seconds it waited.
  double send(const PipelineOp& op, int to, std::vector<MPI_Request>& sends) {
    MPI_Request request = MPI_REQUEST_NULL;
    SHARDSCOPE_MPI_CHECK(MPI_Isend(buffer_.data(), static_cast<int>(buffer_.size()), MPI_BYTE, peer(to),
                                   tag(op), MPI_COMM_WORLD, &request));
    sends.push_back(request);
    if (!blocking_) return 0;
    const double began = now_seconds();
    wait_for(sends.back(), options_.timeout_seconds, "a send to stage " + std::to_string(to + 1));
    return now_seconds() - began;
  }

  const PipelineOption& option_;
  PipelineRunOptions options_;
  int rank_, ranks_per_stage_, stage_;
  std::vector<PipelineOp> order_;
  bool blocking_;
  StageRun run_;
  std::vector<char> buffer_;               // every send's (its contents are not read)
  std::vector<std::vector<char>> inputs_;  // per op of the order: its input's
  std::vector<MPI_Request> receives_;      // per op: its posted receive (MPI_REQUEST_NULL: none)
  MPI_Comm stage_comm_ = MPI_COMM_NULL;
  std::unique_ptr<MpiGroups> groups_;
  CpuBuffers buffers_;
  std::unique_ptr<CpuBackend> backend_;
};

// Every rank's result on rank 0 (the others keep their own).
std::vector<PipelineRankRun> gather(const PipelineRankRun& mine, int iterations, int ranks_per_stage) {
  std::vector<double> row = {static_cast<double>(mine.stage),
                             mine.forward_seconds,
                             mine.backward_seconds,
                             mine.tail_seconds,
                             mine.waiting_seconds,
                             static_cast<double>(mine.ops),
                             static_cast<double>(mine.sends)};
  row.insert(row.end(), mine.iteration_seconds.begin(), mine.iteration_seconds.end());
  const int world = world_size();
  std::vector<double> all(row.size() * static_cast<std::size_t>(world));
  SHARDSCOPE_MPI_CHECK(MPI_Gather(row.data(), static_cast<int>(row.size()), MPI_DOUBLE, all.data(),
                                  static_cast<int>(row.size()), MPI_DOUBLE, 0, MPI_COMM_WORLD));
  if (world_rank() != 0) return {mine};
  std::vector<PipelineRankRun> out;
  for (int r = 0; r < world; ++r) {
    const double* x = all.data() + static_cast<std::size_t>(r) * row.size();
    PipelineRankRun run;
    run.rank = r;
    run.stage = static_cast<int>(x[0]);
    run.data_parallel_rank = r % ranks_per_stage;
    run.forward_seconds = x[1];
    run.backward_seconds = x[2];
    run.tail_seconds = x[3];
    run.waiting_seconds = x[4];
    run.ops = static_cast<int>(x[5]);
    run.sends = static_cast<int>(x[6]);
    run.iteration_seconds.assign(x + 7, x + 7 + iterations);
    out.push_back(std::move(run));
  }
  return out;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n == 0 ? 0.0 : n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// The schedule run over each stage's measured forward, backward and tail (means over its ranks).
double composed(const PipelineSearch& search, const PipelineRun& run) {
  std::vector<StageDurations> stages(static_cast<std::size_t>(run.stages));
  for (const PipelineRankRun& r : run.ranks) {
    StageDurations& d = stages[static_cast<std::size_t>(r.stage)];
    d.forward_seconds += r.forward_seconds / run.data_parallel;
    d.backward_seconds += r.backward_seconds / run.data_parallel;
    d.tail_seconds += r.tail_seconds / run.data_parallel;
  }
  return run_pipeline_schedule(search.schedule, 1, run.micro_batches, stages, 0.0).iteration_seconds;
}

}  // namespace

PipelineRun run_pipeline(const Scenario& whole, const Calibration& calibration,
                         const PipelineRunOptions& options) {
  if (!whole.parallelism.pipelined())
    throw std::invalid_argument(whole.source_file +
                                ": parallelism.pipeline: run-pipeline runs pipeline stages and the scenario "
                                "has none (set parallelism.pipeline, or use run)");
  PlanRequest request;
  request.with_baselines = false;
  PipelineSearch search;
  try {
    search = search_pipelines(whole, calibration, request);
  } catch (const MeshError& e) {
    throw std::invalid_argument(whole.source_file + ": " + e.field() + ": " + e.what());
  }
  if (!search.any_fits())
    throw std::invalid_argument(whole.source_file + ": no pipeline fits the memory limit");
  const PipelineOption& option = search.options[search.best];
  if (const std::string why = refusal(search, option, world_size()); !why.empty())
    throw std::invalid_argument(whole.source_file + ": " + pipeline_text(search, option) + ": " + why);
  PipelineRun out;
  out.scenario = whole.source_file;
  out.pipeline = pipeline_text(search, option);
  out.stages = option.stages;
  out.data_parallel = option.data_parallel;
  out.micro_batches = option.micro_batches;
  out.micro_batch = option.micro_batch;
  out.compute_scale = options.compute_scale;
  out.send_bytes = option.boundary_bytes * options.compute_scale;
  out.planner_iteration_seconds = option.iteration_seconds;
  for (const PipelineStagePlan& s : option.stage_plans) out.planner_stages.push_back(s.timing);
  RankRun rank(search, option, calibration, options, world_rank());
  PipelineRankRun mine;
  mine.rank = world_rank();
  mine.stage = rank.stage();
  mine.data_parallel_rank = world_rank() % option.data_parallel;
  for (int i = 0; i < options.warmup; ++i) rank.iterate(false, mine);
  for (int i = 0; i < options.iterations; ++i) rank.iterate(true, mine);
  for (double* v : {&mine.forward_seconds, &mine.backward_seconds, &mine.tail_seconds, &mine.waiting_seconds})
    *v /= options.iterations;
  out.ranks = gather(mine, options.iterations, option.data_parallel);
  std::vector<double> slowest(static_cast<std::size_t>(options.iterations), 0.0);
  for (const PipelineRankRun& r : out.ranks)
    for (std::size_t i = 0; i < r.iteration_seconds.size() && i < slowest.size(); ++i)
      slowest[i] = std::max(slowest[i], r.iteration_seconds[i]);
  out.measured_iteration_seconds = median(slowest);
  out.composed_iteration_seconds = composed(search, out);
  return out;
}

nlohmann::ordered_json pipeline_run_json(const PipelineRun& run) {
  nlohmann::ordered_json stages = nlohmann::ordered_json::array();
  for (const StageTiming& t : run.planner_stages)
    stages.push_back({{"step_seconds", t.step_seconds},
                      {"forward_seconds", t.forward_seconds},
                      {"tail_seconds", t.tail_seconds}});
  nlohmann::ordered_json ranks = nlohmann::ordered_json::array();
  for (const PipelineRankRun& r : run.ranks)
    ranks.push_back({{"rank", r.rank},
                     {"stage", r.stage + 1},
                     {"data_parallel_rank", r.data_parallel_rank},
                     {"iteration_seconds", r.iteration_seconds},
                     {"forward_seconds", r.forward_seconds},
                     {"backward_seconds", r.backward_seconds},
                     {"tail_seconds", r.tail_seconds},
                     {"waiting_seconds", r.waiting_seconds},
                     {"ops", r.ops},
                     {"sends", r.sends}});
  return {{"scenario", run.scenario},
          {"pipeline", run.pipeline},
          {"stages", run.stages},
          {"data_parallel", run.data_parallel},
          {"micro_batch", run.micro_batch},
          {"micro_batches", run.micro_batches},
          {"send_bytes", run.send_bytes},
          {"compute_scale", run.compute_scale},
          {"planner", {{"iteration_seconds", run.planner_iteration_seconds}, {"stages", stages}}},
          {"measured_iteration_seconds", run.measured_iteration_seconds},
          {"composed_iteration_seconds", run.composed_iteration_seconds},
          {"ranks", ranks}};
}

}  // namespace shardscope::validate
