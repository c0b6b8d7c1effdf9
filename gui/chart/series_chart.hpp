// Line and grouped-bar charts of named series, with a title and a legend: what `shardscope plot` draws from
// a sweep's results (QPainter only, no widget, like chart.hpp).
#pragma once

#include <QColor>
#include <QPainter>
#include <QRectF>
#include <QString>
#include <QStringList>
#include <vector>

#include "chart/chart.hpp"

namespace shardscope::chart {

// `count` distinct colours in a fixed order (the same series count gives the same colours).
std::vector<QColor> series_colors(std::size_t count);

// One line: points in x order; a NaN y is a gap (no value there: the line breaks).
struct LineSeries {
  QString name;
  QColor color;
  std::vector<double> x;
  std::vector<double> y;
};
struct LineChart {
  QString title;
  std::vector<LineSeries> series;
  Axis x;  // label, scale and unit; the range is taken from the points
  Axis y;
};
void draw_line_chart(QPainter& p, const QRectF& outer, const LineChart& chart);

// Bars side by side in each group (one per series); a NaN value draws `missing_label` instead of a bar.
struct GroupedBars {
  QString title;
  QString x_label;
  QStringList groups;
  QStringList series;
  std::vector<QColor> colors;               // one per series
  std::vector<std::vector<double>> values;  // [group][series]
  QString missing_label = "n/a";
  Axis y;
};
void draw_grouped_bars(QPainter& p, const QRectF& outer, const GroupedBars& chart);

}  // namespace shardscope::chart
