// `shardscope merge results*.jsonl [--csv out.csv] [--grid GRID]`: one row per point (the latest ok or
// does-not-fit row wins over earlier ones and over errors), the grid's missing points reported, and one flat,
// deterministic CSV with a column per axis and per strategy metric.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <string>

#include "apps/shardscope/commands.hpp"
#include "apps/shardscope/exit_status.hpp"
#include "apps/shardscope/option_checks.hpp"
#include "apps/shardscope/output_file.hpp"
#include "apps/shardscope/result_table.hpp"
#include "apps/shardscope/sweep_plan.hpp"
#include "planner/core/error.hpp"

namespace shardscope::cli {
namespace {

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
            std::vector<std::string> inputs = o->inputs;
            inputs.push_back(o->grid);
            refuse_input_as_output("--csv", o->csv, inputs);
            const OutputFile csv_file = o->csv.empty() ? OutputFile() : OutputFile("--csv", o->csv);
            // Axes in the grid's order when --grid is given, its missing points listed.
            std::vector<std::string> grid_axes;
            std::vector<SweepTask> grid_tasks;
            GridRows only;
            if (!o->grid.empty()) {
              const SweepPoints points = prepare_sweep(o->grid);
              for (const GridAxis& a : points.grid.axes) grid_axes.push_back(a.path);
              grid_tasks = points.tasks;
              only.name = points.grid.name;
              for (const SweepTask& t : grid_tasks) only.points.insert(t.id);
            }
            const MergedResults merged = merge_result_files(o->inputs, grid_axes, std::cerr, only);
            if (merged.left_out > 0) {
              std::cerr << "warning: " << merged.left_out << " rows of other grids than " << only.name
                        << ", or of points not in " << o->grid << ", left out (merge without --grid takes "
                        << "every row)\n";
            }
            std::size_t missing = 0;
            if (!o->grid.empty()) {
              for (const SweepTask& t : grid_tasks) {
                if (merged.final_points.count(t.id) > 0) continue;
                if (missing++ < 20) std::cerr << "missing: point " << t.index << " (" << t.id << ")\n";
              }
              if (missing > 20) std::cerr << "missing: ... and " << missing - 20 << " more\n";
              std::cerr << o->grid << ": " << grid_tasks.size() - missing << " of " << grid_tasks.size()
                        << " points have an ok or does-not-fit row" << (missing > 0 ? "" : ", none missing")
                        << "\n";
            }
            const std::string csv = table_csv(merged.table);
            if (csv_file.requested()) {
              csv_file.write(csv);
              out << "Merged " << merged.rows_read << " rows into " << merged.table.rows.size()
                  << " points: " << o->csv << "\n";
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
