// CompareView: plan A (kept) and plan B (shown now) side by side — a summary table (the scenario they were
// made for, batch, throughput, iteration time and peak memory with B − A), then one row per operator (matched
// by name) with the rows whose choice differs highlighted and the memory and time deltas; runs of identical
// rows are folded. Both tables are Qt models (compare_models.hpp) in views: sortable, selectable, Ctrl+C
// copies.
#pragma once

#include <QStringList>
#include <QWidget>
#include <optional>
#include <vector>

#include "present/compare_rows.hpp"

class QLabel;
class QSortFilterProxyModel;
class QTreeView;

namespace shardscope::gui {

class CompareSummaryModel;
class CompareTableModel;

class CompareView : public QWidget {
  Q_OBJECT
 public:
  explicit CompareView(QWidget* parent = nullptr);

  void set_a(std::optional<present::PlanSnapshot> a);
  void set_b(std::optional<present::PlanSnapshot> b);
  void set_only_changed(bool only);  // hide operators whose choice is the same
  const std::optional<present::PlanSnapshot>& a() const { return a_; }
  const std::optional<present::PlanSnapshot>& b() const { return b_; }
  const present::PlanComparison& comparison() const;

  // What stands instead of the operator table (no A, no B, different models, a plan that does not fit);
  // empty when the table is shown.
  QString message() const { return message_; }
  // Summary lines as "metric: A | B | B − A", in the order shown.
  QStringList summary_lines() const;
  // The operators shown highlighted (their scopes, slices or checkpointing differ), model order.
  std::vector<std::string> highlighted_operators() const;
  int operator_lines() const;  // rows of the operator table
  // The width of summary column `column` (0 metric, 1 A, 2 B, 3 B − A) in pixels.
  int summary_column_width(int column) const;

  QTreeView* summary_view() const { return summary_view_; }
  QTreeView* table_view() const { return table_view_; }
  CompareTableModel* table_model() const { return table_; }

 private:
  void rebuild();
  void fit_summary();
  void span_folded_lines();

  std::optional<present::PlanSnapshot> a_;
  std::optional<present::PlanSnapshot> b_;
  bool only_changed_ = false;
  QString message_;
  CompareSummaryModel* summary_ = nullptr;
  CompareTableModel* table_ = nullptr;
  QSortFilterProxyModel* proxy_ = nullptr;
  QLabel* title_ = nullptr;
  QTreeView* summary_view_ = nullptr;
  QLabel* message_label_ = nullptr;
  QLabel* note_ = nullptr;
  QTreeView* table_view_ = nullptr;
  QLabel* hidden_ = nullptr;
};

}  // namespace shardscope::gui
