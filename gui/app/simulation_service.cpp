// The simulation child process: arguments, progress lines, cancellation, failure messages.
#include "simulation_service.hpp"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QProcess>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtConcurrent/QtConcurrentRun>
#include <fstream>
#include <sstream>

#include "exchange/result_json.hpp"

namespace shardscope::gui {
namespace {

constexpr qsizetype kStderrKeptBytes = 64 * 1024;  // the tail of the child's messages shown on failure

bool write_file(const QString& path, const QString& text) {
  QFile f(path);
  return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(text.toUtf8()) >= 0 && f.flush();
}

// A pipeline simulation's trace file into `outcome` (ok), or why it cannot be read.
std::shared_ptr<SimulationOutcome> read_pipeline_trace(std::shared_ptr<SimulationOutcome> outcome,
                                                       const std::string& path, const QString& messages) {
  outcome->pipeline = true;
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in || text.str().empty()) {
    outcome->error = QString::fromStdString("the simulator's trace " + path + " cannot be read");
    if (!messages.isEmpty()) outcome->error += "\n" + messages;
    return outcome;
  }
  outcome->pipeline_trace = text.str();
  outcome->ok = true;
  return outcome;
}

}  // namespace

struct SimulationService::Run {
  quint64 generation = 0;
  std::shared_ptr<QTemporaryDir> dir;
  QProcess* process = nullptr;  // deleted (later) by drop_current or when the run is replaced
  QByteArray stderr_partial;    // an unfinished line
  bool pipeline = false;        // a pipeline's simulation (SimulationRequest::pipeline)
  QByteArray stderr_kept;       // the child's messages other than progress lines
  QElapsedTimer clock;
  bool delivered = false;  // its outcome went out
};

QString describe_exit_code(int code) {
  switch (code) {
    case 2:
      return "exit code 2 (bad input or usage)";
    case 3:
      return "exit code 3 (no plan fits the memory limit)";
    case 4:
      return "exit code 4 (the simulation or a resource failed)";
    case 130:
      return "exit code 130 (interrupted)";
    default:
      return QString("exit code %1").arg(code);
  }
}

int progress_percent(const QString& line) {
  if (!line.startsWith("simulating:")) return -1;
  if (line.startsWith("simulating: done")) return 100;
  static const QRegularExpression percent(R"(\((\d+) %\))");
  const QRegularExpressionMatch m = percent.match(line);
  return m.hasMatch() ? m.captured(1).toInt() : -1;
}

SimulationService::SimulationService(QObject* parent) : QObject(parent) {
  qRegisterMetaType<std::shared_ptr<const SimulationOutcome>>();
  set_program(default_program());
}

void SimulationService::set_program(const QString& program) {
  program_ = program.contains('/') ? QFileInfo(program).absoluteFilePath() : program;
}

SimulationService::~SimulationService() {
  // No event loop may follow (the window is closing): kill the child and reap it here, so that neither it
  // nor its temporary folder outlives the GUI.
  if (run_ && run_->process != nullptr) {
    run_->process->disconnect(this);
    if (run_->process->state() != QProcess::NotRunning) {
      run_->process->kill();
      run_->process->waitForFinished(2000);
    }
    delete run_->process;
    run_->process = nullptr;
  }
}

QString SimulationService::default_program() {
  const QString env = QProcessEnvironment::systemEnvironment().value("SHARDSCOPE_BIN");
  if (!env.isEmpty()) return env;
  const QDir here(QCoreApplication::applicationDirPath());
  for (const QString& candidate :
       {here.filePath("shardscope"), here.filePath("../apps/shardscope/shardscope")}) {
    if (QFileInfo(candidate).isExecutable()) return QDir::cleanPath(candidate);
  }
  const QString on_path = QStandardPaths::findExecutable("shardscope");
  return on_path.isEmpty() ? QString("shardscope") : on_path;
}

bool SimulationService::running() const {
  return run_ && run_->process && run_->process->state() != QProcess::NotRunning;
}

qint64 SimulationService::child_pid() const { return running() ? run_->process->processId() : 0; }

qint64 SimulationService::elapsed_ms() const { return run_ ? run_->clock.elapsed() : 0; }

void SimulationService::drop_current() {
  if (!run_) return;
  QProcess* process = run_->process;
  if (process != nullptr) {
    process->disconnect(this);
    if (process->state() != QProcess::NotRunning) {
      // Reaped asynchronously: the UI thread does not wait for the killed child; its directory goes with it.
      std::shared_ptr<QTemporaryDir> dir = run_->dir;
      connect(process, &QProcess::finished, process, [process, dir] { process->deleteLater(); });
      process->kill();
    } else {
      process->deleteLater();
    }
  }
  run_.reset();
}

quint64 SimulationService::start(const SimulationRequest& request) {
  drop_current();
  run_ = std::make_unique<Run>();
  run_->generation = ++generation_;
  run_->dir = std::make_shared<QTemporaryDir>(QDir::temp().filePath("shardscope-gui-sim-XXXXXX"));
  run_->clock.start();
  const quint64 generation = run_->generation;
  emit started(generation);
  auto outcome = std::make_shared<SimulationOutcome>();
  outcome->generation = generation;
  const QString scenario = run_->dir->filePath("scenario.yaml");
  const QString plan = run_->dir->filePath("plan.json");
  if (!run_->dir->isValid() || !write_file(scenario, request.scenario_yaml) ||
      (!request.plan_json.isEmpty() && !write_file(plan, request.plan_json))) {
    outcome->error = "cannot write the scenario for the simulator in " + QDir::tempPath();
    outcome->exit_code = -1;
    deliver(outcome);
    return generation;
  }
  run_->pipeline = request.pipeline;
  QStringList args{"simulate", scenario, "--json", "--progress"};
  if (request.pipeline) {
    args << "--trace" << run_->dir->filePath("trace.json");
  } else {
    args << "--result-json" << run_->dir->filePath("result.json");
    if (!request.plan_json.isEmpty()) args << "--plan" << plan;
  }
  auto* process = new QProcess;
  run_->process = process;
  process->setWorkingDirectory(run_->dir->path());
  connect(process, &QProcess::readyReadStandardError, this, &SimulationService::read_stderr);
  connect(process, &QProcess::finished, this,
          [this](int code, QProcess::ExitStatus status) { child_done(code, status == QProcess::CrashExit); });
  connect(process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
    if (error == QProcess::FailedToStart) child_failed_to_start();
  });
  process->start(program_, args);
  return generation;
}

void SimulationService::cancel() {
  if (!run_ || run_->delivered) return;
  const quint64 generation = run_->generation;
  drop_current();
  ++generation_;  // a trace still being read for the dropped run is not delivered
  emit cancelled(generation);
}

void SimulationService::read_stderr() {
  if (!run_) return;
  run_->stderr_partial += run_->process->readAllStandardError();
  qsizetype newline = 0;
  while ((newline = run_->stderr_partial.indexOf('\n')) >= 0) {
    const QByteArray line = run_->stderr_partial.left(newline + 1);
    run_->stderr_partial.remove(0, newline + 1);
    const QString text = QString::fromUtf8(line).trimmed();
    const int percent = progress_percent(text);
    if (percent >= 0 || text.startsWith("simulating:")) {
      emit progress(run_->generation, percent, text);
      continue;
    }
    run_->stderr_kept += line;
    if (run_->stderr_kept.size() > kStderrKeptBytes)
      run_->stderr_kept = run_->stderr_kept.right(kStderrKeptBytes);
  }
}

void SimulationService::child_failed_to_start() {
  if (!run_) return;
  auto outcome = std::make_shared<SimulationOutcome>();
  outcome->generation = run_->generation;
  outcome->exit_code = -1;
  outcome->error = "cannot start the simulator " + program_ + ": " + run_->process->errorString() +
                   "\n(set SHARDSCOPE_BIN to the shardscope executable)";
  outcome->wall_seconds = static_cast<double>(run_->clock.elapsed()) / 1000.0;
  deliver(outcome);
}

void SimulationService::child_done(int exit_code, bool crashed) {
  if (!run_) return;
  read_stderr();
  run_->stderr_kept += run_->stderr_partial;
  run_->stderr_partial.clear();
  auto outcome = std::make_shared<SimulationOutcome>();
  outcome->generation = run_->generation;
  outcome->wall_seconds = static_cast<double>(run_->clock.elapsed()) / 1000.0;
  outcome->exit_code = crashed ? -1 : exit_code;
  outcome->result_json = run_->process->readAllStandardOutput();
  const std::string result_path = run_->dir->filePath("result.json").toStdString();
  const QString messages = QString::fromUtf8(run_->stderr_kept).trimmed();
  const QString cli = QFileInfo(program_).fileName() + " simulate";
  if (crashed || exit_code != 0) {
    outcome->error = crashed ? cli + " crashed (" + run_->process->errorString() + ")"
                             : cli + " failed with " + describe_exit_code(exit_code);
    outcome->error += messages.isEmpty() ? QString("; it wrote no message") : ":\n" + messages;
    deliver(outcome);
    return;
  }
  // Reading the result (megabytes of JSON for large plans) runs on the thread pool; the run's directory
  // stays until then.
  const quint64 generation = run_->generation;
  std::shared_ptr<const QTemporaryDir> directory = run_->dir;
  auto* watcher = new QFutureWatcher<std::shared_ptr<SimulationOutcome>>(this);
  connect(watcher, &QFutureWatcher<std::shared_ptr<SimulationOutcome>>::finished, this,
          [this, watcher, generation] {
            watcher->deleteLater();
            if (!run_ || run_->generation != generation || generation_ != generation) return;
            deliver(watcher->result());
          });
  const bool pipeline = run_->pipeline;
  const std::string trace_path = run_->dir->filePath("trace.json").toStdString();
  watcher->setFuture(QtConcurrent::run([outcome, messages, result_path, trace_path, pipeline, directory] {
    if (pipeline) return read_pipeline_trace(outcome, trace_path, messages);
    try {
      auto result = std::make_shared<const sim::IterationResult>(sim::load_result_file(result_path));
      outcome->timeline = std::make_shared<const TimelineModel>(timeline_from_result(*result));
      outcome->result = std::move(result);
      outcome->ok = true;
    } catch (const std::exception& e) {
      outcome->error = QString("the simulator's result cannot be read: ") + e.what();
      if (!messages.isEmpty()) outcome->error += "\n" + messages;
    }
    return outcome;
  }));
}

void SimulationService::deliver(std::shared_ptr<SimulationOutcome> outcome) {
  if (!run_ || outcome->generation != generation_ || run_->generation != generation_) return;
  run_->delivered = true;
  std::shared_ptr<const SimulationOutcome> result = std::move(outcome);
  emit finished(result);
}

}  // namespace shardscope::gui
