// The compare summary and operator table models: texts from present/, fonts, colours and sort keys.
#include "compare_models.hpp"

#include <QColor>
#include <QFont>

namespace shardscope::gui {
namespace {

const QColor kChanged(255, 236, 160);
const QColor kBetter(0, 130, 0);
const QColor kWorse(190, 0, 0);

QString text(const std::string& s) { return QString::fromStdString(s); }

QFont font_with(bool bold, bool italic) {
  QFont f;
  f.setBold(bold);
  f.setItalic(italic);
  return f;
}

}  // namespace

void CompareSummaryModel::set_rows(std::vector<present::CompareSummaryRow> rows) {
  beginResetModel();
  rows_ = std::move(rows);
  endResetModel();
}

int CompareSummaryModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int CompareSummaryModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : 4; }

QVariant CompareSummaryModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid()) return {};
  const present::CompareSummaryRow& r = rows_[static_cast<std::size_t>(index.row())];
  const int c = index.column();
  if (role == Qt::DisplayRole) return text(c == 0 ? r.metric : c == 1 ? r.a : c == 2 ? r.b : r.delta);
  if (role == Qt::FontRole) return font_with(c > 0 && r.differs, false);
  if (role == Qt::ForegroundRole && c == 3 && r.better != 0) return r.better > 0 ? kBetter : kWorse;
  return {};
}

QVariant CompareSummaryModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* const titles[] = {"", "A", "B", "B − A"};
  return section >= 0 && section < 4 ? QString::fromUtf8(titles[section]) : QVariant();
}

void CompareTableModel::set_lines(present::PlanComparison comparison,
                                  std::vector<present::CompareLine> lines) {
  beginResetModel();
  comparison_ = std::move(comparison);
  lines_ = std::move(lines);
  endResetModel();
}

int CompareTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(lines_.size());
}

int CompareTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(present::kCompareColumns);
}

QVariant CompareTableModel::sort_key(int row, int column) const {
  const present::CompareLine& line = lines_[static_cast<std::size_t>(row)];
  const present::OperatorDifference& d = comparison_.operators[line.first];
  switch (column) {
    case 0:
      return static_cast<qulonglong>(line.first);  // model order
    case 5:
      return d.memory_a_bytes;
    case 6:
      return d.memory_b_bytes;
    case 7:
      return d.memory_b_bytes - d.memory_a_bytes;
    case 8:
      return d.seconds_a;
    case 9:
      return d.seconds_b;
    case 10:
      return d.seconds_b - d.seconds_a;
    default:
      return data(index(row, column), Qt::DisplayRole);
  }
}

QVariant CompareTableModel::style(const present::CompareLine& line, int column, int role) const {
  const present::OperatorDifference& d = comparison_.operators[line.first];
  if (line.folded()) {
    if (role == Qt::FontRole) return font_with(false, true);
    if (role == Qt::ForegroundRole) return QColor(Qt::darkGray);
    return {};
  }
  if (role == Qt::BackgroundRole && d.choice_differs()) return kChanged;
  if (role == Qt::FontRole)
    return font_with(present::compare_row_differs(d)[static_cast<std::size_t>(column)], false);
  if (role == Qt::ForegroundRole && column == 7)
    return d.memory_b_bytes > d.memory_a_bytes ? kWorse : kBetter;
  if (role == Qt::ForegroundRole && column == 10) return d.seconds_b > d.seconds_a ? kWorse : kBetter;
  if (role == Qt::TextAlignmentRole)
    return column >= 5 ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                       : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
  return {};
}

QVariant CompareTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid()) return {};
  const present::CompareLine& line = lines_[static_cast<std::size_t>(index.row())];
  const int column = index.column();
  if (role == Qt::DisplayRole) {
    if (line.folded()) return column == 0 ? text(present::folded_line_text(comparison_, line)) : QString();
    return text(
        present::compare_row_cells(comparison_.operators[line.first])[static_cast<std::size_t>(column)]);
  }
  if (role == SortRole) return sort_key(index.row(), column);
  return style(line, column, role);
}

QVariant CompareTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 ||
      section >= static_cast<int>(present::kCompareColumns))
    return {};
  return text(present::compare_table_header()[static_cast<std::size_t>(section)]);
}

}  // namespace shardscope::gui
