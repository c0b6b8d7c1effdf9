// Sweep results as one flat table: merging JSON-lines results files (what `merge` writes as CSV and `plot`
// draws), and writing and reading that CSV, each row remembering the file and line it came from.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <set>
#include <string>
#include <vector>

namespace shardscope::cli {

// Columns `point,grid,index,simulated,status`, one per axis, `STRATEGY.METRIC` per strategy, `error`.
struct ResultTable {
  struct Row {
    std::vector<std::string> cells;  // one per column; "" for an absent value
    std::string file;                // where the row was read, for messages
    int line = 0;
  };
  std::string file;     // the (first) file the table was read from
  int header_line = 0;  // the CSV header's line in `file`; 0 for merged JSON lines (no header line)
  std::vector<std::string> columns;
  std::vector<Row> rows;

  // The index of the column named `name`, or -1.
  int column(const std::string& name) const;
};

// The per-strategy metrics a results row may hold, in column order (`STRATEGY.METRIC`).
const std::vector<std::string>& result_metric_names();

struct MergedResults {
  ResultTable table;
  std::size_t rows_read = 0;           // result rows read from all files
  std::set<std::string> final_points;  // points whose chosen row is ok or does-not-fit
  std::size_t left_out = 0;            // rows of another grid or point than the one merged (GridRows)
};

// The rows of one grid (merge --grid): its name and its points' ids. Empty: every row is taken.
struct GridRows {
  std::string name;
  std::set<std::string> points;
};

// Merges results files written by `shardscope sweep --out`: one row per (point, simulated), the latest ok or
// does-not-fit row winning over earlier ones and over errors (else the latest error row), sorted by grid,
// index, point and simulated. Axis columns come in `axes_first` order (the grid's), then in order of first
// appearance; strategies in order of first appearance; a metric column only when some row has it. A count of
// unreadable lines per file goes to `warnings`. With `only` given, a row of another grid (its `grid` is not
// only.name) or of a point not in only.points is left out and counted, so it can neither join the table nor
// replace the grid's own row of the same point.
MergedResults merge_result_files(const std::vector<std::string>& paths,
                                 const std::vector<std::string>& axes_first, std::ostream& warnings,
                                 const GridRows& only = {});

// The table as CSV: a header line, then one line per row; a cell holding a comma, quote or line break is
// quoted (quotes doubled). The same table gives the same bytes.
std::string table_csv(const ResultTable& table);

// Reads CSV text (as table_csv writes it, or any RFC 4180 file with a header line). Throws InputError naming
// `file` and the line: an empty file, a row whose cell count differs from the header's, an unclosed quote.
ResultTable parse_result_csv(const std::string& text, const std::string& file);

// A results file as a table: a `.csv` file parsed, anything else merged as JSON lines (one or more files).
// Throws InputError for a file that cannot be read or holds no result rows.
ResultTable read_result_table(const std::vector<std::string>& paths, std::ostream& warnings);

}  // namespace shardscope::cli
