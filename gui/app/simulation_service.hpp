// SimulationService: runs `shardscope simulate` in a child process (QProcess) for the GUI: progress from the
// child's --progress lines, Cancel kills it, a newer request kills and supersedes an older one, and the
// result (its --json output and its full --result-json result, read off the UI thread with
// exchange/result_json.hpp into the timeline) comes back as a signal.
#pragma once

#include <QByteArray>
#include <QElapsedTimer>
#include <QObject>
#include <QPointer>
#include <QString>
#include <memory>
#include <string>

#include "timeline_model.hpp"

class QProcess;
class QTemporaryDir;

namespace shardscope::gui {

struct SimulationRequest {
  QString scenario_yaml;  // the scenario, with any file paths in it absolute (it is written to a temp dir)
  QString plan_json;      // when not empty: the plan to simulate (--plan); else the child plans itself
  // A pipelined scenario: the child plans and simulates its fastest pipeline (no plan, no --result-json) and
  // writes the simulated run as a pipeline trace (--trace).
  bool pipeline = false;
};

struct SimulationOutcome {
  quint64 generation = 0;
  bool ok = false;
  QString error;           // when !ok: what failed, then the child's standard error
  int exit_code = 0;       // the child's exit code when it exited (-1 when it crashed or never started)
  QByteArray result_json;  // the child's standard output (--json)
  std::shared_ptr<const sim::IterationResult> result;  // the child's --result-json file, read
  std::shared_ptr<const TimelineModel> timeline;       // built from `result`
  double wall_seconds = 0;
  bool pipeline = false;       // a pipeline's simulation: no `result`, its run in `pipeline_trace`
  std::string pipeline_trace;  // the child's --trace file (pipeline_trace.hpp's format)
};

class SimulationService : public QObject {
  Q_OBJECT
 public:
  explicit SimulationService(QObject* parent = nullptr);
  ~SimulationService() override;

  // The `shardscope` executable: $SHARDSCOPE_BIN, else `shardscope` beside this program or in the build
  // tree's apps/shardscope, else the one on PATH.
  static QString default_program();
  // A path with a slash is made absolute here (the child runs in its own temporary folder).
  void set_program(const QString& program);
  QString program() const { return program_; }

  // Starts a simulation, killing the one that runs (its result is dropped); returns its generation.
  quint64 start(const SimulationRequest& request);
  void cancel();  // kills the running child; emits cancelled
  bool running() const;
  qint64 child_pid() const;  // 0 when none runs
  qint64 elapsed_ms() const;
  quint64 latest() const { return generation_; }

 signals:
  void started(quint64 generation);
  // percent from the child's progress lines (-1 before the first), and the line itself.
  void progress(quint64 generation, int percent, const QString& line);
  void cancelled(quint64 generation);
  void finished(std::shared_ptr<const shardscope::gui::SimulationOutcome> outcome);

 private:
  struct Run;
  void drop_current();
  void read_stderr();
  void child_done(int exit_code, bool crashed);
  void child_failed_to_start();
  void deliver(std::shared_ptr<SimulationOutcome> outcome);

  QString program_;
  quint64 generation_ = 0;
  std::unique_ptr<Run> run_;
};

// "exit code 3 (no plan fits the memory limit)": a `shardscope` exit code with its meaning.
QString describe_exit_code(int code);
// The percentage in a `shardscope simulate --progress` line ("... (42 %), ..."; "simulating: done" is 100),
// or -1 when the line is not a progress line or names none.
int progress_percent(const QString& line);

}  // namespace shardscope::gui
