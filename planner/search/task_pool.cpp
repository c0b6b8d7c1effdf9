// The task pool's helper threads and the claim-or-wait hand-over of one task.
#include "planner/search/task_pool.hpp"

#include <algorithm>
#include <new>
#include <system_error>

namespace shardscope {

std::size_t usable_threads(int threads) {
  return threads > 0 ? static_cast<std::size_t>(threads) : std::max(1u, std::thread::hardware_concurrency());
}

bool TaskState::claim() {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (claimed_) return false;
  claimed_ = true;
  return true;
}

void TaskState::finish() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    done_ = true;
  }
  done_changed_.notify_all();
}

void TaskState::run_or_wait() {
  if (claim()) {
    run();
    finish();
    return;
  }
  std::unique_lock<std::mutex> lock(mutex_);
  done_changed_.wait(lock, [this] { return done_; });
}

void TaskState::run_if_unclaimed() {
  if (!claim()) return;
  run();
  finish();
}

bool TaskState::wait_for(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  return done_changed_.wait_for(lock, timeout, [this] { return done_; });
}

TaskPool::TaskPool(std::size_t helper_threads) {
  helpers_.reserve(helper_threads);
  for (std::size_t t = 0; t < helper_threads; ++t) {
    try {
      helpers_.emplace_back([this] { serve(); });
    } catch (const std::system_error&) {
      stop_and_join();  // the helpers started so far
      throw std::bad_alloc();
    }
  }
}

TaskPool::~TaskPool() { stop_and_join(); }

void TaskPool::stop_and_join() {
  std::deque<std::shared_ptr<TaskState>> dropped;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    dropped.swap(queue_);
  }
  queued_.notify_all();
  for (std::thread& helper : helpers_) helper.join();
  helpers_.clear();
}

void TaskPool::enqueue(std::shared_ptr<TaskState> state) {
  if (helpers_.empty()) return;  // its get() runs it
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back(std::move(state));
  }
  queued_.notify_one();
}

void TaskPool::serve() {
  for (;;) {
    std::shared_ptr<TaskState> next;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      queued_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      next = std::move(queue_.front());
      queue_.pop_front();
    }
    next->run_if_unclaimed();
  }
}

void parallel_for(std::size_t count, std::size_t threads, const std::function<void(std::size_t)>& body) {
  if (count == 0) return;
  TaskPool pool(std::min(count, std::max<std::size_t>(1, threads)) - 1);
  std::vector<Task<void>> tasks;
  tasks.reserve(count);
  for (std::size_t index = 0; index < count; ++index)
    tasks.push_back(pool.submit([&body, index] { body(index); }));
  for (Task<void>& task : tasks) task.get();  // the calling thread runs what no helper has started
}

}  // namespace shardscope
