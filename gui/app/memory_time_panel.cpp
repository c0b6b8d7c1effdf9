// The Memory over time tab: GPU choice and peak summary around the MemoryTimeView.
#include "memory_time_panel.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>
#include <nlohmann/json.hpp>

#include "memory_time_view.hpp"
#include "planner/core/units.hpp"

namespace shardscope::gui {
namespace {

QString bytes(double b) { return QString::fromStdString(units::format_bytes(b)); }
QString duration(double s) { return QString::fromStdString(units::format_duration(s)); }

}  // namespace

MemoryTimePanel::MemoryTimePanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  auto* row = new QHBoxLayout;
  row->addWidget(new QLabel("GPU:"));
  ranks_ = new QComboBox;
  ranks_->setToolTip("The traced GPUs (shardscope simulate --trace-ranks)");
  ranks_->setEnabled(false);
  row->addWidget(ranks_);
  info_ = new QLabel("Not simulated yet: Simulate (Ctrl+R, or the button on the Timeline tab)");
  info_->setTextFormat(Qt::RichText);
  info_->setWordWrap(true);
  row->addWidget(info_, 1);
  layout->addLayout(row);
  view_ = new MemoryTimeView;
  layout->addWidget(view_, 1);
  auto* hint = new QLabel(
      "Stacked by category as the simulator tracks it · dashed line: memory limit · "
      "hover: the values at that time");
  hint->setStyleSheet("color: gray");
  layout->addWidget(hint);
  connect(ranks_, &QComboBox::currentIndexChanged, this, &MemoryTimePanel::show_rank);
}

void MemoryTimePanel::set_simulation(std::shared_ptr<const SimulationOutcome> outcome, double limit_bytes) {
  outcome_ = std::move(outcome);
  limit_bytes_ = limit_bytes;
  {
    const QSignalBlocker block(ranks_);
    ranks_->clear();
    if (outcome_ && outcome_->timeline) {
      for (const TimelineRank& r : outcome_->timeline->ranks) {
        if (!r.memory.empty()) ranks_->addItem(QString::fromStdString(r.label), r.rank);
      }
    }
    ranks_->setEnabled(ranks_->count() > 1);
  }
  show_rank();
}

void MemoryTimePanel::set_rank(int rank) {
  const int index = ranks_->findData(rank);
  if (index >= 0) ranks_->setCurrentIndex(index);
}

int MemoryTimePanel::rank() const { return ranks_->count() > 0 ? ranks_->currentData().toInt() : -1; }

std::optional<double> MemoryTimePanel::reported_peak_bytes(int rank) const {
  if (!outcome_) return std::nullopt;
  const nlohmann::json j = nlohmann::json::parse(outcome_->result_json.toStdString(), nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("gpus") || !j["gpus"].is_array()) return std::nullopt;
  for (const nlohmann::json& g : j["gpus"]) {
    if (g.is_object() && g.value("rank", -1) == rank && g.contains("peak_memory_bytes") &&
        g["peak_memory_bytes"].is_number())
      return g["peak_memory_bytes"].get<double>();
  }
  return std::nullopt;
}

QString MemoryTimePanel::info_text() const { return info_->text(); }

void MemoryTimePanel::show_rank() {
  const TimelineRank* r = outcome_ && outcome_->timeline ? outcome_->timeline->find_rank(rank()) : nullptr;
  if (r == nullptr) {
    view_->clear(outcome_ ? "The simulation kept no memory samples (shardscope simulate --trace-ranks 0?)"
                          : "Simulate (Ctrl+R) to see memory over the iteration");
    info_->setText(outcome_ ? "No memory samples in the trace"
                            : "Not simulated yet: Simulate (Ctrl+R, or the button on the Timeline tab)");
    return;
  }
  view_->set_samples(r->memory, outcome_->timeline->end_seconds, limit_bytes_,
                     QString::fromStdString(r->label) + ": memory over the simulated iteration");
  QString text = QString("%1 samples; peak <b>%2</b> at %3")
                     .arg(r->memory.size())
                     .arg(bytes(view_->peak_bytes()), duration(view_->peak_seconds()));
  if (const std::optional<double> reported = reported_peak_bytes(r->rank))
    text += QString(" (the simulator reports %1)").arg(bytes(*reported));
  if (limit_bytes_ > 0) {
    const double headroom = limit_bytes_ - view_->peak_bytes();
    text += QString(", limit %1: %2 %3")
                .arg(bytes(limit_bytes_), bytes(std::abs(headroom)), headroom >= 0 ? "free" : "<b>over</b>");
  }
  info_->setText(text);
}

}  // namespace shardscope::gui
