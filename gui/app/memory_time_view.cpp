// Stacked memory steps of one GPU over the iteration, drawn with gui/chart's axes and legend.
#include "memory_time_view.hpp"

#include <QFontMetricsF>
#include <QHelpEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>
#include <algorithm>
#include <array>
#include <cmath>

#include "planner/core/units.hpp"
#include "scope_colors.hpp"
#include "tooltip_event.hpp"

namespace shardscope::gui {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

QString bytes(double b) { return QString::fromStdString(units::format_bytes(b)); }
QString duration(double s) { return QString::fromStdString(units::format_duration(s)); }

// Rounds an axis out to nice ticks in its display unit.
void nice_axis(chart::Axis& a) {
  double lo = a.min / a.scale, hi = a.max / a.scale;
  chart::nice_range(lo, hi);
  a.min = lo * a.scale;
  a.max = hi * a.scale;
}

// The samples to draw: all of them when there are few per pixel column, else per column the one with the
// largest total (so the peak is always drawn). Indices into `samples`, in time order.
std::vector<std::size_t> drawn_samples(const std::vector<TimelineMemorySample>& samples, double end_seconds,
                                       double columns) {
  std::vector<std::size_t> out;
  if (static_cast<double>(samples.size()) <= 2 * columns || end_seconds <= 0) {
    for (std::size_t i = 0; i < samples.size(); ++i) out.push_back(i);
    return out;
  }
  long column = -1;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const long c = static_cast<long>(std::floor(samples[i].time_seconds / end_seconds * columns));
    if (c != column) {
      out.push_back(i);
      column = c;
    } else if (samples[i].total_bytes() > samples[out.back()].total_bytes()) {
      out.back() = i;
    }
  }
  return out;
}

// Stacking order, bottom first: the reserve and the model states, which hardly change, under the categories
// that come and go (so the top outline is what moves).
constexpr std::array<std::size_t, kMemoryCategories> kStackOrder{
    index_of(MemoryCategory::reserve),     index_of(MemoryCategory::parameters),
    index_of(MemoryCategory::gradients),   index_of(MemoryCategory::optimizer),
    index_of(MemoryCategory::activations), index_of(MemoryCategory::gathered),
    index_of(MemoryCategory::workspace)};

}  // namespace

MemoryTimeView::MemoryTimeView(QWidget* parent) : QWidget(parent) {
  setBackgroundRole(QPalette::Base);
  setAutoFillBackground(true);
  setMinimumSize(500, 300);
}

void MemoryTimeView::set_samples(std::vector<TimelineMemorySample> samples, double end_seconds,
                                 double limit_bytes, const QString& title) {
  samples_ = std::move(samples);
  limit_bytes_ = limit_bytes;
  title_ = title;
  peak_bytes_ = 0;
  peak_seconds_ = 0;
  end_seconds_ = end_seconds;
  for (const TimelineMemorySample& s : samples_) {
    end_seconds_ = std::max(end_seconds_, s.time_seconds);
    if (s.total_bytes() > peak_bytes_) {
      peak_bytes_ = s.total_bytes();
      peak_seconds_ = s.time_seconds;
    }
  }
  message_ = samples_.empty() ? "The simulation kept no memory samples for this GPU" : QString();
  update();
}

void MemoryTimeView::clear(const QString& message) {
  samples_.clear();
  peak_bytes_ = peak_seconds_ = end_seconds_ = 0;
  message_ = message;
  update();
}

std::optional<std::size_t> MemoryTimeView::sample_at(double seconds) const {
  const auto it =
      std::upper_bound(samples_.begin(), samples_.end(), seconds,
                       [](double t, const TimelineMemorySample& s) { return t < s.time_seconds; });
  if (it == samples_.begin()) return std::nullopt;
  return static_cast<std::size_t>(it - samples_.begin() - 1);
}

QPointF MemoryTimeView::peak_position() const {
  return chart::to_pixel(plot_, x_, y_, peak_seconds_, peak_bytes_);
}

QString MemoryTimeView::tooltip_at(const QPointF& position) const {
  if (samples_.empty() || plot_.isEmpty() || !plot_.contains(position)) return {};
  const double seconds = x_.min + (position.x() - plot_.left()) / plot_.width() * (x_.max - x_.min);
  const std::optional<std::size_t> at = sample_at(seconds);
  if (!at) return {};
  const TimelineMemorySample& s = samples_[*at];
  const QStringList names = memory_category_names();
  QString text = QString("<b>%1</b> (from %2)<table>").arg(duration(seconds), duration(s.time_seconds));
  for (std::size_t k = kMemoryCategories; k-- > 0;) {
    const std::size_t c = kStackOrder[k];
    text += QString("<tr><td>%1</td><td align=right>%2</td></tr>")
                .arg(names[static_cast<int>(c)], bytes(s.bytes[c]));
  }
  text += QString("<tr><td><b>total</b></td><td align=right><b>%1</b></td></tr></table>")
              .arg(bytes(s.total_bytes()));
  if (limit_bytes_ > 0)
    text += QString("limit %1, %2 free").arg(bytes(limit_bytes_), bytes(limit_bytes_ - s.total_bytes()));
  return text;
}

void MemoryTimeView::paint(QPainter& p, const QRectF& area) const {
  if (samples_.empty()) {
    plot_ = {};
    p.setPen(Qt::black);
    p.drawText(area, Qt::AlignCenter, message_);
    return;
  }
  const QFontMetricsF fm(p.font());
  QRectF outer = area.adjusted(4, 4, -4, -4);
  p.setPen(Qt::black);
  QFont bold = p.font();
  bold.setBold(true);
  p.save();
  p.setFont(bold);
  p.drawText(QPointF(outer.left() + 8, outer.top() + fm.ascent()), title_);
  p.restore();
  outer.adjust(0, fm.height() + 4, 0, 0);
  const QStringList all_names = memory_category_names();
  const std::vector<QColor> colors = memory_category_colors();
  QStringList names;
  std::vector<QColor> stacked_colors;
  for (std::size_t c : kStackOrder) {
    names << all_names[static_cast<int>(c)];
    stacked_colors.push_back(colors[c]);
  }
  const double legend =
      chart::draw_legend(p, outer.topLeft() + QPointF(8, 0), names, stacked_colors, outer.width() - 16);
  outer.adjust(0, legend + 4, 0, 0);
  const bool milliseconds = end_seconds_ < 2;
  x_ = {0, std::max(end_seconds_, 1e-9), "time in the iteration", milliseconds ? 1e-3 : 1.0,
        milliseconds ? "ms" : "s"};
  y_ = {0, std::max(peak_bytes_, limit_bytes_) * 1.05, "memory per GPU", kGiB, "GiB"};
  nice_axis(y_);
  plot_ = chart::draw_axes(p, outer, x_, y_);
  draw_bands(p, colors);
  draw_limit_and_peak(p, fm);
}

void MemoryTimeView::draw_bands(QPainter& p, const std::vector<QColor>& colors) const {
  const std::vector<std::size_t> drawn = drawn_samples(samples_, end_seconds_, plot_.width());
  // Per category, the band between the stack below it and the stack up to it, as steps.
  std::vector<double> below(drawn.size(), 0.0);
  p.save();
  p.setClipRect(plot_);
  p.setPen(Qt::NoPen);
  for (std::size_t c : kStackOrder) {
    std::vector<double> upto(below);
    bool any = false;
    for (std::size_t j = 0; j < drawn.size(); ++j) {
      upto[j] += samples_[drawn[j]].bytes[c];
      any = any || samples_[drawn[j]].bytes[c] > 0;
    }
    if (any) {
      QPolygonF band;
      for (std::size_t j = 0; j < drawn.size(); ++j) {
        const double from = samples_[drawn[j]].time_seconds;
        const double to = j + 1 < drawn.size() ? samples_[drawn[j + 1]].time_seconds : end_seconds_;
        band << chart::to_pixel(plot_, x_, y_, from, upto[j]) << chart::to_pixel(plot_, x_, y_, to, upto[j]);
      }
      for (std::size_t j = drawn.size(); j-- > 0;) {
        const double from = samples_[drawn[j]].time_seconds;
        const double to = j + 1 < drawn.size() ? samples_[drawn[j + 1]].time_seconds : end_seconds_;
        band << chart::to_pixel(plot_, x_, y_, to, below[j])
             << chart::to_pixel(plot_, x_, y_, from, below[j]);
      }
      p.setBrush(colors[c]);
      p.drawPolygon(band);
    }
    below = std::move(upto);
  }
  p.restore();
}

void MemoryTimeView::draw_limit_and_peak(QPainter& p, const QFontMetricsF& fm) const {
  if (limit_bytes_ > 0) {
    const double py = chart::to_pixel(plot_, x_, y_, 0, limit_bytes_).y();
    p.setPen(QPen(QColor(200, 0, 0), 1.5, Qt::DashLine));
    p.drawLine(QPointF(plot_.left(), py), QPointF(plot_.right(), py));
    const QString label = "limit " + bytes(limit_bytes_);
    p.drawText(QPointF(plot_.right() - fm.horizontalAdvance(label) - 4, py - 3), label);
  }
  // The peak: a triangle pointing at it and its value, kept inside the plot.
  const QPointF peak = peak_position();
  p.save();
  p.setRenderHint(QPainter::Antialiasing);
  p.setPen(QPen(Qt::black, 1));
  p.setBrush(Qt::black);
  p.drawPolygon(QPolygonF{peak, peak + QPointF(-5, -9), peak + QPointF(5, -9)});
  const QString label = QString("peak %1 at %2").arg(bytes(peak_bytes_), duration(peak_seconds_));
  const double width = fm.horizontalAdvance(label) + 8;
  const double left = std::clamp(peak.x() - width / 2, plot_.left(), plot_.right() - width);
  const double top = std::max(plot_.top() + 2, peak.y() - 12 - fm.height() - 2);
  const QRectF box(left, top, width, fm.height() + 2);
  p.setBrush(QColor(255, 255, 255, 220));
  p.drawRect(box);
  p.drawText(box, Qt::AlignCenter, label);
  p.restore();
}

void MemoryTimeView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  paint(p, rect());
}

bool MemoryTimeView::event(QEvent* event) {
  return handle_tooltip_event(this, event, [this](QPoint p) { return tooltip_at(p); }) ||
         QWidget::event(event);
}

}  // namespace shardscope::gui
