// The planning worker thread: one job at a time, cancelled through the planner's observer when superseded.
#include "plan_service.hpp"

#include <QMetaObject>
#include <chrono>
#include <sstream>

#include "planner/core/error.hpp"
#include "planner/io/calibration_parser.hpp"
#include "planner/search/plan_observer.hpp"
#include "present/pipeline_table.hpp"

namespace shardscope::gui {

PlanService::PlanService(QObject* parent) : QObject(parent) {
  qRegisterMetaType<std::shared_ptr<const PlanOutcome>>();
  qRegisterMetaType<std::shared_ptr<const SweepOutcome>>();
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

bool PlanService::plan(const ValidScenario& scenario, const Calibration& calibration, const PlanJob& job,
                       PlanObserver& observer, PlanOutcome& outcome) {
  PlanRequest request;
  request.with_baselines = job.with_baselines;
  request.pins = job.pins;
  request.search.observer = &observer;
  try {
    if (scenario.scenario().parallelism.search() && !scenario.scenario().mesh.sliced()) {
      outcome.meshes = search_meshes(scenario, calibration, request);
      const MeshOption& chosen = outcome.meshes->options[outcome.meshes->best];
      outcome.report = chosen.report;
    } else {
      outcome.report = plan_scenario(scenario, calibration, request);
    }
    if (!job.pins.empty()) {
      // The same request less the pins: with its baselines, whose plans the pinned report may not adopt
      // but the unpinned one does (the plan a user kept before pinning).
      PlanRequest free = request;
      free.pins.clear();
      outcome.unpinned =
          plan_scenario(outcome.meshes ? outcome.meshes->options[outcome.meshes->best].scenario : scenario,
                        calibration, free);
    }
  } catch (const PlanCancelled&) {
    return false;
  } catch (const std::bad_alloc&) {
    outcome.error = "out of memory while planning";
  } catch (const std::exception& e) {
    outcome.error = QString::fromStdString(e.what());
  }
  return true;
}

bool PlanService::plan_pipeline(PlanJob& job, PlanObserver& observer, PlanOutcome& outcome) {
  try {
    const Calibration calibration = scenario_calibration(job.scenario);
    PlanRequest request;
    request.search.observer = &observer;
    request.with_baselines = false;  // as `plan --pp`: the stages' own plans, no baselines per stage
    outcome.pipelines = search_pipelines(job.scenario, calibration, request);
    const PipelineSearch& search = *outcome.pipelines;
    if (!search.any_fits()) {
      std::ostringstream tables;
      present::write_pipeline_tables(tables, job.scenario, search);
      outcome.error = "no pipeline fits the memory limit\n" + QString::fromStdString(tables.str());
      return true;
    }
    const PipelineOption& chosen = search.options[search.best];
    std::size_t shown = 0;
    for (std::size_t r = 1; r < chosen.stage_plans.size(); ++r) {
      if (chosen.stage_plans[r].plan.plan.predicted.peak_memory_bytes >
          chosen.stage_plans[shown].plan.plan.predicted.peak_memory_bytes)
        shown = r;
    }
    outcome.pipeline_stage = shown;
    const ValidScenario& stage = *chosen.stage_plans[shown].scenario;
    outcome.report = plan_scenario(stage, calibration, request);
    outcome.pipelined = job.scenario;
    job.scenario = stage.scenario();
    job.with_memory_sweep = false;  // the sweep is of data-parallel plans
  } catch (const PlanCancelled&) {
    return false;
  } catch (const std::bad_alloc&) {
    outcome.error = "out of memory while planning the pipelines";
  } catch (const std::exception& e) {
    outcome.error = QString::fromStdString(e.what());
  }
  return true;
}

void PlanService::sweep(const ValidScenario& scenario, const Calibration& calibration, quint64 generation,
                        const PlanObserver& observer) {
  auto outcome = std::make_shared<SweepOutcome>();
  outcome->generation = generation;
  const auto begin = std::chrono::steady_clock::now();
  try {
    outcome->sweep = memory_sweep(scenario, calibration, 0, &observer);
  } catch (const PlanCancelled&) {
    return;
  } catch (const std::bad_alloc&) {
    outcome->error = "out of memory while sweeping the memory limit";
  } catch (const std::exception& e) {
    outcome->error = QString::fromStdString(e.what());
  }
  outcome->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  if (generation != latest_.load()) return;
  std::shared_ptr<const SweepOutcome> result = std::move(outcome);
  QMetaObject::invokeMethod(
      this, [this, result] { emit sweepFinished(result); }, Qt::QueuedConnection);
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
    std::optional<ValidScenario> scenario;
    Calibration calibration;
    bool done = true;
    if (job.scenario.parallelism.pipelined()) {
      done = plan_pipeline(job, observer, *outcome);  // no sweep follows (job.with_memory_sweep is off)
    } else {
      try {
        scenario.emplace(job.scenario);  // the panel's edits, checked once
        calibration = scenario_calibration(*scenario);
      } catch (const std::exception& e) {
        scenario.reset();  // a calibration that cannot be read plans nothing
        outcome->error = QString::fromStdString(e.what());
      }
      if (scenario) done = plan(*scenario, calibration, job, observer, *outcome);
    }
    outcome->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    const bool sweep_too = job.with_memory_sweep && outcome->report.has_value();
    if (outcome->meshes) {  // the sweep and the views run on the chosen mesh
      const MeshOption& chosen = outcome->meshes->options[outcome->meshes->best];
      job.scenario = chosen.scenario.scenario();
      scenario.emplace(chosen.scenario);
    }
    outcome->job = std::move(job);
    busy_.store(false);  // the sweep after it runs in the background of the next edit
    if (!done || generation != latest_.load()) continue;
    std::shared_ptr<const PlanOutcome> result = std::move(outcome);
    QMetaObject::invokeMethod(
        this, [this, result] { emit finished(result); }, Qt::QueuedConnection);
    if (sweep_too) sweep(*scenario, calibration, generation, observer);
  }
}

}  // namespace shardscope::gui
