// ScenarioPanel: the scenario form (model and its transformer shape, cluster, network, GPU memory, memory
// limit, batch, precision, checkpointing, group size, slices, batch policy, cost model, overlap, collectives)
// and the table of every field, both over a ScenarioDocument edited by `--set`'s paths (its comments kept
// when saved); every change is parsed by the planner's own parser (errors shown at the field) and, debounced,
// offered as a new Scenario.
#pragma once

#include <QWidget>
#include <map>
#include <optional>

#include "planner/core/scenario.hpp"
#include "planner/io/scenario_document.hpp"

class QCheckBox;
class QComboBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QPushButton;
class QSlider;
class QSpinBox;
class QTableView;
class QTimer;

namespace shardscope::gui {

class ScenarioFieldModel;

class ScenarioPanel : public QWidget {
  Q_OBJECT
 public:
  explicit ScenarioPanel(QWidget* parent = nullptr);

  // Loads a scenario file into the form; false (and the parser's message shown) when it cannot be read.
  bool open_file(const QString& path);
  // The same with the file read and parsed on a worker thread (a 1,000-operator model takes 60-150 ms);
  // fileOpened(ok) follows. A newer open, of either kind, supersedes it.
  void open_file_async(const QString& path);
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
  // The transformer's shape (layers, hidden, heads, sequence_length), cleared for a model that has none.
  QSpinBox* transformer_field(const QString& key) const;
  QLineEdit* group_size_field() const { return group_size_; }
  QLineEdit* slices_field() const { return slices_; }
  QComboBox* batch_policy_box() const { return batch_policy_; }
  QComboBox* cost_model_box() const { return cost_model_; }
  QCheckBox* overlap_box() const { return overlap_; }
  QComboBox* collectives_box() const { return collectives_; }
  QLineEdit* memory_field() const { return memory_text_; }
  // The cluster's network and GPU memory: empty for the cluster's own value (the placeholder shows it).
  QSpinBox* gpus_per_node_box() const { return gpus_per_node_; }  // cluster.gpus_per_node (physical)
  QLineEdit* nics_field() const { return nics_; }                 // cluster.network.nics_per_node
  QLineEdit* nic_rate_field() const { return nic_rate_; }         // cluster.network.nic_rate
  QLineEdit* gpu_memory_field() const { return gpu_memory_; }     // cluster.gpu.memory
  QSlider* memory_slider() const { return memory_slider_; }
  // Every field the panel knows (present::scenario_fields): path, value, what it is; values are editable.
  QTableView* field_table() const { return field_table_; }
  ScenarioFieldModel* field_model() const { return field_model_; }

 signals:
  void scenarioChanged(const shardscope::Scenario& scenario);
  void scenarioInvalid(const QString& message);
  void fileOpened(bool ok);

 private:
  QWidget* make_form();
  QWidget* make_field_table();
  QLabel* error_label(const QString& row);
  // A text field that sets `path` as `--set path=TEXT` does (empty: removes it).
  QLineEdit* add_path_row(QFormLayout* form, const QString& label, const QString& row,
                          const std::string& path);
  void add_model_rows(QFormLayout* form);
  void add_cluster_rows(QFormLayout* form);
  void add_training_rows(QFormLayout* form);
  void connect_model_and_cluster();
  void connect_training();
  void set_slices(const QString& text);
  // Sets `path` to `value` (YAML text, as `--set` takes it; empty: removes the field); false, and the message
  // shown at the field's row, when the document refuses it.
  bool set_path(const std::string& path, const QString& value);
  void set_cluster_preset(const QString& name);
  void fill_from_document();
  void fill_model_box();
  void changed();
  struct Parsed;
  struct Loaded;
  static Parsed parse_document(const ScenarioDocument& doc);
  static Loaded load_file(const QString& path);
  void parse();
  void take(Parsed parsed);
  bool take_loaded(Loaded loaded);
  void show_error(const QString& row, const QString& message);
  // Edits one key of the model's transformer: a preset becomes its own transformer: map first.
  void set_transformer_key(const std::string& key, int value);

  ScenarioDocument doc_;
  QString file_ = "untitled.yaml";
  bool filling_ = false;
  std::optional<Scenario> scenario_;
  QComboBox* model_ = nullptr;
  QPushButton* hf_button_ = nullptr;
  QComboBox* cluster_ = nullptr;
  QSpinBox* nodes_ = nullptr;
  QSpinBox* gpus_per_node_ = nullptr;
  QLineEdit* nics_ = nullptr;
  QLineEdit* nic_rate_ = nullptr;
  QLineEdit* gpu_memory_ = nullptr;
  QSlider* memory_slider_ = nullptr;
  QLineEdit* memory_text_ = nullptr;
  QLineEdit* micro_batch_ = nullptr;
  QLineEdit* global_batch_ = nullptr;
  QComboBox* precision_ = nullptr;
  QComboBox* checkpointing_ = nullptr;
  std::map<QString, QSpinBox*> transformer_;  // layers, hidden, heads, sequence_length
  QLineEdit* group_size_ = nullptr;
  QLineEdit* slices_ = nullptr;
  QComboBox* batch_policy_ = nullptr;
  QComboBox* cost_model_ = nullptr;
  QCheckBox* overlap_ = nullptr;
  QComboBox* collectives_ = nullptr;
  QLabel* file_label_ = nullptr;
  QTableView* field_table_ = nullptr;
  ScenarioFieldModel* field_model_ = nullptr;
  std::map<QString, QLabel*> errors_;  // row -> its error label
  QTimer* debounce_ = nullptr;
  quint64 open_generation_ = 0;
};

}  // namespace shardscope::gui
