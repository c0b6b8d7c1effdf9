// The planning worker thread: one job at a time, cancelled through the planner's observer when superseded.
#include "plan_service.hpp"

#include <QMetaObject>
#include <chrono>

#include "planner/core/error.hpp"
#include "planner/io/calibration_parser.hpp"
#include "planner/search/plan_observer.hpp"

namespace shardscope::gui {
namespace {

class Superseded final : public PlanObserver {
 public:
  Superseded(const std::atomic<quint64>& latest, quint64 mine) : latest_(latest), mine_(mine) {}
  bool cancelled() const override { return latest_.load() != mine_; }

 private:
  const std::atomic<quint64>& latest_;
  quint64 mine_;
};

}  // namespace

PlanService::PlanService(QObject* parent) : QObject(parent) {
  qRegisterMetaType<std::shared_ptr<const PlanOutcome>>();
  thread_ = std::thread([this] { run(); });
}

PlanService::~PlanService() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
    pending_.reset();
  }
  latest_.fetch_add(1);  // cancels the running job at its next batch boundary
  wake_.notify_all();
  thread_.join();
}

quint64 PlanService::submit(PlanJob job) {
  const quint64 generation = latest_.fetch_add(1) + 1;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    pending_ = std::move(job);
    pending_generation_ = generation;
  }
  wake_.notify_all();
  return generation;
}

void PlanService::cancel() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    pending_.reset();
  }
  latest_.fetch_add(1);
}

void PlanService::run() {
  for (;;) {
    PlanJob job;
    quint64 generation = 0;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [this] { return stop_ || pending_.has_value(); });
      if (stop_) return;
      job = std::move(*pending_);
      pending_.reset();
      generation = pending_generation_;
    }
    if (generation != latest_.load()) continue;
    busy_.store(true);
    QMetaObject::invokeMethod(
        this, [this, generation] { emit started(generation); }, Qt::QueuedConnection);
    auto outcome = std::make_shared<PlanOutcome>();
    outcome->generation = generation;
    const auto begin = std::chrono::steady_clock::now();
    Superseded observer(latest_, generation);
    bool cancelled = false;
    try {
      const ValidScenario scenario(job.scenario);  // the panel's edits, checked once
      const Calibration calibration = scenario_calibration(scenario);
      PlanRequest request;
      request.with_baselines = job.with_baselines;
      request.pins = job.pins;
      request.search.observer = &observer;
      outcome->report = plan_scenario(scenario, calibration, request);
      if (!job.pins.empty()) {
        // The same request less the pins: with its baselines, whose plans the pinned report may not adopt
        // but the unpinned one does (the plan a user kept before pinning).
        PlanRequest free = request;
        free.pins.clear();
        outcome->unpinned = plan_scenario(scenario, calibration, free);
      }
    } catch (const PlanCancelled&) {
      cancelled = true;
    } catch (const std::bad_alloc&) {
      outcome->error = "out of memory while planning";
    } catch (const std::exception& e) {
      outcome->error = QString::fromStdString(e.what());
    }
    outcome->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    outcome->job = std::move(job);
    busy_.store(false);
    if (cancelled || generation != latest_.load()) continue;
    std::shared_ptr<const PlanOutcome> result = std::move(outcome);
    QMetaObject::invokeMethod(
        this, [this, result] { emit finished(result); }, Qt::QueuedConnection);
  }
}

}  // namespace shardscope::gui
