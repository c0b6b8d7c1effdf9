// Merging sweep results files into one table: the latest final row per point, deterministic columns.
#include <algorithm>
#include <map>
#include <ostream>
#include <set>
#include <tuple>
#include <utility>

#include "apps/shardscope/result_table.hpp"
#include "apps/shardscope/sweep_rows.hpp"
#include "planner/core/error.hpp"

namespace shardscope::cli {

// Metric columns in this order (those present in some row), per strategy.
const std::vector<std::string>& result_metric_names() {
  static const std::vector<std::string> names = {"fits",
                                                 "micro_batch",
                                                 "accumulation_steps",
                                                 "iteration_seconds",
                                                 "samples_per_second",
                                                 "tokens_per_second",
                                                 "peak_memory_bytes",
                                                 "speedup_over_fsdp",
                                                 "shortfall_bytes",
                                                 "simulated_iteration_seconds",
                                                 "simulated_samples_per_second",
                                                 "simulated_peak_memory_bytes",
                                                 "simulation_error"};
  return names;
}

namespace {

// A JSON value as one cell's text: strings as they are, other values as JSON, null as "".
std::string cell_text(const Json& value) {
  if (value.is_null()) return "";
  return value.is_string() ? value.get<std::string>() : value.dump();
}

struct SourcedRow {
  Json row;
  std::string file;
  int line = 0;
};

void note(std::vector<std::string>& list, const std::string& name) {
  if (std::find(list.begin(), list.end(), name) == list.end()) list.push_back(name);
}

auto sort_key(const Json& r) {
  return std::make_tuple(r.value("grid", std::string()), r.value("index", std::size_t{0}),
                         r["point"].get<std::string>(), r.value("simulated", false));
}

// The rows to merge, sorted: per (point, simulated) the latest final row, else its latest error row. Counts
// the rows read and left out (not of `only`) in `merged`.
std::vector<SourcedRow> choose_rows(const std::vector<std::string>& paths, std::ostream& warnings,
                                    const GridRows& only, MergedResults& merged) {
  using Key = std::pair<std::string, bool>;
  std::map<Key, SourcedRow> chosen;
  std::string first_build, first_where;  // the version and revision of the first row, and where it is
  for (const std::string& path : paths) {
    int skipped = 0;
    std::vector<int> lines;
    std::vector<Json> rows = read_rows(path, &skipped, &lines);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      ++merged.rows_read;
      if (!only.name.empty() && (rows[i].value("grid", only.name) != only.name ||
                                 only.points.count(rows[i]["point"].get<std::string>()) == 0)) {
        ++merged.left_out;
        continue;
      }
      const std::string build = rows[i].value("version", std::string("?")) + " (revision " +
                                rows[i].value("revision", std::string("?")) + ")";
      if (first_build.empty()) {
        first_build = build;
        first_where = path + ":" + std::to_string(lines[i]);
      } else if (build != first_build) {
        throw InputError(path, lines[i], "revision",
                         "written by shardscope " + build + ", but " + first_where + " by shardscope " +
                             first_build +
                             ": rows of two planners may give one point two answers; merge each one's files "
                             "apart");
      }
      const Key key{rows[i]["point"].get<std::string>(), rows[i].value("simulated", false)};
      const auto it = chosen.find(key);
      if (it == chosen.end() || row_is_final(rows[i]) || !row_is_final(it->second.row)) {
        chosen[key] = SourcedRow{std::move(rows[i]), path, lines[i]};
      }
    }
    if (skipped > 0) warnings << path << ": " << skipped << " unreadable lines ignored\n";
  }
  std::vector<SourcedRow> rows;
  for (auto& [key, row] : chosen) rows.push_back(std::move(row));
  std::stable_sort(rows.begin(), rows.end(), [](const SourcedRow& a, const SourcedRow& b) {
    return sort_key(a.row) < sort_key(b.row);
  });
  return rows;
}

// The table of `rows`: axes (`axes` first) and strategies in order of first appearance, each strategy's
// metrics that some row has. Notes the final points in `merged`.
void fill_table(const std::vector<SourcedRow>& rows, std::vector<std::string> axes, MergedResults& merged) {
  std::vector<std::string> strategies;
  std::set<std::string> metrics_present;
  for (const SourcedRow& s : rows) {
    if (row_is_final(s.row)) merged.final_points.insert(s.row["point"].get<std::string>());
    // (items() of a temporary would outlive it: keep each object in a variable.)
    const Json row_axes = s.row.value("axes", Json::object());
    for (const auto& [axis, value] : row_axes.items()) note(axes, axis);
    const Json row_metrics = s.row.value("metrics", Json::object());
    for (const auto& [strategy, m] : row_metrics.items()) {
      note(strategies, strategy);
      for (const auto& [metric, value] : m.items()) metrics_present.insert(metric);
    }
  }
  ResultTable& table = merged.table;
  table.columns = {"point", "grid", "index", "simulated", "status"};
  for (const std::string& a : axes) table.columns.push_back(a);
  for (const std::string& s : strategies) {
    for (const std::string& m : result_metric_names()) {
      if (metrics_present.count(m) > 0) table.columns.push_back(s + "." + m);
    }
  }
  table.columns.push_back("error");
  for (const SourcedRow& s : rows) {
    const Json& r = s.row;
    ResultTable::Row out{{}, s.file, s.line};
    out.cells = {cell_text(r["point"]), cell_text(r.value("grid", Json())),
                 cell_text(r.value("index", Json())), cell_text(r.value("simulated", false)),
                 cell_text(r.value("status", Json()))};
    const Json row_axes = r.value("axes", Json::object());
    for (const std::string& a : axes) out.cells.push_back(cell_text(row_axes.value(a, Json())));
    const Json metrics = r.value("metrics", Json::object());
    for (const std::string& strategy : strategies) {
      const Json m = metrics.value(strategy, Json::object());
      for (const std::string& name : result_metric_names()) {
        if (metrics_present.count(name) > 0) out.cells.push_back(cell_text(m.value(name, Json())));
      }
    }
    out.cells.push_back(cell_text(r.value("error", Json())));
    table.rows.push_back(std::move(out));
  }
}

}  // namespace

MergedResults merge_result_files(const std::vector<std::string>& paths,
                                 const std::vector<std::string>& axes_first, std::ostream& warnings,
                                 const GridRows& only) {
  MergedResults merged;
  merged.table.file = paths.empty() ? std::string() : paths.front();
  const std::vector<SourcedRow> rows = choose_rows(paths, warnings, only, merged);
  fill_table(rows, axes_first, merged);
  return merged;
}

}  // namespace shardscope::cli
