// Drawing a PlotData with gui/chart into the bytes of an SVG or PNG file (needs a QGuiApplication).
#pragma once

#include <QByteArray>
#include <QSize>

#include "apps/shardscope-plot/plot_data.hpp"

namespace shardscope::plot {

enum class ImageFormat { svg, png };

// The file's bytes: a line chart or grouped bars with the title, legend and axis labels; empty on failure.
QByteArray render_plot(const PlotData& data, ImageFormat format, const QSize& size_pixels);

}  // namespace shardscope::plot
