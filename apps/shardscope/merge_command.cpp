// `shardscope merge results*.jsonl [--csv out.csv] [--grid GRID]`: one row per point (the latest ok or
// does-not-fit row wins over earlier ones and over errors), the grid's missing points reported, and one flat,
// deterministic CSV with a column per axis and per strategy metric.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>

#include "apps/shardscope/commands.hpp"
#include "apps/shardscope/exit_status.hpp"
#include "apps/shardscope/option_checks.hpp"
#include "apps/shardscope/output_file.hpp"
#include "apps/shardscope/sweep_plan.hpp"
#include "apps/shardscope/sweep_rows.hpp"
#include "planner/core/error.hpp"

namespace shardscope::cli {
namespace {

// Metric columns in this order (those present in some row), per strategy.
const char* const kMetrics[] = {"fits",
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

std::string csv_cell(const Json& value) {
  if (value.is_null()) return "";
  std::string text = value.is_string() ? value.get<std::string>() : value.dump();
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

struct Options {
  std::vector<std::string> inputs;
  std::string csv, grid;
};

}  // namespace

Registered register_merge(CLI::App& app) {
  auto* cmd = app.add_subcommand("merge", "Merge sweep results (JSON lines) into one CSV, one row per point");
  auto o = std::make_shared<Options>();
  cmd->add_option("results", o->inputs, "Results files written by `shardscope sweep --out`")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--csv", o->csv, "Write the CSV here (default: standard output)")
      ->check(non_empty("a file path"));
  cmd->add_option("--grid", o->grid, "Report the points of this grid that no results file records")
      ->check(non_empty("a file path"));
  return {cmd, [o](std::ostream& out) {
            const OutputFile csv_file = o->csv.empty() ? OutputFile() : OutputFile("--csv", o->csv);
            // Latest final row per (point, simulated), else its latest error row.
            using Key = std::pair<std::string, bool>;
            std::map<Key, Json> chosen;
            std::size_t read = 0;
            for (const std::string& path : o->inputs) {
              int skipped = 0;
              for (Json& row : read_rows(path, &skipped)) {
                ++read;
                const Key key{row["point"].get<std::string>(), row.value("simulated", false)};
                const auto it = chosen.find(key);
                if (it == chosen.end() || row_is_final(row) || !row_is_final(it->second)) chosen[key] = row;
              }
              if (skipped > 0) std::cerr << path << ": " << skipped << " unreadable lines ignored\n";
            }
            std::vector<Json> rows;
            for (auto& [key, row] : chosen) rows.push_back(row);
            std::stable_sort(rows.begin(), rows.end(), [](const Json& a, const Json& b) {
              return std::make_tuple(a.value("grid", std::string()), a.value("index", std::size_t{0}),
                                     a["point"].get<std::string>(), a.value("simulated", false)) <
                     std::make_tuple(b.value("grid", std::string()), b.value("index", std::size_t{0}),
                                     b["point"].get<std::string>(), b.value("simulated", false));
            });
            // Columns: axes and strategies in order of first appearance (grid order when --grid is given).
            std::vector<std::string> axes, strategies;
            auto note = [](std::vector<std::string>& list, const std::string& name) {
              if (std::find(list.begin(), list.end(), name) == list.end()) list.push_back(name);
            };
            std::size_t missing = 0;
            if (!o->grid.empty()) {
              const SweepPoints points = prepare_sweep(o->grid);
              for (const GridAxis& a : points.grid.axes) note(axes, a.path);
              std::set<std::string> recorded;
              for (const Json& r : rows) {
                if (row_is_final(r)) recorded.insert(r["point"].get<std::string>());
              }
              for (const SweepTask& t : points.tasks) {
                if (recorded.count(t.id) > 0) continue;
                if (missing++ < 20) std::cerr << "missing: point " << t.index << " (" << t.id << ")\n";
              }
              if (missing > 20) std::cerr << "missing: ... and " << missing - 20 << " more\n";
              std::cerr << o->grid << ": " << points.tasks.size() - missing << " of " << points.tasks.size()
                        << " points have an ok or does-not-fit row" << (missing > 0 ? "" : ", none missing")
                        << "\n";
            }
            std::set<std::string> metrics_present;
            for (const Json& r : rows) {
              // (items() of a temporary would outlive it: keep each object in a variable.)
              const Json row_axes = r.value("axes", Json::object());
              for (const auto& [axis, value] : row_axes.items()) note(axes, axis);
              const Json row_metrics = r.value("metrics", Json::object());
              for (const auto& [strategy, m] : row_metrics.items()) {
                note(strategies, strategy);
                for (const auto& [metric, value] : m.items()) metrics_present.insert(metric);
              }
            }
            std::string csv = "point,grid,index,simulated,status";
            for (const std::string& a : axes) csv += "," + csv_cell(a);
            for (const std::string& s : strategies) {
              for (const char* m : kMetrics) {
                if (metrics_present.count(m) > 0) csv += "," + csv_cell(s + "." + m);
              }
            }
            csv += ",error\n";
            for (const Json& r : rows) {
              csv += csv_cell(r["point"]) + "," + csv_cell(r.value("grid", Json())) + "," +
                     csv_cell(r.value("index", Json())) + "," + csv_cell(r.value("simulated", false)) + "," +
                     csv_cell(r.value("status", Json()));
              const Json row_axes = r.value("axes", Json::object());
              for (const std::string& a : axes) csv += "," + csv_cell(row_axes.value(a, Json()));
              const Json metrics = r.value("metrics", Json::object());
              for (const std::string& s : strategies) {
                const Json m = metrics.value(s, Json::object());
                for (const char* name : kMetrics) {
                  if (metrics_present.count(name) > 0) csv += "," + csv_cell(m.value(name, Json()));
                }
              }
              csv += "," + csv_cell(r.value("error", Json())) + "\n";
            }
            if (csv_file.requested()) {
              csv_file.write(csv);
              out << "Merged " << read << " rows into " << rows.size() << " points: " << o->csv << "\n";
            } else {
              out << csv;
            }
            if (missing > 0) {
              throw PointsFailed(std::to_string(missing) + " points of " + o->grid +
                                 " have no ok or does-not-fit row (listed above); the CSV holds the others");
            }
          }};
}

}  // namespace shardscope::cli
