// The scenario panel's widgets: the form's rows and the field table, and what each edit sets in the
// scenario document (scenario_panel_document.cpp reads the document back into them and parses it).
#include "scenario_panel.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSlider>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include "planner/core/scenario.hpp"
#include "planner/io/preset_catalog.hpp"
#include "planner/io/scenario_parser.hpp"
#include "scenario_field_model.hpp"

namespace shardscope::gui {
namespace {

constexpr const char* kDefaultScenario =
    "name: untitled\nmodel: {preset: nd-48x1536}\ncluster: {preset: titan-rtx-8-pcie3}\n"
    "training: {memory_limit: 8GB, runtime_reserve: 512MiB, precision: mixed-fp16, checkpointing: search, "
    "slice_granularities: [1, 2, 4, 8], max_micro_batch: 64}\n";
// The transformer keys the form edits, with their labels and ranges (the parser judges the rest).
struct ShapeField {
  const char* key;
  const char* label;
  int maximum;
};
constexpr ShapeField kShapeFields[] = {{"layers", "layers", 100000},
                                       {"hidden", "hidden", 1 << 20},
                                       {"heads", "heads", 4096},
                                       {"sequence_length", "sequence", 10000000}};

}  // namespace

ScenarioPanel::ScenarioPanel(QWidget* parent)
    : QWidget(parent), doc_(kDefaultScenario, "untitled.yaml", ".") {
  auto* outer = new QVBoxLayout(this);
  auto* files = new QHBoxLayout;
  auto* open = new QPushButton("Open…");
  auto* save = new QPushButton("Save as…");
  files->addWidget(open);
  files->addWidget(save);
  outer->addLayout(files);
  file_label_ = new QLabel;
  file_label_->setWordWrap(true);
  outer->addWidget(file_label_);
  auto* tabs = new QTabWidget;
  tabs->addTab(make_form(), "Form");
  tabs->addTab(make_field_table(), "Fields");
  outer->addWidget(tabs, 1);
  outer->addWidget(error_label("general"));

  debounce_ = new QTimer(this);
  debounce_->setSingleShot(true);
  debounce_->setInterval(200);
  connect(debounce_, &QTimer::timeout, this, &ScenarioPanel::parse);
  connect(open, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, "Open scenario", {}, "Scenario (*.yaml *.yml)");
    if (!path.isEmpty()) open_file_async(path);  // a large model is read and parsed off the UI thread
  });
  connect(save, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, "Save scenario", file_, "Scenario (*.yaml)");
    if (!path.isEmpty()) save_file(path);
  });
  connect_model_and_cluster();
  connect_training();
  fill_from_document();
  parse();
}

QWidget* ScenarioPanel::make_form() {
  auto* page = new QWidget;
  auto* layout = new QVBoxLayout(page);
  auto* form = new QFormLayout;
  layout->addLayout(form);
  add_model_rows(form);
  add_cluster_rows(form);
  add_training_rows(form);
  layout->addStretch(1);
  return page;
}

QWidget* ScenarioPanel::make_field_table() {
  field_model_ = new ScenarioFieldModel(this);
  field_model_->set_document(&doc_);
  field_table_ = new QTableView;
  field_table_->setModel(field_model_);
  field_table_->verticalHeader()->hide();
  field_table_->horizontalHeader()->setStretchLastSection(true);
  field_table_->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed |
                                QAbstractItemView::AnyKeyPressed);
  field_table_->resizeColumnsToContents();
  // A value edited in the table goes in as `--set PATH=VALUE` would; the form follows.
  connect(field_model_, &ScenarioFieldModel::fieldEdited, this,
          [this](const QString& path, const QString& v) {
            if (!set_path(path.toStdString(), v)) return;
            fill_from_document();
            changed();
          });
  return field_table_;
}

QLabel* ScenarioPanel::error_label(const QString& row) {
  auto* label = new QLabel;
  label->setObjectName("error_" + row);
  label->setStyleSheet("color: #b00000");
  label->setWordWrap(true);
  label->hide();
  errors_[row] = label;
  return label;
}

QLineEdit* ScenarioPanel::add_path_row(QFormLayout* form, const QString& label, const QString& row,
                                       const std::string& path) {
  auto* field = new QLineEdit;
  field->setToolTip(QString::fromStdString(path) + ": empty for the cluster's own value (shown greyed)");
  form->addRow(label, field);
  form->addRow(error_label(row));
  connect(field, &QLineEdit::textEdited, this, [this, path](const QString& t) {
    if (!filling_ && set_path(path, t.trimmed())) changed();
  });
  return field;
}

void ScenarioPanel::add_model_rows(QFormLayout* form) {
  model_ = new QComboBox;
  for (const std::string& name : model_presets().names()) model_->addItem(QString::fromStdString(name));
  hf_button_ = new QPushButton("HF config.json…");
  auto* model_row = new QHBoxLayout;
  model_row->addWidget(model_, 1);
  model_row->addWidget(hf_button_);
  form->addRow("Model", model_row);
  // Two fields per row, so the panel stays narrow.
  QHBoxLayout* shape_row = nullptr;
  for (const ShapeField& f : kShapeFields) {
    if (shape_row == nullptr || shape_row->count() == 4) {
      shape_row = new QHBoxLayout;
      form->addRow(transformer_.empty() ? "Shape" : "", shape_row);
    }
    auto* box = new QSpinBox;
    box->setRange(0, f.maximum);
    box->setSpecialValueText("-");  // 0: the model has no such key
    box->setToolTip(QString("transformer.") + f.key);
    shape_row->addWidget(new QLabel(f.label));
    shape_row->addWidget(box, 1);
    transformer_[f.key] = box;
  }
  form->addRow(error_label("model"));
}

void ScenarioPanel::add_cluster_rows(QFormLayout* form) {
  cluster_ = new QComboBox;
  for (const std::string& name : cluster_presets().names()) cluster_->addItem(QString::fromStdString(name));
  form->addRow("Cluster", cluster_);
  form->addRow(error_label("cluster"));
  nodes_ = new QSpinBox;
  nodes_->setRange(1, 4096);
  form->addRow("Nodes", nodes_);
  form->addRow(error_label("nodes"));
  gpus_per_node_ = new QSpinBox;
  gpus_per_node_->setRange(1, 64);
  form->addRow("GPUs per node", gpus_per_node_);
  form->addRow(error_label("gpus"));
  // The cluster's network and GPU memory, set as `--set PATH=VALUE` sets them (over a preset's values).
  nics_ = add_path_row(form, "NICs per node", "nics", "cluster.network.nics_per_node");
  nic_rate_ = add_path_row(form, "NIC rate", "nic_rate", "cluster.network.nic_rate");
  gpu_memory_ = add_path_row(form, "GPU memory", "gpu_memory", "cluster.gpu.memory");

  memory_slider_ = new QSlider(Qt::Horizontal);
  memory_slider_->setRange(4, 4 * 192);  // quarter GiB steps
  memory_text_ = new QLineEdit;
  memory_text_->setMaximumWidth(90);
  auto* memory_row = new QHBoxLayout;
  memory_row->addWidget(memory_slider_, 1);
  memory_row->addWidget(memory_text_);
  form->addRow("Memory limit", memory_row);
  form->addRow(error_label("memory"));
}

void ScenarioPanel::add_training_rows(QFormLayout* form) {
  const auto text_row = [&](QLineEdit*& field, const QString& label, const QString& row,
                            const QString& placeholder, const QString& tooltip) {
    field = new QLineEdit;
    field->setPlaceholderText(placeholder);
    field->setToolTip(tooltip);
    form->addRow(label, field);
    form->addRow(error_label(row));
  };
  const auto combo_row = [&](QComboBox*& box, const QString& label, const QString& row,
                             const std::vector<std::string>& names, const QString& tooltip) {
    box = new QComboBox;
    for (const std::string& name : names) box->addItem(QString::fromStdString(name));
    box->setToolTip(tooltip);
    form->addRow(label, box);
    form->addRow(error_label(row));
  };
  text_row(micro_batch_, "Micro-batch", "micro", "searched", "training.micro_batch");
  text_row(global_batch_, "Global batch", "global", "none", "training.global_batch");
  combo_row(precision_, "Precision", "precision", names<Precision>(), "training.precision");
  combo_row(checkpointing_, "Checkpointing", "checkpointing", names<CheckpointPolicy>(),
            "training.checkpointing");
  text_row(group_size_, "Group size", "group", "GPUs per node",
           "training.group_size: the GPUs of one PaRO / MiCS group");
  text_row(slices_, "Slices", "slices", "1, 2, 4, 8",
           "training.slice_granularities: the slice counts an operator may be split into");
  combo_row(batch_policy_, "Batch policy", "policy", names<BatchPolicy>(),
            "own: each baseline at its best micro-batch; equal: at the plan's");
  combo_row(cost_model_, "Cost model", "cost", names<CostModelKind>(), "planner.cost_model");
  overlap_ = new QCheckBox("communication overlaps compute");
  form->addRow("Overlap", overlap_);
  form->addRow(error_label("overlap"));
  combo_row(collectives_, "Collectives", "collectives", names<CollectivesChoice>(), "execution.collectives");
}

void ScenarioPanel::connect_model_and_cluster() {
  connect(hf_button_, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, "Hugging Face config.json", {}, "JSON (*.json)");
    if (!path.isEmpty()) set_hf_config(path);
  });
  connect(model_, &QComboBox::currentTextChanged, this, [this](const QString& name) {
    if (filling_ || name.startsWith("hf: ") || name.startsWith("transformer: ")) return;
    if (set_path("model", "{preset: " + name + "}")) changed();  // the whole model: the preset alone
  });
  for (const auto& [key, box] : transformer_) {
    connect(box, &QSpinBox::valueChanged, this,
            [this, key = key.toStdString()](int v) { set_transformer_key(key, v); });
  }
  connect(cluster_, &QComboBox::currentTextChanged, this, &ScenarioPanel::set_cluster_preset);
  const auto number = [this](QSpinBox* box, const std::string& path) {
    connect(box, &QSpinBox::valueChanged, this, [this, path](int v) {
      if (!filling_ && set_path(path, QString::number(v))) changed();
    });
  };
  number(nodes_, "cluster.nodes");
  number(gpus_per_node_, "cluster.gpus_per_node");
  connect(memory_slider_, &QSlider::valueChanged, this, [this](int quarters) {
    if (filling_) return;
    set_memory_limit_text(QString::number(quarters / 4.0, 'f', 2) + "GiB");
  });
  connect(memory_text_, &QLineEdit::textEdited, this, [this](const QString& text) {
    if (!filling_ && set_path("training.memory_limit", text.trimmed())) changed();
  });
}

void ScenarioPanel::set_cluster_preset(const QString& name) {
  if (filling_ || !set_path("cluster", "{preset: " + name + "}")) return;
  // A new preset brings its own node and GPU counts, network and GPU memory.
  try {
    const Scenario s =
        parse_scenario_string("model: {preset: nd-48x1536}\ncluster: {preset: " + name.toStdString() + "}\n");
    filling_ = true;
    nodes_->setValue(s.cluster.nodes);
    gpus_per_node_->setValue(s.cluster.gpus_per_node);
    for (QLineEdit* field : {nics_, nic_rate_, gpu_memory_}) field->clear();
    filling_ = false;
  } catch (const std::exception&) {
    filling_ = false;
  }
  changed();
}

void ScenarioPanel::connect_training() {
  const auto text = [this](QLineEdit* field, const std::string& path) {
    connect(field, &QLineEdit::textEdited, this, [this, path](const QString& t) {
      if (filling_ || !set_path(path, t.trimmed())) return;
      // A fixed micro-batch: the search's largest is moot.
      if (path == "training.micro_batch") set_path("training.max_micro_batch", {});
      changed();
    });
  };
  const auto choice = [this](QComboBox* box, const std::string& path) {
    connect(box, &QComboBox::currentTextChanged, this, [this, path](const QString& t) {
      if (!filling_ && set_path(path, t)) changed();
    });
  };
  text(micro_batch_, "training.micro_batch");
  text(global_batch_, "training.global_batch");
  text(group_size_, "training.group_size");
  choice(precision_, "training.precision");
  choice(checkpointing_, "training.checkpointing");
  choice(batch_policy_, "training.batch_policy");
  choice(cost_model_, "planner.cost_model");
  choice(collectives_, "execution.collectives");
  connect(slices_, &QLineEdit::textEdited, this, &ScenarioPanel::set_slices);
  connect(overlap_, &QCheckBox::toggled, this, [this](bool on) {
    if (!filling_ && set_path("execution.overlap", on ? "true" : "false")) changed();
  });
}

void ScenarioPanel::set_slices(const QString& text) {
  if (filling_) return;
  // A list as typed ("1, 2, 4"); an entry that is not a whole number is the parser's to name.
  if (set_path("training.slice_granularities", text.trimmed().isEmpty() ? QString() : "[" + text + "]"))
    changed();
}

void ScenarioPanel::changed() {
  field_model_->refresh();
  debounce_->start();
}

QSpinBox* ScenarioPanel::transformer_field(const QString& key) const {
  return transformer_.count(key) ? transformer_.at(key) : nullptr;
}

}  // namespace shardscope::gui
