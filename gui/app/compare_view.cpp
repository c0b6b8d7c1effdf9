// The A/B comparison's widgets: title, summary table, message, operator table (sortable, spans for folded
// runs).
#include "compare_view.hpp"

#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTreeView>
#include <QVBoxLayout>

#include "compare_models.hpp"
#include "table_copy.hpp"

namespace shardscope::gui {
namespace {

constexpr int kCellPadding = 8;  // pixels added to a summary column's widest value

QString text(const std::string& s) { return QString::fromStdString(s); }

QTreeView* flat_view() {
  auto* view = new QTreeView;
  view->setRootIsDecorated(false);
  view->setUniformRowHeights(true);
  view->setEditTriggers(QAbstractItemView::NoEditTriggers);
  view->setSelectionMode(QAbstractItemView::ExtendedSelection);
  view->setSelectionBehavior(QAbstractItemView::SelectRows);
  add_copy_action(view);
  return view;
}

}  // namespace

CompareView::CompareView(QWidget* parent) : QWidget(parent) {
  setBackgroundRole(QPalette::Base);
  setAutoFillBackground(true);
  auto* layout = new QVBoxLayout(this);
  title_ = new QLabel;
  QFont bold = title_->font();
  bold.setBold(true);
  title_->setFont(bold);
  layout->addWidget(title_);
  summary_ = new CompareSummaryModel(this);
  summary_view_ = flat_view();
  summary_view_->setModel(summary_);
  summary_view_->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  layout->addWidget(summary_view_);
  message_label_ = new QLabel;
  message_label_->setWordWrap(true);
  message_label_->setStyleSheet("background: #fff5dc; border: 1px solid #a06400; padding: 6px");
  layout->addWidget(message_label_);
  note_ = new QLabel(
      "Highlighted: the scopes (DP / ZDP / PaRO), slices or checkpointing differ. Memory is resident per "
      "GPU, "
      "time the operator's share of an iteration; Δ = B − A (green lower, red higher).");
  note_->setWordWrap(true);
  note_->setStyleSheet("color: gray");
  layout->addWidget(note_);
  table_ = new CompareTableModel(this);
  proxy_ = new QSortFilterProxyModel(this);
  proxy_->setSourceModel(table_);
  proxy_->setSortRole(CompareTableModel::SortRole);
  table_view_ = flat_view();
  table_view_->setModel(proxy_);
  table_view_->setSortingEnabled(true);
  table_view_->sortByColumn(0, Qt::AscendingOrder);
  const int widths[] = {200, 100, 100, 55, 55, 85, 85, 90, 85, 85, 90};
  for (int c = 0; c < static_cast<int>(present::kCompareColumns); ++c)
    table_view_->header()->resizeSection(c, widths[c]);
  layout->addWidget(table_view_, 1);
  hidden_ = new QLabel;
  hidden_->setStyleSheet("color: gray; font-style: italic");
  layout->addWidget(hidden_);
  connect(proxy_, &QAbstractItemModel::layoutChanged, this, &CompareView::span_folded_lines);
  rebuild();
}

void CompareView::set_a(std::optional<present::PlanSnapshot> a) {
  a_ = std::move(a);
  rebuild();
}

void CompareView::set_b(std::optional<present::PlanSnapshot> b) {
  b_ = std::move(b);
  rebuild();
}

void CompareView::set_only_changed(bool only) {
  only_changed_ = only;
  rebuild();
}

const present::PlanComparison& CompareView::comparison() const { return table_->comparison(); }

void CompareView::rebuild() {
  present::PlanComparison comparison;
  std::vector<present::CompareSummaryRow> summary;
  if (a_ && b_) {
    comparison = present::compare_plans(*a_, *b_);
    summary = present::compare_summary_rows(*a_, *b_, comparison);
  }
  message_ = text(present::compare_message(a_, b_, comparison));
  present::CompareLines lines = present::compare_lines(comparison, only_changed_);
  title_->setText(text(present::compare_title(a_, b_)));
  summary_->set_rows(std::move(summary));
  table_->set_lines(std::move(comparison), std::move(lines.lines));
  message_label_->setText(message_);
  message_label_->setVisible(!message_.isEmpty());
  summary_view_->setVisible(summary_->rowCount() > 0);
  const bool table = table_->rowCount() > 0 || lines.hidden > 0;
  note_->setVisible(table);
  table_view_->setVisible(table);
  hidden_->setText(lines.hidden > 0 ? text(present::hidden_text(lines.hidden)) : QString());
  hidden_->setVisible(lines.hidden > 0);
  fit_summary();
  span_folded_lines();
}

void CompareView::fit_summary() {
  // Every column as wide as its widest value in the font it is drawn in (bold when it differs), so none is
  // cut.
  for (int c = 0; c < summary_->columnCount(); ++c) {
    summary_view_->resizeColumnToContents(c);
    summary_view_->header()->resizeSection(c, summary_view_->header()->sectionSize(c) + kCellPadding);
  }
  const int rows = summary_->rowCount();
  const int row_height = rows > 0 ? summary_view_->sizeHintForRow(0) : 0;
  summary_view_->setFixedHeight(summary_view_->header()->sizeHint().height() + rows * row_height + 4);
}

void CompareView::span_folded_lines() {
  for (int row = 0; row < proxy_->rowCount(); ++row) {
    const QModelIndex source = proxy_->mapToSource(proxy_->index(row, 0));
    table_view_->setFirstColumnSpanned(row, {},
                                       table_->lines()[static_cast<std::size_t>(source.row())].folded());
  }
}

int CompareView::summary_column_width(int column) const {
  return summary_view_->header()->sectionSize(column);
}

int CompareView::operator_lines() const { return table_->rowCount(); }

QStringList CompareView::summary_lines() const {
  QStringList out;
  for (const present::CompareSummaryRow& r : summary_->rows())
    out << text(r.metric) + ": " + text(r.a) + " | " + text(r.b) + " | " + text(r.delta);
  return out;
}

std::vector<std::string> CompareView::highlighted_operators() const {
  std::vector<std::string> out;
  for (const present::CompareLine& l : table_->lines()) {
    if (!l.folded() && comparison().operators[l.first].choice_differs())
      out.push_back(comparison().operators[l.first].name);
  }
  return out;
}

}  // namespace shardscope::gui
