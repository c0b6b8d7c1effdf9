// The task pool: results and errors through get(), unstarted tasks run by their waiter, parallel_for.
#include "planner/search/task_pool.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

namespace shardscope {
namespace {

// A gate the test opens: tasks that wait on it keep a helper busy until then.
class Gate {
 public:
  void wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    opened_.wait(lock, [this] { return open_; });
  }
  void open() {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      open_ = true;
    }
    opened_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable opened_;
  bool open_ = false;
};

TEST(TaskPool, UsableThreadsIsTheRequestOrOnePerHardwareThread) {
  EXPECT_EQ(usable_threads(3), 3u);
  EXPECT_GE(usable_threads(0), 1u);
  EXPECT_GE(usable_threads(-2), 1u);
}

TEST(TaskPool, WithoutHelpersEveryTaskRunsInItsGet) {
  TaskPool pool(0);
  EXPECT_EQ(pool.helper_threads(), 0u);
  std::thread::id ran_on;
  Task<int> task = pool.submit([&ran_on] {
    ran_on = std::this_thread::get_id();
    return 42;
  });
  EXPECT_FALSE(task.wait_for(std::chrono::milliseconds(1)));  // queued nowhere: not run until get()
  EXPECT_EQ(task.get(), 42);
  EXPECT_EQ(ran_on, std::this_thread::get_id());
  EXPECT_FALSE(task.valid());  // once only
}

TEST(TaskPool, HelpersRunTasksAndGetReturnsTheirResults) {
  TaskPool pool(3);
  std::vector<Task<std::size_t>> tasks;
  for (std::size_t i = 0; i < 50; ++i) tasks.push_back(pool.submit([i] { return i * i; }));
  for (std::size_t i = 0; i < tasks.size(); ++i) EXPECT_EQ(tasks[i].get(), i * i);
}

TEST(TaskPool, GetRethrowsWhatTheTaskThrew) {
  TaskPool pool(1);
  Task<int> task = pool.submit([]() -> int { throw std::invalid_argument("bad input"); });
  EXPECT_THROW(
      {
        try {
          task.get();
        } catch (const std::invalid_argument& e) {
          EXPECT_STREQ(e.what(), "bad input");
          throw;
        }
      },
      std::invalid_argument);
}

TEST(TaskPool, ATaskNoHelperStartedRunsOnTheWaitingThread) {
  TaskPool pool(1);
  Gate gate;
  Task<void> blocker = pool.submit([&gate] { gate.wait(); });
  std::thread::id ran_on;
  Task<int> queued = pool.submit([&ran_on] {
    ran_on = std::this_thread::get_id();
    return 7;
  });
  // The only helper waits at the gate, so the second task stays queued until the test takes it.
  EXPECT_FALSE(queued.wait_for(std::chrono::milliseconds(20)));
  EXPECT_EQ(queued.get(), 7);
  EXPECT_EQ(ran_on, std::this_thread::get_id());
  gate.open();
  blocker.get();
}

TEST(TaskPool, WaitForSeesATaskAHelperFinished) {
  TaskPool pool(1);
  Task<int> task = pool.submit([] { return 1; });
  while (!task.wait_for(std::chrono::milliseconds(5))) {
  }
  EXPECT_EQ(task.get(), 1);
}

TEST(TaskPool, DestroyingThePoolDropsUnstartedTasksWhichTheirGetStillRuns) {
  Gate gate;
  std::atomic<int> runs{0};
  Task<void> blocker, dropped;
  // Opens the gate only after the pool below is being destroyed: its helper is busy (or idle) until then.
  std::thread opener([&gate] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    gate.open();
  });
  {
    TaskPool pool(1);
    blocker = pool.submit([&gate] { gate.wait(); });
    dropped = pool.submit([&runs] { ++runs; });
  }  // drops the queued tasks, then joins the helper once the gate lets the blocker end
  opener.join();
  EXPECT_EQ(runs.load(), 0);
  dropped.get();
  EXPECT_EQ(runs.load(), 1);
  blocker.get();
}

TEST(ParallelFor, CallsEveryIndexOnce) {
  for (std::size_t threads : {1u, 2u, 8u}) {
    std::vector<std::atomic<int>> calls(100);
    parallel_for(calls.size(), threads, [&calls](std::size_t i) { ++calls[i]; });
    for (std::size_t i = 0; i < calls.size(); ++i) EXPECT_EQ(calls[i].load(), 1) << i << " on " << threads;
  }
  parallel_for(0, 4, [](std::size_t) { FAIL() << "no index to call"; });
}

TEST(ParallelFor, OneThreadRunsEverythingOnTheCallingThread) {
  std::vector<std::thread::id> ran_on(5);
  parallel_for(ran_on.size(), 1, [&ran_on](std::size_t i) { ran_on[i] = std::this_thread::get_id(); });
  for (const std::thread::id& id : ran_on) EXPECT_EQ(id, std::this_thread::get_id());
}

TEST(ParallelFor, RethrowsTheLowestIndexThatThrew) {
  for (std::size_t threads : {1u, 4u}) {
    try {
      parallel_for(20, threads, [](std::size_t i) {
        if (i == 5 || i == 13) throw std::runtime_error("index " + std::to_string(i));
      });
      ADD_FAILURE() << "nothing thrown on " << threads;
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "index 5") << threads;
    }
  }
}

}  // namespace
}  // namespace shardscope
