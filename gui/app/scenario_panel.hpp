// ScenarioPanel: the scenario form (model, cluster, memory limit, batch, precision, checkpointing) over the
// scenario's YAML document; every change is parsed by the planner's own parser (errors shown at the field)
// and, debounced, offered as a new Scenario.
#pragma once

#include <yaml-cpp/yaml.h>

#include <QWidget>
#include <map>
#include <optional>

#include "planner/core/scenario.hpp"

class QComboBox;
class QLabel;
class QLineEdit;
class QSlider;
class QSpinBox;
class QTimer;

namespace shardscope::gui {

class ScenarioPanel : public QWidget {
  Q_OBJECT
 public:
  explicit ScenarioPanel(QWidget* parent = nullptr);

  // Loads a scenario file into the form; false (and the parser's message shown) when it cannot be read.
  bool open_file(const QString& path);
  bool save_file(const QString& path);
  void set_hf_config(const QString& path);
  void set_memory_limit_text(const QString& text);
  // Sets the memory limit from the Pareto view (bytes, rounded up to 0.01 GiB).
  void set_memory_limit_bytes(double bytes);

  QString yaml_text() const;
  // The scenario as YAML that parses the same from any folder: its relative file paths made absolute.
  QString portable_yaml_text() const;
  QString error_text() const;  // every message shown, joined; empty when the scenario parses
  QString field_error(const QString& row) const;  // the message shown next to row ("memory", "model", ...)
  const std::optional<Scenario>& scenario() const { return scenario_; }
  void reparse_now();  // parse and emit without waiting for the debounce

  QComboBox* model_box() const { return model_; }
  QLineEdit* memory_field() const { return memory_text_; }
  QSlider* memory_slider() const { return memory_slider_; }

 signals:
  void scenarioChanged(const shardscope::Scenario& scenario);
  void scenarioInvalid(const QString& message);

 private:
  void fill_from_document();
  void changed();
  void parse();
  void show_error(const QString& row, const QString& message);
  void set_node(const std::string& section, const std::string& key, const QString& value, bool integer);

  YAML::Node doc_;
  QString file_ = "untitled.yaml";
  QString base_dir_ = ".";
  bool filling_ = false;
  std::optional<Scenario> scenario_;
  QComboBox* model_ = nullptr;
  QComboBox* cluster_ = nullptr;
  QSpinBox* nodes_ = nullptr;
  QSpinBox* gpus_per_node_ = nullptr;
  QSlider* memory_slider_ = nullptr;
  QLineEdit* memory_text_ = nullptr;
  QLineEdit* micro_batch_ = nullptr;
  QLineEdit* global_batch_ = nullptr;
  QComboBox* precision_ = nullptr;
  QComboBox* checkpointing_ = nullptr;
  QLabel* file_label_ = nullptr;
  std::map<QString, QLabel*> errors_;  // row -> its error label
  QTimer* debounce_ = nullptr;
};

}  // namespace shardscope::gui
