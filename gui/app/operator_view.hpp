// OperatorView: the plan's operators as a tree table (OperatorTableModel in a QTreeView): repeated layers
// grouped as the CLI's table groups them and expandable, a slice bar (g slices, the k sharded ones coloured
// by scope) drawn by a delegate, a scope legend above; sorting by any column, Ctrl+C copying the selected
// rows, tooltips, and a right-click menu that pins a choice.
#pragma once

#include <QWidget>
#include <vector>

#include "planner/core/scenario.hpp"
#include "planner/search/operator_pin.hpp"
#include "planner/search/planner.hpp"

class QSortFilterProxyModel;
class QTreeView;

namespace shardscope::gui {

class OperatorTableModel;

class OperatorView : public QWidget {
  Q_OBJECT
 public:
  explicit OperatorView(QWidget* parent = nullptr);

  void set_plan(const Scenario& scenario, const Plan& plan, const std::vector<OperatorCost>& costs,
                const std::vector<OperatorPin>& pins);
  void clear_plan();

  struct Group {
    std::vector<std::size_t> members;  // operator indices, model order
    bool expanded = false;
  };
  std::vector<Group> groups() const;  // model order of their first operators
  // The choice the row of operator `index` shows (its group's, or its own when expanded).
  const OperatorChoice& shown_choice(std::size_t index) const;
  std::size_t operator_count() const;
  void set_expanded(std::size_t group, bool expanded);
  int row_count() const;  // rows shown: groups, and the members of expanded groups
  // The pins the context menu offers for a shown row (for tests and the menu alike).
  std::vector<OperatorPin> pins_for_row(int row, const OperatorPin& shape) const;
  QString tooltip_for_row(int row) const;
  QString cell_text(int row, int column) const;  // the row-th shown row's text in a column
  bool column_shown(int column) const;

  QTreeView* tree() const { return tree_; }
  OperatorTableModel* model() const { return model_; }
  QSortFilterProxyModel* sorted() const { return proxy_; }

 signals:
  void pinsRequested(const std::vector<shardscope::OperatorPin>& pins);
  void pinsCleared(const std::vector<std::size_t>& operators);  // unpin these operators

 private:
  QModelIndex shown_row(int row) const;  // the row-th shown row (proxy index), or invalid
  std::vector<std::size_t> operators_at(const QModelIndex& proxy_index) const;
  void show_menu(const QPoint& position);
  void add_pin_menus(QMenu& menu, const QModelIndex& at);

  OperatorTableModel* model_ = nullptr;
  QSortFilterProxyModel* proxy_ = nullptr;
  QTreeView* tree_ = nullptr;
};

}  // namespace shardscope::gui
