// The operator tree model: groups and members, their texts, sort keys, tooltips and slice shapes.
#include "operator_table_model.hpp"

#include <QColor>

#include "planner/core/units.hpp"

namespace shardscope::gui {
namespace {

QString text(const std::string& s) { return QString::fromStdString(s); }
QString bytes(double b) { return text(units::format_bytes(b)); }
QString duration(double s) { return text(units::format_duration(s)); }

// internalId: 0 for a group's row, group + 1 for a member's row.
constexpr quintptr kGroupRow = 0;

}  // namespace

OperatorTableModel::OperatorTableModel(QObject* parent) : QAbstractItemModel(parent) {}

void OperatorTableModel::set_plan(const Scenario& scenario, const Plan& plan,
                                  const std::vector<OperatorCost>& costs,
                                  const std::vector<OperatorPin>& pins) {
  beginResetModel();
  scenario_ = scenario;
  plan_ = plan;
  costs_ = costs;
  pins_ = pins;
  groups_ = present::group_operators(scenario, plan, costs);
  endResetModel();
}

void OperatorTableModel::clear_plan() {
  beginResetModel();
  plan_ = Plan{};
  costs_.clear();
  pins_.clear();
  groups_.clear();
  endResetModel();
}

std::vector<std::size_t> OperatorTableModel::operators_of(const QModelIndex& index) const {
  if (!index.isValid()) return {};
  if (index.internalId() == kGroupRow) return groups_[static_cast<std::size_t>(index.row())].members;
  return {groups_[index.internalId() - 1].members[static_cast<std::size_t>(index.row())]};
}

std::size_t OperatorTableModel::shown_operator(const QModelIndex& index) const {
  return operators_of(index).front();
}

QModelIndex OperatorTableModel::group_index(std::size_t group) const {
  return group < groups_.size() ? createIndex(static_cast<int>(group), 0, kGroupRow) : QModelIndex();
}

QModelIndex OperatorTableModel::index(int row, int column, const QModelIndex& parent) const {
  if (row < 0 || column < 0 || column >= kColumns || row >= rowCount(parent)) return {};
  if (!parent.isValid()) return createIndex(row, column, kGroupRow);
  return createIndex(row, column, static_cast<quintptr>(parent.row()) + 1);
}

QModelIndex OperatorTableModel::parent(const QModelIndex& child) const {
  if (!child.isValid() || child.internalId() == kGroupRow) return {};
  return createIndex(static_cast<int>(child.internalId() - 1), 0, kGroupRow);
}

int OperatorTableModel::rowCount(const QModelIndex& parent) const {
  if (!parent.isValid()) return static_cast<int>(groups_.size());
  if (parent.internalId() != kGroupRow || parent.column() != 0) return 0;
  const std::size_t members = groups_[static_cast<std::size_t>(parent.row())].members.size();
  return members > 1 ? static_cast<int>(members) : 0;
}

int OperatorTableModel::columnCount(const QModelIndex&) const { return kColumns; }

bool OperatorTableModel::pinned(const QModelIndex& index) const {
  for (std::size_t op : operators_of(index)) {
    for (const OperatorPin& pin : pins_) {
      if (pin.operator_index == op) return true;
    }
  }
  return false;
}

QVariant OperatorTableModel::display(const QModelIndex& index) const {
  const std::size_t op = shown_operator(index);
  const OperatorChoice& c = plan_.operators[op];
  const bool group = index.internalId() == kGroupRow;
  switch (index.column()) {
    case kName:
      return group ? text(present::row_label(plan_, groups_[static_cast<std::size_t>(index.row())]))
                   : text(c.name);
    case kCount:
      return group ? QString::number(groups_[static_cast<std::size_t>(index.row())].members.size())
                   : QString();
    case kChoice:
      return text(present::choice_text(c));
    case kCheckpoint:
      return text(present::yes_no(c.checkpoint));
    case kMemory:
      return bytes(costs_[op].cost.resident_bytes);
    case kTime:
      return duration(costs_[op].cost.seconds);
    case kMesh:
      return text(present::mesh_cell(scenario_.model.operators[op]));
    case kPin:
      return pinned(index) ? QString("● pinned") : QString();
    default:
      return {};
  }
}

QVariant OperatorTableModel::sort_key(const QModelIndex& index) const {
  const std::size_t op = shown_operator(index);
  const OperatorChoice& c = plan_.operators[op];
  switch (index.column()) {
    case kName:
      return static_cast<qulonglong>(op);  // model order
    case kCount:
      return static_cast<qulonglong>(operators_of(index).size());
    case kChoice:
      return c.slices > 0 ? static_cast<double>(c.sharded_slices) / c.slices : 0.0;
    case kMemory:
      return costs_[op].cost.resident_bytes;
    case kTime:
      return costs_[op].cost.seconds;
    default:
      return display(index);
  }
}

QVariant OperatorTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || groups_.empty()) return {};
  const OperatorChoice& c = plan_.operators[shown_operator(index)];
  switch (role) {
    case Qt::DisplayRole:
      return display(index);
    case SortRole:
      return sort_key(index);
    case Qt::ToolTipRole:
      return tooltip(index);
    case SlicesRole:
      return c.slices;
    case ShardedSlicesRole:
      return c.sharded_slices;
    case ScopesRole:
      return text(c.scopes.name());
    case Qt::ForegroundRole:
      if (index.column() == kPin) return QColor(180, 0, 0);
      return index.column() == kCheckpoint && c.checkpoint ? QVariant(QColor(230, 140, 0)) : QVariant();
    case Qt::TextAlignmentRole:
      return index.column() >= kMemory && index.column() <= kTime
                 ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                 : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    default:
      return {};
  }
}

QVariant OperatorTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* const titles[] = {"operator",   "count", "slices: k of g sharded", "ckpt",
                                       "memory/GPU", "time",  "mesh collectives",       "pin"};
  return section >= 0 && section < kColumns ? QString(titles[section]) : QVariant();
}

QString OperatorTableModel::tooltip(const QModelIndex& index) const {
  const std::vector<std::size_t> ops = operators_of(index);
  if (ops.empty()) return {};
  const std::size_t op = ops.front();
  const OperatorChoice& c = plan_.operators[op];
  const OperatorCost& cost = costs_[op];
  const MemoryBreakdown& m = cost.memory;
  QString tip = QString("<b>%1</b>%2<br>choice %3, %4 slice(s), %5 sharded%6<br>")
                    .arg(text(c.name))
                    .arg(ops.size() > 1 ? QString(" and %1 more").arg(ops.size() - 1) : QString())
                    .arg(text(present::choice_text(c)))
                    .arg(c.slices)
                    .arg(c.sharded_slices)
                    .arg(c.checkpoint ? ", checkpointed" : "");
  tip += QString(
             "time %1 per iteration<br>resident %2 per GPU: parameters %3, gradients %4, optimizer %5, "
             "activations %6<br>while running: gathered %7, workspace %8")
             .arg(duration(cost.cost.seconds), bytes(cost.cost.resident_bytes), bytes(m.parameter_bytes),
                  bytes(m.gradient_bytes), bytes(m.optimizer_bytes), bytes(m.activation_bytes),
                  bytes(m.gathered_bytes), bytes(m.workspace_bytes));
  for (const std::string& line : present::mesh_collective_lines(scenario_.model.operators[op]))
    tip += "<br>" + text(line);
  return tip;
}

}  // namespace shardscope::gui
