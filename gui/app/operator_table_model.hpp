// OperatorTableModel: the plan's operators as a tree model — one top-level row per group of identical
// operators (present::group_operators, as the CLI's table groups them), its members as children when there
// are several; texts from present/, numbers for sorting, and the slice shape for the slice-bar delegate.
#pragma once

#include <QAbstractItemModel>
#include <vector>

#include "planner/core/scenario.hpp"
#include "planner/search/operator_pin.hpp"
#include "planner/search/planner.hpp"
#include "present/operator_rows.hpp"

namespace shardscope::gui {

class OperatorTableModel : public QAbstractItemModel {
  Q_OBJECT
 public:
  // kMesh: the tensor-, context- and expert-parallel collectives in the operator's passes
  // (present::mesh_cell),
  // shown only for a model sliced by a mesh.
  enum Column { kName, kCount, kChoice, kCheckpoint, kMemory, kTime, kMesh, kPin, kColumns };
  enum Role {
    SortRole = Qt::UserRole + 1,  // a number (or the text) to sort the column by
    SlicesRole,                   // g of the row's choice
    ShardedSlicesRole,            // k of the row's choice
    ScopesRole,                   // "GGG", "NNN", ...
  };

  explicit OperatorTableModel(QObject* parent = nullptr);

  void set_plan(const Scenario& scenario, const Plan& plan, const std::vector<OperatorCost>& costs,
                const std::vector<OperatorPin>& pins);
  void clear_plan();

  const Scenario& scenario() const { return scenario_; }
  const Plan& plan() const { return plan_; }
  const std::vector<present::OperatorRow>& groups() const { return groups_; }
  // The operators a row stands for: a group's members, or a child's one operator.
  std::vector<std::size_t> operators_of(const QModelIndex& index) const;
  // The operator whose choice and cost a row shows (a group's first).
  std::size_t shown_operator(const QModelIndex& index) const;
  QModelIndex group_index(std::size_t group) const;
  QString tooltip(const QModelIndex& index) const;

  QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
  QModelIndex parent(const QModelIndex& child) const override;
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  QVariant display(const QModelIndex& index) const;
  QVariant sort_key(const QModelIndex& index) const;
  bool pinned(const QModelIndex& index) const;

  Scenario scenario_;
  Plan plan_;
  std::vector<OperatorCost> costs_;
  std::vector<OperatorPin> pins_;
  std::vector<present::OperatorRow> groups_;
};

}  // namespace shardscope::gui
