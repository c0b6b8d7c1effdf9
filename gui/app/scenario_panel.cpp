// The scenario form: widgets read and write keys of the YAML document; the planner's parser judges the
// document itself.
#include "scenario_panel.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSlider>
#include <QSpinBox>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <cmath>

#include "planner/core/error.hpp"
#include "planner/core/units.hpp"
#include "planner/io/embedded_files.hpp"
#include "planner/io/internal/scenario_tree.hpp"
#include "planner/io/internal/yaml_reader.hpp"
#include "planner/io/preset_catalog.hpp"
#include "planner/io/scenario_parser.hpp"

namespace shardscope::gui {
namespace {

constexpr const char* kDefaultScenario =
    "name: untitled\nmodel: {preset: nd-48x1536}\ncluster: {preset: titan-rtx-8-pcie3}\n"
    "training: {memory_limit: 8GB, runtime_reserve: 512MiB, precision: mixed-fp16, checkpointing: search, "
    "slice_granularities: [1, 2, 4, 8], max_micro_batch: 64}\n";
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
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

// Which form row an InputError's field belongs to.
QString row_of_field(const std::string& field) {
  const auto has = [&](const char* key) { return field.find(key) != std::string::npos; };
  if (has("group_size")) return "group";
  if (has("slice_granularities")) return "slices";
  if (has("batch_policy")) return "policy";
  if (has("cost_model") || has("planner.paper")) return "cost";
  if (has("overlap")) return "overlap";
  if (has("execution.collectives")) return "collectives";
  if (has("memory_limit")) return "memory";
  if (has("micro_batch") || has("gradient_accumulation")) return "micro";
  if (has("global_batch")) return "global";
  if (has("nics_per_node")) return "nics";
  if (has("nic_rate")) return "nic_rate";
  if (has("gpu.memory")) return "gpu_memory";
  if (has("gpus_per_node")) return "gpus";
  if (has("nodes")) return "nodes";
  if (has("precision")) return "precision";
  if (has("checkpointing")) return "checkpointing";
  if (has("cluster")) return "cluster";
  if (has("model") || has("hf_config") || has("hidden") || has("layers") || has("heads") ||
      has("sequence_length"))
    return "model";
  return "general";
}

// Removes the field at dotted `path` from `root`, and the sections it leaves empty.
void remove_path(YAML::Node root, const std::string& path) {
  const std::size_t dot = path.find('.');
  if (!root.IsMap()) return;
  if (dot == std::string::npos) {
    root.remove(path);
    return;
  }
  const std::string key = path.substr(0, dot);
  YAML::Node child = root[key];
  if (!child.IsDefined() || !child.IsMap()) return;
  remove_path(child, path.substr(dot + 1));
  if (child.size() == 0) root.remove(key);
}

// The scalar at dotted `path` in `root` as text, or "" when there is none.
QString scalar_at(const YAML::Node& root, const std::string& path) {
  YAML::Node node;
  node.reset(root);
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = path.find('.', start);
    const std::string key = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!node.IsMap() || !node[key].IsDefined()) return {};
    const YAML::Node child = node[key];
    node.reset(child);
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return node.IsScalar() ? QString::fromStdString(node.Scalar()) : QString();
}

}  // namespace

ScenarioPanel::ScenarioPanel(QWidget* parent) : QWidget(parent) {
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
  auto* form = new QFormLayout;
  outer->addLayout(form);
  add_model_rows(form);
  add_cluster_rows(form);
  add_training_rows(form);
  outer->addWidget(error_label("general"));
  outer->addStretch(1);

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

  doc_ = YAML::Load(kDefaultScenario);
  fill_from_document();
  parse();
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
  connect(field, &QLineEdit::textEdited, this,
          [this, path](const QString& t) { set_path(path, t.trimmed()); });
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
    doc_["model"] = YAML::Node(YAML::NodeType::Map);
    doc_["model"]["preset"] = name.toStdString();
    changed();
  });
  for (const auto& [key, box] : transformer_) {
    connect(box, &QSpinBox::valueChanged, this,
            [this, key = key.toStdString()](int v) { set_transformer_key(key, v); });
  }
  connect(cluster_, &QComboBox::currentTextChanged, this, [this](const QString& name) {
    if (filling_) return;
    doc_["cluster"] = YAML::Node(YAML::NodeType::Map);
    doc_["cluster"]["preset"] = name.toStdString();
    // A new preset brings its own node and GPU counts, network and GPU memory.
    try {
      const Scenario s = parse_scenario_string(
          "model: {preset: nd-48x1536}\ncluster: {preset: " + name.toStdString() + "}\n");
      filling_ = true;
      nodes_->setValue(s.cluster.nodes);
      gpus_per_node_->setValue(s.cluster.gpus_per_node);
      for (QLineEdit* field : {nics_, nic_rate_, gpu_memory_}) field->clear();
      filling_ = false;
    } catch (const std::exception&) {
      filling_ = false;
    }
    changed();
  });
  connect(nodes_, &QSpinBox::valueChanged, this,
          [this](int v) { set_node("cluster", "nodes", QString::number(v), true); });
  connect(gpus_per_node_, &QSpinBox::valueChanged, this,
          [this](int v) { set_node("cluster", "gpus_per_node", QString::number(v), true); });
  connect(memory_slider_, &QSlider::valueChanged, this, [this](int quarters) {
    if (filling_) return;
    const QString text = QString::number(quarters / 4.0, 'f', 2) + "GiB";
    filling_ = true;
    memory_text_->setText(text);
    filling_ = false;
    set_node("training", "memory_limit", text, false);
  });
  connect(memory_text_, &QLineEdit::textEdited, this,
          [this](const QString& text) { set_node("training", "memory_limit", text.trimmed(), false); });
}

void ScenarioPanel::connect_training() {
  const auto text = [this](QLineEdit* field, const char* section, const char* key, bool integer) {
    connect(field, &QLineEdit::textEdited, this,
            [=, this](const QString& t) { set_node(section, key, t.trimmed(), integer); });
  };
  const auto choice = [this](QComboBox* box, const char* section, const char* key) {
    connect(box, &QComboBox::currentTextChanged, this,
            [=, this](const QString& t) { set_node(section, key, t, false); });
  };
  text(micro_batch_, "training", "micro_batch", true);
  text(global_batch_, "training", "global_batch", true);
  text(group_size_, "training", "group_size", true);
  choice(precision_, "training", "precision");
  choice(checkpointing_, "training", "checkpointing");
  choice(batch_policy_, "training", "batch_policy");
  choice(cost_model_, "planner", "cost_model");
  choice(collectives_, "execution", "collectives");
  connect(slices_, &QLineEdit::textEdited, this, &ScenarioPanel::set_slices);
  connect(overlap_, &QCheckBox::toggled, this, [this](bool on) {
    if (filling_) return;
    if (!doc_["execution"] || !doc_["execution"].IsMap()) doc_["execution"] = YAML::Node(YAML::NodeType::Map);
    doc_["execution"]["overlap"] = on;
    changed();
  });
}

void ScenarioPanel::set_slices(const QString& text) {
  if (filling_) return;
  if (!doc_["training"] || !doc_["training"].IsMap()) doc_["training"] = YAML::Node(YAML::NodeType::Map);
  if (text.trimmed().isEmpty()) {
    doc_["training"].remove("slice_granularities");
  } else {
    // A list of whole numbers; any other entry goes in as typed, for the parser to name.
    YAML::Node list(YAML::NodeType::Sequence);
    for (const QString& part : text.split(',', Qt::SkipEmptyParts)) {
      bool ok = false;
      const int n = part.trimmed().toInt(&ok);
      if (ok) {
        list.push_back(n);
      } else {
        list.push_back(part.trimmed().toStdString());
      }
    }
    doc_["training"]["slice_granularities"] = list;
  }
  changed();
}

void ScenarioPanel::set_path(const std::string& path, const QString& value) {
  if (filling_) return;
  if (value.isEmpty()) {
    remove_path(doc_, path);
  } else {
    try {
      // As `--set PATH=VALUE` does it: the value is YAML text, the path walks (and makes) the sections.
      apply_override(doc_, {"scenario panel", path, value.toStdString(), base_dir_.toStdString()},
                     base_dir_.toStdString());
    } catch (const InputError& e) {
      for (auto& [row, label] : errors_) show_error(row, {});
      show_error(row_of_field(path), QString::fromStdString(e.what()));
      scenario_.reset();
      emit scenarioInvalid(QString::fromStdString(e.what()));
      return;
    }
  }
  changed();
}

void ScenarioPanel::set_node(const std::string& section, const std::string& key, const QString& value,
                             bool integer) {
  if (filling_) return;
  if (!doc_[section] || !doc_[section].IsMap()) doc_[section] = YAML::Node(YAML::NodeType::Map);
  if (value.isEmpty()) {
    doc_[section].remove(key);
  } else {
    bool ok = false;
    const long long n = value.toLongLong(&ok);
    // Integers go in as numbers; anything else as the text typed, for the parser to judge.
    if (integer && ok) {
      doc_[section][key] = n;
    } else {
      doc_[section][key] = value.toStdString();
    }
  }
  if (section == "training" && key == "micro_batch") doc_[section].remove("max_micro_batch");
  changed();
}

void ScenarioPanel::changed() { debounce_->start(); }

QSpinBox* ScenarioPanel::transformer_field(const QString& key) const {
  return transformer_.count(key) ? transformer_.at(key) : nullptr;
}

YAML::Node ScenarioPanel::transformer_node() const {
  const YAML::Node model = doc_["model"];
  if (!model || !model.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
  if (model["transformer"] && model["transformer"].IsMap()) return model["transformer"];
  if (!model["preset"] || !model["preset"].IsScalar()) return YAML::Node(YAML::NodeType::Undefined);
  for (const EmbeddedFile& file : embedded_model_files()) {
    if (file.name != model["preset"].Scalar()) continue;
    const YAML::Node root = YAML::Load(std::string(file.text));
    if (root["transformer"] && root["transformer"].IsMap()) return root["transformer"];
  }
  return YAML::Node(YAML::NodeType::Undefined);
}

void ScenarioPanel::set_transformer_key(const std::string& key, int value) {
  if (filling_) return;
  const YAML::Node model = doc_["model"];
  YAML::Node shape = YAML::Clone(transformer_node());
  if (!shape.IsMap() || value <= 0) return;
  YAML::Node edited(YAML::NodeType::Map);
  // A model-level sequence length overrides the transformer's, so it is edited where it is.
  const bool model_sequence = key == "sequence_length" && model["sequence_length"];
  for (const auto& entry : model) {
    const std::string k = entry.first.Scalar();
    if (k != "preset" && k != "transformer") edited[k] = entry.second;
  }
  if (!edited["name"] && model["preset"]) edited["name"] = model["preset"].Scalar() + "-edited";
  if (model_sequence) {
    edited["sequence_length"] = value;
  } else {
    shape[key] = value;
  }
  edited["transformer"] = shape;
  doc_["model"] = edited;
  fill_from_document();
  changed();
}

void ScenarioPanel::fill_from_document() {
  filling_ = true;
  const YAML::Node model = doc_["model"];
  if (model && model["preset"]) {
    model_->setCurrentText(QString::fromStdString(model["preset"].as<std::string>()));
  } else if (model && model["hf_config"]) {
    const QString label =
        "hf: " + QFileInfo(QString::fromStdString(model["hf_config"].as<std::string>())).fileName();
    if (model_->findText(label) < 0) model_->addItem(label);
    model_->setCurrentText(label);
  }
  if (model && model["transformer"]) {
    const QString label =
        "transformer: " + QString::fromStdString(model["name"] ? model["name"].Scalar() : "unnamed");
    if (model_->findText(label) < 0) model_->addItem(label);
    model_->setCurrentText(label);
  }
  const YAML::Node shape = transformer_node();
  for (const auto& [key, box] : transformer_) {
    const std::string k = key.toStdString();
    const YAML::Node value = k == "sequence_length" && model && model[k] ? model[k]
                             : shape.IsMap() && shape[k]                 ? shape[k]
                                                                         : YAML::Node();
    bool ok = false;
    const int n = value && value.IsScalar() ? QString::fromStdString(value.Scalar()).toInt(&ok) : 0;
    box->setValue(ok ? n : 0);
    box->setEnabled(ok);
  }
  if (doc_["cluster"] && doc_["cluster"]["preset"]) {
    cluster_->setCurrentText(QString::fromStdString(doc_["cluster"]["preset"].as<std::string>()));
  }
  const YAML::Node training = doc_["training"];
  const auto text = [&](const char* key) {
    return training && training[key] && training[key].IsScalar()
               ? QString::fromStdString(training[key].Scalar())
               : QString();
  };
  nics_->setText(scalar_at(doc_, "cluster.network.nics_per_node"));
  nic_rate_->setText(scalar_at(doc_, "cluster.network.nic_rate"));
  gpu_memory_->setText(scalar_at(doc_, "cluster.gpu.memory"));
  memory_text_->setText(text("memory_limit"));
  micro_batch_->setText(text("micro_batch"));
  global_batch_->setText(text("global_batch"));
  if (!text("precision").isEmpty()) precision_->setCurrentText(text("precision"));
  if (!text("checkpointing").isEmpty()) checkpointing_->setCurrentText(text("checkpointing"));
  group_size_->setText(text("group_size"));
  batch_policy_->setCurrentText(text("batch_policy").isEmpty() ? "own" : text("batch_policy"));
  QStringList slices;
  if (training && training["slice_granularities"] && training["slice_granularities"].IsSequence()) {
    for (const auto& g : training["slice_granularities"])
      slices << QString::fromStdString(g.IsScalar() ? g.Scalar() : "?");
  }
  slices_->setText(slices.join(", "));
  const auto scalar = [&](const char* section, const char* key) {
    const YAML::Node node = doc_[section];
    return node && node.IsMap() && node[key] && node[key].IsScalar()
               ? QString::fromStdString(node[key].Scalar())
               : QString();
  };
  cost_model_->setCurrentText(scalar("planner", "cost_model").isEmpty() ? "topology"
                                                                        : scalar("planner", "cost_model"));
  overlap_->setChecked(scalar("execution", "overlap") != "false");
  collectives_->setCurrentText(
      scalar("execution", "collectives").isEmpty() ? "auto" : scalar("execution", "collectives"));
  filling_ = false;
}

QString ScenarioPanel::yaml_text() const {
  YAML::Emitter out;
  out << doc_;
  return QString::fromUtf8(out.c_str()) + "\n";
}

QString ScenarioPanel::portable_yaml_text() const {
  YAML::Node copy = YAML::Clone(doc_);
  // The parser's three file fields, resolved as it resolves them: against the scenario file's folder.
  const std::pair<const char*, const char*> path_fields[] = {
      {"model", "hf_config"}, {"cluster", "file"}, {"planner", "calibration"}};
  for (const auto& [section, key] : path_fields) {
    if (!copy[section] || !copy[section].IsMap()) continue;
    YAML::Node value = copy[section][key];
    if (!value || !value.IsScalar()) continue;
    const QString path = QString::fromStdString(value.Scalar());
    if (QFileInfo(path).isRelative()) value = QDir(base_dir_).absoluteFilePath(path).toStdString();
  }
  YAML::Emitter out;
  out << copy;
  return QString::fromUtf8(out.c_str()) + "\n";
}

void ScenarioPanel::show_error(const QString& row, const QString& message) {
  QLabel* label = errors_.count(row) ? errors_.at(row) : errors_.at("general");
  label->setText(message);
  label->setVisible(!message.isEmpty());
}

QString ScenarioPanel::error_text() const {
  QString out;
  for (const auto& [row, label] : errors_) {
    if (!label->text().isEmpty()) out += (out.isEmpty() ? "" : "\n") + label->text();
  }
  return out;
}

QString ScenarioPanel::field_error(const QString& row) const {
  return errors_.count(row) ? errors_.at(row)->text() : QString();
}

void ScenarioPanel::reparse_now() {
  debounce_->stop();
  parse();
}

// A scenario document parsed, or the parser's message and field: what parse() and an open take.
struct ScenarioPanel::Parsed {
  std::optional<Scenario> scenario;
  QString error;
  std::string field;  // the InputError's field ("" for others)
};

ScenarioPanel::Parsed ScenarioPanel::parse_document(const YAML::Node& doc, const QString& file,
                                                    const QString& base_dir) {
  Parsed out;
  try {
    // The document itself, not its emitted text: one parse, and errors on lines of the file as opened.
    out.scenario = parse_scenario_node(doc, file.toStdString(), base_dir.toStdString());
  } catch (const InputError& e) {
    out.error = QString::fromStdString(e.what());
    out.field = e.field();
  } catch (const std::exception& e) {
    out.error = QString::fromStdString(e.what());
  }
  return out;
}

void ScenarioPanel::parse() { take(parse_document(doc_, file_, base_dir_)); }

void ScenarioPanel::take(Parsed parsed) {
  for (auto& [row, label] : errors_) show_error(row, {});
  if (!parsed.scenario) {
    scenario_.reset();
    show_error(parsed.field.empty() ? "general" : row_of_field(parsed.field), parsed.error);
    emit scenarioInvalid(parsed.error);
    return;
  }
  scenario_ = std::move(parsed.scenario);
  const Scenario& s = *scenario_;
  // The slider follows the device: a quarter GiB up to its memory.
  filling_ = true;
  memory_slider_->setMaximum(
      std::max(4, static_cast<int>(std::ceil(static_cast<double>(s.cluster.gpu.memory_bytes) / kGiB * 4))));
  memory_slider_->setValue(
      static_cast<int>(std::lround(static_cast<double>(s.training.memory_limit_bytes) / kGiB * 4)));
  nodes_->setValue(s.cluster.nodes);
  gpus_per_node_->setValue(s.cluster.gpus_per_node);
  filling_ = false;
  const bool network = s.cluster.network.nic_bytes_per_second > 0;
  nics_->setPlaceholderText(network ? QString::number(s.cluster.network.nics_per_node) : "no network");
  nic_rate_->setPlaceholderText(
      network ? QString::fromStdString(units::format_bandwidth(s.cluster.network.nic_bytes_per_second))
              : "no network");
  gpu_memory_->setPlaceholderText(
      QString::fromStdString(units::format_bytes(static_cast<double>(s.cluster.gpu.memory_bytes))));
  emit scenarioChanged(*scenario_);
}

// What reading a scenario file gives, on any thread: no widget is touched.
struct ScenarioPanel::Loaded {
  QString path;
  QString read_error;  // why the file could not be read (a folder, missing, too large), or ""
  QString yaml_error;  // the strict reader's message: not a scenario's YAML at all
  YAML::Node doc;
  Parsed parsed;
};

ScenarioPanel::Loaded ScenarioPanel::load_file(const QString& path) {
  Loaded out;
  out.path = path;
  std::string text;
  try {
    // The planner's file reader: a folder, a missing or unreadable file and one over the input limit are
    // each told apart, with the reason.
    text = read_text_file(path.toStdString(), "scenario");
  } catch (const std::exception& e) {
    out.read_error = QString::fromStdString(e.what());
    return out;
  }
  try {
    // The planner's strict reader (one document, a mapping, no duplicate keys), once.
    out.doc = parse_yaml_mapping(text, path.toStdString());
  } catch (const std::exception& e) {
    out.yaml_error = QString::fromStdString(e.what());
    return out;
  }
  out.parsed = parse_document(out.doc, path, QFileInfo(path).absolutePath());
  return out;
}

bool ScenarioPanel::take_loaded(Loaded loaded) {
  const QString& path = loaded.path;
  if (!loaded.read_error.isEmpty()) {
    show_error("general", loaded.read_error);
    emit scenarioInvalid(loaded.read_error);
    return false;
  }
  file_ = path;
  base_dir_ = QFileInfo(path).absolutePath();
  file_label_->setText(QFileInfo(path).fileName());
  if (!loaded.yaml_error.isEmpty()) {
    // Not a scenario's YAML at all: the reader's message says where and why; the old form stays.
    for (auto& [row, label] : errors_) show_error(row, {});
    show_error("general", loaded.yaml_error);
    scenario_.reset();
    emit scenarioInvalid(error_text());
    return false;
  }
  doc_ = loaded.doc;
  fill_from_document();
  debounce_->stop();
  take(std::move(loaded.parsed));
  return scenario_.has_value();
}

bool ScenarioPanel::open_file(const QString& path) {
  ++open_generation_;  // an open in flight is superseded
  return take_loaded(load_file(path));
}

void ScenarioPanel::open_file_async(const QString& path) {
  const quint64 generation = ++open_generation_;
  auto* watcher = new QFutureWatcher<Loaded>(this);
  connect(watcher, &QFutureWatcher<Loaded>::finished, this, [this, watcher, generation] {
    watcher->deleteLater();
    if (generation != open_generation_) return;  // a newer open (or a synchronous one) came since
    emit fileOpened(take_loaded(watcher->result()));
  });
  watcher->setFuture(QtConcurrent::run([path] { return load_file(path); }));
}

bool ScenarioPanel::save_file(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
    show_error("general", path + ": cannot be written");
    return false;
  }
  f.write(yaml_text().toUtf8());
  file_ = path;
  file_label_->setText(QFileInfo(path).fileName());
  return true;
}

void ScenarioPanel::set_hf_config(const QString& path) {
  doc_["model"] = YAML::Node(YAML::NodeType::Map);
  doc_["model"]["hf_config"] = QFileInfo(path).absoluteFilePath().toStdString();
  fill_from_document();
  changed();
}

void ScenarioPanel::set_memory_limit_text(const QString& text) {
  filling_ = true;
  memory_text_->setText(text);
  filling_ = false;
  set_node("training", "memory_limit", text, false);
}

void ScenarioPanel::set_memory_limit_bytes(double bytes) {
  set_memory_limit_text(QString::number(std::ceil(bytes / kGiB * 100) / 100, 'f', 2) + "GiB");
}

}  // namespace shardscope::gui
