// The Timeline tab's controls around the SimulationService and the TimelineView.
#include "timeline_panel.hpp"

#include <QFile>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <nlohmann/json.hpp>

#include "exchange/result_export.hpp"
#include "planner/core/units.hpp"
#include "present/plan_compare.hpp"
#include "timeline_model.hpp"
#include "timeline_view.hpp"

namespace shardscope::gui {
namespace {

constexpr int kTickMilliseconds = 100;  // how often the elapsed time is refreshed while a child runs

QString duration(double s) { return QString::fromStdString(units::format_duration(s)); }

// One line from the child's --json output: the simulated iteration against the planner's prediction.
QString summarize(const QByteArray& json_text, double wall_seconds) {
  const nlohmann::json j = nlohmann::json::parse(json_text.toStdString(), nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("iteration_seconds")) {
    return QString("simulated in %1 s (its JSON output could not be read)").arg(wall_seconds, 0, 'f', 1);
  }
  const double simulated = j.value("iteration_seconds", 0.0);
  const double predicted = j.contains("planner") ? j["planner"].value("iteration_seconds", 0.0) : 0.0;
  double peak_bytes = 0;
  for (const auto& g : j.value("gpus", nlohmann::json::array()))
    peak_bytes = std::max(peak_bytes, g.value("peak_memory_bytes", 0.0));
  QString text =
      QString("<b>%1</b> simulated: iteration <b>%2</b>")
          .arg(QString::fromStdString(j.value("strategy", std::string("plan"))), duration(simulated));
  if (predicted > 0)
    text += QString(" (planner %1, %2%3 %)")
                .arg(duration(predicted))
                .arg(simulated >= predicted ? "+" : "")
                .arg((simulated / predicted - 1) * 100, 0, 'f', 2);
  text += QString(", %1 samples/s, peak %2 per GPU, %3 activities, %4 s wall")
              .arg(j.value("samples_per_second", 0.0), 0, 'f', 2)
              .arg(QString::fromStdString(units::format_bytes(peak_bytes)))
              .arg(j.value("activities", 0))
              .arg(wall_seconds, 0, 'f', 1);
  return text;
}

// "Simulated in 0.4 s (SimGrid, each stage's first GPU): PP 2 (1f1b) x DP 8, iteration 1.234 s, planner
// 1.230 s (+0.33 %)", from the child's --json output.
QString pipeline_simulated_text(const SimulationOutcome& outcome) {
  QString text =
      QString("Simulated in %1 s (SimGrid, each stage's first GPU)").arg(outcome.wall_seconds, 0, 'f', 1);
  try {
    const auto j = nlohmann::json::parse(outcome.result_json.toStdString());
    const double simulated = j.at("simulator").at("iteration_seconds").get<double>();
    const double planned = j.at("planner").at("iteration_seconds").get<double>();
    text += QString(": %1, iteration %2, planner %3 (%4)")
                .arg(QString::fromStdString(j.at("pipeline").get<std::string>()),
                     QString::fromStdString(units::format_duration(simulated)),
                     QString::fromStdString(units::format_duration(planned)),
                     QString::fromStdString(present::percent_change(simulated, planned)));
  } catch (const std::exception&) {
    text += " (its summary could not be read)";
  }
  return text;
}

}  // namespace

TimelinePanel::TimelinePanel(SimulationService* service, QWidget* parent)
    : QWidget(parent), service_(service) {
  auto* layout = new QVBoxLayout(this);
  auto* controls = new QHBoxLayout;
  simulate_ = new QPushButton("Simulate");
  simulate_->setToolTip("Run `shardscope simulate` on the scenario and the shown plan (Ctrl+R)");
  cancel_ = new QPushButton("Cancel");
  cancel_->setEnabled(false);
  progress_ = new QProgressBar;
  progress_->setRange(0, 100);
  progress_->setValue(0);
  progress_->setMaximumWidth(220);
  progress_->setVisible(false);
  status_ = new QLabel("Not simulated yet");
  perfetto_ = new QPushButton("Open in Perfetto…");
  perfetto_->setToolTip("Save the trace (Trace Event JSON) to load in ui.perfetto.dev or chrome://tracing");
  perfetto_->setEnabled(false);
  controls->addWidget(simulate_);
  controls->addWidget(cancel_);
  controls->addWidget(progress_);
  controls->addWidget(status_, 1);
  controls->addWidget(perfetto_);
  layout->addLayout(controls);
  result_ = new QLabel;
  result_->setTextFormat(Qt::RichText);
  result_->setWordWrap(true);
  layout->addWidget(result_);
  error_ = new QPlainTextEdit;
  error_->setReadOnly(true);
  error_->setMaximumHeight(140);
  error_->setStyleSheet("QPlainTextEdit { color: #a00000; }");
  error_->setVisible(false);
  layout->addWidget(error_);
  auto* rank_row = new QHBoxLayout;
  rank_row->addWidget(new QLabel("GPUs:"));
  rank_list_ = new QListWidget;
  rank_list_->setFlow(QListView::LeftToRight);
  rank_list_->setWrapping(true);
  rank_list_->setMaximumHeight(34);
  rank_list_->setToolTip("The traced GPUs (shardscope simulate --trace-ranks) to show");
  rank_row->addWidget(rank_list_, 1);
  layout->addLayout(rank_row);
  view_ = new TimelineView;
  auto* scroll = new QScrollArea;
  scroll->setWidget(view_);
  scroll->setWidgetResizable(true);
  layout->addWidget(scroll, 1);
  auto* hint =
      new QLabel("Wheel: zoom around the pointer · drag: pan · double-click: whole iteration · hover: task");
  hint->setStyleSheet("color: gray");
  layout->addWidget(hint);

  ticker_ = new QTimer(this);
  ticker_->setInterval(kTickMilliseconds);
  connect(ticker_, &QTimer::timeout, this, &TimelinePanel::tick);
  connect(simulate_, &QPushButton::clicked, this, &TimelinePanel::simulateRequested);
  connect(cancel_, &QPushButton::clicked, service_, &SimulationService::cancel);
  connect(perfetto_, &QPushButton::clicked, this, &TimelinePanel::save_trace_dialog);
  connect(rank_list_, &QListWidget::itemChanged, this, &TimelinePanel::ranks_changed);
  connect(service_, &SimulationService::started, this, &TimelinePanel::started);
  connect(service_, &SimulationService::progress, this, &TimelinePanel::progressed);
  connect(service_, &SimulationService::cancelled, this, &TimelinePanel::cancelled);
  connect(service_, &SimulationService::finished, this, &TimelinePanel::finished);
}

QString TimelinePanel::status_text() const { return status_->text(); }
QString TimelinePanel::error_text() const { return error_->isVisible() ? error_->toPlainText() : QString(); }
QString TimelinePanel::result_text() const { return result_->text(); }

void TimelinePanel::started() {
  last_progress_.clear();
  error_->clear();
  error_->setVisible(false);
  cancel_->setEnabled(true);
  progress_->setRange(0, 0);  // busy until the child's first progress line
  progress_->setVisible(true);
  ticker_->start();
  tick();
}

void TimelinePanel::tick() {
  QString text =
      QString("simulating… %1 s").arg(static_cast<double>(service_->elapsed_ms()) / 1000.0, 0, 'f', 1);
  if (!last_progress_.isEmpty()) text += " — " + last_progress_;
  status_->setText(text);
}

void TimelinePanel::progressed(quint64 generation, int percent, const QString& line) {
  if (generation != service_->latest()) return;
  last_progress_ = line;
  if (percent >= 0) {
    progress_->setRange(0, 100);
    progress_->setValue(percent);
  }
  tick();
}

void TimelinePanel::cancelled() {
  ticker_->stop();
  cancel_->setEnabled(false);
  progress_->setVisible(false);
  status_->setText("Simulation cancelled (the child process was killed)");
}

void TimelinePanel::finished(std::shared_ptr<const SimulationOutcome> outcome) {
  ticker_->stop();
  cancel_->setEnabled(false);
  progress_->setVisible(false);
  if (!outcome->ok) {
    status_->setText(QString("Simulation failed after %1 s").arg(outcome->wall_seconds, 0, 'f', 1));
    error_->setPlainText(outcome->error);
    error_->setVisible(true);
    return;
  }
  if (outcome->pipeline) {
    show_pipeline(outcome->pipeline_trace, pipeline_simulated_text(*outcome));
    return;
  }
  outcome_ = std::move(outcome);
  status_->setText(QString("Simulated in %1 s: %2 GPUs traced, %3 tasks")
                       .arg(outcome_->wall_seconds, 0, 'f', 1)
                       .arg(outcome_->timeline->ranks.size())
                       .arg(outcome_->timeline->task_count()));
  result_->setText(summarize(outcome_->result_json, outcome_->wall_seconds));
  pipeline_trace_.clear();
  perfetto_->setEnabled(true);
  view_->set_model(outcome_->timeline);
  fill_ranks(*outcome_->timeline);
}

void TimelinePanel::show_pipeline(const std::string& trace_json, const QString& status) {
  auto model = std::make_shared<const TimelineModel>(
      trace_json.empty() ? TimelineModel{} : parse_trace_json(trace_json, "pipeline run"));
  outcome_.reset();
  pipeline_trace_ = trace_json;
  error_->clear();
  error_->setVisible(false);
  status_->setText(status);
  result_->setText(
      QString("%1 stages, %2 tasks: forwards (F<i>k</i>) and backwards (B<i>k</i>) of each "
              "micro-batch, each stage's tail, the sends on the second row; the gaps are the bubble")
          .arg(model->ranks.size())
          .arg(model->task_count()));
  perfetto_->setEnabled(!trace_json.empty());
  view_->set_model(model);
  fill_ranks(*model);
}

void TimelinePanel::fill_ranks(const TimelineModel& model) {
  const QSignalBlocker block(rank_list_);
  rank_list_->clear();
  for (const TimelineRank& r : model.ranks) {
    auto* item = new QListWidgetItem(QString::fromStdString(r.label));
    item->setData(Qt::UserRole, r.rank);
    item->setFlags(Qt::ItemIsUserCheckable | Qt::ItemIsEnabled);
    item->setCheckState(Qt::Checked);
    rank_list_->addItem(item);
  }
}

void TimelinePanel::ranks_changed() {
  std::vector<int> ranks;
  for (int i = 0; i < rank_list_->count(); ++i) {
    if (rank_list_->item(i)->checkState() == Qt::Checked)
      ranks.push_back(rank_list_->item(i)->data(Qt::UserRole).toInt());
  }
  view_->set_ranks(ranks);
}

void TimelinePanel::set_selected_ranks(const std::vector<int>& ranks) {
  {
    const QSignalBlocker block(rank_list_);
    for (int i = 0; i < rank_list_->count(); ++i) {
      const int rank = rank_list_->item(i)->data(Qt::UserRole).toInt();
      const bool on = std::find(ranks.begin(), ranks.end(), rank) != ranks.end();
      rank_list_->item(i)->setCheckState(on ? Qt::Checked : Qt::Unchecked);
    }
  }
  ranks_changed();
}

bool TimelinePanel::save_trace(const QString& path) const {
  if ((!outcome_ || !outcome_->result) && pipeline_trace_.empty()) return false;
  // What `shardscope simulate --trace` (or `plan --pipeline-trace`) writes for the same run, byte for byte.
  QFile file(path);
  const std::string text =
      outcome_ && outcome_->result ? sim::trace_event_json(*outcome_->result).dump() + "\n" : pipeline_trace_;
  return file.open(QIODevice::WriteOnly | QIODevice::Truncate) &&
         file.write(text.data(), static_cast<qint64>(text.size())) == static_cast<qint64>(text.size()) &&
         file.flush();
}

void TimelinePanel::save_trace_dialog() {
  const QString path = QFileDialog::getSaveFileName(this, "Save the trace for Perfetto",
                                                    "shardscope-trace.json", "Trace Event JSON (*.json)");
  if (path.isEmpty()) return;
  if (save_trace(path)) {
    status_->setText("Trace saved to " + path + ": open https://ui.perfetto.dev and drop the file there");
  } else {
    status_->setText("The trace could not be written to " + path);
  }
}

}  // namespace shardscope::gui
