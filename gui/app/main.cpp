// shardscope-gui [scenario.yaml] [--screenshots DIR]: the desktop explorer, or its views rendered to PNGs.
#include <QApplication>
#include <QCheckBox>
#include <QCommandLineParser>
#include <QDir>
#include <QEventLoop>
#include <QLineEdit>
#include <QTabWidget>
#include <QTimer>
#include <cstdio>
#include <memory>

#include "budget_panel.hpp"
#include "compare_panel.hpp"
#include "main_window.hpp"
#include "memory_time_panel.hpp"
#include "operator_view.hpp"
#include "scenario_panel.hpp"
#include "timeline_panel.hpp"
#include "timeline_view.hpp"

namespace {

using shardscope::gui::MainWindow;

// Shows `tab` and writes the window to dir/name as a PNG (its path printed); false when it cannot be written.
bool shoot(MainWindow& window, const QDir& dir, int tab, const QString& name) {
  window.tabs()->setCurrentIndex(tab);
  QApplication::processEvents();
  const QString path = dir.filePath(name);
  if (!window.grab().save(path, "PNG")) {
    std::fprintf(stderr, "%s: cannot be written\n", qPrintable(path));
    return false;
  }
  std::printf("%s\n", qPrintable(path));
  return true;
}

// The timeline and memory over time: the plan simulated in a child process (`shardscope simulate`); four
// GPUs, the whole iteration. The exit code: 0, 3 when the simulation failed, 4 when a PNG was not written.
int shoot_simulation(MainWindow& window, const QDir& dir) {
  QEventLoop sim_loop;
  std::shared_ptr<const shardscope::gui::SimulationOutcome> simulated;
  QObject::connect(window.simulation(), &shardscope::gui::SimulationService::finished, &sim_loop,
                   [&](std::shared_ptr<const shardscope::gui::SimulationOutcome> o) {
                     simulated = std::move(o);
                     sim_loop.quit();
                   });
  QTimer::singleShot(120000, &sim_loop, &QEventLoop::quit);
  window.simulate();
  sim_loop.exec();
  if (!simulated || !simulated->ok) {
    std::fprintf(stderr, "no simulation: %s\n", simulated ? qPrintable(simulated->error) : "timed out");
    return 3;
  }
  shardscope::gui::TimelinePanel* timeline = window.timeline_panel();
  timeline->set_selected_ranks({0, 1, 2, 3});
  if (!shoot(window, dir, window.tabs()->indexOf(timeline), "timeline.png")) return 4;
  window.memory_time_panel()->set_rank(0);
  if (!shoot(window, dir, window.tabs()->indexOf(window.memory_time_panel()), "memory-time.png")) return 4;
  return 0;
}

// A what-if: the second operator pinned to DP and the last to half its slices sharded, re-planned, and
// compared with the plan kept as A. The exit code: 0, or 4 when a PNG was not written.
int shoot_pinned(MainWindow& window, const QDir& dir, QEventLoop& loop) {
  const shardscope::Plan& plan = window.outcome()->report->best.plan;
  if (plan.operators.size() < 2) return 0;
  std::vector<shardscope::OperatorPin> pins{shardscope::dp_pin(1)};
  shardscope::OperatorPin half;
  half.operator_index = plan.operators.size() - 1;
  const int g = window.outcome()->job.scenario.training.slice_granularities.back();
  half.slices = g;
  half.sharded_slices = g / 2;
  pins.push_back(half);
  window.add_pins(pins);
  loop.exec();
  if (!window.outcome() || window.outcome()->job.pins.empty()) return 0;
  if (!shoot(window, dir, 0, "operators-pinned.png")) return 4;
  window.compare_panel()->only_changed_box()->setChecked(true);
  return shoot(window, dir, window.tabs()->indexOf(window.compare_panel()), "compare.png") ? 0 : 4;
}

// The Budget & scaling tab: a trillion tokens at 2.50 per GPU-hour, and the nodes for 100 K tokens/s (on a
// mesh, which has no node search, the tab as it says so). The exit code: 0, 3 when the node search failed,
// 4 when the PNG was not written.
int shoot_budget(MainWindow& window, const QDir& dir) {
  shardscope::gui::BudgetPanel* budget = window.budget_panel();
  budget->tokens_edit()->setText("1T");
  budget->price_edit()->setText("2.50");
  budget->target_edit()->setText("100K");
  QEventLoop loop;
  QObject::connect(budget, &shardscope::gui::BudgetPanel::nodesFound, &loop, &QEventLoop::quit);
  QTimer::singleShot(120000, &loop, &QEventLoop::quit);
  const bool started = budget->find_nodes();
  if (started) loop.exec();
  if (!started && window.outcome()->job.scenario.mesh.sliced()) {
    std::fprintf(stderr, "note: %s\n", qPrintable(budget->scaling_status()));
    return shoot(window, dir, window.tabs()->indexOf(budget), "budget.png") ? 0 : 4;
  }
  if (!budget->search()) {
    std::fprintf(stderr, "no node search: %s\n", qPrintable(budget->scaling_status()));
    return 3;
  }
  return shoot(window, dir, window.tabs()->indexOf(budget), "budget.png") ? 0 : 4;
}

// --screenshots DIR: waits (in the event loop) for the plan, then renders each view; main()'s exit code.
int shoot_views(MainWindow& window, const QDir& dir) {
  QEventLoop loop;
  QObject::connect(&window, &MainWindow::planShown, &loop, &QEventLoop::quit);
  QObject::connect(&window, &MainWindow::planFailed, &loop, &QEventLoop::quit);
  QTimer::singleShot(120000, &loop, &QEventLoop::quit);
  window.resize(1500, 900);
  window.show();
  if (!window.outcome()) loop.exec();
  if (!window.outcome()) {
    std::fprintf(stderr, "no plan: %s\n", qPrintable(window.plan_error()));
    return 3;
  }
  QDir().mkpath(dir.path());
  const bool pipelined = window.outcome()->pipelines.has_value();
  if (!window.sweep() && !pipelined) {  // the Pareto tab's frontier comes after the plan
    QEventLoop sweep_loop;
    QObject::connect(&window, &MainWindow::sweepShown, &sweep_loop, &QEventLoop::quit);
    QTimer::singleShot(120000, &sweep_loop, &QEventLoop::quit);
    sweep_loop.exec();
  }
  const char* names[] = {"operators.png", "memory.png", "pareto.png"};
  for (int tab = 0; tab < 3; ++tab) {
    if (!shoot(window, dir, tab, names[tab])) return 4;
  }
  if (pipelined)  // its run is on the Timeline tab already; no budget, sweep or simulation of pipelines yet
    return shoot(window, dir, window.tabs()->indexOf(window.timeline_panel()), "timeline.png") ? 0 : 4;
  if (const int code = shoot_budget(window, dir); code != 0) return code;
  window.keep_as_a();  // compared below with the plan under two pins
  if (const int code = shoot_simulation(window, dir); code != 0) return code;
  return shoot_pinned(window, dir, loop);
}

}  // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName("shardscope-gui");
  QCommandLineParser parser;
  parser.setApplicationDescription("shardscope's desktop explorer of per-operator sharding plans");
  parser.addHelpOption();
  parser.addPositionalArgument("scenario", "scenario YAML to open (default: the built-in default scenario)");
  QCommandLineOption shots(
      "screenshots",
      "render every view of the scenario's plan (operators, memory, Pareto, budget and scaling, "
      "timeline, memory over time, compare A/B with two pins) to DIR/*.png and exit",
      "DIR");
  parser.addOption(shots);
  parser.process(app);

  MainWindow window;
  const QStringList args = parser.positionalArguments();
  const bool opened = args.isEmpty() || window.open_scenario(args.front());
  if (!parser.isSet(shots)) {
    window.show();
    return app.exec();
  }
  if (!opened) {
    std::fprintf(stderr, "%s\n", qPrintable(window.plan_error()));
    return 2;
  }
  return shoot_views(window, QDir(parser.value(shots)));
}
