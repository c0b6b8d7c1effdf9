// Picking a chart's x, y and series out of a results table, with an error for every cell that does not fit.
#include "apps/shardscope-plot/plot_data.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <optional>
#include <utility>

#include "planner/core/error.hpp"
#include "planner/core/names.hpp"

namespace shardscope::plot {
namespace {

using cli::ResultTable;

constexpr double kMissing = std::numeric_limits<double>::quiet_NaN();

// The largest magnitude a chart takes: its spans and tick steps (max - min, ceil(max / step) * step) stay
// finite below it. No metric comes near (a byte count of a zettabyte is 1e21).
constexpr double kLargestDrawable = 1e300;

// Decimal number syntax only: [sign] digits [. digits] [e [sign] digits], or [sign] . digits [...]. strtod
// would also read hexadecimal (0x10), "inf" and "nan".
bool decimal_syntax(const std::string& text) {
  std::size_t i = 0;
  const auto digits = [&] {
    const std::size_t from = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    return i > from;
  };
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
  bool mantissa = digits();
  if (i < text.size() && text[i] == '.') {
    ++i;
    mantissa = digits() || mantissa;
  }
  if (!mantissa) return false;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    if (!digits()) return false;
  }
  return i == text.size();
}

// The whole cell as a decimal number a chart can draw (1e-310 is read as the tiny number it is), or nothing.
std::optional<double> number(const std::string& text) {
  if (!decimal_syntax(text)) return std::nullopt;
  const double v = std::strtod(text.c_str(), nullptr);  // underflow gives a tiny number or 0: both fine
  if (!std::isfinite(v) || std::abs(v) > kLargestDrawable) return std::nullopt;
  return v;
}

// The column `name`, or an InputError on the table's header naming the option.
int find_column(const ResultTable& table, const std::string& name, const std::string& option) {
  const int index = table.column(name);
  if (index >= 0) return index;
  throw InputError(table.file, table.header_line, option,
                   "no column '" + name + "' in the results" +
                       suggest_or_list(name, table.columns, "expected one of the columns"));
}

// The part of a column name after its last dot ("memory_limit" of "training.memory_limit").
std::string short_name(const std::string& column) {
  const std::size_t dot = column.rfind('.');
  return dot == std::string::npos ? column : column.substr(dot + 1);
}

// One source of y values: a column, and the series name it gives (the strategy of a metric column).
struct YColumn {
  int index;
  std::string name;
};

// The y columns: `y` itself when it is a column, else every `STRATEGY.y` (of the chosen strategies).
std::vector<YColumn> y_columns(const ResultTable& table, const PlotRequest& r) {
  if (const int index = table.column(r.y); index >= 0) return {{index, ""}};
  std::vector<YColumn> found;
  std::vector<std::string> strategies;
  const std::string tail = "." + r.y;
  for (std::size_t i = 0; i < table.columns.size(); ++i) {
    const std::string& c = table.columns[i];
    if (c.size() <= tail.size() || c.compare(c.size() - tail.size(), tail.size(), tail) != 0) continue;
    const std::string strategy = c.substr(0, c.size() - tail.size());
    strategies.push_back(strategy);
    if (r.strategies.empty() ||
        std::find(r.strategies.begin(), r.strategies.end(), strategy) != r.strategies.end()) {
      found.push_back({static_cast<int>(i), strategy});
    }
  }
  if (strategies.empty()) {
    std::vector<std::string> known = table.columns;
    for (const std::string& m : cli::result_metric_names()) known.push_back(m);
    throw InputError(table.file, table.header_line, "--y",
                     "no column or per-strategy metric '" + r.y + "' in the results" +
                         suggest_or_list(r.y, known, "expected a column or one of the metrics"));
  }
  for (const std::string& s : r.strategies) {
    if (std::find(strategies.begin(), strategies.end(), s) == strategies.end()) {
      throw InputError(table.file, table.header_line, "--strategies",
                       "no strategy '" + s + "' has a column " + s + tail +
                           suggest_or_list(s, strategies, "expected one of"));
    }
  }
  // In the order --strategies gives them.
  std::stable_sort(found.begin(), found.end(), [&](const YColumn& a, const YColumn& b) {
    return std::find(r.strategies.begin(), r.strategies.end(), a.name) <
           std::find(r.strategies.begin(), r.strategies.end(), b.name);
  });
  return found;
}

// The --where conditions as (column, value).
std::vector<std::pair<int, std::string>> conditions(const ResultTable& table, const PlotRequest& r) {
  std::vector<std::pair<int, std::string>> out;
  for (const std::string& w : r.where) {
    const std::size_t eq = w.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw UsageError("--where", "expected COLUMN=VALUE such as training.memory_limit=8GB, got '" + w + "'");
    }
    out.emplace_back(find_column(table, w.substr(0, eq), "--where"), w.substr(eq + 1));
  }
  return out;
}

// The columns (besides point, index, error and the metrics) whose cells differ between two rows.
std::string differing_columns(const ResultTable& table, const ResultTable::Row& a,
                              const ResultTable::Row& b) {
  const std::vector<std::string>& metrics = cli::result_metric_names();
  std::string list;
  for (std::size_t i = 0; i < table.columns.size(); ++i) {
    const std::string& c = table.columns[i];
    if (c == "point" || c == "index" || c == "error") continue;
    if (c.find('.') != std::string::npos &&
        std::find(metrics.begin(), metrics.end(), short_name(c)) != metrics.end())
      continue;
    if (a.cells[i] != b.cells[i]) list += (list.empty() ? "" : ", ") + c;
  }
  return list.empty() ? "none besides the point" : list;
}

std::string default_title(const ResultTable& table, const std::vector<const ResultTable::Row*>& rows,
                          const PlotRequest& r) {
  const int grid = table.column("grid");
  std::string name;
  if (grid >= 0) {
    name = rows.front()->cells[grid];
    for (const ResultTable::Row* row : rows) {
      if (row->cells[grid] != name) name.clear();
    }
  }
  return (name.empty() ? "" : name + ": ") + r.y + " by " + r.x;
}

// The rows every --where condition holds for; an InputError when none does.
std::vector<const ResultTable::Row*> selected_rows(const ResultTable& table, const PlotRequest& r) {
  const auto where = conditions(table, r);
  std::vector<const ResultTable::Row*> rows;
  for (const ResultTable::Row& row : table.rows) {
    const bool keep = std::all_of(where.begin(), where.end(),
                                  [&](const auto& w) { return row.cells[w.first] == w.second; });
    if (keep) rows.push_back(&row);
  }
  if (rows.empty()) {
    std::string text;
    for (const std::string& w : r.where) text += (text.empty() ? "" : " and ") + w;
    throw InputError(table.file, 0, "--where", "no row has " + text);
  }
  return rows;
}

// Whether every x cell is a number (lines need that; an InputError for a line chart asked over text).
bool numeric_x(const std::vector<const ResultTable::Row*>& rows, int x_col, const PlotRequest& r) {
  bool numeric = true;
  for (const ResultTable::Row* row : rows) {
    const std::string& cell = row->cells[x_col];
    if (cell.empty()) throw InputError(row->file, row->line, r.x, "no value on this row for the --x column");
    if (number(cell)) continue;
    numeric = false;
    if (r.kind == ChartKind::line) {
      throw InputError(row->file, row->line, r.x,
                       "a line chart needs a number on x, got '" + cell + "' (use --kind bar)");
    }
  }
  return numeric;
}

// One value of the chart: its series, its x (indices in order of first appearance) and the value.
struct Cell {
  std::size_t series, x;
  double value;
};
struct Cells {
  std::vector<std::string> series_names, x_values;
  std::vector<Cell> cells;
};

std::size_t index_of(std::vector<std::string>& list, const std::string& v) {
  const auto it = std::find(list.begin(), list.end(), v);
  if (it != list.end()) return static_cast<std::size_t>(it - list.begin());
  list.push_back(v);
  return list.size() - 1;
}

// The value of `row` in column `y`: kMissing when empty, an InputError when not a number.
double cell_value(const ResultTable& table, const ResultTable::Row& row, const YColumn& y) {
  const std::string& text = row.cells[y.index];
  if (text.empty()) return kMissing;
  const std::optional<double> v = number(text);
  if (!v) {
    throw InputError(row.file, row.line, table.columns[y.index],
                     "expected a decimal number no larger than 1e300 in size, got '" + text + "'");
  }
  return *v;
}

// Series keys and x positions in order of first appearance, and the values: metric columns first by
// strategy, then by the series column's values (one pass per y column).
Cells collect_cells(const ResultTable& table, const PlotRequest& r, const std::vector<YColumn>& ys,
                    const std::vector<const ResultTable::Row*>& rows, int x_col, int series_col) {
  Cells out;
  std::map<std::pair<std::string, std::string>, const ResultTable::Row*> seen;  // (series, x) -> row
  for (const YColumn& y : ys) {
    for (const ResultTable::Row* row : rows) {
      std::string name = y.name;
      if (series_col >= 0) {
        const std::string label = short_name(r.series) + "=" + row->cells[series_col];
        name = name.empty() ? label : name + " " + label;
      }
      if (name.empty()) name = r.y;
      const std::string& x = row->cells[x_col];
      const auto [it, fresh] = seen.emplace(std::make_pair(name, x), row);
      if (!fresh) {
        throw InputError(
            row->file, row->line, r.x,
            "series '" + name + "' already has a value at " + r.x + " = " + x + " (from " + it->second->file +
                ":" + std::to_string(it->second->line) +
                "); keep one row per x with --where, or split the rows with --series (columns that "
                "differ: " +
                differing_columns(table, *it->second, *row) + ")");
      }
      const double value = cell_value(table, *row, y);
      out.cells.push_back({index_of(out.series_names, name), index_of(out.x_values, x), value});
    }
  }
  if (std::none_of(out.cells.begin(), out.cells.end(),
                   [](const Cell& c) { return std::isfinite(c.value); })) {
    std::string names;
    for (const YColumn& y : ys) names += (names.empty() ? "" : ", ") + table.columns[y.index];
    throw InputError(table.file, 0, "--y",
                     "no plotted row has a value in " + names + " (every point failed or did not fit?)");
  }
  return out;
}

// The cells on the chart: lines with x ascending, bars with x in order of first appearance.
void place_cells(const Cells& c, PlotData& d) {
  d.series = c.series_names;
  std::vector<std::size_t> position(c.x_values.size());
  for (std::size_t i = 0; i < position.size(); ++i) position[i] = i;
  if (d.line) {
    std::vector<std::size_t> order = position;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return *number(c.x_values[a]) < *number(c.x_values[b]);
    });
    for (std::size_t i = 0; i < order.size(); ++i) {
      position[order[i]] = i;
      d.xs.push_back(*number(c.x_values[order[i]]));
    }
  } else {
    d.categories = c.x_values;
  }
  d.values.assign(c.series_names.size(), std::vector<double>(c.x_values.size(), kMissing));
  for (const Cell& cell : c.cells) d.values[cell.series][position[cell.x]] = cell.value;
}

}  // namespace

PlotData plot_data(const ResultTable& table, const PlotRequest& r) {
  if (table.rows.empty()) {
    throw InputError(table.file, table.header_line, "", "no result rows under the header; nothing to plot");
  }
  const int x_col = find_column(table, r.x, "--x");
  const std::vector<YColumn> ys = y_columns(table, r);
  const int series_col = r.series.empty() ? -1 : find_column(table, r.series, "--series");
  const std::vector<const ResultTable::Row*> rows = selected_rows(table, r);

  PlotData d;
  d.title = r.title.empty() ? default_title(table, rows, r) : r.title;
  d.x_label = r.x;
  d.y_label = r.y;
  if (short_name(r.y).size() > 6 && short_name(r.y).substr(short_name(r.y).size() - 6) == "_bytes") {
    d.y_scale = 1024.0 * 1024 * 1024;
    d.y_unit = "GiB";
  }
  const bool numeric = numeric_x(rows, x_col, r);
  d.line = r.kind == ChartKind::line || (r.kind == ChartKind::automatic && numeric);
  place_cells(collect_cells(table, r, ys, rows, x_col, series_col), d);
  return d;
}

}  // namespace shardscope::plot
