// The timeline's layout, painting and mouse handling.
#include "timeline_view.hpp"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cctype>
#include <cmath>

#include "chart/chart.hpp"
#include "planner/core/units.hpp"
#include "tooltip_event.hpp"

namespace shardscope::gui {
namespace {

constexpr double kLabelWidthPixels = 120;
constexpr double kAxisHeightPixels = 26;
constexpr double kLaneHeightPixels = 18;
constexpr double kLaneGapPixels = 3;
constexpr double kRankGapPixels = 12;
constexpr double kRightMarginPixels = 12;
constexpr double kRankPitchPixels = 2 * kLaneHeightPixels + kLaneGapPixels + kRankGapPixels;
constexpr double kFooterPixels = 64;         // the shown window's line and the colour legend under the lanes
constexpr double kWheelZoomPerNotch = 1.25;  // one 120-unit wheel step

QString duration(double seconds) { return QString::fromStdString(units::format_duration(seconds)); }

// A colour per kind of task, from the name's first word (fwd, bwd, recompute, update, AG, RS, AR, A2A, ...);
// a pipeline run's ops (report/pipeline_trace.hpp: F3, B3.1, tail, send) as forwards, backwards and the
// update.
QColor task_color(const std::string& name) {
  const std::string kind = name.substr(0, name.find(' '));
  const bool pipeline_op = kind.size() > 1 && std::isdigit(static_cast<unsigned char>(kind[1])) != 0;
  if (kind == "fwd" || (pipeline_op && kind[0] == 'F')) return QColor(66, 133, 244);
  if (kind == "bwd" || (pipeline_op && kind[0] == 'B')) return QColor(15, 157, 88);
  if (kind == "tail") return QColor(244, 180, 0);
  if (kind == "send") return QColor(120, 144, 156);
  if (kind == "recompute") return QColor(171, 71, 188);
  if (kind == "update") return QColor(244, 180, 0);
  if (kind == "AG") return QColor(219, 68, 55);
  if (kind == "RS") return QColor(255, 112, 67);
  if (kind == "AR") return QColor(141, 110, 99);
  if (kind == "A2A") return QColor(38, 50, 56);
  const std::size_t hash = std::hash<std::string>{}(kind);
  return QColor::fromHsv(static_cast<int>(hash % 360), 120, 200);
}

const std::pair<const char*, const char*> kLegend[] = {
    {"fwd", "forward"},        {"bwd", "backward"},        {"recompute", "recompute"},
    {"update", "optimizer"},   {"AG", "all-gather (AG)"},  {"RS", "reduce-scatter (RS)"},
    {"AR", "all-reduce (AR)"}, {"A2A", "all-to-all (A2A)"}};

// A tick step of 1, 2 or 5 times a power of ten giving about `ticks` ticks over `span`.
double tick_step(double span, int ticks) {
  const double raw = span / ticks;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0}) {
    if (m * power >= raw) return m * power;
  }
  return 10 * power;
}

}  // namespace

TimelineView::TimelineView(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setMinimumHeight(120);
  setFocusPolicy(Qt::WheelFocus);
}

void TimelineView::set_model(std::shared_ptr<const TimelineModel> model) {
  model_ = std::move(model);
  ranks_.clear();
  if (model_) {
    for (const TimelineRank& r : model_->ranks) ranks_.push_back(r.rank);
  }
  reset_view();
  setMinimumHeight(sizeHint().height());
  updateGeometry();
}

void TimelineView::set_ranks(const std::vector<int>& ranks) {
  ranks_.clear();
  for (int r : ranks) {
    if (model_ && model_->find_rank(r) != nullptr) ranks_.push_back(r);
  }
  setMinimumHeight(sizeHint().height());
  updateGeometry();
  update();
}

double TimelineView::total_seconds() const {
  return model_ && model_->end_seconds > 0 ? model_->end_seconds : 1e-6;
}

double TimelineView::min_span_seconds() const { return std::max(total_seconds() * 1e-6, 1e-9); }

void TimelineView::set_view(double begin_seconds, double end_seconds) {
  const double total = total_seconds();
  double span = std::clamp(end_seconds - begin_seconds, min_span_seconds(), total);
  if (!std::isfinite(span)) span = total;
  double begin = std::isfinite(begin_seconds) ? begin_seconds : 0;
  begin = std::clamp(begin, 0.0, total - span);
  begin_seconds_ = begin;
  end_seconds_ = std::min(total, begin + span);
  update();
}

void TimelineView::zoom_by(double factor, double anchor_x) {
  if (!(factor > 0)) return;
  const double anchor = std::clamp(seconds_at(anchor_x), begin_seconds_, end_seconds_);
  const double span = (end_seconds_ - begin_seconds_) / factor;
  const double fraction = (anchor - begin_seconds_) / (end_seconds_ - begin_seconds_);
  set_view(anchor - fraction * span, anchor - fraction * span + span);
}

void TimelineView::pan_by_pixels(double dx) {
  const double width = std::max(1.0, plot_rect().width());
  const double shift = -dx / width * (end_seconds_ - begin_seconds_);
  set_view(begin_seconds_ + shift, end_seconds_ + shift);
}

void TimelineView::reset_view() { set_view(0, total_seconds()); }

QRectF TimelineView::plot_rect() const {
  return QRectF(kLabelWidthPixels, kAxisHeightPixels,
                std::max(10.0, width() - kLabelWidthPixels - kRightMarginPixels),
                std::max(10.0, height() - kAxisHeightPixels));
}

double TimelineView::x_of(double seconds) const {
  const QRectF plot = plot_rect();
  return plot.left() + (seconds - begin_seconds_) / (end_seconds_ - begin_seconds_) * plot.width();
}

double TimelineView::seconds_at(double x) const {
  const QRectF plot = plot_rect();
  return begin_seconds_ + (x - plot.left()) / plot.width() * (end_seconds_ - begin_seconds_);
}

int TimelineView::lane_index(int rank, TimelineStream stream) const {
  const auto it = std::find(ranks_.begin(), ranks_.end(), rank);
  if (it == ranks_.end()) return -1;
  return static_cast<int>(it - ranks_.begin()) * kTimelineStreams + static_cast<int>(stream);
}

QRectF TimelineView::lane_rect(int rank, TimelineStream stream) const {
  const int lane = lane_index(rank, stream);
  if (lane < 0) return {};
  const QRectF plot = plot_rect();
  const double top = kAxisHeightPixels + 6 + (lane / kTimelineStreams) * kRankPitchPixels +
                     (lane % kTimelineStreams) * (kLaneHeightPixels + kLaneGapPixels);
  return QRectF(plot.left(), top, plot.width(), kLaneHeightPixels);
}

std::optional<TimelineHit> TimelineView::task_at(const QPointF& pos) const {
  if (!model_ || !plot_rect().contains(pos)) return std::nullopt;
  const double t = seconds_at(pos.x());
  const double slack = 2 * (end_seconds_ - begin_seconds_) / plot_rect().width();  // two pixels
  for (int rank : ranks_) {
    for (int s = 0; s < kTimelineStreams; ++s) {
      const auto stream = static_cast<TimelineStream>(s);
      if (!lane_rect(rank, stream).contains(pos)) continue;
      const std::vector<TimelineTask>& tasks = model_->find_rank(rank)->tasks(stream);
      // The task under the pointer; else the nearest within two pixels (tiny tasks are hard to hit).
      const TimelineTask* best = nullptr;
      double best_distance = slack;
      for (const TimelineTask& task : tasks) {
        if (task.start_seconds > t + slack) break;
        const double distance =
            t < task.start_seconds ? task.start_seconds - t : std::max(0.0, t - task.end_seconds());
        if (distance <= best_distance) {
          best = &task;
          best_distance = distance;
        }
      }
      if (best == nullptr) return std::nullopt;
      return TimelineHit{rank, stream, best};
    }
  }
  return std::nullopt;
}

QString TimelineView::tooltip_at(const QPointF& pos) const {
  const std::optional<TimelineHit> hit = task_at(pos);
  if (!hit) return {};
  return QString("%1\nGPU %2, %3\nstart %4\nduration %5")
      .arg(QString::fromStdString(hit->task->name))
      .arg(hit->rank)
      .arg(hit->stream == TimelineStream::compute ? "compute" : "communication")
      .arg(duration(hit->task->start_seconds), duration(hit->task->duration_seconds));
}

QSize TimelineView::sizeHint() const {
  const int rows = std::max<int>(1, static_cast<int>(ranks_.size()));
  return QSize(900, static_cast<int>(kAxisHeightPixels + 12 + rows * kRankPitchPixels + kFooterPixels));
}

void TimelineView::paint(QPainter& p, const QRectF& area) const {
  p.fillRect(area, Qt::white);
  if (!model_) {
    p.setPen(Qt::darkGray);
    p.drawText(area, Qt::AlignCenter, "No simulation yet: press Simulate (Ctrl+R)");
    return;
  }
  const QRectF plot = plot_rect();
  // The time axis: ticks and grid lines.
  const double step =
      tick_step(end_seconds_ - begin_seconds_, std::max(2, static_cast<int>(plot.width() / 110)));
  p.setPen(QColor(90, 90, 90));
  const QFontMetricsF metrics(p.font());
  for (double t = std::ceil(begin_seconds_ / step) * step; t <= end_seconds_ + step * 1e-9; t += step) {
    const double x = x_of(t);
    p.setPen(QColor(225, 225, 225));
    p.drawLine(QPointF(x, kAxisHeightPixels), QPointF(x, area.bottom()));
    p.setPen(QColor(70, 70, 70));
    p.drawLine(QPointF(x, kAxisHeightPixels - 5), QPointF(x, kAxisHeightPixels));
    const QString label = duration(t);
    p.drawText(QPointF(x - metrics.horizontalAdvance(label) / 2, kAxisHeightPixels - 8), label);
  }
  p.drawLine(QPointF(plot.left(), kAxisHeightPixels), QPointF(plot.right(), kAxisHeightPixels));
  p.save();
  for (int rank : ranks_) {
    const TimelineRank* r = model_->find_rank(rank);
    for (int s = 0; s < kTimelineStreams; ++s) {
      const auto stream = static_cast<TimelineStream>(s);
      const QRectF lane = lane_rect(rank, stream);
      p.setClipping(false);
      p.setPen(QColor(40, 40, 40));
      // A long label (a pipeline stage's "stage 2: layers 8-16") keeps its part before the colon.
      QString name = QString::fromStdString(r->label);
      if (metrics.horizontalAdvance(name + "  compute") > kLabelWidthPixels - 8)
        name = name.section(':', 0, 0);
      const QString label = s == 0 ? name + "  compute" : QString("communication");
      p.drawText(QRectF(4, lane.top(), kLabelWidthPixels - 8, lane.height()),
                 Qt::AlignRight | Qt::AlignVCenter, label);
      p.fillRect(lane, QColor(246, 246, 246));
      p.setClipRect(lane);
      double last_right = -1e9;  // tasks narrower than a pixel that land on the same pixel are drawn once
      for (const TimelineTask& task : r->tasks(stream)) {
        if (task.start_seconds > end_seconds_) break;
        if (task.end_seconds() < begin_seconds_) continue;
        const double left = x_of(task.start_seconds);
        const double right = std::max(x_of(task.end_seconds()), left + 1);
        if (right <= last_right + 0.5) continue;
        last_right = right;
        const QRectF box(left, lane.top() + 1, right - left, lane.height() - 2);
        p.fillRect(box, task_color(task.name));
        if (box.width() > 48) {
          p.setPen(Qt::white);
          p.drawText(box.adjusted(3, 0, -2, 0), Qt::AlignLeft | Qt::AlignVCenter,
                     metrics.elidedText(QString::fromStdString(task.name), Qt::ElideRight, box.width() - 5));
        }
      }
    }
  }
  p.restore();
  // Under the lanes: the shown window, and what the colours mean.
  const double below = kAxisHeightPixels + 6 + static_cast<double>(ranks_.size()) * kRankPitchPixels;
  p.setPen(QColor(70, 70, 70));
  p.drawText(
      QPointF(plot.left(), below + metrics.ascent()),
      QString("showing %1 of %2 from %3")
          .arg(duration(end_seconds_ - begin_seconds_), duration(total_seconds()), duration(begin_seconds_)));
  QStringList names;
  std::vector<QColor> colors;
  for (const auto& [kind, name] : kLegend) {
    names << name;
    colors.push_back(task_color(kind));
  }
  chart::draw_legend(p, QPointF(plot.left(), below + metrics.height() + 4), names, colors, plot.width());
}

void TimelineView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  paint(p, rect());
}

void TimelineView::wheelEvent(QWheelEvent* event) {
  const double notches = event->angleDelta().y() / 120.0;
  if (notches == 0) return;
  zoom_by(std::pow(kWheelZoomPerNotch, notches), event->position().x());
  event->accept();
}

void TimelineView::mousePressEvent(QMouseEvent* event) {
  if (event->button() == Qt::LeftButton) {
    drag_x_ = event->position().x();
    setCursor(Qt::ClosedHandCursor);
  }
}

void TimelineView::mouseMoveEvent(QMouseEvent* event) {
  if (drag_x_ && (event->buttons() & Qt::LeftButton)) {
    pan_by_pixels(event->position().x() - *drag_x_);
    drag_x_ = event->position().x();
  }
}

void TimelineView::mouseReleaseEvent(QMouseEvent*) {
  drag_x_.reset();
  unsetCursor();
}

void TimelineView::mouseDoubleClickEvent(QMouseEvent*) { reset_view(); }

bool TimelineView::event(QEvent* event) {
  return handle_tooltip_event(this, event, [this](QPoint p) { return tooltip_at(p); }) ||
         QWidget::event(event);
}

}  // namespace shardscope::gui
