// Compare A/B's two tables as Qt models over present/'s rows: the summary (metric, A, B, B − A; values that
// differ in bold, the delta green when B is better and red when worse) and the operator table (one row per
// compare line: an operator, or a folded run; rows whose choice differs highlighted).
#pragma once

#include <QAbstractTableModel>
#include <vector>

#include "present/compare_rows.hpp"

namespace shardscope::gui {

class CompareSummaryModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  using QAbstractTableModel::QAbstractTableModel;
  void set_rows(std::vector<present::CompareSummaryRow> rows);
  const std::vector<present::CompareSummaryRow>& rows() const { return rows_; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  std::vector<present::CompareSummaryRow> rows_;
};

class CompareTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  static constexpr int SortRole = Qt::UserRole + 1;
  using QAbstractTableModel::QAbstractTableModel;
  void set_lines(present::PlanComparison comparison, std::vector<present::CompareLine> lines);
  const present::PlanComparison& comparison() const { return comparison_; }
  const std::vector<present::CompareLine>& lines() const { return lines_; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  QVariant sort_key(int row, int column) const;
  QVariant style(const present::CompareLine& line, int column, int role) const;

  present::PlanComparison comparison_;
  std::vector<present::CompareLine> lines_;
};

}  // namespace shardscope::gui
