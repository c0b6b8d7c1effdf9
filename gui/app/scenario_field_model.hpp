// ScenarioFieldModel: the scenario's fields as a table (path, value, what it is) built from
// present::scenario_fields(), over a ScenarioDocument; editing a value asks for it to be set by its path.
#pragma once

#include <QAbstractTableModel>

#include "planner/io/scenario_document.hpp"

namespace shardscope::gui {

class ScenarioFieldModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { kPath, kValue, kWhat, kColumns };

  explicit ScenarioFieldModel(QObject* parent = nullptr);

  // The document the values come from (not owned; it outlives the model's use). Refreshes every row.
  void set_document(const ScenarioDocument* document);
  void refresh();                         // after the document changed
  int row_of(const QString& path) const;  // -1 when the table has no such field

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
  Qt::ItemFlags flags(const QModelIndex& index) const override;
  // Emits fieldEdited(path, text); the document changes when the panel takes it.
  bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;

 signals:
  void fieldEdited(const QString& path, const QString& value);

 private:
  const ScenarioDocument* document_ = nullptr;
};

}  // namespace shardscope::gui
