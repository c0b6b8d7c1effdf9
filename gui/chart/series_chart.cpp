// Line and grouped-bar charts over chart.hpp's axes and legend.
#include "chart/series_chart.hpp"

#include <QFontMetricsF>
#include <QPolygonF>
#include <algorithm>
#include <cmath>

namespace shardscope::chart {
namespace {

// A bold centred title across the top; returns the height it took (0 without a title).
double draw_title(QPainter& p, const QRectF& outer, const QString& title) {
  if (title.isEmpty()) return 0;
  p.save();
  QFont font = p.font();
  font.setBold(true);
  font.setPointSizeF(font.pointSizeF() * 1.2);
  p.setFont(font);
  const double height = QFontMetricsF(font).height() + 6;
  p.setPen(Qt::black);
  p.drawText(QRectF(outer.left(), outer.top() + 4, outer.width(), height), Qt::AlignHCenter | Qt::AlignTop,
             title);
  p.restore();
  return height + 4;
}

// Rounds the axis out to nice ticks in its display unit (GiB, not bytes).
void round_out(Axis& a) {
  double lo = a.min / a.scale, hi = a.max / a.scale;
  nice_range(lo, hi);
  a.min = lo * a.scale;
  a.max = hi * a.scale;
}

// The range of the finite values, from zero when none is negative.
void fit_values(Axis& a, const std::vector<double>& values) {
  bool any = false;
  for (double v : values) {
    if (!std::isfinite(v)) continue;
    a.min = any ? std::min(a.min, v) : v;
    a.max = any ? std::max(a.max, v) : v;
    any = true;
  }
  if (!any) a.min = 0, a.max = 1;
  if (a.min > 0) a.min = 0;
  if (a.max <= a.min) a.max = a.min + a.scale;
  a.max += (a.max - a.min) * 0.05;
  round_out(a);
}

}  // namespace

std::vector<QColor> series_colors(std::size_t count) {
  static const QColor palette[] = {QColor(31, 119, 180),  QColor(255, 127, 14),  QColor(44, 160, 44),
                                   QColor(214, 39, 40),   QColor(148, 103, 189), QColor(140, 86, 75),
                                   QColor(227, 119, 194), QColor(127, 127, 127), QColor(188, 189, 34),
                                   QColor(23, 190, 207)};
  constexpr std::size_t kPalette = sizeof(palette) / sizeof(palette[0]);
  std::vector<QColor> colors;
  for (std::size_t i = 0; i < count; ++i) {
    // Past the palette, the same hues darker, then lighter.
    const QColor base = palette[i % kPalette];
    const std::size_t round = i / kPalette;
    colors.push_back(round == 0 ? base : round % 2 == 1 ? base.darker(140) : base.lighter(140));
  }
  return colors;
}

void draw_line_chart(QPainter& p, const QRectF& outer, const LineChart& c) {
  const double title = draw_title(p, outer, c.title);
  QStringList names;
  std::vector<QColor> colors;
  std::vector<double> xs, ys;
  for (const LineSeries& s : c.series) {
    names << s.name;
    colors.push_back(s.color);
    xs.insert(xs.end(), s.x.begin(), s.x.end());
    ys.insert(ys.end(), s.y.begin(), s.y.end());
  }
  const double legend =
      draw_legend(p, outer.topLeft() + QPointF(8, title + 2), names, colors, outer.width() - 16);
  Axis x = c.x, y = c.y;
  fit_values(y, ys);
  // x: the points' own range, not from zero.
  x.min = xs.empty() ? 0 : *std::min_element(xs.begin(), xs.end());
  x.max = xs.empty() ? 1 : *std::max_element(xs.begin(), xs.end());
  if (x.max <= x.min) x.min -= x.scale, x.max += x.scale;
  round_out(x);
  const QRectF plot = draw_axes(p, outer.adjusted(0, title + legend + 4, 0, 0), x, y);
  p.save();
  p.setRenderHint(QPainter::Antialiasing);
  for (const LineSeries& s : c.series) {
    QPolygonF run;
    const auto flush = [&] {
      p.setPen(QPen(s.color, 2));
      if (run.size() > 1) p.drawPolyline(run);
      run.clear();
    };
    for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!std::isfinite(s.y[i])) {
        flush();
        continue;
      }
      run << to_pixel(plot, x, y, s.x[i], s.y[i]);
    }
    flush();
    p.setPen(QPen(s.color, 1));
    p.setBrush(s.color);
    for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (std::isfinite(s.y[i])) p.drawEllipse(to_pixel(plot, x, y, s.x[i], s.y[i]), 3.5, 3.5);
    }
  }
  p.restore();
}

void draw_grouped_bars(QPainter& p, const QRectF& outer, const GroupedBars& c) {
  const double title = draw_title(p, outer, c.title);
  const double legend =
      draw_legend(p, outer.topLeft() + QPointF(8, title + 2), c.series, c.colors, outer.width() - 16);
  Axis y = c.y;
  std::vector<double> all;
  for (const std::vector<double>& group : c.values) all.insert(all.end(), group.begin(), group.end());
  fit_values(y, all);
  const QFontMetricsF fm(p.font());
  Axis x{0, static_cast<double>(std::max<qsizetype>(1, c.groups.size())), QString(), 1, {}};
  const QRectF area = outer.adjusted(0, title + legend + 4, 0, -fm.height() * 2.5);
  const QRectF plot = draw_axes(p, area, x, y);
  const double slot = plot.width() / x.max;
  const double bars = std::max<double>(1, static_cast<double>(c.series.size()));
  const double bar = slot * 0.8 / bars;
  const double zero = to_pixel(plot, x, y, 0, std::max(0.0, y.min)).y();
  for (std::size_t g = 0; g < c.values.size(); ++g) {
    const double left = plot.left() + slot * (static_cast<double>(g) + 0.1);
    for (std::size_t k = 0; k < c.values[g].size() && k < c.colors.size(); ++k) {
      const double v = c.values[g][k];
      const double bx = left + bar * static_cast<double>(k);
      if (!std::isfinite(v)) {
        p.save();
        p.setPen(QColor(120, 120, 120));
        p.translate(bx + bar / 2, zero - 3);
        p.rotate(-90);
        p.drawText(QPointF(0, fm.ascent() / 2 - 1), c.missing_label);
        p.restore();
        continue;
      }
      const double top = to_pixel(plot, x, y, 0, v).y();
      p.fillRect(QRectF(bx, std::min(top, zero), bar * 0.92, std::abs(zero - top)), c.colors[k]);
    }
    // The group's label under it, slanted when it does not fit its slot.
    p.save();
    p.setPen(Qt::black);
    p.translate(plot.left() + slot * (static_cast<double>(g) + 0.5), plot.bottom() + 4);
    const QString label = fm.elidedText(c.groups[static_cast<int>(g)], Qt::ElideRight, fm.height() * 9);
    if (slot < fm.horizontalAdvance(label) + 4) {
      p.rotate(-30);
      p.drawText(QPointF(-fm.horizontalAdvance(label), fm.ascent()), label);
    } else {
      p.drawText(QRectF(-slot / 2, 0, slot, fm.height()), Qt::AlignHCenter, label);
    }
    p.restore();
  }
  p.setPen(Qt::black);
  p.drawText(QRectF(plot.left(), outer.bottom() - fm.height() - 2, plot.width(), fm.height()),
             Qt::AlignHCenter, c.x_label);
}

}  // namespace shardscope::chart
