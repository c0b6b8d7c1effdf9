// PlotData to gui/chart's line and grouped-bar charts, rendered to SVG or PNG bytes.
#include "apps/shardscope-plot/render.hpp"

#include <QFont>

#include "chart/chart.hpp"
#include "chart/series_chart.hpp"

namespace shardscope::plot {
namespace {

QString text(const std::string& s) { return QString::fromStdString(s); }

chart::Axis axis(const std::string& label, double scale, const std::string& unit) {
  chart::Axis a;
  a.label = text(label);
  a.scale = scale;
  a.unit = text(unit);
  return a;
}

}  // namespace

QByteArray render_plot(const PlotData& d, ImageFormat format, const QSize& size_pixels) {
  const std::vector<QColor> colors = chart::series_colors(d.series.size());
  chart::PaintFunction paint;
  if (d.line) {
    chart::LineChart c;
    c.title = text(d.title);
    c.x = axis(d.x_label, 1, "");
    c.y = axis(d.y_label, d.y_scale, d.y_unit);
    for (std::size_t s = 0; s < d.series.size(); ++s) {
      c.series.push_back({text(d.series[s]), colors[s], d.xs, d.values[s]});
    }
    paint = [c](QPainter& p, const QRectF& r) { chart::draw_line_chart(p, r.adjusted(8, 4, -8, -8), c); };
  } else {
    chart::GroupedBars c;
    c.title = text(d.title);
    c.x_label = text(d.x_label);
    for (const std::string& g : d.categories) c.groups << text(g);
    for (const std::string& s : d.series) c.series << text(s);
    c.colors = colors;
    c.values.assign(d.categories.size(), std::vector<double>(d.series.size()));
    for (std::size_t s = 0; s < d.series.size(); ++s) {
      for (std::size_t g = 0; g < d.categories.size(); ++g) c.values[g][s] = d.values[s][g];
    }
    c.y = axis(d.y_label, d.y_scale, d.y_unit);
    paint = [c](QPainter& p, const QRectF& r) { chart::draw_grouped_bars(p, r.adjusted(8, 4, -8, -8), c); };
  }
  // One named font at a fixed size, so the picture does not follow the desktop's settings.
  const chart::PaintFunction with_font = [paint](QPainter& p, const QRectF& r) {
    p.setFont(QFont(QStringLiteral("DejaVu Sans"), 9));
    paint(p, r);
  };
  return format == ImageFormat::png ? chart::png_bytes(with_font, size_pixels)
                                    : chart::svg_bytes(with_font, size_pixels, text(d.title));
}

}  // namespace shardscope::plot
