// TimelinePanel: the Timeline tab — Simulate / Cancel with progress and elapsed time, the child's message
// when it fails, the simulated totals, the GPUs to show, the Gantt chart, and "Open in Perfetto" (save the
// trace). Simulations run in SimulationService's child process; the panel only reacts to its signals.
#pragma once

#include <QWidget>
#include <memory>
#include <string>

#include "simulation_service.hpp"

class QLabel;
class QListWidget;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QTimer;

namespace shardscope::gui {

class TimelineView;

class TimelinePanel : public QWidget {
  Q_OBJECT
 public:
  explicit TimelinePanel(SimulationService* service, QWidget* parent = nullptr);

  TimelineView* view() const { return view_; }
  QPushButton* simulate_button() const { return simulate_; }
  QPushButton* cancel_button() const { return cancel_; }
  QPushButton* perfetto_button() const { return perfetto_; }
  QProgressBar* progress_bar() const { return progress_; }
  QListWidget* rank_list() const { return rank_list_; }
  QString status_text() const;
  QString error_text() const;  // the failure shown (empty when none)
  QString result_text() const;
  const std::shared_ptr<const SimulationOutcome>& outcome() const { return outcome_; }

  bool save_trace(const QString& path) const;  // the shown simulation's trace, or the shown pipeline's
  void set_selected_ranks(const std::vector<int>& ranks);

  // Shows a pipeline's run as the planner makes it (report/pipeline_trace.hpp: a track per stage, its
  // forwards, backwards, tail and sends) in place of a simulation: `trace_json` is what
  // `plan --pipeline-trace` writes, saved by "Open in Perfetto…" (empty: none drawn, none saved); `status`
  // says what it is, or why it is not drawn.
  void show_pipeline(const std::string& trace_json, const QString& status);

 signals:
  void simulateRequested();

 private:
  void started();
  void tick();
  void progressed(quint64 generation, int percent, const QString& line);
  void cancelled();
  void finished(std::shared_ptr<const SimulationOutcome> outcome);
  void fill_ranks(const TimelineModel& model);
  void ranks_changed();
  void save_trace_dialog();

  SimulationService* service_;
  std::shared_ptr<const SimulationOutcome> outcome_;  // the last successful simulation (shown)
  std::string pipeline_trace_;                        // the pipeline run shown instead (empty: none)
  QPushButton* simulate_ = nullptr;
  QPushButton* cancel_ = nullptr;
  QPushButton* perfetto_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QLabel* status_ = nullptr;
  QLabel* result_ = nullptr;
  QPlainTextEdit* error_ = nullptr;
  QListWidget* rank_list_ = nullptr;
  TimelineView* view_ = nullptr;
  QTimer* ticker_ = nullptr;
  QString last_progress_;
};

}  // namespace shardscope::gui
