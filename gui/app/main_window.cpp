// The main window's layout, the re-plan loop and the exports.
#include "main_window.hpp"

#include <QAction>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenuBar>
#include <QPainter>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QStatusBar>
#include <QSvgGenerator>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>
#include <cmath>
#include <fstream>
#include <sstream>

#include "budget_panel.hpp"
#include "compare_panel.hpp"
#include "compare_view.hpp"
#include "memory_time_panel.hpp"
#include "operator_view.hpp"
#include "pipeline_summary.hpp"
#include "plan_views.hpp"
#include "planner/core/units.hpp"
#include "planner/report/pipeline_trace.hpp"
#include "planner/report/plan_json.hpp"
#include "planner/report/uncertainty.hpp"
#include "present/mesh_table.hpp"
#include "present/plan_compare.hpp"
#include "present/plan_text.hpp"
#include "scenario_panel.hpp"
#include "timeline_panel.hpp"

namespace shardscope::gui {
namespace {

QString bytes(double b) { return QString::fromStdString(units::format_bytes(b)); }
QString duration(double s) { return QString::fromStdString(units::format_duration(s)); }

// The widget as PNG (a grab) or SVG (rendered into an SVG generator), by the path's suffix.
bool export_widget(QWidget* view, const QString& path) {
  const QSize size = view->size().isEmpty() ? QSize(1000, 700) : view->size();
  if (path.endsWith(".svg", Qt::CaseInsensitive)) {
    QSvgGenerator svg;
    svg.setFileName(path);
    svg.setSize(size);
    svg.setViewBox(QRect(QPoint(0, 0), size));
    QPainter p;
    if (!p.begin(&svg)) return false;
    view->render(&p);
    return p.end();
  }
  return view->grab().save(path, "PNG");
}

}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowTitle("shardscope");
  service_ = new PlanService(this);
  panel_ = new ScenarioPanel;
  auto* left = new QScrollArea;
  left->setWidget(panel_);
  left->setWidgetResizable(true);
  left->setMinimumWidth(340);

  auto* centre = new QWidget;
  auto* layout = new QVBoxLayout(centre);
  summary_ = new QLabel("planning…");
  summary_->setWordWrap(true);
  summary_->setTextFormat(Qt::RichText);
  layout->addWidget(summary_);
  auto* pin_row = new QHBoxLayout;
  pins_label_ = new QLabel;
  pins_label_->setWordWrap(true);
  clear_pins_ = new QPushButton("Clear pins");
  clear_pins_->setEnabled(false);
  pin_row->addWidget(pins_label_, 1);
  pin_row->addWidget(clear_pins_);
  layout->addLayout(pin_row);
  tabs_ = new QTabWidget;
  operators_ = new OperatorView;
  operators_->setObjectName("operators");
  tabs_->addTab(operators_, "Operators");
  memory_ = new MemoryView;
  memory_->setObjectName("memory");
  tabs_->addTab(memory_, "Memory");
  auto* pareto_split = new QSplitter(Qt::Vertical);
  pareto_ = new ParetoView;
  baselines_ = new QTableWidget;
  baselines_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  baselines_->setSelectionBehavior(QAbstractItemView::SelectRows);
  baselines_->verticalHeader()->hide();
  pareto_split->addWidget(pareto_);
  pareto_split->addWidget(baselines_);
  pareto_split->setStretchFactor(0, 3);
  pareto_split->setStretchFactor(1, 2);
  pareto_split->setObjectName("pareto");
  tabs_->addTab(pareto_split, "Pareto && baselines");
  simulation_ = new SimulationService(this);
  timeline_ = new TimelinePanel(simulation_);
  timeline_->setObjectName("timeline");
  tabs_->addTab(timeline_, "Timeline");
  memory_time_ = new MemoryTimePanel;
  memory_time_->setObjectName("memory-time");
  tabs_->addTab(memory_time_, "Memory over time");
  compare_ = new ComparePanel;
  compare_->setObjectName("compare");
  tabs_->addTab(compare_, "Compare A/B");
  budget_ = new BudgetPanel;
  budget_->setObjectName("budget");
  tabs_->addTab(budget_, "Budget && scaling");
  layout->addWidget(tabs_, 1);

  auto* split = new QSplitter;
  split->addWidget(left);
  split->addWidget(centre);
  split->setStretchFactor(1, 1);
  setCentralWidget(split);

  add_menus();
  connect_views();
  resize(1400, 860);
  if (panel_->scenario()) replan();
}

void MainWindow::add_menus() {
  QMenu* file = menuBar()->addMenu("&File");
  file->addAction("Export view (PNG/SVG)…", this, [this] {
    const QString path =
        QFileDialog::getSaveFileName(this, "Export view", "view.png", "Images (*.png *.svg)");
    if (!path.isEmpty()) export_view(path);
  });
  file->addAction("Export every view (PNG and SVG)…", this, [this] {
    const QString dir = QFileDialog::getExistingDirectory(this, "Export every view into");
    if (!dir.isEmpty() && !export_views(dir)) statusBar()->showMessage("some views could not be written");
  });
  file->addAction("Export plan JSON…", this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, "Export plan", "plan.json", "JSON (*.json)");
    if (!path.isEmpty()) export_plan_json(path);
  });
  file->addAction("Export baselines CSV…", this, [this] {
    const QString path =
        QFileDialog::getSaveFileName(this, "Export baselines", "baselines.csv", "CSV (*.csv)");
    if (!path.isEmpty()) export_baselines_csv(path);
  });
  file->addAction("Open trace in Perfetto…", this, [this] { timeline_->perfetto_button()->click(); });
  file->addAction("Quit", this, &QWidget::close);
  QMenu* sim = menuBar()->addMenu("&Simulate");
  sim->addAction("Simulate", QKeySequence(Qt::CTRL | Qt::Key_R), this, [this] { simulate(); });
  sim->addAction("Cancel simulation", this, [this] { simulation_->cancel(); });
  QMenu* compare = menuBar()->addMenu("&Compare");
  compare->addAction("Keep as A", QKeySequence(Qt::CTRL | Qt::Key_K), this, &MainWindow::keep_as_a);
  compare->addAction("Clear A", this, &MainWindow::clear_a);
  connect(compare_, &ComparePanel::keepRequested, this, &MainWindow::keep_as_a);
  connect(timeline_, &TimelinePanel::simulateRequested, this, [this] { simulate(); });
  connect(simulation_, &SimulationService::finished, this,
          [this](std::shared_ptr<const SimulationOutcome> o) {
            statusBar()->showMessage(o->ok ? "simulated" : "simulation failed (see the Timeline tab)");
            if (o->ok && !o->pipeline) memory_time_->set_simulation(o, simulated_limit_bytes_);
          });
  connect(simulation_, &SimulationService::cancelled, this,
          [this] { statusBar()->showMessage("simulation cancelled"); });
}

void MainWindow::connect_views() {
  connect(panel_, &ScenarioPanel::scenarioChanged, this, [this] {
    pins_.clear();  // pins name operators of the old model
    replan();
  });
  connect(panel_, &ScenarioPanel::scenarioInvalid, this, [this](const QString& message) {
    service_->cancel();
    statusBar()->showMessage("scenario not valid: " + message.section('\n', 0, 0));
  });
  connect(service_, &PlanService::started, this, [this] { statusBar()->showMessage("planning…"); });
  connect(service_, &PlanService::finished, this, &MainWindow::planned);
  connect(service_, &PlanService::sweepFinished, this, [this](std::shared_ptr<const SweepOutcome> o) {
    if (!outcome_ || o->generation != outcome_->generation) return;
    if (!o->sweep) {
      statusBar()->showMessage("memory sweep failed: " + o->error);
      return;
    }
    sweep_ = std::move(o);
    pareto_->set_report(outcome_->job.scenario, *outcome_->report, shown_, &*sweep_->sweep);
    emit sweepShown();
  });
  connect(operators_, &OperatorView::pinsRequested, this, &MainWindow::add_pins);
  connect(operators_, &OperatorView::pinsCleared, this, [this](const std::vector<std::size_t>& ops) {
    std::erase_if(pins_, [&](const OperatorPin& p) {
      return std::find(ops.begin(), ops.end(), p.operator_index) != ops.end();
    });
    replan();
  });
  connect(clear_pins_, &QPushButton::clicked, this, &MainWindow::clear_pins);
  connect(pareto_, &ParetoView::strategyClicked, this, &MainWindow::show_strategy);
  connect(pareto_, &ParetoView::frontClicked, this,
          [this](double peak_bytes, double) { panel_->set_memory_limit_bytes(peak_bytes); });
  connect(baselines_, &QTableWidget::cellDoubleClicked, this,
          [this](int row, int) { show_strategy(baselines_->item(row, 0)->text()); });
}

bool MainWindow::open_scenario(const QString& path) {
  const bool ok = panel_->open_file(path);
  if (!ok) {
    plan_error_ = panel_->error_text();
    summary_->setText("<b>The scenario cannot be used:</b> " + plan_error_.toHtmlEscaped());
  }
  return ok;
}

void MainWindow::replan() {
  if (!panel_->scenario()) return;
  PlanJob job;
  job.scenario = *panel_->scenario();
  job.pins = pins_;
  job.with_memory_sweep = true;
  service_->submit(std::move(job));
  statusBar()->showMessage("planning…");
}

quint64 MainWindow::simulate() {
  SimulationRequest request;
  // Even a scenario the panel rejects goes to the child: its own message is then shown on the Timeline tab.
  request.scenario_yaml = panel_->portable_yaml_text();
  const bool plan_current =
      panel_->scenario() && outcome_ && !service_->busy() && outcome_->generation == service_->latest();
  // A pipeline is planned and simulated whole by the child; a stage's plan is not a plan of the scenario.
  request.pipeline = panel_->scenario() && panel_->scenario()->parallelism.pipelined();
  if (const Plan* plan = plan_current && !request.pipeline ? shown_plan() : nullptr)
    request.plan_json = QString::fromStdString(plan_json_text(*plan));
  simulated_limit_bytes_ =
      panel_->scenario() ? static_cast<double>(panel_->scenario()->training.memory_limit_bytes) : 0.0;
  tabs_->setCurrentWidget(timeline_);
  statusBar()->showMessage("simulating…");
  return simulation_->start(request);
}

void MainWindow::keep_as_a() {
  if (!outcome_ || !outcome_->report) return;
  compare_->keep(present::snapshot_of(outcome_->job.scenario, outcome_->job.pins, *outcome_->report,
                                      shown_.toStdString(),
                                      outcome_->unpinned ? &*outcome_->unpinned : nullptr));
  statusBar()->showMessage("kept the shown plan as A (Compare A/B tab)");
}

void MainWindow::clear_a() { compare_->clear(); }

void MainWindow::add_pins(const std::vector<OperatorPin>& pins) {
  for (const OperatorPin& pin : pins) {
    std::erase_if(pins_, [&](const OperatorPin& p) { return p.operator_index == pin.operator_index; });
    pins_.push_back(pin);
  }
  replan();
}

void MainWindow::clear_pins() {
  pins_.clear();
  replan();
}

void MainWindow::planned(std::shared_ptr<const PlanOutcome> outcome) {
  if (outcome->generation != service_->latest()) return;
  if (!outcome->error.isEmpty() || !outcome->report) {
    plan_error_ = outcome->error;
    // A message with a table after its first line (a pipeline search's) keeps the table's columns.
    const qsizetype newline = outcome->error.indexOf('\n');
    QString text = "<b>The planner says:</b> " + outcome->error.left(newline).toHtmlEscaped();
    if (newline >= 0) text += "<pre>" + outcome->error.mid(newline + 1).toHtmlEscaped() + "</pre>";
    summary_->setText(text);
    statusBar()->showMessage("planning failed");
    emit planFailed();
    return;
  }
  plan_error_.clear();
  outcome_ = std::move(outcome);
  sweep_.reset();
  shown_ = "plan";
  refresh_views();
  budget_->set_report(
      outcome_->job.scenario, *outcome_->report,
      outcome_->pipelines ? std::make_shared<const PipelineSearch>(*outcome_->pipelines) : nullptr,
      outcome_->pipelines ? &outcome_->pipelined : nullptr);
  if (outcome_->pipelines) {
    const PipelineSearch& search = *outcome_->pipelines;
    const PipelineOption& chosen = search.options[search.best];
    const std::string too_large = pipeline_trace_refusal(search, chosen);
    timeline_->show_pipeline(too_large.empty() ? pipeline_trace_json(search, chosen) : std::string(),
                             too_large.empty()
                                 ? QString("The run of %1 as planned (Simulate runs it on the simulator)")
                                       .arg(QString::fromStdString(pipeline_text(search, chosen)))
                                 : QString("Not drawn: %1").arg(QString::fromStdString(too_large)));
  }
  statusBar()->showMessage(QString("planned in %1 s").arg(outcome_->seconds, 0, 'f', 2));
  emit planShown();
}

const Plan* MainWindow::shown_plan() const {
  if (!outcome_ || !outcome_->report) return nullptr;
  for (const StrategyResult* r : report_strategies(*outcome_->report)) {
    const QString name = r == &outcome_->report->best ? "plan" : QString::fromStdString(r->strategy);
    if (name == shown_ && r->fits) return &r->plan;
  }
  return nullptr;
}

QString MainWindow::summary_text() const { return summary_->text(); }

void MainWindow::show_strategy(const QString& strategy) {
  shown_ = strategy;
  refresh_views();
  tabs_->setCurrentIndex(0);
}

void MainWindow::refresh_views() {
  const PlanReport& report = *outcome_->report;
  const Scenario& scenario = outcome_->job.scenario;
  const StrategyResult* shown = nullptr;
  for (const StrategyResult* r : report_strategies(report)) {
    const QString name = r == &report.best ? "plan" : QString::fromStdString(r->strategy);
    if (name == shown_) shown = r;
  }
  if (shown == nullptr) shown = &report.best, shown_ = "plan";
  QString text;
  if (!shown->fits) {
    text = QString("<b>%1: no plan fits</b> — the smallest plan needs %2 per GPU, %3 over the limit")
               .arg(shown_, bytes(shown->minimum_memory_bytes), bytes(shown->shortfall_bytes));
    operators_->clear_plan();
  } else {
    const Plan& plan = shown->plan;
    text = QString(
               "<b>%1</b> (%2): micro-batch %3 × %4 steps × %5 GPUs — <b>%6</b> per iteration, "
               "<b>%7</b> samples/s, peak <b>%8</b> per GPU reserved")
               .arg(shown_ != "plan"      ? shown_
                    : outcome_->pipelines ? "Stage plan"
                                          : "Plan",
                    QString::fromStdString(plan.strategy))
               .arg(plan.micro_batch)
               .arg(plan.gradient_accumulation_steps)
               .arg(physical_gpus(scenario))
               .arg(duration(plan.predicted.iteration_seconds))
               .arg(plan.predicted.samples_per_second, 0, 'f', 2)
               .arg(bytes(plan.predicted.peak_memory_bytes));
    if (shown->allocated_peak_bytes > 0)
      text += QString(", <b>%1</b> allocated").arg(bytes(shown->allocated_peak_bytes));
    if (!outcome_
             ->pipelines) {  // a stage's own figures are not the pipeline's: no uncertainty of a pipeline yet
      const ThroughputUncertainty uncertainty =
          throughput_uncertainty(scenario, plan.predicted.tokens_per_second, report.calibration_error);
      text += "<br>Uncertainty: " +
              QString::fromStdString(uncertainty_text(scenario, uncertainty)).toHtmlEscaped();
    }
    if (const std::string line = present::communication_line(*shown); !line.empty())
      text += "<br>" + QString::fromStdString(line).toHtmlEscaped();
    if (scenario.mesh.sliced())
      text += "<br>Mesh: <b>" + QString::fromStdString(mesh_text(scenario)).toHtmlEscaped() + "</b>";
    if (outcome_->meshes) {
      std::ostringstream table;
      present::write_mesh_table(table, *outcome_->meshes);
      text += "<pre>" + QString::fromStdString(table.str()).toHtmlEscaped() + "</pre>";
    }
    if (outcome_->pipelines) text = pipeline_summary(*outcome_) + text;
    if (shown_ == "plan" && outcome_->unpinned && outcome_->unpinned->best.fits) {
      const present::PinsCost cost =
          present::pins_cost(plan.predicted, outcome_->unpinned->best.plan.predicted);
      text += QString(
                  "<br>Pins cost: throughput <b>%1</b>, peak memory <b>%2</b> against the unpinned plan (%3 "
                  "samples/s, %4)")
                  .arg(QString::fromStdString(cost.throughput), QString::fromStdString(cost.peak_memory))
                  .arg(cost.unpinned.samples_per_second, 0, 'f', 2)
                  .arg(bytes(cost.unpinned.peak_memory_bytes));
    }
    if (shown_ != "plan") text += " — <i>a baseline; double-click \"plan\" in the table to go back</i>";
    operators_->set_plan(scenario, plan, shown->operator_costs,
                         shown_ == "plan" ? outcome_->job.pins : std::vector<OperatorPin>{});
  }
  summary_->setText(text);
  QString pins_text;
  for (const OperatorPin& pin : outcome_->job.pins) {
    pins_text += (pins_text.isEmpty() ? "Pins: " : "; ") +
                 QString::fromStdString(pin.describe(scenario.model.operators[pin.operator_index].name));
  }
  if (pins_text.size() > 400) pins_text = pins_text.left(400) + "…";
  pins_label_->setText(pins_text.isEmpty() ? "No pins (right-click an operator to pin its choice)"
                                           : pins_text);
  clear_pins_->setEnabled(!outcome_->job.pins.empty());
  memory_->set_report(scenario, report);
  pareto_->set_report(scenario, report, shown_, sweep_ && sweep_->sweep ? &*sweep_->sweep : nullptr);
  fill_baselines();
  compare_->show_b(present::snapshot_of(scenario, outcome_->job.pins, report, shown_.toStdString(),
                                        outcome_->unpinned ? &*outcome_->unpinned : nullptr));
}

void MainWindow::fill_baselines() {
  const PlanReport& report = *outcome_->report;
  const QStringList headers{"strategy",    "micro-batch", "iteration", "exposed comm",  "samples/s",
                            "peak memory", "vs FSDP",     "shortfall", "P(plan faster)"};
  const Scenario& scenario = outcome_->job.scenario;
  const double plan_rate = report.best.fits ? report.best.plan.predicted.samples_per_second : 0.0;
  const ThroughputUncertainty uncertainty =
      throughput_uncertainty(scenario, report.best.fits ? report.best.plan.predicted.tokens_per_second : 0.0,
                             report.calibration_error);
  baselines_->clear();
  baselines_->setColumnCount(static_cast<int>(headers.size()));
  baselines_->setHorizontalHeaderLabels(headers);
  double fsdp = 0;
  for (const StrategyResult& b : report.baselines) {
    if (b.strategy == "fsdp" && b.fits) fsdp = b.plan.predicted.samples_per_second;
  }
  const std::vector<const StrategyResult*> all = report_strategies(report);
  baselines_->setRowCount(static_cast<int>(all.size()));
  for (std::size_t i = 0; i < all.size(); ++i) {
    const StrategyResult& r = *all[i];
    const int row = static_cast<int>(i);
    const auto set = [&](int col, const QString& text) {
      baselines_->setItem(row, col, new QTableWidgetItem(text));
    };
    set(0, i == 0 ? "plan" : QString::fromStdString(r.strategy));
    if (r.fits) {
      set(1, QString::number(r.plan.micro_batch));
      set(2, duration(r.plan.predicted.iteration_seconds));
      set(3, r.communication.rows.empty() ? "-" : duration(r.communication.exposed_seconds));
      set(4, QString::number(r.plan.predicted.samples_per_second, 'f', 2));
      set(5, bytes(r.plan.predicted.peak_memory_bytes));
      set(6, fsdp > 0 ? QString::number(r.plan.predicted.samples_per_second / fsdp, 'f', 2) + "x" : "-");
      set(7, "");
      const std::optional<double> p =
          i == 0 ? std::nullopt
                 : probability_faster(uncertainty, plan_rate, r.plan.predicted.samples_per_second);
      set(8, p ? QString::number(*p, 'f', 2) : "-");
    } else {
      set(1, "-");
      set(2, "does not fit");
      set(3, "-");
      set(4, "-");
      set(5, bytes(r.minimum_memory_bytes));
      set(6, "-");
      set(7, "short " + bytes(r.shortfall_bytes));
      set(8, "-");
    }
  }
  baselines_->resizeColumnsToContents();
}

bool MainWindow::export_view(const QString& path) { return export_widget(tabs_->currentWidget(), path); }

QStringList MainWindow::view_names() const {
  QStringList names;
  for (int i = 0; i < tabs_->count(); ++i) names << tabs_->widget(i)->objectName();
  return names;
}

bool MainWindow::export_views(const QString& dir) {
  QDir().mkpath(dir);
  bool ok = true;
  const QStringList names = view_names();
  // Each tab is made current while it is written: a tab never shown has not been laid out at the tab's size.
  const int current = tabs_->currentIndex();
  for (int i = 0; i < tabs_->count(); ++i) {
    tabs_->setCurrentIndex(i);
    for (const char* suffix : {".png", ".svg"})
      ok = export_widget(tabs_->widget(i), QDir(dir).filePath(names[i] + suffix)) && ok;
  }
  tabs_->setCurrentIndex(current);
  return ok;
}

bool MainWindow::export_plan_json(const QString& path) const {
  const Plan* plan = shown_plan();
  if (plan == nullptr) return false;
  std::ofstream out(path.toStdString());
  out << plan_json_text(*plan) << "\n";
  return static_cast<bool>(out);
}

bool MainWindow::export_baselines_csv(const QString& path) const {
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) return false;
  for (int row = -1; row < baselines_->rowCount(); ++row) {
    QStringList cells;
    for (int col = 0; col < baselines_->columnCount(); ++col) {
      const QString text = row < 0 ? baselines_->horizontalHeaderItem(col)->text()
                                   : (baselines_->item(row, col) ? baselines_->item(row, col)->text() : "");
      cells << (text.contains(',') ? "\"" + text + "\"" : text);
    }
    f.write((cells.join(',') + "\n").toUtf8());
  }
  return true;
}

}  // namespace shardscope::gui
