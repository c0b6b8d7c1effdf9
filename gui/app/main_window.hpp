// MainWindow: scenario panel on the left, operator / memory / Pareto-and-baselines / timeline / memory over
// time / compare A/B / budget and scaling views in the centre; every valid scenario change or pin re-plans on
// the PlanService's worker thread, and Simulate runs `shardscope simulate` in a child process
// (SimulationService) for the timeline and the memory over time.
#pragma once

#include <QMainWindow>
#include <memory>
#include <vector>

#include "plan_service.hpp"
#include "simulation_service.hpp"

class QLabel;
class QPushButton;
class QTabWidget;
class QTableWidget;

namespace shardscope::gui {

class BudgetPanel;
class ComparePanel;
class MemoryTimePanel;
class MemoryView;
class OperatorView;
class ParetoView;
class ScenarioPanel;
class TimelinePanel;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);

  bool open_scenario(const QString& path);
  void add_pins(const std::vector<OperatorPin>& pins);  // replaces earlier pins of the same operators
  void clear_pins();
  void show_strategy(const QString& strategy);  // "plan" or a baseline's name
  // Simulates the scenario as the panel has it (and the shown plan when it is current) in a child process;
  // a newer call supersedes a running one. Returns the simulation's generation.
  quint64 simulate();
  // Compare A/B: freezes the shown plan as A (B follows every later plan); Clear A forgets it.
  void keep_as_a();
  void clear_a();

  ScenarioPanel* panel() const { return panel_; }
  OperatorView* operator_view() const { return operators_; }
  MemoryView* memory_view() const { return memory_; }
  ParetoView* pareto_view() const { return pareto_; }
  QTableWidget* baselines_table() const { return baselines_; }
  QTabWidget* tabs() const { return tabs_; }
  PlanService* service() const { return service_; }
  SimulationService* simulation() const { return simulation_; }
  TimelinePanel* timeline_panel() const { return timeline_; }
  MemoryTimePanel* memory_time_panel() const { return memory_time_; }
  ComparePanel* compare_panel() const { return compare_; }
  BudgetPanel* budget_panel() const { return budget_; }
  const std::shared_ptr<const PlanOutcome>& outcome() const { return outcome_; }
  const std::shared_ptr<const SweepOutcome>& sweep() const { return sweep_; }
  const std::vector<OperatorPin>& pins() const { return pins_; }
  QString shown_strategy() const { return shown_; }
  const Plan* shown_plan() const;
  QString summary_text() const;
  QString plan_error() const { return plan_error_; }

  // Exports: the current tab as PNG or SVG, every tab as DIR/<name>.png and .svg (names: view_names()),
  // the shown plan as JSON, the baselines as CSV.
  bool export_view(const QString& path);
  bool export_views(const QString& dir);
  QStringList view_names() const;  // per tab, in order: "operators", "memory", ..., "compare"
  bool export_plan_json(const QString& path) const;
  bool export_baselines_csv(const QString& path) const;

 signals:
  void planShown();   // a new plan reached the views
  void sweepShown();  // its memory sweep reached the Pareto view
  void planFailed();  // the planner said no (message in plan_error())

 private:
  void add_menus();      // File, Simulate, Compare
  void connect_views();  // the panel, the services and the views to the re-plan loop
  void replan();
  void planned(std::shared_ptr<const PlanOutcome> outcome);
  void refresh_views();
  void fill_baselines();

  ScenarioPanel* panel_ = nullptr;
  OperatorView* operators_ = nullptr;
  MemoryView* memory_ = nullptr;
  ParetoView* pareto_ = nullptr;
  QTableWidget* baselines_ = nullptr;
  QTabWidget* tabs_ = nullptr;
  QLabel* summary_ = nullptr;
  QLabel* pins_label_ = nullptr;
  QPushButton* clear_pins_ = nullptr;
  PlanService* service_ = nullptr;
  SimulationService* simulation_ = nullptr;
  TimelinePanel* timeline_ = nullptr;
  MemoryTimePanel* memory_time_ = nullptr;
  ComparePanel* compare_ = nullptr;
  BudgetPanel* budget_ = nullptr;
  double simulated_limit_bytes_ = 0;  // the memory limit of the scenario last sent to the simulator
  std::shared_ptr<const PlanOutcome> outcome_;
  std::shared_ptr<const SweepOutcome> sweep_;  // the memory sweep of outcome_'s scenario, once it came
  std::vector<OperatorPin> pins_;
  QString shown_ = "plan";
  QString plan_error_;
};

}  // namespace shardscope::gui
