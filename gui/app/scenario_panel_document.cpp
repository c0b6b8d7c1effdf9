// The scenario panel's document side: edits by path, the form filled from the document, parsing (on the UI
// thread, or with the file's reading on a worker), opening and saving.
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QLabel>
#include <QLineEdit>
#include <QSlider>
#include <QSpinBox>
#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>
#include <cmath>

#include "planner/core/error.hpp"
#include "planner/core/units.hpp"
#include "planner/io/text_file.hpp"
#include "scenario_field_model.hpp"
#include "scenario_panel.hpp"

namespace shardscope::gui {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

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

// `text` as a single-quoted YAML scalar: a file path with any characters in it.
QString yaml_quoted(QString text) { return "'" + text.replace("'", "''") + "'"; }

QString text_of(const std::optional<std::string>& value) {
  return value ? QString::fromStdString(*value) : QString();
}

}  // namespace

bool ScenarioPanel::set_path(const std::string& path, const QString& value) {
  try {
    if (value.isEmpty()) {
      doc_.remove(path);
    } else {
      doc_.set(path, value.toStdString());  // as `--set PATH=VALUE`: the path walks (and makes) the sections
    }
    return true;
  } catch (const InputError& e) {
    for (auto& [row, label] : errors_) show_error(row, {});
    show_error(row_of_field(path), QString::fromStdString(e.what()));
    scenario_.reset();
    emit scenarioInvalid(QString::fromStdString(e.what()));
    return false;
  }
}

void ScenarioPanel::set_transformer_key(const std::string& key, int value) {
  if (filling_ || value <= 0 || !doc_.own_transformer()) return;
  // A model-level sequence length overrides the transformer's, so it is edited where it is.
  const bool model_sequence = key == "sequence_length" && doc_.get("model.sequence_length").has_value();
  if (!set_path(model_sequence ? "model.sequence_length" : "model.transformer." + key,
                QString::number(value)))
    return;
  fill_from_document();
  changed();
}

void ScenarioPanel::fill_model_box() {
  const auto show = [this](const QString& label) {
    if (model_->findText(label) < 0) model_->addItem(label);
    model_->setCurrentText(label);
  };
  if (const auto preset = doc_.get("model.preset")) {
    model_->setCurrentText(QString::fromStdString(*preset));
  } else if (const auto hf = doc_.get("model.hf_config")) {
    show("hf: " + QFileInfo(QString::fromStdString(*hf)).fileName());
  }
  if (doc_.get("model.transformer"))
    show("transformer: " + text_of(doc_.get("model.name").value_or("unnamed")));
  for (const auto& [key, box] : transformer_) {
    bool ok = false;
    const int n = text_of(doc_.transformer_value(key.toStdString())).toInt(&ok);
    box->setValue(ok ? n : 0);
    box->setEnabled(ok);
  }
}

void ScenarioPanel::fill_from_document() {
  filling_ = true;
  fill_model_box();
  if (const auto cluster = doc_.get("cluster.preset"))
    cluster_->setCurrentText(QString::fromStdString(*cluster));
  const auto text = [this](const char* path) { return text_of(doc_.get(path)); };
  const auto choose = [&](QComboBox* box, const char* path, const char* fallback) {
    box->setCurrentText(text(path).isEmpty() ? fallback : text(path));
  };
  nics_->setText(text("cluster.network.nics_per_node"));
  nic_rate_->setText(text("cluster.network.nic_rate"));
  gpu_memory_->setText(text("cluster.gpu.memory"));
  memory_text_->setText(text("training.memory_limit"));
  micro_batch_->setText(text("training.micro_batch"));
  global_batch_->setText(text("training.global_batch"));
  if (!text("training.precision").isEmpty()) precision_->setCurrentText(text("training.precision"));
  if (!text("training.checkpointing").isEmpty())
    checkpointing_->setCurrentText(text("training.checkpointing"));
  group_size_->setText(text("training.group_size"));
  choose(batch_policy_, "training.batch_policy", "own");
  QString slices = text("training.slice_granularities");  // "[1, 2, 4]" as "1, 2, 4"
  if (slices.startsWith('[') && slices.endsWith(']')) slices = slices.mid(1, slices.size() - 2);
  slices_->setText(slices);
  choose(cost_model_, "planner.cost_model", "topology");
  overlap_->setChecked(text("execution.overlap") != "false");
  choose(collectives_, "execution.collectives", "auto");
  filling_ = false;
  field_model_->refresh();
}

QString ScenarioPanel::yaml_text() const { return QString::fromStdString(doc_.text()); }

QString ScenarioPanel::portable_yaml_text() const { return QString::fromStdString(doc_.portable_text()); }

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

ScenarioPanel::Parsed ScenarioPanel::parse_document(const ScenarioDocument& doc) {
  Parsed out;
  try {
    out.scenario = doc.scenario();  // errors on lines of the text as it stands
  } catch (const InputError& e) {
    out.error = QString::fromStdString(e.what());
    out.field = e.field();
  } catch (const std::exception& e) {
    out.error = QString::fromStdString(e.what());
  }
  return out;
}

void ScenarioPanel::parse() { take(parse_document(doc_)); }

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
  // The cluster's fields are the physical cluster's, not the data-parallel view of a mesh's slice.
  const Cluster& physical = s.mesh.sliced() ? s.mesh.physical : s.cluster;
  nodes_->setValue(physical.nodes);
  gpus_per_node_->setValue(physical.gpus_per_node);
  filling_ = false;
  const bool network = physical.network.nic_bytes_per_second > 0;
  nics_->setPlaceholderText(network ? QString::number(physical.network.nics_per_node) : "no network");
  nic_rate_->setPlaceholderText(
      network ? QString::fromStdString(units::format_bandwidth(physical.network.nic_bytes_per_second))
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
  std::optional<ScenarioDocument> doc;
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
    out.doc.emplace(text, path.toStdString(), QFileInfo(path).absolutePath().toStdString());
  } catch (const std::exception& e) {
    out.yaml_error = QString::fromStdString(e.what());
    return out;
  }
  out.parsed = parse_document(*out.doc);
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
  file_label_->setText(QFileInfo(path).fileName());
  if (!loaded.yaml_error.isEmpty()) {
    // Not a scenario's YAML at all: the reader's message says where and why; the old form stays.
    for (auto& [row, label] : errors_) show_error(row, {});
    show_error("general", loaded.yaml_error);
    scenario_.reset();
    emit scenarioInvalid(error_text());
    return false;
  }
  doc_ = std::move(*loaded.doc);
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
  f.write(yaml_text().toUtf8());  // the document's text: its comments and untouched lines as they were
  file_ = path;
  file_label_->setText(QFileInfo(path).fileName());
  return true;
}

void ScenarioPanel::set_hf_config(const QString& path) {
  // The whole model: the config.json alone.
  if (!set_path("model", "{hf_config: " + yaml_quoted(QFileInfo(path).absoluteFilePath()) + "}")) return;
  fill_from_document();
  changed();
}

void ScenarioPanel::set_memory_limit_text(const QString& text) {
  filling_ = true;
  memory_text_->setText(text);
  filling_ = false;
  if (set_path("training.memory_limit", text)) changed();
}

void ScenarioPanel::set_memory_limit_bytes(double bytes) {
  set_memory_limit_text(QString::number(std::ceil(bytes / kGiB * 100) / 100, 'f', 2) + "GiB");
}

}  // namespace shardscope::gui
