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
#include "planner/report/mesh_search.hpp"
#include "planner/report/pipeline_search.hpp"
#include "planner/search/memory_sweep.hpp"
#include "planner/search/operator_pin.hpp"
#include "planner/search/plan_observer.hpp"
#include "planner/search/planner.hpp"

namespace shardscope::gui {

// Cancels planning once a newer generation than `mine` is asked for (the services' and the budget tab's
// workers share this).
class Superseded final : public PlanObserver {
 public:
  Superseded(const std::atomic<quint64>& latest, quint64 mine) : latest_(latest), mine_(mine) {}
  bool cancelled() const override { return latest_.load() != mine_; }

 private:
  const std::atomic<quint64>& latest_;
  quint64 mine_;
};

struct PlanJob {
  Scenario scenario;
  std::vector<OperatorPin> pins;
  bool with_baselines = true;
  // After the plan (sent first): the memory sweep of the scenario (planner/search/memory_sweep.hpp), sent as
  // sweepFinished; a newer job stops it between micro-batches.
  bool with_memory_sweep = false;
};

struct PlanOutcome {
  quint64 generation = 0;
  PlanJob job;
  std::optional<PlanReport> report;
  std::optional<PlanReport> unpinned;  // when the job has pins: the same request without them
  // Under parallelism: search, every mesh's plan; `report` is then the fastest mesh's and job.scenario
  // that mesh's sliced scenario.
  std::optional<MeshSearch> meshes;
  // Under parallelism.pipeline, every pipeline's plan (report/pipeline_search.hpp); `report` is then the
  // fastest pipeline's stage `pipeline_stage` (the one with the highest peak, which decides whether the
  // pipeline fits) planned alone, and job.scenario that stage's scenario.
  std::optional<PipelineSearch> pipelines;
  std::size_t pipeline_stage = 0;
  Scenario pipelined;  // the scenario as given (the whole model and cluster), when pipelines is set
  QString error;       // the planner's own message when it failed
  double seconds = 0;  // wall time of the planning
};

struct SweepOutcome {
  quint64 generation = 0;  // the plan's
  std::optional<MemorySweep> sweep;
  QString error;  // the sweep's own message when it failed
  double seconds = 0;
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
  void sweepFinished(std::shared_ptr<const shardscope::gui::SweepOutcome> outcome);

 private:
  void run();
  // The job's plan (and its unpinned twin) into `outcome`; false when a newer job cancelled it.
  bool plan(const ValidScenario& scenario, const Calibration& calibration, const PlanJob& job,
            PlanObserver& observer, PlanOutcome& outcome);
  // A pipelined scenario's search into `outcome` (the views' job becomes the stage shown); false when a newer
  // job cancelled it.
  bool plan_pipeline(PlanJob& job, PlanObserver& observer, PlanOutcome& outcome);
  void sweep(const ValidScenario& scenario, const Calibration& calibration, quint64 generation,
             const PlanObserver& observer);
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
