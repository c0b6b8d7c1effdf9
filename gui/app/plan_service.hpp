// PlanService: runs the planner library on one worker thread; a newer request cancels and supersedes an older
// one, and results come back to the UI thread as a queued signal (the UI thread never waits on the planner).
#pragma once

#include <QObject>
#include <QString>
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "planner/core/calibration.hpp"
#include "planner/core/scenario.hpp"
#include "planner/search/operator_pin.hpp"
#include "planner/search/planner.hpp"

namespace shardscope::gui {

struct PlanJob {
  Scenario scenario;
  std::vector<OperatorPin> pins;
  bool with_baselines = true;
};

struct PlanOutcome {
  quint64 generation = 0;
  PlanJob job;
  std::optional<PlanReport> report;
  std::optional<PlanReport> unpinned;  // when the job has pins: the same request without them
  QString error;                       // the planner's own message when it failed
  double seconds = 0;                  // wall time of the planning
};

class PlanService : public QObject {
  Q_OBJECT
 public:
  explicit PlanService(QObject* parent = nullptr);
  ~PlanService() override;

  // Queues `job`, cancelling whatever runs; returns its generation (results of older ones are dropped).
  quint64 submit(PlanJob job);
  void cancel();  // cancels the running and queued job
  bool busy() const { return busy_.load(); }
  quint64 latest() const { return latest_.load(); }

 signals:
  void started(quint64 generation);
  void finished(std::shared_ptr<const shardscope::gui::PlanOutcome> outcome);

 private:
  void run();
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::optional<PlanJob> pending_;  // guarded by mutex_
  quint64 pending_generation_ = 0;  // guarded by mutex_
  bool stop_ = false;               // guarded by mutex_
  std::atomic<quint64> latest_{0};
  std::atomic<bool> busy_{false};
};

}  // namespace shardscope::gui
