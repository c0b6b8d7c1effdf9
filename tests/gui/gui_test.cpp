// shardscope-gui under QTest (QT_QPA_PLATFORM=offscreen): planning, the operator view against the CLI's plan
// JSON, pins, Pareto clicks and the memory sweep, the odds of the plan, time to train and the node search,
// broken input, every scenario field, resizing, 4,096 GPUs, a 1000-operator model, compare A/B and the
// exports.
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QElapsedTimer>
#include <QLineEdit>
#include <QProcess>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <QTreeView>
#include <QtTest>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>

#include "budget_panel.hpp"
#include "compare_models.hpp"
#include "compare_panel.hpp"
#include "compare_view.hpp"
#include "main_window.hpp"
#include "operator_table_model.hpp"
#include "operator_view.hpp"
#include "plan_views.hpp"
#include "planner/io/calibration_parser.hpp"
#include "planner/io/scenario_overrides.hpp"
#include "planner/report/time_to_train.hpp"
#include "planner/report/uncertainty.hpp"
#include "planner/search/memory_sweep.hpp"
#include "scenario_field_model.hpp"
#include "scenario_panel.hpp"
#include "scope_colors.hpp"
#include "table_copy.hpp"

using namespace shardscope;
using namespace shardscope::gui;
using namespace shardscope::present;

namespace {

const QString kDefault = QStringLiteral(SHARDSCOPE_SOURCE_DIR "/scenarios/default.yaml");

bool wait_for_plan(MainWindow& w, int timeout_ms = 90000) {
  QSignalSpy shown(&w, &MainWindow::planShown);
  QSignalSpy failed(&w, &MainWindow::planFailed);
  QElapsedTimer clock;
  clock.start();
  while (shown.isEmpty() && failed.isEmpty() && clock.elapsed() < timeout_ms) QTest::qWait(20);
  return !shown.isEmpty();
}

// Runs `change` (false: give up) and waits until the newest plan is shown.
bool newest_plan_after(MainWindow& w, const std::function<bool()>& change) {
  QSignalSpy shown(&w, &MainWindow::planShown);
  if (!change()) return false;
  QElapsedTimer clock;
  clock.start();
  while (clock.elapsed() < 90000) {
    if (!shown.isEmpty() && !w.service()->busy() && w.outcome() &&
        w.outcome()->generation == w.service()->latest())
      return true;
    QTest::qWait(20);
  }
  return false;
}

// Opens `path` and waits for its plan (the constructor's default plan is superseded).
bool open_and_plan(MainWindow& w, const QString& path) {
  return newest_plan_after(w, [&] { return w.open_scenario(path); });
}

// Re-plans after `change` and waits until the newest plan is shown.
bool replan_after(MainWindow& w, const std::function<void()>& change) {
  return newest_plan_after(w, [&] {
    change();
    w.panel()->reparse_now();
    return true;
  });
}

// A model of 1,000 linear operators on two DGX-A100 nodes, written to `path`.
void write_thousand_operators(const QString& path) {
  std::ofstream out(path.toStdString());
  out << "name: thousand\nmodel:\n  operators:\n";
  for (int i = 0; i < 1000; ++i) {
    out << "    - {name: op" << i << ", kind: linear, parameters: " << (1 + i % 3) * 10000000
        << ", forward_flops_per_sample: 1.0e10}\n";
  }
  out << "cluster: {preset: dgx-a100, nodes: 2}\n"
         "training: {precision: mixed-bf16, memory_limit: 40GB, max_micro_batch: 8}\n";
}

// The UI thread's longest stall from construction to stop(): the largest gap between 5 ms timer ticks.
class StallTicker {
 public:
  StallTicker() {
    clock_.start();
    QObject::connect(&timer_, &QTimer::timeout, [this] { longest_ = std::max(longest_, clock_.restart()); });
    timer_.start(5);
  }
  qint64 stop() {
    timer_.stop();
    return longest_;
  }

 private:
  QElapsedTimer clock_;
  QTimer timer_;
  qint64 longest_ = 0;
};

std::string scopes_of(const nlohmann::json& op) {
  return op["p_scope"].get<std::string>() + op["g_scope"].get<std::string>() +
         op["os_scope"].get<std::string>();
}

}  // namespace

class GuiTest : public QObject {
  Q_OBJECT
 private slots:
  void defaultScenarioPlans() {
    MainWindow w;
    w.show();
    QVERIFY(wait_for_plan(w));
    QVERIFY(w.outcome()->report->best.fits);
    QCOMPARE(w.operator_view()->operator_count(), w.outcome()->job.scenario.model.operators.size());
    QVERIFY(w.operator_view()->row_count() < 10);  // 98 operators, repeated layers grouped
    QVERIFY(!w.operator_view()->column_shown(OperatorTableModel::kMesh));  // no mesh, no mesh column
    QVERIFY(w.summary_text().contains("samples/s"));
    QVERIFY(w.baselines_table()->rowCount() > 20);
  }

  void operatorViewMatchesPlanJson() {
    QProcess cli;
    cli.start(SHARDSCOPE_CLI, {"plan", "--json", "--quiet", kDefault});
    QVERIFY(cli.waitForFinished(120000));
    QCOMPARE(cli.exitCode(), 0);
    const nlohmann::json report = nlohmann::json::parse(cli.readAllStandardOutput().toStdString());
    const nlohmann::json& ops = report["plan"]["operators"];
    MainWindow w;
    w.show();
    QVERIFY(open_and_plan(w, kDefault));
    const OperatorView* view = w.operator_view();
    QCOMPARE(view->operator_count(), ops.size());
    for (std::size_t i = 0; i < ops.size(); ++i) {
      const OperatorChoice& c = view->shown_choice(i);
      QCOMPARE(w.outcome()->report->best.plan.operators[i].name, ops[i]["name"].get<std::string>());
      QCOMPARE(c.slices, ops[i]["slices"].get<int>());
      QCOMPARE(c.sharded_slices, ops[i]["sharded_slices"].get<int>());
      QCOMPARE(c.checkpoint, ops[i]["checkpoint"].get<bool>());
      if (c.sharded_slices > 0) QCOMPARE(c.scopes.name(), scopes_of(ops[i]));
    }
    QCOMPARE(w.outcome()->report->best.plan.micro_batch, report["plan"]["batch_size"].get<std::int64_t>());
  }

  void pinIsHonoured() {
    MainWindow w;
    w.show();
    QVERIFY(open_and_plan(w, kDefault));
    const Plan before = w.outcome()->report->best.plan;
    // Pin the opposite of what the plan chose for the first row's operators.
    const std::size_t op = w.operator_view()->groups().front().members.front();
    const bool was_dp = before.operators[op].sharded_slices == 0;
    QSignalSpy shown(&w, &MainWindow::planShown);
    w.add_pins(w.operator_view()->pins_for_row(0, was_dp ? zdp_pin(0) : dp_pin(0)));
    QVERIFY(shown.wait(90000));
    const Plan& after = w.outcome()->report->best.plan;
    QVERIFY(plan_honours_pins(w.pins(), after.operators));
    QCOMPARE(w.pins().size(), std::size_t{1});
    QCOMPARE(after.operators[op].sharded_slices == 0, !was_dp);
    QCOMPARE(w.operator_view()->shown_choice(op).sharded_slices == 0, !was_dp);
    QVERIFY(w.outcome()->unpinned.has_value());
    QVERIFY(after.predicted.samples_per_second <=
            w.outcome()->unpinned->best.plan.predicted.samples_per_second * (1 + 1e-9));
    QVERIFY(w.summary_text().contains("Pins cost"));
    w.clear_pins();
    QVERIFY(shown.wait(90000));
    QVERIFY(same_plan_choices(w.outcome()->report->best.plan, before));
  }

  void paretoClickLoadsPlan() {
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QVERIFY(open_and_plan(w, kDefault));
    w.tabs()->setCurrentIndex(2);
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.pareto_view()->repaint();
    const std::optional<QPointF> fsdp = w.pareto_view()->point_of("fsdp");
    QVERIFY(fsdp.has_value());
    QTest::mouseClick(w.pareto_view(), Qt::LeftButton, {}, fsdp->toPoint());
    QCOMPARE(w.shown_strategy(), QString("fsdp"));
    const StrategyResult* fsdp_result = nullptr;
    for (const StrategyResult& b : w.outcome()->report->baselines) {
      if (b.strategy == "fsdp") fsdp_result = &b;
    }
    QVERIFY(fsdp_result != nullptr && fsdp_result->fits);
    for (std::size_t i = 0; i < fsdp_result->plan.operators.size(); ++i) {
      QCOMPARE(w.operator_view()->shown_choice(i).scopes.name(), std::string("GGG"));
      QCOMPARE(w.operator_view()->shown_choice(i).sharded_slices,
               fsdp_result->plan.operators[i].sharded_slices);
    }
    QVERIFY(w.summary_text().contains("fsdp"));
    // A point of the front sets the memory limit to its peak and re-plans there.
    w.tabs()->setCurrentIndex(2);
    w.pareto_view()->repaint();
    const std::optional<QPointF> front = w.pareto_view()->front_point(0);
    QVERIFY(front.has_value());
    const QString before = w.panel()->memory_field()->text();
    QSignalSpy shown(&w, &MainWindow::planShown);
    QTest::mouseClick(w.pareto_view(), Qt::LeftButton, {}, front->toPoint());
    QVERIFY(w.panel()->memory_field()->text() != before);
    QVERIFY(shown.wait(90000));
    QVERIFY(w.outcome()->report->best.plan.predicted.peak_memory_bytes <=
            w.outcome()->report->pareto.front().peak_bytes * 1.01 + 0.01 * 1024 * 1024 * 1024);
  }

  void brokenScenarioShowsError() {
    QTemporaryDir dir;
    const QString bad = dir.filePath("bad.yaml");
    std::ofstream(bad.toStdString()) << "model: {preset: nd-48x1537}\ncluster: {preset: titan-rtx-8-pcie3}\n";
    const QString garbage = dir.filePath("garbage.yaml");
    std::ofstream(garbage.toStdString()) << "model: [unclosed\n  : :\n";
    MainWindow w;
    w.show();
    QVERIFY(!w.open_scenario(bad));
    QVERIFY2(w.panel()->error_text().contains("unknown model preset"), qPrintable(w.panel()->error_text()));
    QVERIFY(w.panel()->error_text().contains("bad.yaml"));
    QVERIFY(!w.panel()->field_error("model").isEmpty());
    QVERIFY(!w.open_scenario(garbage));
    QVERIFY2(w.panel()->error_text().contains("garbage.yaml"), qPrintable(w.panel()->error_text()));
    QVERIFY(!w.open_scenario(dir.filePath("missing.yaml")));
    QVERIFY(w.isVisible());
    QVERIFY(open_and_plan(w, kDefault));  // and the window still works
    QVERIFY(w.panel()->error_text().isEmpty());
  }

  void invalidFieldShowsParserMessage() {
    MainWindow w;
    w.show();
    QVERIFY(wait_for_plan(w));
    QLineEdit* memory = w.panel()->memory_field();
    memory->selectAll();
    QTest::keyClicks(memory, "8 bananas");
    w.panel()->reparse_now();
    const QString message = w.panel()->field_error("memory");
    QVERIFY2(message.contains("memory_limit"), qPrintable(message));
    QVERIFY(!w.panel()->scenario().has_value());
    memory->selectAll();
    QTest::keyClicks(memory, "6GB");
    QSignalSpy shown(&w, &MainWindow::planShown);
    w.panel()->reparse_now();
    QVERIFY(w.panel()->field_error("memory").isEmpty());
    QVERIFY(shown.wait(90000));
    QVERIFY(w.outcome()->job.scenario.training.memory_limit_bytes == 6000000000);
  }

  // Every field of the scenario form reaches the scenario, and a bad value shows the parser's message at
  // its own row.
  void scenarioPanelEditsEveryField() {
    ScenarioPanel panel;
    QVERIFY(panel.open_file(kDefault));
    QVERIFY(panel.scenario().has_value());
    const std::size_t operators = panel.scenario()->model.operators.size();
    QSpinBox* layers = panel.transformer_field("layers");
    QVERIFY(layers != nullptr && layers->isEnabled());
    QVERIFY(panel.transformer_field("hidden")->value() > 0);
    layers->setValue(layers->value() + 2);  // the preset becomes its own transformer: map
    panel.reparse_now();
    QVERIFY2(panel.scenario().has_value(), qPrintable(panel.error_text()));
    QVERIFY(panel.scenario()->model.operators.size() > operators);
    QVERIFY(panel.yaml_text().contains("transformer:"));
    QVERIFY(panel.model_box()->currentText().startsWith("transformer: "));

    const auto type = [&](QLineEdit* field, const QString& text) {
      field->selectAll();
      QTest::keyClicks(field, text);
      panel.reparse_now();
    };
    type(panel.group_size_field(), "4");
    QVERIFY2(panel.scenario().has_value(), qPrintable(panel.error_text()));
    QCOMPARE(panel.scenario()->training.group_size, 4);
    type(panel.slices_field(), "1, 2");
    QVERIFY2(panel.scenario().has_value(), qPrintable(panel.error_text()));
    QCOMPARE(panel.scenario()->training.slice_granularities, (std::vector<int>{1, 2}));
    type(panel.slices_field(), "1, two");
    QVERIFY(!panel.scenario().has_value());
    QVERIFY2(panel.field_error("slices").contains("slice_granularities"), qPrintable(panel.error_text()));
    type(panel.slices_field(), "1, 2, 4");
    QVERIFY(panel.scenario().has_value());

    panel.batch_policy_box()->setCurrentText("equal");
    panel.overlap_box()->setChecked(false);
    panel.collectives_box()->setCurrentText("ring");
    panel.reparse_now();
    QVERIFY2(panel.scenario().has_value(), qPrintable(panel.error_text()));
    QVERIFY(panel.scenario()->training.batch_policy == BatchPolicy::equal);
    QVERIFY(!panel.scenario()->execution.overlap);
    QVERIFY(panel.scenario()->execution.collectives == CollectivesChoice::ring);
    panel.cost_model_box()->setCurrentText("paper");  // needs planner.paper coefficients
    panel.reparse_now();
    QVERIFY(!panel.scenario().has_value());
    QVERIFY2(!panel.field_error("cost").isEmpty(), qPrintable(panel.error_text()));
  }

  // Every tab paints at the sizes a user drags the window to, from a small laptop to a large screen.
  void resizingKeepsEveryViewUsable() {
    MainWindow w;
    w.show();
    QVERIFY(wait_for_plan(w));
    const std::size_t operators = w.operator_view()->operator_count();
    for (const QSize size : {QSize(640, 420), QSize(2560, 1440), QSize(1400, 860)}) {
      w.resize(size);
      QTest::qWait(20);
      for (int i = 0; i < w.tabs()->count(); ++i) {
        w.tabs()->setCurrentIndex(i);
        const QImage image = w.tabs()->currentWidget()->grab().toImage();
        QVERIFY2(!image.isNull() && image.width() > 0 && image.height() > 0,
                 qPrintable(w.tabs()->tabText(i)));
      }
      QCOMPARE(w.operator_view()->operator_count(), operators);
    }
  }

  // Every shipped scenario opens, plans and shows its plan in every tab (the simulation tabs stay empty
  // until asked), the operator view holding every operator of its model.
  // After the plan, its memory sweep: the Pareto tab's line becomes the sweep's frontier (the same
  // breakpoints the planner library gives), the next breakpoint above the limit is marked, and clicking it
  // re-plans at that memory to a faster plan.
  void paretoShowsTheMemorySweep() {
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QSignalSpy swept(&w, &MainWindow::sweepShown);
    QVERIFY(open_and_plan(w, kDefault));
    if (!w.sweep() || w.sweep()->generation != w.outcome()->generation) QVERIFY(swept.wait(90000));
    QVERIFY(w.sweep()->sweep.has_value());
    const ValidScenario scenario(w.outcome()->job.scenario);
    const MemorySweep expected = memory_sweep(scenario, scenario_calibration(scenario), 1);
    const MemorySweep& shown = *w.sweep()->sweep;
    QCOMPARE(shown.breakpoints.size(), expected.breakpoints.size());
    QCOMPARE(shown.at_limit, expected.at_limit);
    QCOMPARE(shown.breakpoints.back().samples_per_second, expected.breakpoints.back().samples_per_second);
    w.tabs()->setCurrentIndex(2);
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.pareto_view()->repaint();
    QVERIFY(w.pareto_view()->shows_sweep());
    QVERIFY(w.pareto_view()->front_size() > 100);
    const int next = w.pareto_view()->next_breakpoint();
    QVERIFY(next >= 0 && expected.next >= 0);
    const std::optional<QPointF> ring = w.pareto_view()->front_point(static_cast<std::size_t>(next));
    QVERIFY(ring.has_value());
    QSignalSpy shown_plan(&w, &MainWindow::planShown);
    QTest::mouseClick(w.pareto_view(), Qt::LeftButton, {}, ring->toPoint());
    QVERIFY(shown_plan.wait(90000));
    const MemoryBreakpoint& b = expected.breakpoints[static_cast<std::size_t>(expected.next)];
    QVERIFY(static_cast<double>(w.outcome()->job.scenario.training.memory_limit_bytes) >= b.peak_bytes);
    // The plan there fits the new limit (the search rounds each operator at the quantum of that limit, so
    // the breakpoint's exact plan may need a little more: docs/gui.md).
    QVERIFY(w.outcome()->report->best.fits);
    QVERIFY(w.outcome()->report->best.plan.predicted.peak_memory_bytes <=
            static_cast<double>(w.outcome()->job.scenario.training.memory_limit_bytes));
  }

  // The baselines table's P(plan faster): the planner library's probability from the published pairs of a
  // framework's profile on a GPU it was scored on; "-" without scored pairs (the default scenario).
  void baselinesGiveTheOddsOfThePlan() {
    QTemporaryDir dir;
    const QString path = dir.filePath("fsdp1.yaml");
    std::ofstream(path.toStdString()) << "name: odds\nmodel: {preset: llama-7b}\ncluster: {preset: dgx-a100, "
                                         "nodes: 2}\nexecution: {runtime: fsdp1}\n";
    MainWindow w;
    w.show();
    QVERIFY(open_and_plan(w, path));
    const PlanReport& report = *w.outcome()->report;
    QVERIFY(report.best.fits);
    const ThroughputUncertainty u = throughput_uncertainty(
        w.outcome()->job.scenario, report.best.plan.predicted.tokens_per_second, report.calibration_error);
    QVERIFY(u.pairs > 0);
    QTableWidget* t = w.baselines_table();
    QCOMPARE(t->horizontalHeaderItem(8)->text(), QString("P(plan faster)"));
    int checked = 0;
    for (int row = 1; row < t->rowCount(); ++row) {
      const StrategyResult& b = report.baselines[static_cast<std::size_t>(row - 1)];
      if (!b.fits) {
        QCOMPARE(t->item(row, 8)->text(), QString("-"));
        continue;
      }
      const double p = *probability_faster(u, report.best.plan.predicted.samples_per_second,
                                           b.plan.predicted.samples_per_second);
      QCOMPARE(t->item(row, 8)->text(), QString::number(p, 'f', 2));
      ++checked;
    }
    QVERIFY(checked > 5);
    QVERIFY(open_and_plan(w, kDefault));
    QCOMPARE(w.baselines_table()->item(1, 8)->text(), QString("-"));
  }

  // The Budget & scaling tab: time to train and cost per fitting strategy as the planner library computes
  // them, refusals of bad fields, and the node count for a target as `shardscope plan
  // --target-tokens-per-second` finds it, point for point.
  // parallelism: search: the GUI plans every mesh as `plan` does, shows the table, and every view shows the
  // fastest mesh's sliced scenario and plan; the node search refuses a mesh.
  void meshSearchShowsEveryMeshAndTheFastest() {
    QTemporaryDir dir;
    const QString path = dir.filePath("mesh.yaml");
    std::ofstream(path.toStdString())
        << "name: mesh\nmodel: {preset: llama3.1-8b}\ncluster: {preset: dgx-a100, nodes: 2}\n"
           "parallelism: {tensor: search, sequence_parallel: true}\n"
           "training: {gradient_accumulation_steps: 2, max_micro_batch: 4}\nexecution: {runtime: fsdp2}\n";
    MainWindow w;
    w.show();
    QVERIFY(open_and_plan(w, path));
    QVERIFY(w.outcome()->meshes.has_value());
    const MeshSearch& meshes = *w.outcome()->meshes;
    QCOMPARE(meshes.options.size(), std::size_t{4});
    const MeshOption& chosen = meshes.options[meshes.best];
    QCOMPARE(w.outcome()->report->best.plan.predicted.tokens_per_second,
             chosen.report.best.plan.predicted.tokens_per_second);
    QCOMPARE(w.outcome()->job.scenario.mesh.tensor.degree, chosen.slice.degree);
    for (const MeshOption& o : meshes.options) {
      QVERIFY(o.report.best.plan.predicted.tokens_per_second <=
              chosen.report.best.plan.predicted.tokens_per_second);
    }
    QVERIFY(w.summary_text().contains("Meshes (parallelism: search"));
    QVERIFY(w.summary_text().contains("TP 8 + SP x DP 2 (16 GPUs)"));
    if (chosen.slice.degree > 1) {
      QVERIFY(w.summary_text().contains("Mesh: <b>"));
      // Every sliced layer's row names its TP collectives; the tooltip lists each one.
      const OperatorView* view = w.operator_view();
      QVERIFY(view->column_shown(OperatorTableModel::kMesh));
      int with_collectives = 0;
      for (int row = 0; row < view->row_count(); ++row) {
        const QString cell = view->cell_text(row, OperatorTableModel::kMesh);
        if (cell.startsWith("TP ") && cell.contains(" blocking, ")) ++with_collectives;
        if (!cell.isEmpty()) QVERIFY(view->tooltip_for_row(row).contains("/sample, blocking"));
      }
      QVERIFY(with_collectives >= 2);  // attention and MLP rows at least
      w.budget_panel()->target_edit()->setText("100K");
      QVERIFY(!w.budget_panel()->find_nodes());
      QVERIFY(w.budget_panel()->scaling_status().contains("expert-parallel mesh"));
    }
  }

  // A scenario whose file fixes a mesh shows the physical cluster in the form, not the data-parallel view.
  void fixedMeshFormShowsThePhysicalCluster() {
    MainWindow w;
    w.show();
    QVERIFY(open_and_plan(w, QStringLiteral(SHARDSCOPE_SOURCE_DIR "/scenarios/llama3.1-8b-tp2-16gpu.yaml")));
    QVERIFY(w.outcome()->job.scenario.mesh.sliced());
    QCOMPARE(w.outcome()->job.scenario.cluster.gpus_per_node, 4);  // the view: one rank per TP pair
    QCOMPARE(w.panel()->gpus_per_node_box()->value(), 8);
    QCOMPARE(w.panel()->nics_field()->placeholderText(), QString("8"));
  }

  void budgetTabGivesTimeToTrainAndNodes() {
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QVERIFY(open_and_plan(w, kDefault));
    BudgetPanel* budget = w.budget_panel();
    budget->tokens_edit()->setText("1T");
    budget->price_edit()->setText("2.5");
    const PlanReport& report = *w.outcome()->report;
    int fitting = report.best.fits ? 1 : 0;
    for (const StrategyResult& b : report.baselines) fitting += b.fits ? 1 : 0;
    QCOMPARE(budget->table()->rowCount(), fitting);
    const TimeToTrain t = time_to_train(report.best.plan.predicted, w.outcome()->job.scenario.cluster.gpus(),
                                        TrainingBudget{1e12, 2.5});
    QCOMPARE(budget->table()->item(0, 3)->text(), QString::fromStdString(format_wall_time(t.seconds)));
    QCOMPARE(budget->table()->item(0, 5)->text(), QString::number(*t.cost, 'f', 2));
    budget->tokens_edit()->setText("lots");
    QVERIFY(budget->budget_status().startsWith("Tokens:"));
    QCOMPARE(budget->table()->rowCount(), 0);
    budget->tokens_edit()->setText("1T");
    budget->price_edit()->setText("-1");
    QVERIFY(budget->budget_status().startsWith("Price / GPU-hour:"));
    budget->target_edit()->setText("fast");
    QVERIFY(!budget->find_nodes());
    QVERIFY(budget->scaling_status().startsWith("Target:"));
    budget->target_edit()->setText("100K");
    QSignalSpy found(budget, &BudgetPanel::nodesFound);
    QVERIFY(budget->find_nodes());
    QVERIFY(found.wait(90000));
    QVERIFY(budget->search().has_value());
    QProcess cli;
    cli.start(SHARDSCOPE_CLI, {"plan", "--json", "--quiet", "--target-tokens-per-second", "100K", kDefault});
    QVERIFY(cli.waitForFinished(120000));
    const nlohmann::json target = nlohmann::json::parse(cli.readAllStandardOutput().toStdString())["target"];
    QCOMPARE(*budget->search()->nodes, target["nodes"].get<int>());
    QCOMPARE(budget->search()->curve.size(), target["curve"].size());
    for (std::size_t i = 0; i < budget->search()->curve.size(); ++i) {
      const TargetPoint& p = budget->search()->curve[i];
      QCOMPARE(p.nodes, target["curve"][i]["nodes"].get<int>());
      QVERIFY(std::abs(p.tokens_per_second / target["curve"][i]["tokens_per_second"].get<double>() - 1) <
              1e-9);
    }
    QVERIFY(budget->scaling_status().contains("3 node(s)"));
    // A new plan (another scenario) drops the curve: it was of the scenario before.
    QVERIFY(replan_after(w, [&] { w.panel()->memory_field()->setText("9GB"); }));
    QVERIFY(!budget->search().has_value());
  }

  void everyShippedScenarioPlansAndEveryTabPaints() {
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    int scenarios = 0;
    for (const auto& entry :
         std::filesystem::directory_iterator(std::string(SHARDSCOPE_SOURCE_DIR) + "/scenarios")) {
      if (entry.path().extension() != ".yaml") continue;
      ++scenarios;
      const QString path = QString::fromStdString(entry.path().string());
      QVERIFY2(open_and_plan(w, path), qPrintable(path + ": " + w.panel()->error_text()));
      QVERIFY2(w.outcome()->report.has_value() && w.outcome()->report->best.fits, qPrintable(path));
      QCOMPARE(w.operator_view()->operator_count(), w.outcome()->job.scenario.model.operators.size());
      QVERIFY2(w.summary_text().contains("samples/s"), qPrintable(path));
      for (int i = 0; i < w.tabs()->count(); ++i) {
        w.tabs()->setCurrentIndex(i);
        QVERIFY2(!w.tabs()->currentWidget()->grab().toImage().isNull(),
                 qPrintable(path + " " + w.tabs()->tabText(i)));
      }
    }
    QVERIFY(scenarios >= 6);
  }

  // A 4,096-GPU cluster (512 DGX-A100 nodes) plans and shows like a small one.
  void fourThousandGpusStayUsable() {
    QTemporaryDir dir;
    const QString path = dir.filePath("gpus4096.yaml");
    std::ofstream(path.toStdString())
        << "name: gpus4096\nmodel: {preset: nd-48x1536}\ncluster: {preset: dgx-a100, nodes: 512}\n"
           "training: {precision: mixed-fp16, memory_limit: 40GB, max_micro_batch: 16}\n";
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QVERIFY(open_and_plan(w, path));
    QCOMPARE(w.outcome()->job.scenario.cluster.gpus(), 4096);
    QVERIFY(w.outcome()->report->best.fits);
    QVERIFY(w.summary_text().contains("samples/s"));
    QVERIFY(w.baselines_table()->rowCount() > 20);
    for (int i = 0; i < w.tabs()->count(); ++i) {
      w.tabs()->setCurrentIndex(i);
      QVERIFY(!w.tabs()->currentWidget()->grab().toImage().isNull());
    }
  }

  // File › Open reads and parses on a worker thread: the form takes the file when it is ready, a broken file
  // says why, and a newer open supersedes one still in flight.
  void openingOffTheUiThread() {
    QTemporaryDir dir;
    const QString big = dir.filePath("thousand.yaml");
    write_thousand_operators(big);
    const QString bad = dir.filePath("bad.yaml");
    std::ofstream(bad.toStdString()) << "model: {preset: nd-48x1537}\ncluster: {preset: titan-rtx-8-pcie3}\n";
    ScenarioPanel panel;
    QSignalSpy opened(&panel, &ScenarioPanel::fileOpened);
    StallTicker stalls;
    panel.open_file_async(big);
    QVERIFY(opened.wait(30000));
    const qint64 longest = stalls.stop();
    QCOMPARE(opened.takeFirst().at(0).toBool(), true);
    QVERIFY(panel.scenario().has_value());
    QCOMPARE(panel.scenario()->model.operators.size(), std::size_t{1000});
    qInfo("opening a 1000-operator scenario off the UI thread: longest UI-thread stall %lld ms", longest);
    QVERIFY2(longest < 2000, qPrintable(QString::number(longest)));

    panel.open_file_async(bad);
    QVERIFY(opened.wait(30000));
    QCOMPARE(opened.takeFirst().at(0).toBool(), false);
    QVERIFY2(panel.field_error("model").contains("unknown model preset"), qPrintable(panel.error_text()));

    // Issue 30, 26: a folder was "file is empty", a missing file "cannot be read" with no reason.
    QVERIFY(!panel.open_file(dir.path()));
    QVERIFY2(panel.field_error("general").contains("is a directory; expected a scenario file"),
             qPrintable(panel.error_text()));
    QVERIFY(!panel.open_file(dir.filePath("missing.yaml")));
    QVERIFY2(panel.field_error("general").contains("cannot open scenario: no such file"),
             qPrintable(panel.error_text()));

    panel.open_file_async(big);  // superseded by the synchronous open below
    QVERIFY(panel.open_file(kDefault));
    QTest::qWait(500);
    QVERIFY(opened.isEmpty());
    QCOMPARE(panel.scenario()->model.operators.size(), std::size_t{98});
  }

  void thousandOperatorsStayUsable() {
    QTemporaryDir dir;
    const QString path = dir.filePath("thousand.yaml");
    write_thousand_operators(path);
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QVERIFY(wait_for_plan(w));  // the default scenario's, first
    // The UI thread's longest stall while File › Open reads the file and the plan is made and shown.
    StallTicker stalls;
    QElapsedTimer clock;
    clock.start();
    QVERIFY(newest_plan_after(w, [&] {
      w.panel()->open_file_async(path);
      QSignalSpy opened(w.panel(), &ScenarioPanel::fileOpened);
      return opened.wait(30000) && opened.front().at(0).toBool();
    }));
    const qint64 longest = stalls.stop();
    qInfo("1000 operators: planned and shown in %lld ms; longest UI-thread stall %lld ms", clock.elapsed(),
          longest);
    QCOMPARE(w.operator_view()->operator_count(), std::size_t{1000});
    // Open every group and repaint: one screenful is painted, whatever the row count.
    for (std::size_t g = 0; g < w.operator_view()->groups().size(); ++g)
      w.operator_view()->set_expanded(g, true);
    QVERIFY(w.operator_view()->row_count() >= 1000);
    QElapsedTimer paint;
    paint.start();
    w.tabs()->widget(0)->repaint();
    QVERIFY2(paint.elapsed() < 1000, qPrintable(QString::number(paint.elapsed())));
    QVERIFY2(longest < 2000, qPrintable(QString::number(longest)));
  }

  // Keep A, change the memory limit: the compare view holds A as kept and B as re-planned, and highlights
  // exactly the operators whose scopes, slices or checkpointing differ between the two plans.
  void compareKeepsAAndHighlightsChanges() {
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QVERIFY(open_and_plan(w, kDefault));
    CompareView* view = w.compare_panel()->view();
    QVERIFY(!w.compare_panel()->has_a());
    QVERIFY(view->message().startsWith("No plan A yet"));
    const Plan a = w.outcome()->report->best.plan;
    w.keep_as_a();
    QVERIFY(w.compare_panel()->has_a());
    QCOMPARE(view->comparison().choices_changed(), std::size_t{0});  // B is A until the next plan
    QVERIFY(view->highlighted_operators().empty());
    QVERIFY(replan_after(w, [&] { w.panel()->set_memory_limit_text("6GB"); }));
    QVERIFY(w.outcome()->job.scenario.training.memory_limit_bytes == 6000000000);
    const Plan& b = w.outcome()->report->best.plan;
    QCOMPARE(view->a()->plan.predicted.samples_per_second, a.predicted.samples_per_second);
    QCOMPARE(view->b()->plan.predicted.samples_per_second, b.predicted.samples_per_second);
    QVERIFY(view->message().isEmpty());
    // The summary shows both sides.
    const QStringList lines = view->summary_lines();
    const auto line = [&](const QString& metric) {
      for (const QString& l : lines) {
        if (l.startsWith(metric + ":")) return l;
      }
      return QString();
    };
    QVERIFY2(line("memory limit per GPU").contains("7.45 GiB | 5.59 GiB"), qPrintable(lines.join('\n')));
    QVERIFY(line("throughput (samples/s)")
                .contains(QString::number(a.predicted.samples_per_second, 'f', 2) + " | " +
                          QString::number(b.predicted.samples_per_second, 'f', 2)));
    // The highlighted rows, recomputed from the two plans.
    std::vector<std::string> changed;
    for (std::size_t i = 0; i < a.operators.size(); ++i) {
      const OperatorChoice& x = a.operators[i];
      const OperatorChoice& y = b.operators[i];
      const bool dp_x = x.sharded_slices == 0, dp_y = y.sharded_slices == 0;
      const bool scopes = dp_x != dp_y || (!dp_x && x.scopes.name() != y.scopes.name());
      if (scopes || x.slices != y.slices || x.sharded_slices != y.sharded_slices ||
          x.checkpoint != y.checkpoint)
        changed.push_back(x.name);
    }
    QVERIFY(!changed.empty());
    QCOMPARE(view->highlighted_operators(), changed);
    QCOMPARE(view->comparison().choices_changed(), changed.size());
    QCOMPARE(view->comparison().operators.size(), a.operators.size());
    QVERIFY(line("operators with another choice")
                .endsWith(QString("%1 of %2").arg(changed.size()).arg(a.operators.size())));
    // Only the changed rows when asked; every row (or folded run) otherwise.
    w.compare_panel()->only_changed_box()->setChecked(true);
    QCOMPARE(view->operator_lines(), static_cast<int>(changed.size()));
    w.compare_panel()->only_changed_box()->setChecked(false);
    QVERIFY(view->operator_lines() > static_cast<int>(changed.size()));
    // Clear A resets.
    w.compare_panel()->clear_button()->click();
    QVERIFY(!w.compare_panel()->has_a());
    QVERIFY(view->summary_lines().isEmpty());
    QCOMPARE(view->operator_lines(), 0);
  }

  // A and B of different models: the compare view says so instead of a table.
  void compareDifferentModelsSaysSo() {
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QVERIFY(open_and_plan(w, kDefault));
    w.keep_as_a();
    QVERIFY(w.panel()->model_box()->findText("nd-64x1536") >= 0);
    QVERIFY(replan_after(w, [&] { w.panel()->model_box()->setCurrentText("nd-64x1536"); }));
    QCOMPARE(w.outcome()->job.scenario.model.name, std::string("nd-64x1536"));
    CompareView* view = w.compare_panel()->view();
    QCOMPARE(view->message(),
             QString("The models differ: A is nd-48x1536 (98 operators), B is nd-64x1536 (130 "
                     "operators); B has 32 operators that A has not, so operators cannot be "
                     "compared one by one."));
    QVERIFY(!view->comparison().models_differ.empty());
    QVERIFY(view->comparison().operators.empty());
    QCOMPARE(view->operator_lines(), 0);
    QVERIFY(view->summary_lines().join('\n').contains("model: nd-48x1536 (98 operators) | nd-64x1536"));
  }

  // compare_plans on edited copies of the default plan: operators are matched by name (not position), a
  // renamed operator makes the models differ, a flipped checkpoint is the one change, a plan that does not
  // fit gives its message.
  void comparePlansMatchesOperatorsByName() {
    MainWindow w;
    w.show();
    QVERIFY(open_and_plan(w, kDefault));
    const std::optional<PlanSnapshot> a =
        snapshot_of(w.outcome()->job.scenario, {}, *w.outcome()->report, "plan");
    QVERIFY(a && a->fits);
    const std::size_t last = a->plan.operators.size() - 1;
    QVERIFY(choice_text(a->plan.operators[0]) != choice_text(a->plan.operators[last]));  // embedding, head
    PlanSnapshot swapped = *a;  // the first and last operators in each other's place
    std::swap(swapped.scenario.model.operators[0], swapped.scenario.model.operators[last]);
    std::swap(swapped.plan.operators[0], swapped.plan.operators[last]);
    std::swap(swapped.operator_costs[0], swapped.operator_costs[last]);
    PlanComparison c = compare_plans(*a, swapped);
    QVERIFY(c.models_differ.empty());
    QCOMPARE(c.operators.size(), a->plan.operators.size());
    for (const OperatorDifference& d : c.operators) QVERIFY2(!d.any_difference(), d.name.c_str());

    PlanSnapshot renamed = *a;
    renamed.scenario.model.operators[0].name = "embedding2";
    c = compare_plans(*a, renamed);
    QCOMPARE(c.models_differ,
             std::string(
                 "The models differ: A is nd-48x1536 (98 operators), B is nd-48x1536 (98 operators); A has "
                 "1 operator that B has not and B has 1 operator that A has not, so operators cannot be "
                 "compared one by one."));
    QVERIFY(c.operators.empty());

    PlanSnapshot flipped = *a;
    flipped.plan.operators[5].checkpoint = !flipped.plan.operators[5].checkpoint;
    c = compare_plans(*a, flipped);
    QCOMPARE(c.choices_changed(), std::size_t{1});
    QVERIFY(c.operators[5].checkpoint_differs && !c.operators[5].scopes_differ &&
            !c.operators[5].slices_differ);

    PlanSnapshot unfit = *a;
    unfit.fits = false;
    c = compare_plans(*a, unfit);
    QVERIFY(!c.both_fit && c.operators.empty() && c.models_differ.empty());
    CompareView view;
    view.set_a(*a);
    view.set_b(unfit);
    QCOMPARE(view.message(),
             QString("Plan B does not fit its memory limit, so there are no operator choices to compare."));
  }

  // Issue: the Compare view cut "= 1024" to "= 102": a value that differs is drawn bold, wider than the
  // normal font the column was measured (and elided) in. Every summary column now fits its widest value.
  void compareColumnsFitFourDigitValues() {
    MainWindow w;
    w.show();
    QVERIFY(open_and_plan(w, kDefault));
    const std::optional<PlanSnapshot> a =
        snapshot_of(w.outcome()->job.scenario, {}, *w.outcome()->report, "plan");
    QVERIFY(a && a->fits);
    PlanSnapshot b = *a;
    b.plan.micro_batch = 64;
    b.plan.gradient_accumulation_steps = 2;  // 64 × 2 steps × 8 GPUs = 1024
    b.plan.predicted.samples_per_second = 1234.5678;
    CompareView view;
    view.set_a(*a);
    view.set_b(b);
    // Each cell in the font it is drawn in (bold where A and B differ) fits its column.
    const QAbstractItemModel* model = view.summary_view()->model();
    bool batch_seen = false;
    for (int row = 0; row < model->rowCount(); ++row) {
      for (int c = 0; c < model->columnCount(); ++c) {
        const QModelIndex cell = model->index(row, c);
        const QString text = cell.data().toString();
        const QFontMetrics fm(cell.data(Qt::FontRole).value<QFont>());
        batch_seen = batch_seen || (c == 2 && text.endsWith("= 1024"));
        QVERIFY2(fm.horizontalAdvance(text) + 8 <= view.summary_column_width(c),
                 qPrintable(QString("%1 in a column of %2 px").arg(text).arg(view.summary_column_width(c))));
      }
    }
    QVERIFY(model->index(6, 2).data(Qt::FontRole).value<QFont>().bold());  // the batch differs
    QVERIFY(batch_seen);
  }

  // Issue: the main window's pins line and the Compare view quoted two unpinned references (the search's
  // pick without baselines, and the plan kept as A) with two roundings (−0.04 % and −0.1 %). Both quote the
  // plan the same request gives without pins, with the same two decimals.
  void pinsCostQuotesOneReference() {
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QVERIFY(open_and_plan(w, kDefault));
    w.keep_as_a();  // the unpinned plan
    const Plan a = w.outcome()->report->best.plan;
    const std::size_t op = w.operator_view()->groups().front().members.front();
    const bool was_dp = a.operators[op].sharded_slices == 0;
    QVERIFY(newest_plan_after(w, [&] {
      w.add_pins(w.operator_view()->pins_for_row(0, was_dp ? zdp_pin(0) : dp_pin(0)));
      return true;
    }));
    QVERIFY(w.outcome()->unpinned.has_value());
    const PlanPrediction& unpinned = w.outcome()->unpinned->best.plan.predicted;
    QCOMPARE(unpinned.samples_per_second, a.predicted.samples_per_second);
    const PlanPrediction& pinned = w.outcome()->report->best.plan.predicted;
    const QString percent =
        QString::fromStdString(percent_change(pinned.samples_per_second, unpinned.samples_per_second));
    QVERIFY2(w.summary_text().contains("Pins cost: throughput <b>" + percent + "</b>"),
             qPrintable(w.summary_text()));
    const QStringList lines = w.compare_panel()->view()->summary_lines();
    const QString throughput = lines.filter(QRegularExpression("^throughput")).value(0);
    QVERIFY2(throughput.endsWith("(" + percent + ")"), qPrintable(throughput + " vs " + percent));
    const QString pins = lines.filter(QRegularExpression("^pins:")).value(0);
    QVERIFY2(pins.endsWith("| 1 pinned operator (throughput " + percent + " against the unpinned plan) | "),
             qPrintable(pins));
  }

  // The scenario panel edits the cluster's NIC count, NIC rate and GPU memory as `--set` of the same paths
  // does; an empty field gives the preset's value back, and a bad value shows the parser's message there.
  void scenarioPanelEditsNetworkAndGpuMemory() {
    const std::string file = kDefault.toStdString();
    const std::vector<std::tuple<QString, std::string, std::string>> edits{
        {"nics", "cluster.network.nics_per_node", "4"},
        {"nic_rate", "cluster.network.nic_rate", "400Gbps"},
        {"gpu_memory", "cluster.gpu.memory", "16GiB"}};
    ScenarioPanel panel;
    QVERIFY(panel.open_file(kDefault));
    const Cluster before = panel.scenario()->cluster;
    QCOMPARE(panel.nic_rate_field()->placeholderText(), QString("12.50 GB/s"));
    QCOMPARE(panel.gpu_memory_field()->placeholderText(), QString("24.00 GiB"));
    const std::map<QString, QLineEdit*> fields{{"nics", panel.nics_field()},
                                               {"nic_rate", panel.nic_rate_field()},
                                               {"gpu_memory", panel.gpu_memory_field()}};
    for (const auto& [row, path, value] : edits) {
      QLineEdit* field = fields.at(row);
      field->selectAll();
      QTest::keyClicks(field, QString::fromStdString(value));
      panel.reparse_now();
      QVERIFY2(panel.scenario().has_value(), qPrintable(panel.error_text()));
      const Scenario cli = load_scenario_with_overrides(file, {parse_set_argument(path + "=" + value)});
      const Cluster& got = panel.scenario()->cluster;
      QCOMPARE(got.network.nics_per_node, cli.cluster.network.nics_per_node);
      QCOMPARE(got.network.nic_bytes_per_second, cli.cluster.network.nic_bytes_per_second);
      QCOMPARE(got.gpu.memory_bytes, cli.cluster.gpu.memory_bytes);
      QVERIFY(panel.yaml_text().contains(QString::fromStdString(value)));
      field->selectAll();
      QTest::keyClick(field, Qt::Key_Delete);
      panel.reparse_now();
      QVERIFY2(panel.scenario().has_value(), qPrintable(panel.error_text()));
    }
    QCOMPARE(panel.scenario()->cluster.network.nics_per_node, before.network.nics_per_node);
    QCOMPARE(panel.scenario()->cluster.network.nic_bytes_per_second, before.network.nic_bytes_per_second);
    QCOMPARE(panel.scenario()->cluster.gpu.memory_bytes, before.gpu.memory_bytes);
    QVERIFY(!panel.yaml_text().contains("network"));
    // Bad values: the parser's message at the field's own row.
    QTest::keyClicks(panel.nic_rate_field(), "fast");
    panel.reparse_now();
    QVERIFY(!panel.scenario().has_value());
    QVERIFY2(panel.field_error("nic_rate").contains("nic_rate"), qPrintable(panel.error_text()));
    panel.nic_rate_field()->selectAll();
    QTest::keyClick(panel.nic_rate_field(), Qt::Key_Delete);
    QTest::keyClicks(panel.nics_field(), "0");
    panel.reparse_now();
    QVERIFY2(panel.field_error("nics").contains("nics_per_node"), qPrintable(panel.error_text()));
    panel.nics_field()->selectAll();
    QTest::keyClick(panel.nics_field(), Qt::Key_Delete);
    QTest::keyClicks(panel.gpu_memory_field(), "4GiB");  // under the 8 GB memory limit
    panel.reparse_now();
    QVERIFY(!panel.scenario().has_value());
    QVERIFY2(!panel.error_text().isEmpty(), qPrintable(panel.error_text()));
    panel.gpu_memory_field()->selectAll();
    QTest::keyClicks(panel.gpu_memory_field(), "[unclosed");  // not YAML: the override's own message
    QVERIFY2(panel.field_error("gpu_memory").contains("malformed value"), qPrintable(panel.error_text()));
  }

  // The field table edits the scenario document by `--set`'s paths, the form follows, and saving keeps the
  // file's comments and untouched lines byte for byte; a value the document refuses is named at its row.
  void scenarioFieldTableEditsAndSavesWithComments() {
    QTemporaryDir dir;
    const QString path = dir.filePath("commented.yaml");
    std::string original;
    {
      std::ifstream in(kDefault.toStdString());
      original.assign(std::istreambuf_iterator<char>(in), {});
      original += "# a closing comment\n";
      std::ofstream(path.toStdString()) << original;
    }
    ScenarioPanel panel;
    QVERIFY(panel.open_file(path));
    ScenarioFieldModel* model = panel.field_model();
    const int memory = model->row_of("training.memory_limit");
    QVERIFY(memory >= 0);
    QCOMPARE(model->index(memory, ScenarioFieldModel::kValue).data().toString(), QString("8GB"));
    QVERIFY(model->index(memory, ScenarioFieldModel::kWhat).data().toString().contains("bytes per GPU"));
    QVERIFY(model->flags(model->index(memory, ScenarioFieldModel::kValue)) & Qt::ItemIsEditable);
    QVERIFY(model->setData(model->index(memory, ScenarioFieldModel::kValue), "12GB"));
    panel.reparse_now();
    QVERIFY2(panel.scenario().has_value(), qPrintable(panel.error_text()));
    QCOMPARE(panel.scenario()->training.memory_limit_bytes, 12'000'000'000);
    QCOMPARE(panel.memory_field()->text(), QString("12GB"));  // the form follows the table
    // A field the file does not have yet, from the form: a new line in its section.
    panel.group_size_field()->selectAll();
    QTest::keyClicks(panel.group_size_field(), "4");
    QCOMPARE(model->index(model->row_of("training.group_size"), ScenarioFieldModel::kValue).data().toString(),
             QString("4"));
    const QString saved = dir.filePath("saved.yaml");
    QVERIFY(panel.save_file(saved));
    std::string expected = original;
    expected.replace(expected.find("memory_limit: 8GB"), 17, "memory_limit: 12GB");
    const std::size_t after_batch = expected.find("\n", expected.find("  max_micro_batch:")) + 1;
    expected.insert(after_batch, "  group_size: 4\n");
    std::ifstream in(saved.toStdString());
    const std::string written((std::istreambuf_iterator<char>(in)), {});
    QCOMPARE(written, expected);
    // Refused by the document: the message at the field's row, the document as it was.
    QVERIFY(model->setData(model->index(memory, ScenarioFieldModel::kValue), "[unclosed"));
    QVERIFY2(panel.field_error("memory").contains("malformed value"), qPrintable(panel.error_text()));
    QCOMPARE(panel.yaml_text().toStdString(), expected);
    // Emptied: the field's line is gone.
    QVERIFY(
        model->setData(model->index(model->row_of("training.group_size"), ScenarioFieldModel::kValue), ""));
    QCOMPARE(panel.yaml_text().toStdString().find("group_size"), std::string::npos);
  }

  // The operator table is a model in a tree view: the CLI's row texts (plan-default.tesh), sorting by a
  // column, keyboard navigation, and Ctrl+C copying the selected rows as tab-separated text.
  void operatorTableSortsSelectsAndCopies() {
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QVERIFY(open_and_plan(w, kDefault));
    OperatorView* view = w.operator_view();
    const QAbstractItemModel* model = view->tree()->model();
    QCOMPARE(model->rowCount(), 5);
    const auto row_text = [&](int row) {
      QStringList cells;
      for (int c = 0; c < model->columnCount(); ++c) {
        if (!view->tree()->isColumnHidden(c)) cells << model->index(row, c).data().toString();
      }
      return cells.join('\t');
    };
    QCOMPARE(row_text(2), QString("layer0.mlp .. layer47.mlp\t48\tGGG\tyes\t54.02 MiB\t17.771 ms\t"));
    QCOMPARE(row_text(4), QString("head\t1\tGGG 8/8\tno\t1.33 GiB\t63.140 ms\t"));
    QCOMPARE(model->rowCount(model->index(2, 0)), 48);  // the members, when expanded
    view->tree()->sortByColumn(OperatorTableModel::kTime, Qt::DescendingOrder);
    QCOMPARE(model->index(0, 0).data().toString(), QString("head"));
    QCOMPARE(model->index(4, 0).data().toString(), QString("layer1.attention .. layer47.attention"));
    view->tree()->sortByColumn(OperatorTableModel::kMemory, Qt::AscendingOrder);
    QCOMPARE(model->index(0, OperatorTableModel::kMemory).data().toString(), QString("36.02 MiB"));
    view->tree()->sortByColumn(OperatorTableModel::kName, Qt::AscendingOrder);
    QCOMPARE(model->index(0, 0).data().toString(), QString("embedding"));
    // Keyboard: Down moves the current row, Shift+Down extends the selection; Ctrl+C copies it.
    view->tree()->setFocus();
    view->tree()->setCurrentIndex(model->index(3, 0));
    QTest::keyClick(view->tree(), Qt::Key_Down, Qt::ShiftModifier);
    QCOMPARE(view->tree()->currentIndex().row(), 4);
    const QString expected = row_text(3) + "\n" + row_text(4) + "\n";
    QCOMPARE(selected_rows_text(view->tree()), expected);
    QApplication::clipboard()->clear();
    QTest::keyClick(view->tree(), Qt::Key_C, Qt::ControlModifier);
    QCOMPARE(QApplication::clipboard()->text(), expected);
    // Expanding a group shows its members below it, in model order.
    view->set_expanded(2, true);
    QCOMPARE(view->row_count(), 5 + 48);
    QCOMPARE(model->index(1, 0, model->index(2, 0)).data().toString(), QString("layer1.mlp"));
    QVERIFY(view->tooltip_for_row(3).contains("layer0.mlp"));
  }

  // The compare table is a model in a view too: one row per compare line, folded runs spanning the row,
  // sorting by Δ time, and copying.
  void compareTableSortsAndCopies() {
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QVERIFY(open_and_plan(w, kDefault));
    w.keep_as_a();
    QVERIFY(replan_after(w, [&] { w.panel()->set_memory_limit_text("6GB"); }));
    CompareView* view = w.compare_panel()->view();
    QTreeView* table = view->table_view();
    const QAbstractItemModel* model = table->model();
    QCOMPARE(model->rowCount(), view->operator_lines());
    for (int row = 0; row < model->rowCount(); ++row) {
      const bool spanned = table->isFirstColumnSpanned(row, {});
      QCOMPARE(spanned, model->index(row, 0).data().toString().contains(" operators with the same choice"));
    }
    // A against itself: every operator the same, one folded run spanning its row.
    CompareView same;
    same.set_a(*view->a());
    same.set_b(*view->a());
    QCOMPARE(same.table_view()->model()->rowCount(), 1);
    QVERIFY(same.table_view()->isFirstColumnSpanned(0, {}));
    const auto changed = view->highlighted_operators();
    QVERIFY(!changed.empty());
    table->sortByColumn(10, Qt::AscendingOrder);  // Δ time, B − A: the largest saving first
    QVERIFY(model->index(0, 10).data(CompareTableModel::SortRole).toDouble() <=
            model->index(1, 10).data(CompareTableModel::SortRole).toDouble());
    for (int row = 0; row < model->rowCount(); ++row)  // spans follow the rows they belong to
      QCOMPARE(table->isFirstColumnSpanned(row, {}),
               model->index(row, 0).data().toString().contains(" operators with the same choice"));
    table->selectAll();
    const QStringList lines = selected_rows_text(table).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), model->rowCount());
    QCOMPARE(lines.front().count('\t'), 10);
    // The summary table: one row per summary line.
    QCOMPARE(view->summary_view()->model()->rowCount(), view->summary_lines().size());
  }

  void exportsWrite() {
    QTemporaryDir dir;
    MainWindow w;
    w.resize(1200, 800);
    w.show();
    QVERIFY(open_and_plan(w, kDefault));
    for (int tab = 0; tab < 3; ++tab) {
      w.tabs()->setCurrentIndex(tab);
      QVERIFY(w.export_view(dir.filePath(QString("view%1.png").arg(tab))));
      QVERIFY(w.export_view(dir.filePath(QString("view%1.svg").arg(tab))));
      QVERIFY(QFileInfo(dir.filePath(QString("view%1.png").arg(tab))).size() > 1000);
      QVERIFY(QFileInfo(dir.filePath(QString("view%1.svg").arg(tab))).size() > 1000);
    }
    QVERIFY(w.export_plan_json(dir.filePath("plan.json")));
    std::ifstream in(dir.filePath("plan.json").toStdString());
    const nlohmann::json plan = nlohmann::json::parse(in);
    QCOMPARE(plan["operators"].size(), w.outcome()->report->best.plan.operators.size());
    // Every tab (the timeline, memory over time and compare A/B among them) as PNG and SVG.
    w.keep_as_a();
    const QStringList names = w.view_names();
    QCOMPARE(names,
             (QStringList{"operators", "memory", "pareto", "timeline", "memory-time", "compare", "budget"}));
    QVERIFY(w.export_views(dir.filePath("all")));
    for (const QString& name : names) {
      for (const char* suffix : {".png", ".svg"}) {
        const QFileInfo file(dir.filePath("all/" + name + suffix));
        QVERIFY2(file.size() > 1000, qPrintable(file.filePath()));
      }
      // Drawn at the tab's size, laid out, even for a tab never shown before.
      QCOMPARE(QImage(dir.filePath("all/" + name + ".png")).size(), w.tabs()->currentWidget()->size());
    }
    QCOMPARE(w.tabs()->currentIndex(), 2);  // the tab shown before
    QVERIFY(w.export_baselines_csv(dir.filePath("baselines.csv")));
    QFile csv(dir.filePath("baselines.csv"));
    QVERIFY(csv.open(QIODevice::ReadOnly));
    QVERIFY(csv.readLine().startsWith("strategy,micro-batch"));
  }
};

QTEST_MAIN(GuiTest)
#include "gui_test.moc"
