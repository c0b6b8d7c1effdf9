// The Budget & scaling tab: the time-to-train table and the node-count search on a pool thread.
#include "budget_panel.hpp"

#include <QFormLayout>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPainter>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <cmath>
#include <limits>

#include "plan_service.hpp"
#include "planner/core/error.hpp"
#include "planner/core/units.hpp"
#include "planner/io/calibration_parser.hpp"
#include "planner/report/time_to_train.hpp"
#include "planner/search/plan_observer.hpp"

namespace shardscope::gui {
namespace {

QString count(double value) { return QString::fromStdString(units::format_count(value)); }

// The recommended plan at one node count of `base`'s cluster (no baselines), or under pipeline stages the
// fastest pipeline's; a count at which the scenario is invalid, or its stages cannot be placed, is recorded
// with the reason, as the CLI's --target-tokens-per-second does.
TargetPoint plan_at(const Scenario& base, int nodes, PlanObserver& observer) {
  TargetPoint p;
  p.nodes = nodes;
  p.gpus = nodes * base.cluster.gpus_per_node;
  Scenario at = base;
  at.cluster.nodes = nodes;
  PlanRequest request;
  request.with_baselines = false;
  request.search.observer = &observer;
  try {
    if (at.parallelism.pipelined()) {
      fill_target_point(p, search_pipelines(at, scenario_calibration(at), request));
    } else {
      const ValidScenario scenario(std::move(at));
      fill_target_point(p, plan_scenario(scenario, scenario_calibration(scenario), request));
    }
  } catch (const MeshError& e) {
    p.refusal = e.field() + ": " + e.what();
  } catch (const InputError& e) {
    p.refusal = e.what();
  }
  return p;
}

struct SearchResult {
  quint64 generation = 0;
  std::optional<TargetSearch> search;
  QString error;  // empty when cancelled or done
};

}  // namespace

ScalingView::ScalingView(QWidget* parent) : QWidget(parent) {
  setBackgroundRole(QPalette::Base);
  setAutoFillBackground(true);
  setMinimumSize(400, 240);
  message_ = "Enter a target tokens/s and press Find nodes";
}

void ScalingView::set_search(const std::optional<TargetSearch>& search, const QString& message) {
  chart_ = {};
  message_ = message;
  if (search) {
    chart::LineSeries curve{"predicted tokens/s", QColor(31, 119, 180), {}, {}};
    double low = std::numeric_limits<double>::infinity(), high = 0;
    for (const TargetPoint& p : search->curve) {
      curve.x.push_back(p.gpus);
      curve.y.push_back(p.refusal.empty() && p.fits ? p.tokens_per_second
                                                    : std::numeric_limits<double>::quiet_NaN());
      low = std::min(low, static_cast<double>(p.gpus));
      high = std::max(high, static_cast<double>(p.gpus));
    }
    chart_.series.push_back(std::move(curve));
    if (high > 0) {
      chart_.series.push_back({"target",
                               QColor(200, 0, 0),
                               {low, high},
                               {search->target_tokens_per_second, search->target_tokens_per_second}});
    }
    chart_.title = "Predicted tokens/s of the recommended plan at each node count planned";
    chart_.x = {0, 1, "GPUs", 1, ""};
    chart_.y = {0, 1, "tokens/s", 1, ""};
  }
  update();
}

void ScalingView::paint(QPainter& p, const QRectF& area) const {
  if (chart_.series.empty()) {
    p.drawText(area, Qt::AlignCenter, message_);
    return;
  }
  chart::draw_line_chart(p, area.adjusted(4, 4, -4, -4), chart_);
}

void ScalingView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  paint(p, rect());
}

BudgetPanel::BudgetPanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  auto* form = new QFormLayout;
  tokens_ = new QLineEdit;
  tokens_->setPlaceholderText("tokens to train on, such as 300B or 1.5T");
  price_ = new QLineEdit;
  price_->setPlaceholderText("price per GPU-hour (optional), such as 2.50");
  form->addRow("Tokens", tokens_);
  form->addRow("Price / GPU-hour", price_);
  layout->addLayout(form);
  budget_status_ = new QLabel;
  budget_status_->setWordWrap(true);
  layout->addWidget(budget_status_);
  table_ = new QTableWidget;
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->verticalHeader()->hide();
  layout->addWidget(table_, 1);
  auto* target_row = new QHBoxLayout;
  target_ = new QLineEdit;
  target_->setPlaceholderText("target tokens/s over the cluster, such as 2M");
  find_ = new QPushButton("Find nodes");
  target_row->addWidget(new QLabel("Target"));
  target_row->addWidget(target_, 1);
  target_row->addWidget(find_);
  layout->addLayout(target_row);
  scaling_status_ = new QLabel;
  scaling_status_->setWordWrap(true);
  layout->addWidget(scaling_status_);
  scaling_ = new ScalingView;
  layout->addWidget(scaling_, 2);
  connect(tokens_, &QLineEdit::textChanged, this, [this] { fill_table(); });
  connect(price_, &QLineEdit::textChanged, this, [this] { fill_table(); });
  connect(find_, &QPushButton::clicked, this, [this] { find_nodes(); });
  connect(target_, &QLineEdit::returnPressed, this, [this] { find_nodes(); });
  fill_table();
}

BudgetPanel::~BudgetPanel() { generation_->fetch_add(1); }

QString BudgetPanel::budget_status() const { return budget_status_->text(); }
QString BudgetPanel::scaling_status() const { return scaling_status_->text(); }

void BudgetPanel::set_report(const Scenario& scenario, const PlanReport& report,
                             std::shared_ptr<const PipelineSearch> pipelines, const Scenario* whole) {
  scenario_ = scenario;
  report_ = report;
  pipelines_ = std::move(pipelines);
  whole_ = whole != nullptr ? std::optional<Scenario>(*whole) : std::nullopt;
  if (search_ || !find_->isEnabled()) {
    generation_->fetch_add(1);  // a search in flight or shown is of the scenario before
    search_.reset();
    find_->setEnabled(true);
    scaling_status_->setText("The scenario changed: Find nodes again for its curve.");
    scaling_->set_search(std::nullopt, "Enter a target tokens/s and press Find nodes");
  }
  fill_table();
}

void BudgetPanel::fill_table() {
  const QStringList headers{"strategy", "tokens/s", "iterations", "time to train", "GPU-hours", "cost"};
  table_->clear();
  table_->setColumnCount(static_cast<int>(headers.size()));
  table_->setHorizontalHeaderLabels(headers);
  table_->setRowCount(0);
  if (!report_ || !scenario_) return;
  if (scenario_->mesh.pipeline.pipelined() && (!pipelines_ || !pipelines_->any_fits())) {
    budget_status_->setText("No pipeline fits: nothing to train with");
    return;
  }
  TrainingBudget budget;
  const QString tokens = tokens_->text().trimmed();
  if (tokens.isEmpty()) {
    budget_status_->setText("Enter the tokens to train on for each strategy's time to train and cost.");
    return;
  }
  try {
    budget.tokens = parse_training_tokens(tokens.toStdString());
  } catch (const std::invalid_argument& e) {
    budget_status_->setText(QString("Tokens: %1").arg(e.what()));
    return;
  }
  const QString price = price_->text().trimmed();
  if (!price.isEmpty()) {
    bool ok = false;
    const double value = price.toDouble(&ok);
    if (!ok || !std::isfinite(value) || value < 0 || value > kMaxPricePerGpuHour) {
      budget_status_->setText("Price / GPU-hour: expected a number from 0 to 1e9, got '" + price + "'");
      return;
    }
    budget.price_per_gpu_hour = value;
  }
  add_rows(budget);
  table_->resizeColumnsToContents();
}

void BudgetPanel::add_rows(const TrainingBudget& budget) {
  const int gpus = physical_gpus(whole_ ? *whole_ : *scenario_);  // a pipeline: every stage's GPUs
  budget_status_->setText(QString("Training on %1 tokens on %2 GPUs (every GPU billed for the whole run):")
                              .arg(count(budget.tokens))
                              .arg(gpus));
  const auto add = [&](const QString& name, const PlanPrediction& predicted) {
    const TimeToTrain t = time_to_train(predicted, gpus, budget);
    const int row = table_->rowCount();
    table_->insertRow(row);
    const QStringList cells{name,
                            count(predicted.tokens_per_second),
                            count(t.iterations),
                            QString::fromStdString(format_wall_time(t.seconds)),
                            count(t.gpu_hours),
                            t.cost ? QString::number(*t.cost, 'f', 2) : "-"};
    for (int c = 0; c < cells.size(); ++c) table_->setItem(row, c, new QTableWidgetItem(cells[c]));
  };
  if (pipelines_) {
    for (const PipelineOption* o : fitting_pipelines(*pipelines_))
      add(QString::fromStdString(pipeline_text(*pipelines_, *o)), pipeline_prediction(*o));
    return;
  }
  if (report_->best.fits)
    add("plan (" + QString::fromStdString(report_->best.plan.strategy) + ")", report_->best.plan.predicted);
  for (const StrategyResult& b : report_->baselines)
    if (b.fits) add(QString::fromStdString(b.strategy), b.plan.predicted);
}

bool BudgetPanel::find_nodes() {
  if (!scenario_ || !report_) {
    scaling_status_->setText("No plan shown yet.");
    return false;
  }
  double rate = 0;
  try {
    rate = units::parse_count(target_->text().trimmed().toStdString());
  } catch (const std::invalid_argument& e) {
    scaling_status_->setText(QString("Target: %1").arg(e.what()));
    return false;
  }
  if (!(rate > 0) || !std::isfinite(rate)) {
    scaling_status_->setText("Target: expected a positive tokens/s");
    return false;
  }
  const bool pipelined = scenario_->mesh.pipeline.pipelined();
  if (pipelined && !whole_) {
    scaling_status_->setText("Target: the pipeline's scenario is not known; plan it again");
    return false;
  }
  if (!pipelined && scenario_->mesh.sliced()) {
    scaling_status_->setText(
        "Target: node counts are searched for data-parallel plans; this plan runs on a "
        "tensor-, context- or expert-parallel mesh");
    return false;
  }
  const quint64 mine = generation_->fetch_add(1) + 1;
  find_->setEnabled(false);
  scaling_status_->setText("Planning node counts…");
  const Scenario base = pipelined ? *whole_ : *scenario_;
  const std::shared_ptr<std::atomic<quint64>> latest = generation_;
  auto* watcher = new QFutureWatcher<SearchResult>(this);
  connect(watcher, &QFutureWatcher<SearchResult>::finished, this, [this, watcher] {
    const SearchResult r = watcher->result();
    watcher->deleteLater();
    searched(r.generation, r.search, r.error);
  });
  watcher->setFuture(QtConcurrent::run([base, rate, latest, mine]() mutable {
    SearchResult out;
    out.generation = mine;
    Superseded observer(*latest, mine);  // the lambda's copy of `latest` keeps it alive
    try {
      out.search = search_node_count(rate, base.cluster.gpus_per_node, base.training.global_batch,
                                     [&](int nodes) { return plan_at(base, nodes, observer); });
    } catch (const PlanCancelled&) {
    } catch (const std::exception& e) {
      out.error = QString::fromStdString(e.what());
    }
    return out;
  }));
  return true;
}

void BudgetPanel::searched(quint64 generation, std::optional<TargetSearch> search, const QString& error) {
  if (generation != generation_->load()) return;  // cancelled, or a newer one runs
  find_->setEnabled(true);
  search_ = std::move(search);
  if (!search_) {
    scaling_status_->setText("The search failed: " + error);
    scaling_->set_search(std::nullopt, "no curve");
    emit nodesFound();
    return;
  }
  QString text;
  if (search_->nodes) {
    const TargetPoint* reached = nullptr;
    for (const TargetPoint& p : search_->curve)
      if (p.nodes == *search_->nodes) reached = &p;
    text = QString("%1 tokens/s: %2 node(s) of %3 GPUs (%4 GPUs) reach it, at %5 tokens/s.")
               .arg(count(search_->target_tokens_per_second))
               .arg(*search_->nodes)
               .arg(search_->gpus_per_node)
               .arg(reached ? reached->gpus : 0)
               .arg(reached ? count(reached->tokens_per_second) : "-");
  } else {
    const TargetPoint* best = search_->best();
    text = QString("%1 tokens/s: no count up to %2 nodes reaches it%3.")
               .arg(count(search_->target_tokens_per_second))
               .arg(search_->max_nodes)
               .arg(best ? QString("; the most: %1 at %2 node(s)")
                               .arg(count(best->tokens_per_second))
                               .arg(best->nodes)
                         : QString("; no plan fits at any count planned"));
  }
  text += search_->bisected ? " Node counts doubled, then bisected."
                            : " Every node count whose GPUs divide the global batch, in order.";
  scaling_status_->setText(text);
  scaling_->set_search(search_, "");
  emit nodesFound();
}

}  // namespace shardscope::gui
