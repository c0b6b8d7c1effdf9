// OperatorView: one row per operator, repeated layers grouped (as the CLI's table groups them) and
// collapsible; a bar of g slices with the k sharded ones coloured by scope, checkpoint mark, memory and time
// columns, tooltips, and a right-click menu that pins a choice.
#pragma once

#include <QWidget>
#include <vector>

#include "planner/core/scenario.hpp"
#include "planner/search/operator_pin.hpp"
#include "planner/search/planner.hpp"

namespace shardscope::gui {

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
  const std::vector<Group>& groups() const { return groups_; }
  // The choice the row of operator `index` shows (its group's, or its own when expanded).
  const OperatorChoice& shown_choice(std::size_t index) const;
  std::size_t operator_count() const { return plan_.operators.size(); }
  void set_expanded(std::size_t group, bool expanded);
  int row_count() const { return static_cast<int>(rows_.size()); }
  // The pins the context menu offers for a row (for tests and the menu alike).
  std::vector<OperatorPin> pins_for_row(int row, const OperatorPin& shape) const;
  QString tooltip_for_row(int row) const;
  static constexpr int kRowHeight = 22;
  static constexpr int kHeaderHeight = 72;  // legend lines, then the column titles

  // Paints rows [first, last) and the header onto `p` (the widget and the exports share it).
  void paint_rows(QPainter& p, int width, int first, int last) const;

 signals:
  void pinsRequested(const std::vector<shardscope::OperatorPin>& pins);
  void pinsCleared(const std::vector<std::size_t>& operators);  // unpin these operators

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  bool event(QEvent* event) override;
  void contextMenuEvent(QContextMenuEvent* event) override;

 private:
  struct Row {
    std::size_t group = 0;
    int member = -1;  // -1: the group's row; else the index into its members (expanded)
  };
  void rebuild_rows();
  int row_at(int y) const;
  std::vector<std::size_t> row_operators(int row) const;

  Scenario scenario_;
  Plan plan_;
  std::vector<OperatorCost> costs_;
  std::vector<OperatorPin> pins_;
  std::vector<Group> groups_;
  std::vector<Row> rows_;
};

}  // namespace shardscope::gui
