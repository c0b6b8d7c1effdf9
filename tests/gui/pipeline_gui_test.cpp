// shardscope-gui on a pipelined scenario (QT_QPA_PLATFORM=offscreen): the pipeline tables and the stage the
// views show, the run of the fastest pipeline on the Timeline tab (what `plan --pipeline-trace` writes), and
// the Budget tab's time to train and node search.
#include <QElapsedTimer>
#include <QFile>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>
#include <fstream>

#include "budget_panel.hpp"
#include "main_window.hpp"
#include "planner/report/pipeline_trace.hpp"
#include "planner/report/time_to_train.hpp"
#include "simulation_service.hpp"
#include "timeline_panel.hpp"

using namespace shardscope;
using namespace shardscope::gui;

namespace {

// Opens `path` and waits until its plan is the newest shown (the constructor's default plan superseded).
bool open_and_plan(MainWindow& w, const QString& path) {
  QSignalSpy shown(&w, &MainWindow::planShown);
  if (!w.open_scenario(path)) return false;
  QElapsedTimer clock;
  clock.start();
  while (clock.elapsed() < 120000) {
    if (!shown.isEmpty() && !w.service()->busy() && w.outcome() &&
        w.outcome()->generation == w.service()->latest())
      return true;
    QTest::qWait(20);
  }
  return false;
}

// Llama 3.1 8B in two pipeline stages on two DGX-A100 nodes, written into `dir` with `training` and
// `runtime`.
QString two_stages(const QTemporaryDir& dir, const std::string& training, const std::string& runtime) {
  const QString path = dir.filePath("pp.yaml");
  std::ofstream(path.toStdString()) << "name: pp\nmodel: {preset: llama3.1-8b}\ncluster: {preset: dgx-a100, "
                                       "nodes: 2}\nparallelism: {pipeline: 2}\ntraining: "
                                    << training << "\nexecution: {runtime: " << runtime << "}\n";
  return path;
}

}  // namespace

class PipelineGuiTest : public QObject {
  Q_OBJECT
 private slots:
  // Two stages of Llama 3.1 8B on two DGX-A100 nodes: the summary gives the pipeline and its tables, the
  // views show the stage with the highest peak planned alone (the same plan the search made), the Timeline
  // shows a track per stage with every micro-batch's forward and backward, and saves the CLI's trace.
  void pipelineShowsItsStagesAndTheirRun() {
    QTemporaryDir dir;
    const QString path = two_stages(dir, "{micro_batch: 1, gradient_accumulation_steps: 4}", "fsdp2");
    MainWindow w;
    w.show();
    QVERIFY(open_and_plan(w, path));
    QVERIFY(w.outcome()->pipelines.has_value());
    const PipelineSearch& search = *w.outcome()->pipelines;
    QVERIFY(search.any_fits());
    const PipelineOption& chosen = search.options[search.best];
    const PipelineStagePlan& stage = chosen.stage_plans[w.outcome()->pipeline_stage];
    for (const PipelineStagePlan& s : chosen.stage_plans)
      QVERIFY(s.plan.plan.predicted.peak_memory_bytes <= stage.plan.plan.predicted.peak_memory_bytes);
    QCOMPARE(w.outcome()->report->best.plan.predicted.iteration_seconds,
             stage.plan.plan.predicted.iteration_seconds);
    QCOMPARE(w.outcome()->job.scenario.mesh.pipeline.index, static_cast<int>(w.outcome()->pipeline_stage));
    QVERIFY(w.summary_text().contains("<b>Pipeline PP 2 (1f1b) x DP 8 (16 GPUs)</b>"));
    QVERIFY(w.summary_text().contains("Pipelines (llama3.1-8b on 16 x"));
    QVERIFY(w.summary_text().contains("the one with the highest peak, planned alone"));
    QVERIFY(w.summary_text().contains("<b>Stage plan</b>"));
    TimelinePanel* timeline = w.timeline_panel();
    QVERIFY(timeline->status_text().contains("The run of PP 2 (1f1b) x DP 8 (16 GPUs) as planned"));
    QCOMPARE(timeline->rank_list()->count(), 2);
    QCOMPARE(timeline->rank_list()->item(0)->text(),
             QString("stage 1: layers 0-%1 + embedding").arg(chosen.stage_plans[0].layers - 1));
    QVERIFY(timeline->result_text().startsWith("2 stages, "));
    const QString saved = dir.filePath("trace.json");
    QVERIFY(timeline->save_trace(saved));
    QFile file(saved);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll().toStdString(), pipeline_trace_json(search, chosen));
    // The Budget tab's time to train is the pipeline's, on all 16 GPUs, as `plan --tokens` gives it.
    w.budget_panel()->tokens_edit()->setText("1T");
    w.budget_panel()->price_edit()->setText("2");
    QCOMPARE(w.budget_panel()->table()->rowCount(), 1);
    QCOMPARE(w.budget_panel()->table()->item(0, 0)->text(), QString("PP 2 (1f1b) x DP 8 (16 GPUs)"));
    QVERIFY(w.budget_panel()->budget_status().contains("on 16 GPUs"));
    PlanPrediction predicted;
    predicted.iteration_seconds = chosen.iteration_seconds;
    predicted.tokens_per_second = chosen.tokens_per_second;
    const TimeToTrain t = time_to_train(predicted, 16, {1e12, 2.0});
    QCOMPARE(w.budget_panel()->table()->item(0, 5)->text(), QString::number(*t.cost, 'f', 2));
    // Find nodes searches node counts of the pipeline, as `plan --pp 2 --target-tokens-per-second` does.
    QSignalSpy found(w.budget_panel(), &BudgetPanel::nodesFound);
    w.budget_panel()->target_edit()->setText("100K");
    QVERIFY(w.budget_panel()->find_nodes());
    QVERIFY(found.wait(120000));
    const std::optional<TargetSearch>& nodes = w.budget_panel()->search();
    QVERIFY2(nodes.has_value(), qPrintable(w.budget_panel()->scaling_status()));
    QVERIFY(nodes->nodes.has_value());
    for (const TargetPoint& p : nodes->curve) {
      if (p.nodes != *nodes->nodes) continue;
      QVERIFY(p.fits);
      QVERIFY(p.tokens_per_second >= 100e3);
    }
  }

  // Simulate on a pipelined scenario runs the whole pipeline on the simulator (no stage plan is passed):
  // the Timeline shows the simulated run of each stage's first GPU with the planner's iteration beside it,
  // and saves that run's trace.
  void pipelineSimulatesOnTheSimulator() {
    QTemporaryDir dir;
    const QString path = two_stages(dir, "{micro_batch: 1, gradient_accumulation_steps: 4}", "fsdp2");
    MainWindow w;
    w.show();
    QVERIFY(open_and_plan(w, path));
    w.simulation()->set_program(SHARDSCOPE_CLI);
    QSignalSpy finished(w.simulation(), &SimulationService::finished);
    w.simulate();
    QVERIFY(finished.wait(120000));
    const auto outcome = finished.takeFirst().at(0).value<std::shared_ptr<const SimulationOutcome>>();
    QVERIFY2(outcome->ok, qPrintable(outcome->error));
    QVERIFY(outcome->pipeline);
    TimelinePanel* timeline = w.timeline_panel();
    QVERIFY2(timeline->status_text().startsWith("Simulated in "), qPrintable(timeline->status_text()));
    QVERIFY(timeline->status_text().contains("PP 2 (1f1b) x DP 8 (16 GPUs), iteration "));
    QVERIFY(timeline->status_text().contains(", planner "));
    QCOMPARE(timeline->rank_list()->count(), 2);
    const QString saved = dir.filePath("simulated.json");
    QVERIFY(timeline->save_trace(saved));
    QFile file(saved);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QVERIFY(file.readAll().contains("\"simulated_by\""));
  }

  // A pipeline's simulation whose child exits 0 without the trace it was asked for fails, saying which file.
  void pipelineSimulationWithoutItsTraceSaysSo() {
    QTemporaryDir dir;
    const QString path = two_stages(dir, "{micro_batch: 1, gradient_accumulation_steps: 4}", "fsdp2");
    MainWindow w;
    w.show();
    QVERIFY(open_and_plan(w, path));
    qputenv("FAKE_SIMULATOR_MODE", "no-trace");
    w.simulation()->set_program(QStringLiteral(SHARDSCOPE_SOURCE_DIR "/tests/gui/fake_simulator.sh"));
    QSignalSpy finished(w.simulation(), &SimulationService::finished);
    w.simulate();
    QVERIFY(finished.wait(60000));
    qunsetenv("FAKE_SIMULATOR_MODE");
    const auto outcome = finished.takeFirst().at(0).value<std::shared_ptr<const SimulationOutcome>>();
    QVERIFY(!outcome->ok);
    QVERIFY2(outcome->error.contains("the simulator's trace ") && outcome->error.contains("cannot be read"),
             qPrintable(outcome->error));
    QVERIFY(w.timeline_panel()->error_text().contains("cannot be read"));
  }

  // A run too large to draw (42,000 micro-batches: over kMaxPipelineTraceEvents) is not built: the Timeline
  // says why, and there is nothing to save.
  void pipelineTooLargeToDrawSaysWhy() {
    QTemporaryDir dir;
    const QString path = two_stages(dir, "{micro_batch: 1, gradient_accumulation_steps: 42000}", "deepspeed");
    MainWindow w;
    w.show();
    QVERIFY(open_and_plan(w, path));
    TimelinePanel* timeline = w.timeline_panel();
    QVERIFY(timeline->status_text().startsWith("Not drawn: the run of PP 2 (1f1b) x DP 8 (16 GPUs) has "));
    QCOMPARE(timeline->rank_list()->count(), 0);
    QVERIFY(!timeline->perfetto_button()->isEnabled());
    QVERIFY(!timeline->save_trace(dir.filePath("t.json")));
  }

  // A pipeline whose stages cannot fit says so with the tables that show why, and plans nothing.
  void pipelineThatDoesNotFitSaysWhy() {
    QTemporaryDir dir;
    const QString path =
        two_stages(dir, "{micro_batch: 1, gradient_accumulation_steps: 4, memory_limit: 4GB}", "fsdp2");
    MainWindow w;
    w.show();
    QVERIFY(w.open_scenario(path));
    QElapsedTimer clock;
    clock.start();
    while (clock.elapsed() < 120000 && !w.summary_text().contains("no pipeline fits")) QTest::qWait(20);
    QVERIFY(w.summary_text().contains("no pipeline fits the memory limit"));
    QVERIFY(w.summary_text().contains("Pipelines (llama3.1-8b"));
  }
};

QTEST_MAIN(PipelineGuiTest)
#include "pipeline_gui_test.moc"
