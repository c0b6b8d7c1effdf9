// The field table's rows (present::scenario_fields) and their values from the scenario document.
#include "scenario_field_model.hpp"

#include "planner/core/error.hpp"
#include "present/scenario_fields.hpp"

namespace shardscope::gui {

ScenarioFieldModel::ScenarioFieldModel(QObject* parent) : QAbstractTableModel(parent) {}

void ScenarioFieldModel::set_document(const ScenarioDocument* document) {
  document_ = document;
  refresh();
}

void ScenarioFieldModel::refresh() {
  if (rowCount() > 0) emit dataChanged(index(0, kValue), index(rowCount() - 1, kValue));
}

int ScenarioFieldModel::row_of(const QString& path) const {
  const auto& fields = present::scenario_fields();
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (QString::fromStdString(fields[i].path) == path) return static_cast<int>(i);
  }
  return -1;
}

int ScenarioFieldModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(present::scenario_fields().size());
}

int ScenarioFieldModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kColumns;
}

QVariant ScenarioFieldModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const present::ScenarioField& field = present::scenario_fields()[static_cast<std::size_t>(index.row())];
  if (role == Qt::ToolTipRole) return QString::fromStdString(field.label + ": " + field.what);
  if (role != Qt::DisplayRole && role != Qt::EditRole) return {};
  switch (index.column()) {
    case kPath:
      return QString::fromStdString(field.path);
    case kValue: {
      if (document_ == nullptr) return QString();
      try {
        return QString::fromStdString(document_->get(field.path).value_or(""));
      } catch (const InputError&) {
        return QString();  // a path through a single value: the field is not there
      }
    }
    case kWhat:
      return QString::fromStdString(field.what);
    default:
      return {};
  }
}

QVariant ScenarioFieldModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case kPath:
      return QString("field");
    case kValue:
      return QString("value");
    case kWhat:
      return QString("what it is");
    default:
      return {};
  }
}

Qt::ItemFlags ScenarioFieldModel::flags(const QModelIndex& index) const {
  const Qt::ItemFlags base = QAbstractTableModel::flags(index);
  return index.column() == kValue ? base | Qt::ItemIsEditable : base;
}

bool ScenarioFieldModel::setData(const QModelIndex& index, const QVariant& value, int role) {
  if (role != Qt::EditRole || index.column() != kValue || index.row() >= rowCount()) return false;
  const present::ScenarioField& field = present::scenario_fields()[static_cast<std::size_t>(index.row())];
  emit fieldEdited(QString::fromStdString(field.path), value.toString().trimmed());
  return true;
}

}  // namespace shardscope::gui
