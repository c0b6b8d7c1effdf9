// The operator tree table: legend, view, slice-bar delegate, expansion kept across plans, and the pin menu.
#include "operator_view.hpp"

#include <QHeaderView>
#include <QMenu>
#include <QPainter>
#include <QSortFilterProxyModel>
#include <QStyledItemDelegate>
#include <QTreeView>
#include <QVBoxLayout>

#include "chart/chart.hpp"
#include "operator_table_model.hpp"
#include "planner/search/search_space.hpp"
#include "present/operator_rows.hpp"
#include "scope_colors.hpp"
#include "table_copy.hpp"

namespace shardscope::gui {
namespace {

// The scope legend above the table (and "checkpointed"), wrapped to the widget's width.
class ScopeLegend : public QWidget {
 public:
  ScopeLegend() { setMinimumHeight(44); }

 protected:
  void paintEvent(QPaintEvent*) override {
    QPainter p(this);
    QStringList names = scope_legend_names();
    std::vector<QColor> colors = scope_legend_colors();
    names << "checkpointed";
    colors.push_back(QColor(230, 140, 0));
    chart::draw_legend(p, QPointF(8, 4), names, colors, width() - 16);
  }
};

// The slices column: g boxes, the first k in the scope's colour, the rest grey; the choice text over them.
class SliceBarDelegate : public QStyledItemDelegate {
 public:
  using QStyledItemDelegate::QStyledItemDelegate;
  void paint(QPainter* p, const QStyleOptionViewItem& option, const QModelIndex& index) const override {
    QStyledItemDelegate::paint(p, option, QModelIndex());  // selection and focus background only
    const int g = index.data(OperatorTableModel::SlicesRole).toInt();
    const int k = index.data(OperatorTableModel::ShardedSlicesRole).toInt();
    if (g <= 0) return;
    const QRectF bar = QRectF(option.rect).adjusted(2, 3, -8, -3);
    const double slice = bar.width() / g;
    const QColor sharded = scope_color(index.data(OperatorTableModel::ScopesRole).toString());
    for (int s = 0; s < g; ++s)
      p->fillRect(QRectF(bar.left() + s * slice, bar.top(), slice - 1, bar.height()),
                  s < k ? sharded : replicated_color());
    p->setPen(k > 0 && k == g ? Qt::white : Qt::black);
    p->drawText(bar.adjusted(4, 0, 0, 0), Qt::AlignVCenter | Qt::AlignLeft, index.data().toString());
  }
};

}  // namespace

OperatorView::OperatorView(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(new ScopeLegend);
  model_ = new OperatorTableModel(this);
  proxy_ = new QSortFilterProxyModel(this);
  proxy_->setSourceModel(model_);
  proxy_->setSortRole(OperatorTableModel::SortRole);
  tree_ = new QTreeView;
  tree_->setModel(proxy_);
  tree_->setUniformRowHeights(true);
  tree_->setAlternatingRowColors(true);
  tree_->setSortingEnabled(true);
  tree_->sortByColumn(OperatorTableModel::kName, Qt::AscendingOrder);
  tree_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  tree_->setSelectionBehavior(QAbstractItemView::SelectRows);
  tree_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  tree_->setItemDelegateForColumn(OperatorTableModel::kChoice, new SliceBarDelegate(tree_));
  tree_->setContextMenuPolicy(Qt::CustomContextMenu);
  const int widths[] = {260, 50, 220, 50, 100, 100, 300, 80};
  for (int c = 0; c < OperatorTableModel::kColumns; ++c) tree_->header()->resizeSection(c, widths[c]);
  add_copy_action(tree_);
  layout->addWidget(tree_, 1);
  connect(tree_, &QTreeView::customContextMenuRequested, this, &OperatorView::show_menu);
}

void OperatorView::set_plan(const Scenario& scenario, const Plan& plan,
                            const std::vector<OperatorCost>& costs, const std::vector<OperatorPin>& pins) {
  // Keep which groups were open, by their first operator's name.
  std::vector<std::string> open;
  for (const Group& g : groups()) {
    if (g.expanded) open.push_back(model_->plan().operators[g.members.front()].name);
  }
  model_->set_plan(scenario, plan, costs, pins);
  tree_->setColumnHidden(OperatorTableModel::kMesh, !scenario.mesh.sliced());
  for (std::size_t g = 0; g < model_->groups().size(); ++g) {
    const std::string& first = plan.operators[model_->groups()[g].members.front()].name;
    if (std::find(open.begin(), open.end(), first) != open.end()) set_expanded(g, true);
  }
}

void OperatorView::clear_plan() { model_->clear_plan(); }

QString OperatorView::cell_text(int row, int column) const {
  const QModelIndex index = shown_row(row);
  return index.isValid() ? index.sibling(index.row(), column).data().toString() : QString();
}

bool OperatorView::column_shown(int column) const { return !tree_->isColumnHidden(column); }

std::size_t OperatorView::operator_count() const { return model_->plan().operators.size(); }

std::vector<OperatorView::Group> OperatorView::groups() const {
  std::vector<Group> out;
  for (std::size_t g = 0; g < model_->groups().size(); ++g)
    out.push_back(
        {model_->groups()[g].members, tree_->isExpanded(proxy_->mapFromSource(model_->group_index(g)))});
  return out;
}

const OperatorChoice& OperatorView::shown_choice(std::size_t index) const {
  const std::vector<present::OperatorRow>& all = model_->groups();
  for (std::size_t g = 0; g < all.size(); ++g) {
    const std::vector<std::size_t>& m = all[g].members;
    if (std::find(m.begin(), m.end(), index) == m.end()) continue;
    const bool open = tree_->isExpanded(proxy_->mapFromSource(model_->group_index(g)));
    return model_->plan().operators[open ? index : m.front()];
  }
  return model_->plan().operators.at(index);
}

void OperatorView::set_expanded(std::size_t group, bool expanded) {
  const QModelIndex at = proxy_->mapFromSource(model_->group_index(group));
  if (at.isValid()) tree_->setExpanded(at, expanded);
}

int OperatorView::row_count() const {
  int rows = 0;
  for (QModelIndex i = proxy_->index(0, 0); i.isValid(); i = tree_->indexBelow(i)) ++rows;
  return rows;
}

QModelIndex OperatorView::shown_row(int row) const {
  QModelIndex i = proxy_->index(0, 0);
  for (int r = 0; r < row && i.isValid(); ++r) i = tree_->indexBelow(i);
  return row < 0 ? QModelIndex() : i;
}

std::vector<std::size_t> OperatorView::operators_at(const QModelIndex& proxy_index) const {
  return model_->operators_of(proxy_->mapToSource(proxy_index));
}

QString OperatorView::tooltip_for_row(int row) const {
  const QModelIndex at = shown_row(row);
  return at.isValid() ? model_->tooltip(proxy_->mapToSource(at)) : QString();
}

std::vector<OperatorPin> OperatorView::pins_for_row(int row, const OperatorPin& shape) const {
  std::vector<OperatorPin> out;
  for (std::size_t op : operators_at(shown_row(row))) {
    OperatorPin pin = shape;
    pin.operator_index = op;
    out.push_back(pin);
  }
  return out;
}

void OperatorView::show_menu(const QPoint& position) {
  const QModelIndex at = tree_->indexAt(position);
  if (!at.isValid()) return;
  QMenu menu(this);
  add_pin_menus(menu, at.siblingAtColumn(0));
  menu.exec(tree_->viewport()->mapToGlobal(position));
}

void OperatorView::add_pin_menus(QMenu& menu, const QModelIndex& at) {
  const std::vector<std::size_t> ops = operators_at(at);
  const OperatorChoice& current = model_->plan().operators[ops.front()];
  const auto offer = [&](QMenu* into, const QString& label, const OperatorPin& shape) {
    into->addAction(label, this, [this, ops, shape] {
      std::vector<OperatorPin> pins;
      for (std::size_t op : ops) pins.push_back(shape), pins.back().operator_index = op;
      emit pinsRequested(pins);
    });
  };
  OperatorPin keep;  // the current choice, exactly
  keep.scopes = current.sharded_slices > 0 ? std::optional<Scopes>(current.scopes) : std::nullopt;
  keep.replicated = current.sharded_slices == 0;
  keep.slices = current.slices;
  keep.sharded_slices = current.sharded_slices;
  keep.checkpoint = current.checkpoint;
  offer(&menu, "Pin this choice (" + QString::fromStdString(present::choice_text(current)) + ")", keep);
  offer(&menu, "Pin DP (replicated)", dp_pin(0));
  offer(&menu, "Pin ZDP (GGG, every slice)", zdp_pin(0));
  QMenu* scopes = menu.addMenu("Pin scope");
  for (const Scopes& s : paro_scopes()) {
    if (s.name() == "NNN") continue;
    OperatorPin pin;
    pin.scopes = s;
    offer(scopes, QString::fromStdString(s.name()), pin);
  }
  QMenu* slices = menu.addMenu("Pin slices");
  for (int g : model_->scenario().training.slice_granularities) {
    for (int k = 0; k <= g; ++k) {
      OperatorPin pin;
      pin.slices = g;
      pin.sharded_slices = k;
      offer(slices, QString("%1 of %2 sharded").arg(k).arg(g), pin);
    }
  }
  QMenu* ckpt = menu.addMenu("Pin checkpoint");
  OperatorPin on, off;
  on.checkpoint = true;
  off.checkpoint = false;
  offer(ckpt, "checkpointed", on);
  offer(ckpt, "not checkpointed", off);
  menu.addSeparator();
  menu.addAction("Unpin", this, [this, ops] { emit pinsCleared(ops); });
}

}  // namespace shardscope::gui
