// Memory-by-category bars and the Pareto scatter, drawn with gui/chart.
#include "plan_views.hpp"

#include <QMouseEvent>
#include <QPainter>
#include <algorithm>
#include <cmath>
#include <map>

#include "planner/core/units.hpp"
#include "scope_colors.hpp"

namespace shardscope::gui {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// Resident categories summed over operators; gathered buffers and workspace of the operator whose transient
// is largest (the peak's max term); the runtime reserve.
std::vector<double> categories_of(const StrategyResult& r, const Scenario& s) {
  std::vector<double> v(7, 0.0);
  double transient = -1;
  for (const OperatorCost& c : r.operator_costs) {
    v[0] += c.memory.parameter_bytes;
    v[1] += c.memory.gradient_bytes;
    v[2] += c.memory.optimizer_bytes;
    v[3] += c.memory.activation_bytes;
    if (c.memory.gathered_bytes + c.memory.workspace_bytes > transient) {
      transient = c.memory.gathered_bytes + c.memory.workspace_bytes;
      v[4] = c.memory.gathered_bytes;
      v[5] = c.memory.workspace_bytes;
    }
  }
  v[6] = static_cast<double>(s.training.runtime_reserve_bytes);
  return v;
}

}  // namespace

std::vector<const StrategyResult*> report_strategies(const PlanReport& report) {
  std::vector<const StrategyResult*> out{&report.best};
  for (const StrategyResult& b : report.baselines) out.push_back(&b);
  return out;
}

MemoryView::MemoryView(QWidget* parent) : QWidget(parent) {
  setBackgroundRole(QPalette::Base);
  setAutoFillBackground(true);
  setMinimumSize(500, 300);
}

void MemoryView::set_report(const Scenario& scenario, const PlanReport& report) {
  chart_ = {};
  chart_.categories = memory_category_names();
  chart_.colors = memory_category_colors();
  chart_.limit = static_cast<double>(scenario.training.memory_limit_bytes);
  chart_.limit_label = "limit " + QString::fromStdString(units::format_bytes(chart_.limit));
  chart_.y = {0, 1, "memory per GPU", kGiB, "GiB"};
  // Strategies with the same plan numbers (fsdp = paro-GGG = ...) share a bar.
  std::map<std::pair<double, double>, std::size_t> seen;
  for (const StrategyResult* r : report_strategies(report)) {
    if (!r->fits) continue;
    const std::pair<double, double> key{r->plan.predicted.peak_memory_bytes,
                                        r->plan.predicted.iteration_seconds};
    const QString name = QString::fromStdString(r == &report.best ? "plan" : r->strategy);
    if (auto it = seen.find(key); it != seen.end()) {
      if (chart_.groups[static_cast<int>(it->second)].count(',') < 1)
        chart_.groups[static_cast<int>(it->second)] += ", " + name;
      else if (!chart_.groups[static_cast<int>(it->second)].endsWith("…"))
        chart_.groups[static_cast<int>(it->second)] += "…";
      continue;
    }
    seen.emplace(key, chart_.values.size());
    chart_.groups << name;
    chart_.values.push_back(categories_of(*r, scenario));
    chart_.markers.push_back(r->plan.predicted.peak_memory_bytes);
  }
  empty_ = chart_.values.empty();
  update();
}

void MemoryView::paint(QPainter& p, const QRectF& area) const {
  if (empty_) {
    p.drawText(area, Qt::AlignCenter, "no plan fits");
    return;
  }
  chart::draw_stacked_bars(p, area.adjusted(4, 4, -4, -4), chart_);
  p.setPen(Qt::black);
  p.drawText(area.adjusted(8, 0, -8, -4), Qt::AlignBottom | Qt::AlignRight,
             "bars: resident states + the largest operator's buffers + reserve; black tick: whole-plan peak");
}

void MemoryView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  paint(p, rect());
}

ParetoView::ParetoView(QWidget* parent) : QWidget(parent) {
  setBackgroundRole(QPalette::Base);
  setAutoFillBackground(true);
  setMinimumSize(500, 300);
}

void ParetoView::set_front(const Scenario& scenario, const PlanReport& report, const MemorySweep* sweep,
                           double widest) {
  sweep_shown_ = false;
  next_ = -1;
  next_text_.clear();
  if (!report.best.fits) return;
  if (sweep != nullptr && !sweep->breakpoints.empty()) {
    // Up to half as far again as the widest point, and always the next breakpoint above the limit.
    const double next_bytes =
        sweep->next >= 0 ? sweep->breakpoints[static_cast<std::size_t>(sweep->next)].peak_bytes : 0.0;
    const double reach = std::max(widest * 1.5, next_bytes);
    for (std::size_t i = 0; i < sweep->breakpoints.size(); ++i) {
      const MemoryBreakpoint& b = sweep->breakpoints[i];
      if (b.peak_bytes > reach) break;
      if (static_cast<int>(i) == sweep->next) next_ = static_cast<int>(chart_.front.size());
      chart_.front.push_back({b.peak_bytes, b.samples_per_second, {}, {}, false});
    }
    sweep_shown_ = true;
    if (sweep->next >= 0 && sweep->at_limit >= 0) {
      const MemoryBreakpoint& at = sweep->breakpoints[static_cast<std::size_t>(sweep->at_limit)];
      const MemoryBreakpoint& next = sweep->breakpoints[static_cast<std::size_t>(sweep->next)];
      next_text_ = QString("next: +%1 for %2%3 %")
                       .arg(QString::fromStdString(units::format_bytes(next.peak_bytes - sweep->limit_bytes)))
                       .arg(next.samples_per_second >= at.samples_per_second ? "+" : "")
                       .arg(100 * (next.samples_per_second / at.samples_per_second - 1), 0, 'f', 2);
    }
    return;
  }
  // The front at the plan's batch size; shown up to half as far again as the widest point.
  const Plan& plan = report.best.plan;
  const double samples =
      static_cast<double>(plan.micro_batch) * plan.gradient_accumulation_steps * scenario.cluster.gpus();
  for (const ParetoPoint& pt : report.pareto) {
    if (pt.peak_bytes <= widest * 1.5)
      chart_.front.push_back({pt.peak_bytes, samples / pt.seconds, {}, {}, false});
  }
}

void ParetoView::set_report(const Scenario& scenario, const PlanReport& report, const QString& shown,
                            const MemorySweep* sweep) {
  chart_ = {};
  point_strategies_.clear();
  chart_.x = {0, 1, "peak memory per GPU", kGiB, "GiB"};
  // Throughput, not iteration time: each baseline runs at its own batch size, so times are not comparable.
  chart_.y = {0, 1, "throughput (samples/s, higher is better)", 1, ""};
  chart_.x_limit = static_cast<double>(scenario.training.memory_limit_bytes);
  double widest = chart_.x_limit;
  for (const StrategyResult* r : report_strategies(report)) {
    if (r->fits) widest = std::max(widest, r->plan.predicted.peak_memory_bytes);
  }
  set_front(scenario, report, sweep, widest);
  std::map<std::pair<double, double>, std::size_t> seen;
  for (const StrategyResult* r : report_strategies(report)) {
    if (!r->fits) continue;
    const QString name = QString::fromStdString(r == &report.best ? "plan" : r->strategy);
    const std::pair<double, double> key{r->plan.predicted.peak_memory_bytes,
                                        r->plan.predicted.samples_per_second};
    if (auto it = seen.find(key); it != seen.end()) {
      point_strategies_[it->second] << name;
      continue;
    }
    seen.emplace(key, chart_.points.size());
    point_strategies_.push_back({name});
    chart_.points.push_back(
        {key.first, key.second, name, r == &report.best ? QColor(255, 160, 0) : QColor(31, 119, 180), false});
  }
  for (std::size_t i = 0; i < chart_.points.size(); ++i) {
    const QStringList& names = point_strategies_[i];
    chart_.points[i].label = names.size() <= 3
                                 ? names.join(", ")
                                 : names.mid(0, 2).join(", ") + QString(" +%1").arg(names.size() - 2);
    chart_.points[i].highlighted = names.contains(shown);
  }
  empty_ = chart_.front.empty() && chart_.points.empty();
  update();
}

void ParetoView::paint(QPainter& p, const QRectF& area) {
  if (empty_) {
    p.drawText(area, Qt::AlignCenter, "no plan fits");
    where_.clear();
    return;
  }
  where_ = chart::draw_scatter(p, area.adjusted(4, 4, -4, -4), chart_);
  draw_next(p);
  p.setPen(Qt::black);
  p.drawText(area.adjusted(8, 4, -8, 0), Qt::AlignTop | Qt::AlignRight,
             sweep_shown_
                 ? "line: best throughput by memory over every micro-batch, a dot where the best plan "
                   "changes (click: re-plan at that memory); squares: plan and baselines (click: load)"
                 : "line: Pareto front at the plan's batch (click: re-plan at that memory); squares: "
                   "plan and baselines (click: load)");
}

// The sweep's next breakpoint above the limit: a ring and what it costs and buys.
void ParetoView::draw_next(QPainter& p) const {
  if (next_ < 0 || static_cast<std::size_t>(next_) >= where_.size()) return;
  const QPointF at = where_[static_cast<std::size_t>(next_)];
  p.setPen(QPen(QColor(200, 0, 0), 2));
  p.setBrush(Qt::NoBrush);
  p.drawEllipse(at, 7, 7);
  if (!next_text_.isEmpty()) p.drawText(at + QPointF(10, 16), next_text_);
}

void ParetoView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  paint(p, rect());
}

std::optional<QPointF> ParetoView::point_of(const QString& strategy) const {
  for (std::size_t i = 0; i < point_strategies_.size(); ++i) {
    const std::size_t at = chart_.front.size() + i;
    if (point_strategies_[i].contains(strategy) && at < where_.size()) return where_[at];
  }
  return std::nullopt;
}

std::optional<QPointF> ParetoView::front_point(std::size_t index) const {
  if (index < chart_.front.size() && index < where_.size()) return where_[index];
  return std::nullopt;
}

void ParetoView::mousePressEvent(QMouseEvent* event) {
  const QPointF at = event->position();
  double best = 10 * 10;  // within 10 px
  int hit = -1;
  for (std::size_t i = 0; i < where_.size(); ++i) {
    const QPointF d = where_[i] - at;
    const double d2 = d.x() * d.x() + d.y() * d.y();
    // Labelled points win ties with the front (a plan sits on it).
    if (d2 < best || (d2 == best && i >= chart_.front.size())) {
      best = d2;
      hit = static_cast<int>(i);
    }
  }
  if (hit < 0) return;
  const std::size_t h = static_cast<std::size_t>(hit);
  if (h >= chart_.front.size()) {
    emit strategyClicked(point_strategies_[h - chart_.front.size()].front());
  } else {
    emit frontClicked(chart_.front[h].x, chart_.front[h].y);
  }
}

}  // namespace shardscope::gui
