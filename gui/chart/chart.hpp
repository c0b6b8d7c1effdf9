// Chart drawing with QPainter only (axes, stacked bars, scatter with a front line, export to PNG and SVG):
// no widget, so the GUI's views and a headless `shardscope plot` draw the same pictures.
#pragma once

#include <QByteArray>
#include <QColor>
#include <QPainter>
#include <QRectF>
#include <QString>
#include <QStringList>
#include <functional>
#include <vector>

namespace shardscope::chart {

// A linear axis from `min` to `max`, with a label and a unit scale for tick texts (value / scale).
struct Axis {
  double min = 0;
  double max = 1;
  QString label;
  double scale = 1;
  QString unit;
};

// Rounds [min, max] out to "nice" tick steps; returns the step.
double nice_range(double& min, double& max, int ticks = 5);

// Draws the frame, ticks, grid and labels; returns the plot area inside `outer`.
QRectF draw_axes(QPainter& p, const QRectF& outer, const Axis& x, const Axis& y);
QPointF to_pixel(const QRectF& plot, const Axis& x, const Axis& y, double vx, double vy);

// Stacked bars: one bar per group (label under it), one segment per category (legend at the top), and a
// horizontal limit line.
struct StackedBars {
  QStringList groups;
  QStringList categories;
  std::vector<QColor> colors;               // one per category
  std::vector<std::vector<double>> values;  // [group][category]
  std::vector<double> markers;              // optional per group: a tick at this value (0: none)
  double limit = 0;                         // 0: no line
  QString limit_label;
  Axis y;
};
void draw_stacked_bars(QPainter& p, const QRectF& outer, const StackedBars& chart);

// Scatter: labelled points and a front drawn as a step line through its points.
struct ScatterPoint {
  double x = 0;
  double y = 0;
  QString label;
  QColor color;
  bool highlighted = false;
};
struct Scatter {
  std::vector<ScatterPoint> front;   // joined by a line
  std::vector<ScatterPoint> points;  // labelled
  double x_limit = 0;                // vertical limit line at this x (0: none)
  Axis x;
  Axis y;
};
// Draws and returns where each point landed: front points first, then `points` (for hit tests).
std::vector<QPointF> draw_scatter(QPainter& p, const QRectF& outer, const Scatter& chart);

// A legend row of coloured boxes; returns its height.
double draw_legend(QPainter& p, const QPointF& top_left, const QStringList& names,
                   const std::vector<QColor>& colors, double max_width);

using PaintFunction = std::function<void(QPainter&, const QRectF&)>;
// The PNG file's bytes of `paint` on a white image of `size`, and the SVG document's (empty when it fails).
QByteArray png_bytes(const PaintFunction& paint, const QSize& size);
QByteArray svg_bytes(const PaintFunction& paint, const QSize& size, const QString& title);
// Renders `paint` onto a white image of `size` and saves it as PNG; false when the file cannot be written.
bool save_png(const PaintFunction& paint, const QSize& size, const QString& path);
// The same as an SVG document (vector).
bool save_svg(const PaintFunction& paint, const QSize& size, const QString& path, const QString& title);

}  // namespace shardscope::chart
