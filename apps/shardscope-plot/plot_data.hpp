// What `shardscope plot` draws, taken from a results table: which column is x, which values are y, how the
// rows split into series; every bad choice or cell is an InputError naming the file, line and column.
#pragma once

#include <string>
#include <vector>

#include "apps/shardscope/result_table.hpp"

namespace shardscope::plot {

enum class ChartKind { automatic, line, bar };

struct PlotRequest {
  std::string x;                        // a column (an axis such as cluster.nodes)
  std::string y;                        // a column, or a metric every strategy has (samples_per_second)
  std::string series;                   // a column whose values split the rows into series ("": none)
  std::vector<std::string> strategies;  // with a metric y: only these strategies ("": all)
  std::vector<std::string> where;       // COLUMN=VALUE conditions every plotted row meets
  ChartKind kind = ChartKind::automatic;
  std::string title;  // "": made from the grid, y and x
};

struct PlotData {
  std::string title;
  std::string x_label;
  std::string y_label;
  double y_scale = 1;  // y values are divided by this for tick texts
  std::string y_unit;
  bool line = false;                        // a line chart over numeric x, else grouped bars
  std::vector<std::string> series;          // legend order
  std::vector<std::string> categories;      // bars: the x values in order of first appearance
  std::vector<double> xs;                   // lines: the distinct x values, ascending
  std::vector<std::vector<double>> values;  // [series][x or category]; NaN: no value there
};

// Builds the chart's data. Throws InputError for an unknown column or strategy, a --where that is not
// COLUMN=VALUE or matches no row, a table without rows, a y cell that is not a number, two rows giving one
// series two values at the same x, a line chart asked over non-numeric x, or no y value at all.
PlotData plot_data(const cli::ResultTable& table, const PlotRequest& request);

}  // namespace shardscope::plot
