// QPainter chart primitives and their PNG/SVG export.
#include "chart.hpp"

#include <QBuffer>
#include <QFontMetricsF>
#include <QImage>
#include <QSvgGenerator>
#include <algorithm>
#include <cmath>
#include <vector>

namespace shardscope::chart {

double nice_range(double& min, double& max, int ticks) {
  if (!std::isfinite(min) || !std::isfinite(max)) min = 0, max = 1;
  if (!(max > min)) max = min + 1;
  // A span the values cannot resolve (1e17 and 1e17 + 16: a tenth of it is below the spacing of doubles
  // there) is widened to a millionth of their magnitude, so every tick is a distinct value.
  const double magnitude_of_values = std::max(std::abs(min), std::abs(max));
  const double least_span = magnitude_of_values * 1e-6;
  if (max - min < least_span) {
    const double middle = min / 2 + max / 2;
    min = middle - least_span / 2;
    max = middle + least_span / 2;
  }
  const double raw = (max - min) / std::max(1, ticks);
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = magnitude;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    step = m * magnitude;
    if (step >= raw) break;
  }
  min = std::floor(min / step) * step;
  max = std::ceil(max / step) * step;
  return step;
}

QPointF to_pixel(const QRectF& plot, const Axis& x, const Axis& y, double vx, double vy) {
  const double fx = (vx - x.min) / (x.max - x.min);
  const double fy = (vy - y.min) / (y.max - y.min);
  return {plot.left() + fx * plot.width(), plot.bottom() - fy * plot.height()};
}

namespace {

// A tick's label; beyond a million, in as many significant digits as tell ticks `step` apart (1.0000002e+17),
// not 18 digits that overrun their neighbours.
QString tick_text(double value, const Axis& axis, double step) {
  const double v = value / axis.scale, s = step / axis.scale;
  if (std::abs(v) >= 1e6 && s > 0) {
    const int digits = std::clamp(static_cast<int>(std::ceil(std::log10(std::abs(v) / s))) + 1, 3, 17);
    return QString::number(v, 'g', digits) + (axis.unit.isEmpty() ? "" : " " + axis.unit);
  }
  const QString number =
      std::abs(v) >= 100 || v == std::floor(v) ? QString::number(v, 'f', 0) : QString::number(v, 'g', 3);
  return axis.unit.isEmpty() ? number : number + " " + axis.unit;
}

// Tick step in the axis's values: nice in its display unit (GiB, not bytes).
double step_of(const Axis& a) {
  double lo = a.min / a.scale, hi = a.max / a.scale;
  return nice_range(lo, hi) * a.scale;
}

// nice_range in the axis's display unit.
void nice_axis(Axis& a) {
  double lo = a.min / a.scale, hi = a.max / a.scale;
  nice_range(lo, hi);
  a.min = lo * a.scale;
  a.max = hi * a.scale;
}

}  // namespace

namespace {

// The tick values of an axis: every multiple of its step inside it, at most kMaxTicks (a step too small for
// the values' magnitude stops at the first tick that does not advance).
constexpr int kMaxTicks = 1000;
std::vector<double> ticks_of(const Axis& a) {
  const double step = step_of(a);
  std::vector<double> out;
  if (!(step > 0) || !std::isfinite(step)) return out;
  const double first = std::ceil(a.min / step);
  for (int k = 0; k < kMaxTicks; ++k) {
    const double v = (first + k) * step;
    if (v > a.max + step * 1e-9 || (!out.empty() && !(v > out.back()))) break;
    out.push_back(v);
  }
  return out;
}

}  // namespace

QRectF draw_axes(QPainter& p, const QRectF& outer, const Axis& x, const Axis& y) {
  const QFontMetricsF fm(p.font());
  const double left = fm.horizontalAdvance("000.0 GiB") + fm.height() + 8;
  const QRectF plot(outer.left() + left, outer.top() + fm.height() * 1.5, outer.width() - left - 16,
                    outer.height() - fm.height() * 4);
  p.save();
  p.setPen(QPen(QColor(225, 225, 225), 1));
  for (const double v : ticks_of(y)) {
    const double py = to_pixel(plot, x, y, x.min, v).y();
    p.setPen(QPen(QColor(225, 225, 225), 1));
    p.drawLine(QPointF(plot.left(), py), QPointF(plot.right(), py));
    p.setPen(Qt::black);
    p.drawText(QRectF(outer.left(), py - fm.height() / 2, left - 6, fm.height()),
               Qt::AlignRight | Qt::AlignVCenter, tick_text(v, y, step_of(y)));
  }
  if (!x.label.isNull()) {
    for (const double v : ticks_of(x)) {
      const double px = to_pixel(plot, x, y, v, y.min).x();
      p.setPen(QPen(QColor(235, 235, 235), 1));
      p.drawLine(QPointF(px, plot.top()), QPointF(px, plot.bottom()));
      p.setPen(Qt::black);
      p.drawText(QRectF(px - 50, plot.bottom() + 2, 100, fm.height()), Qt::AlignHCenter | Qt::AlignTop,
                 tick_text(v, x, step_of(x)));
    }
    p.drawText(QRectF(plot.left(), plot.bottom() + fm.height() + 4, plot.width(), fm.height()),
               Qt::AlignHCenter, x.label);
  }
  p.setPen(QPen(Qt::black, 1));
  p.drawLine(plot.bottomLeft(), plot.bottomRight());
  p.drawLine(plot.bottomLeft(), plot.topLeft());
  p.translate(outer.left() + fm.height() * 0.2, plot.center().y());
  p.rotate(-90);
  p.drawText(QRectF(-plot.height() / 2, 0, plot.height(), fm.height()), Qt::AlignCenter, y.label);
  p.restore();
  return plot;
}

double draw_legend(QPainter& p, const QPointF& top_left, const QStringList& names,
                   const std::vector<QColor>& colors, double max_width) {
  const QFontMetricsF fm(p.font());
  double x = top_left.x(), y = top_left.y();
  const double box = fm.height() * 0.8;
  for (int i = 0; i < names.size(); ++i) {
    const double w = box + 4 + fm.horizontalAdvance(names[i]) + 12;
    if (x + w > top_left.x() + max_width && x > top_left.x()) {
      x = top_left.x();
      y += fm.height() + 2;
    }
    p.fillRect(QRectF(x, y + (fm.height() - box) / 2, box, box), colors[static_cast<std::size_t>(i)]);
    p.setPen(Qt::black);
    p.drawText(QPointF(x + box + 4, y + fm.ascent()), names[i]);
    x += w;
  }
  return y + fm.height() + 2 - top_left.y();
}

void draw_stacked_bars(QPainter& p, const QRectF& outer, const StackedBars& c) {
  const double legend =
      draw_legend(p, outer.topLeft() + QPointF(8, 2), c.categories, c.colors, outer.width() - 16);
  Axis y = c.y;
  double top = c.limit;
  for (std::size_t g = 0; g < c.values.size(); ++g) {
    double sum = 0;
    for (double v : c.values[g]) sum += v;
    top = std::max({top, sum, g < c.markers.size() ? c.markers[g] : 0.0});
  }
  y.min = 0;
  y.max = top * 1.05;
  nice_axis(y);
  Axis x{0, static_cast<double>(std::max<qsizetype>(1, c.groups.size())), QString(), 1, {}};
  const QRectF area = outer.adjusted(0, legend + 4, 0, 0);
  const QRectF plot = draw_axes(p, area.adjusted(0, 0, 0, -QFontMetricsF(p.font()).height() * 2), x, y);
  const double slot = plot.width() / x.max;
  const QFontMetricsF fm(p.font());
  for (std::size_t g = 0; g < c.values.size(); ++g) {
    const double left = plot.left() + slot * (static_cast<double>(g) + 0.15);
    double base = 0;
    for (std::size_t k = 0; k < c.values[g].size(); ++k) {
      const double v = c.values[g][k];
      if (v <= 0) continue;
      const QPointF a = to_pixel(plot, x, y, 0, base), b = to_pixel(plot, x, y, 0, base + v);
      p.fillRect(QRectF(left, b.y(), slot * 0.7, a.y() - b.y()), c.colors[k]);
      base += v;
    }
    if (g < c.markers.size() && c.markers[g] > 0) {
      const double py = to_pixel(plot, x, y, 0, c.markers[g]).y();
      p.setPen(QPen(Qt::black, 2));
      p.drawLine(QPointF(left - 3, py), QPointF(left + slot * 0.7 + 3, py));
    }
    p.save();
    p.setPen(Qt::black);
    p.translate(left + slot * 0.35, plot.bottom() + 4);
    const QString label = fm.elidedText(c.groups[static_cast<int>(g)], Qt::ElideRight, fm.height() * 7);
    if (slot < fm.horizontalAdvance(label) + 4) {
      p.rotate(-35);
      p.drawText(QPointF(-fm.horizontalAdvance(label), fm.ascent()), label);
    } else {
      p.drawText(QRectF(-slot / 2, 0, slot, fm.height()), Qt::AlignHCenter, label);
    }
    p.restore();
  }
  if (c.limit > 0) {
    const double py = to_pixel(plot, x, y, 0, c.limit).y();
    p.setPen(QPen(QColor(200, 0, 0), 1.5, Qt::DashLine));
    p.drawLine(QPointF(plot.left(), py), QPointF(plot.right(), py));
    p.drawText(QPointF(plot.right() - fm.horizontalAdvance(c.limit_label) - 4, py - 3), c.limit_label);
  }
}

std::vector<QPointF> draw_scatter(QPainter& p, const QRectF& outer, const Scatter& c) {
  Axis x = c.x, y = c.y;
  bool any = false;
  const auto extend = [&](const ScatterPoint& pt) {
    if (!any) {
      x.min = x.max = pt.x;
      y.min = y.max = pt.y;
      any = true;
    }
    x.min = std::min(x.min, pt.x), x.max = std::max(x.max, pt.x);
    y.min = std::min(y.min, pt.y), y.max = std::max(y.max, pt.y);
  };
  for (const ScatterPoint& pt : c.front) extend(pt);
  for (const ScatterPoint& pt : c.points) extend(pt);
  if (c.x_limit > 0) x.max = std::max(x.max, c.x_limit), x.min = std::min(x.min, c.x_limit);
  const double xpad = (x.max - x.min) * 0.05 + 1e-9, ypad = (y.max - y.min) * 0.05 + 1e-9;
  x.min -= xpad, x.max += xpad, y.min = std::max(0.0, y.min - ypad), y.max += ypad;
  nice_axis(x);
  nice_axis(y);
  const QRectF plot = draw_axes(p, outer, x, y);
  std::vector<QPointF> where;
  p.save();
  p.setRenderHint(QPainter::Antialiasing);
  if (c.x_limit > 0) {
    const double px = to_pixel(plot, x, y, c.x_limit, 0).x();
    p.setPen(QPen(QColor(200, 0, 0), 1.5, Qt::DashLine));
    p.drawLine(QPointF(px, plot.top()), QPointF(px, plot.bottom()));
    p.drawText(QPointF(px + 3, plot.top() + 12), "memory limit");
  }
  QPolygonF line;
  for (const ScatterPoint& pt : c.front) {
    const QPointF q = to_pixel(plot, x, y, pt.x, pt.y);
    if (!line.isEmpty()) line << QPointF(q.x(), line.back().y());
    line << q;
    where.push_back(q);
  }
  p.setPen(QPen(QColor(40, 90, 200), 1.5));
  p.drawPolyline(line);
  for (std::size_t i = 0; i < c.front.size(); ++i) {
    p.setBrush(c.front[i].highlighted ? QColor(255, 160, 0) : QColor(40, 90, 200));
    p.drawEllipse(where[i], 3.5, 3.5);
  }
  const QFontMetricsF fm(p.font());
  std::vector<QRectF> taken;
  for (const ScatterPoint& pt : c.points) {
    const QPointF q = to_pixel(plot, x, y, pt.x, pt.y);
    where.push_back(q);
    p.setPen(QPen(Qt::black, pt.highlighted ? 2.5 : 1));
    p.setBrush(pt.color);
    p.drawRect(QRectF(q.x() - 4.5, q.y() - 4.5, 9, 9));
    // Labels go right of the point, moved down past labels already drawn there.
    QRectF box(q.x() + 7, q.y() - fm.height() / 2, fm.horizontalAdvance(pt.label) + 2, fm.height());
    for (int tries = 0; tries < 12; ++tries) {
      const bool clash =
          std::any_of(taken.begin(), taken.end(), [&](const QRectF& r) { return r.intersects(box); });
      if (!clash) break;
      box.translate(0, fm.height());
    }
    taken.push_back(box);
    p.setPen(Qt::black);
    p.drawText(box, Qt::AlignLeft | Qt::AlignVCenter, pt.label);
  }
  p.restore();
  return where;
}

namespace {

QImage painted_image(const PaintFunction& paint, const QSize& size) {
  QImage image(size, QImage::Format_ARGB32);
  image.fill(Qt::white);
  QPainter p(&image);
  paint(p, QRectF(QPointF(0, 0), QSizeF(size)));
  return image;
}

// Paints onto an SVG generator writing to `device`; false when the painter cannot start or finish.
bool paint_svg(const PaintFunction& paint, const QSize& size, const QString& title, QSvgGenerator& svg) {
  svg.setSize(size);
  svg.setViewBox(QRect(QPoint(0, 0), size));
  svg.setTitle(title.toHtmlEscaped());  // Qt writes <title> as given: '&' or '<' would break the SVG
  QPainter p;
  if (!p.begin(&svg)) return false;
  p.fillRect(QRectF(QPointF(0, 0), QSizeF(size)), Qt::white);
  paint(p, QRectF(QPointF(0, 0), QSizeF(size)));
  return p.end();
}

}  // namespace

QByteArray png_bytes(const PaintFunction& paint, const QSize& size) {
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  if (!painted_image(paint, size).save(&buffer, "PNG")) return {};
  return bytes;
}

QByteArray svg_bytes(const PaintFunction& paint, const QSize& size, const QString& title) {
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  QSvgGenerator svg;
  svg.setOutputDevice(&buffer);
  if (!paint_svg(paint, size, title, svg)) return {};
  return bytes;
}

bool save_png(const PaintFunction& paint, const QSize& size, const QString& path) {
  return painted_image(paint, size).save(path, "PNG");
}

bool save_svg(const PaintFunction& paint, const QSize& size, const QString& path, const QString& title) {
  QSvgGenerator svg;
  svg.setFileName(path);
  return paint_svg(paint, size, title, svg);
}

}  // namespace shardscope::chart
