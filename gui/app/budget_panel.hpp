// BudgetPanel: the "Budget & scaling" tab — time to train, GPU-hours and cost of the plan and every fitting
// baseline for a token count and a price (planner/report/time_to_train.hpp), and the fewest nodes of the
// scenario's cluster whose plan reaches a tokens/s target, with the curve of every count planned
// (planner/report/node_count.hpp) drawn against the target. The search plans on a pool thread; a newer one or
// a new scenario cancels it.
#pragma once

#include <QWidget>
#include <atomic>
#include <memory>
#include <optional>

#include "chart/series_chart.hpp"
#include "planner/core/scenario.hpp"
#include "planner/report/node_count.hpp"
#include "planner/report/pipeline_search.hpp"
#include "planner/report/time_to_train.hpp"
#include "planner/search/planner.hpp"

class QLabel;
class QLineEdit;
class QPushButton;
class QTableWidget;

namespace shardscope::gui {

// The scaling curve: predicted tokens/s by GPUs, the target as a line.
class ScalingView : public QWidget {
  Q_OBJECT
 public:
  explicit ScalingView(QWidget* parent = nullptr);
  void set_search(const std::optional<TargetSearch>& search, const QString& message);
  void paint(QPainter& p, const QRectF& area) const;

 protected:
  void paintEvent(QPaintEvent*) override;

 private:
  chart::LineChart chart_;
  QString message_;
};

class BudgetPanel : public QWidget {
  Q_OBJECT
 public:
  explicit BudgetPanel(QWidget* parent = nullptr);
  ~BudgetPanel() override;

  // The shown report: the time-to-train table is refilled; a running node search is cancelled (its scenario
  // is no longer the panel's). Of a pipelined scenario the report is a stage's, `pipelines` the search whose
  // fitting pipelines the table lists instead, and `whole` the scenario the node search plans pipelines of.
  void set_report(const Scenario& scenario, const PlanReport& report,
                  std::shared_ptr<const PipelineSearch> pipelines = nullptr, const Scenario* whole = nullptr);
  // Starts the node search for the target field's rate; false (with the reason in the status) when the field
  // is not a positive rate or no report is shown.
  bool find_nodes();

  QLineEdit* tokens_edit() const { return tokens_; }
  QLineEdit* price_edit() const { return price_; }
  QLineEdit* target_edit() const { return target_; }
  QTableWidget* table() const { return table_; }
  QString budget_status() const;
  QString scaling_status() const;
  const std::optional<TargetSearch>& search() const { return search_; }
  ScalingView* scaling_view() const { return scaling_; }

 signals:
  void nodesFound();  // a search finished (search() holds it) or failed (scaling_status() says why)

 private:
  void fill_table();
  // The rows: the plan and each fitting baseline, or each fitting pipeline (the fastest first).
  void add_rows(const TrainingBudget& budget);
  void searched(quint64 generation, std::optional<TargetSearch> search, const QString& error);

  std::optional<Scenario> scenario_;
  std::optional<PlanReport> report_;
  std::shared_ptr<const PipelineSearch> pipelines_;
  std::optional<Scenario> whole_;  // a pipelined scenario as given
  QLineEdit* tokens_ = nullptr;
  QLineEdit* price_ = nullptr;
  QLabel* budget_status_ = nullptr;
  QTableWidget* table_ = nullptr;
  QLineEdit* target_ = nullptr;
  QPushButton* find_ = nullptr;
  QLabel* scaling_status_ = nullptr;
  ScalingView* scaling_ = nullptr;
  std::optional<TargetSearch> search_;
  // The search in flight: its generation (a newer value cancels it) shared with the pool thread.
  std::shared_ptr<std::atomic<quint64>> generation_ = std::make_shared<std::atomic<quint64>>(0);
};

}  // namespace shardscope::gui
