// A small pool of helper threads running submitted tasks in order, and a parallel-for over it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace shardscope {

// How many threads a `threads` option asks for: itself when positive, otherwise one per hardware thread.
std::size_t usable_threads(int threads);

// One submitted task, shared by the pool's queue and the caller's handle: whoever claims it first runs it.
class TaskState {
 public:
  TaskState() = default;
  TaskState(const TaskState&) = delete;
  TaskState& operator=(const TaskState&) = delete;
  virtual ~TaskState() = default;
  // Runs the task on this thread unless it was claimed already, then returns once it is done.
  void run_or_wait();
  // Runs the task when no one has claimed it yet (a helper's turn); otherwise does nothing.
  void run_if_unclaimed();
  // Whether the task is done, waiting up to `timeout` for it (without claiming it).
  bool wait_for(std::chrono::milliseconds timeout);

 private:
  virtual void run() noexcept = 0;
  bool claim();
  void finish();
  std::mutex mutex_;
  std::condition_variable done_changed_;
  bool claimed_ = false;
  bool done_ = false;
};

// A task's body and what it returned or threw.
template <class Result>
class TaskOutcome final : public TaskState {
 public:
  using Value = std::conditional_t<std::is_void_v<Result>, std::monostate, Result>;
  explicit TaskOutcome(std::function<Result()> body) : body_(std::move(body)) {}
  Result take() {
    if (error_) std::rethrow_exception(error_);
    if constexpr (!std::is_void_v<Result>) return std::move(*value_);
  }

 private:
  void run() noexcept override {
    try {
      if constexpr (std::is_void_v<Result>) {
        body_();
        value_.emplace();
      } else {
        value_.emplace(body_());
      }
    } catch (...) {
      error_ = std::current_exception();
    }
    body_ = nullptr;  // what the body captured is released as soon as it has run
  }
  std::function<Result()> body_;
  std::optional<Value> value_;
  std::exception_ptr error_;
};

// The caller's handle on a submitted task.
template <class Result>
class Task {
 public:
  Task() = default;
  explicit Task(std::shared_ptr<TaskOutcome<Result>> state) : state_(std::move(state)) {}
  bool valid() const { return state_ != nullptr; }
  // Its result (or what it threw, rethrown); runs it on this thread if no helper has started it. Once only.
  Result get() {
    const std::shared_ptr<TaskOutcome<Result>> state = std::move(state_);
    state->run_or_wait();
    return state->take();
  }
  // Whether it is done, waiting up to `timeout`; a task no helper has started stays queued.
  bool wait_for(std::chrono::milliseconds timeout) const { return state_->wait_for(timeout); }

 private:
  std::shared_ptr<TaskOutcome<Result>> state_;
};

// `helper_threads` threads take the submitted tasks in submission order; a task is run by a helper or, when
// none has started it yet, by the thread that calls its get(). With no helper every task runs in its get().
// Destroying the pool drops the tasks no one has started (a later get() runs them) and joins the helpers
// once their running tasks are done.
class TaskPool {
 public:
  // Throws std::bad_alloc when a thread cannot be started (the process is out of memory or address space).
  explicit TaskPool(std::size_t helper_threads);
  TaskPool(const TaskPool&) = delete;
  TaskPool& operator=(const TaskPool&) = delete;
  ~TaskPool();

  std::size_t helper_threads() const { return helpers_.size(); }

  template <class Function>
  Task<std::invoke_result_t<Function&>> submit(Function body) {
    using Result = std::invoke_result_t<Function&>;
    auto state = std::make_shared<TaskOutcome<Result>>(std::move(body));
    enqueue(state);
    return Task<Result>(std::move(state));
  }

 private:
  void enqueue(std::shared_ptr<TaskState> state);
  void serve();
  void stop_and_join();
  std::mutex mutex_;
  std::condition_variable queued_;
  std::deque<std::shared_ptr<TaskState>> queue_;
  bool stopping_ = false;
  std::vector<std::thread> helpers_;
};

// Calls body(index) for every index in [0, count), on up to `threads` threads (the calling one among them),
// and returns once all are done; rethrows the exception of the lowest index that threw.
void parallel_for(std::size_t count, std::size_t threads, const std::function<void(std::size_t)>& body);

}  // namespace shardscope
