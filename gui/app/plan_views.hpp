// MemoryView (per-GPU peak by category, plan and baselines side by side, against the limit) and ParetoView
// (iteration time vs peak memory: the front and every baseline; a click loads that plan) over one report.
#pragma once

#include <QWidget>
#include <optional>

#include "chart/chart.hpp"
#include "planner/core/scenario.hpp"
#include "planner/search/memory_sweep.hpp"
#include "planner/search/planner.hpp"

namespace shardscope::gui {

// The strategies a report holds, plan first: each with its result (fitting or not).
std::vector<const StrategyResult*> report_strategies(const PlanReport& report);

class MemoryView : public QWidget {
  Q_OBJECT
 public:
  explicit MemoryView(QWidget* parent = nullptr);
  void set_report(const Scenario& scenario, const PlanReport& report);
  chart::StackedBars chart() const { return chart_; }
  void paint(QPainter& p, const QRectF& area) const;

 protected:
  void paintEvent(QPaintEvent*) override;

 private:
  chart::StackedBars chart_;
  bool empty_ = true;
};

class ParetoView : public QWidget {
  Q_OBJECT
 public:
  explicit ParetoView(QWidget* parent = nullptr);
  // With `sweep` (the scenario's memory sweep, when it has come) the line is its frontier: the best
  // throughput over every micro-batch by memory, a dot at each breakpoint where the best plan changes, the
  // next one above the limit marked; without it, the front at the plan's batch.
  void set_report(const Scenario& scenario, const PlanReport& report, const QString& shown_strategy,
                  const MemorySweep* sweep = nullptr);
  void paint(QPainter& p, const QRectF& area);
  bool shows_sweep() const { return sweep_shown_; }
  int front_size() const { return static_cast<int>(chart_.front.size()); }
  // The front index of the sweep's next breakpoint above the limit (-1: none shown).
  int next_breakpoint() const { return next_; }
  // Screen position of the labelled point of `strategy` (after a paint), for tests and hit tests.
  std::optional<QPointF> point_of(const QString& strategy) const;
  std::optional<QPointF> front_point(std::size_t index) const;

 signals:
  void strategyClicked(const QString& strategy);  // a plan or baseline point
  void frontClicked(double peak_bytes, double seconds);

 protected:
  void paintEvent(QPaintEvent*) override;
  void mousePressEvent(QMouseEvent* event) override;

 private:
  // The front: the sweep's breakpoints, or the Pareto front at the plan's batch.
  void set_front(const Scenario& scenario, const PlanReport& report, const MemorySweep* sweep, double widest);
  void draw_next(QPainter& p) const;
  chart::Scatter chart_;
  bool sweep_shown_ = false;
  int next_ = -1;
  QString next_text_;
  std::vector<QStringList> point_strategies_;  // per labelled point: the strategies it stands for
  std::vector<QPointF> where_;
  bool empty_ = true;
};

}  // namespace shardscope::gui
