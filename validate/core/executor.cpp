// Two threads, one per stream, over the program's executed task sequence; done counts per task position
// (one per micro-step) carry the dependencies, exactly as the simulator's partner_done reads them.
#include "validate/core/executor.hpp"

#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

namespace shardscope::validate {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// One run of a task: its position and micro-step.
struct Run {
  std::size_t index = 0;
  int step = 0;
};

// The shared state of the two streams: finished runs per position, the first failure, the timings.
class StreamState {
 public:
  StreamState(const IterationProgram& program, double timeout_seconds)
      : program_(program), done_(program.tasks.size(), 0), timeout_seconds_(timeout_seconds) {}

  // Blocks until the run of the partner that `run` waits on is done; false when the other stream failed.
  bool wait_for_partner(const Run& run) {
    const Task& task = program_.tasks[run.index];
    if (task.wait_for_other < 0) return true;
    const auto w = static_cast<std::size_t>(task.wait_for_other);
    int needed = 0;  // which run (0-based) of w must be done
    if (run.index < program_.step_tasks) {
      needed = task.waits_on_previous_step ? run.step - 1 : run.step;
      if (needed < 0) return true;
    } else if (w < program_.step_tasks) {
      needed = program_.micro_steps - 1;
    }
    std::unique_lock lock(mutex_);
    const bool ready = changed_.wait_for(lock, std::chrono::duration<double>(timeout_seconds_),
                                         [&] { return failed_ || done_[w] > needed; });
    if (failed_) return false;
    if (!ready) {
      throw ExecutionError("'" + task_name(program_, run.index, run.step) + "' waited " +
                           std::to_string(timeout_seconds_) + " s for '" + program_.tasks[w].name +
                           "' on the other stream");
    }
    return true;
  }

  void finish(const Run& run) {
    {
      const std::lock_guard lock(mutex_);
      ++done_[run.index];
    }
    changed_.notify_all();
  }

  void fail(std::exception_ptr error) {
    {
      const std::lock_guard lock(mutex_);
      if (!failed_) error_ = error;
      failed_ = true;
    }
    changed_.notify_all();
  }

  bool failed() {
    const std::lock_guard lock(mutex_);
    return failed_;
  }
  std::exception_ptr error() {
    const std::lock_guard lock(mutex_);
    return error_;
  }

 private:
  const IterationProgram& program_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<int> done_;
  double timeout_seconds_;
  bool failed_ = false;
  std::exception_ptr error_;
};

// The executed sequence: micro_steps x the step's tasks, then the update tasks.
std::vector<Run> executed_runs(const IterationProgram& program) {
  std::vector<Run> runs;
  for (int step = 0; step < program.micro_steps; ++step) {
    for (std::size_t i = 0; i < program.step_tasks; ++i) runs.push_back({i, step});
  }
  for (std::size_t i = program.step_tasks; i < program.tasks.size(); ++i) {
    runs.push_back({i, program.micro_steps - 1});
  }
  return runs;
}

}  // namespace

ProgramExecutor::ProgramExecutor(const Model& model, const IterationProgram& program, ExecutorOptions options)
    : model_(model), program_(program), options_(options) {
  for (const Task& task : program_.tasks) work_.push_back(kernel_work(model_, task, options_.scale));
}

void ProgramExecutor::allocate_resident(CountingAllocator& allocator) const {
  for (std::size_t c = 0; c < kMemoryCategories; ++c) {
    allocator.allocate(static_cast<MemoryCategory>(c), program_.resident[c]);
  }
}

IterationMeasurement ProgramExecutor::run_iteration(ExecutionBackend& backend,
                                                    CountingAllocator& allocator) const {
  const std::vector<Run> runs = executed_runs(program_);
  std::vector<MeasuredTask> timings(runs.size());
  StreamState state(program_, options_.wait_timeout_seconds);
  allocator.reset_peak();
  const Clock::time_point start = Clock::now();

  auto run_stream = [&](Task::Stream stream) {
    try {
      for (std::size_t r = 0; r < runs.size(); ++r) {
        const Run& run = runs[r];
        const Task& task = program_.tasks[run.index];
        if (task.stream != stream) continue;
        if (!state.wait_for_partner(run)) return;
        for (std::size_t c = 0; c < kMemoryCategories; ++c) {
          allocator.allocate(static_cast<MemoryCategory>(c), task.alloc_at_start[c]);
        }
        const Clock::time_point begin = Clock::now();
        const bool is_compute = task.operator_index >= 0;  // collectives have none (serial: compute stream)
        if (is_compute) {
          backend.run_compute(work_[run.index]);
        } else {
          backend.run_collective(task);
        }
        MeasuredTask& t = timings[r];
        t.seconds = seconds_between(begin, Clock::now());
        t.name = task_name(program_, run.index, run.step);
        t.stream = task.stream;
        t.kind = is_compute ? "compute" : contract_name(task.kind);
        if (is_compute)
          t.operator_name = model_.operators[static_cast<std::size_t>(task.operator_index)].name;
        t.bytes = is_compute ? 0 : task.total_bytes;
        for (std::size_t c = 0; c < kMemoryCategories; ++c) {
          allocator.release(static_cast<MemoryCategory>(c), task.free_at_end[c]);
        }
        state.finish(run);
        if (state.failed()) return;
      }
    } catch (...) {
      state.fail(std::current_exception());
    }
  };

  std::thread compute([&] { run_stream(Task::Stream::compute); });
  run_stream(Task::Stream::comm);
  compute.join();
  const Clock::time_point end = Clock::now();
  if (std::exception_ptr error = state.error()) std::rethrow_exception(error);

  IterationMeasurement out;
  out.iteration_seconds = seconds_between(start, end);
  out.peak_bytes = allocator.peak_bytes();
  out.tasks = std::move(timings);
  return out;
}

}  // namespace shardscope::validate
