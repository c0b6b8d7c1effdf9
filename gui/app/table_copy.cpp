// Selected rows of an item view as tab-separated text, and the Ctrl+C action that copies them.
#include "table_copy.hpp"

#include <QAbstractItemView>
#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QItemSelectionModel>
#include <QTableView>
#include <QTreeView>
#include <algorithm>
#include <vector>

namespace shardscope::gui {
namespace {

// The rows from the root down to `index`: sorting by it puts rows in tree order.
std::vector<int> path_of(QModelIndex index) {
  std::vector<int> path;
  for (; index.isValid(); index = index.parent()) path.push_back(index.row());
  std::reverse(path.begin(), path.end());
  return path;
}

// Hidden columns (a tree's or table's) are left out of the copy, as they are out of sight.
bool column_hidden(const QAbstractItemView* view, int column) {
  if (const auto* tree = qobject_cast<const QTreeView*>(view)) return tree->isColumnHidden(column);
  if (const auto* table = qobject_cast<const QTableView*>(view)) return table->isColumnHidden(column);
  return false;
}

}  // namespace

QString selected_rows_text(const QAbstractItemView* view) {
  if (view->selectionModel() == nullptr || view->model() == nullptr) return {};
  QModelIndexList rows = view->selectionModel()->selectedRows(0);
  std::sort(rows.begin(), rows.end(),
            [](const QModelIndex& a, const QModelIndex& b) { return path_of(a) < path_of(b); });
  const QAbstractItemModel* model = view->model();
  QStringList lines;
  for (const QModelIndex& row : rows) {
    QStringList cells;
    for (int c = 0; c < model->columnCount(row.parent()); ++c) {
      if (!column_hidden(view, c))
        cells << model->index(row.row(), c, row.parent()).data(Qt::DisplayRole).toString();
    }
    lines << cells.join('\t');
  }
  return lines.isEmpty() ? QString() : lines.join('\n') + '\n';
}

void add_copy_action(QAbstractItemView* view) {
  auto* copy = new QAction("Copy rows", view);
  copy->setShortcut(QKeySequence::Copy);
  copy->setShortcutContext(Qt::WidgetWithChildrenShortcut);
  QObject::connect(copy, &QAction::triggered, view, [view] {
    const QString text = selected_rows_text(view);
    if (!text.isEmpty()) QApplication::clipboard()->setText(text);
  });
  view->addAction(copy);
}

}  // namespace shardscope::gui
