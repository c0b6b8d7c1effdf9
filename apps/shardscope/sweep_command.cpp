// `shardscope sweep GRID [--dry-run] [--out results.jsonl] [--jobs N] [--simulate] [--shard i/n|auto]
// [--resume] [--retry-errors] [--timeout S] [--mpi]`: every point of a grid in a child process, one JSON row
// per point appended to the results file.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>
#include <thread>

#include "apps/shardscope/commands.hpp"
#include "apps/shardscope/exit_status.hpp"
#include "apps/shardscope/output_file.hpp"
#include "apps/shardscope/simulator_exec.hpp"
#include "apps/shardscope/sweep_options.hpp"
#include "apps/shardscope/sweep_plan.hpp"
#include "apps/shardscope/sweep_progress.hpp"
#include "planner/core/error.hpp"
#include "planner/core/printable.hpp"
#include "planner/search/search_space.hpp"
#include "present/text_table.hpp"

namespace shardscope::cli {

namespace {

std::string shard_text(const Shard& shard) {
  return std::to_string(shard.index) + "/" + std::to_string(shard.count);
}

std::string count_text(const PointCost& cost, std::int64_t value) {
  return cost.known ? std::to_string(value) : "unknown";
}

// Each point's estimated cost (sweep_cost.hpp), the total, and the order points are handed out in.
void print_costs(const std::vector<SweepTask>& tasks, bool simulate, std::ostream& out) {
  std::int64_t choices = 0, activities = 0;
  std::size_t unknown = 0;
  for (const SweepTask& t : tasks) {
    choices += t.cost.planner_choices;
    activities += t.cost.simulator_activities;
    unknown += t.cost.known ? 0 : 1;
  }
  out << "\nEstimated cost: the planner prices at most " << choices << " operator choices";
  if (simulate) out << ", the simulator starts about " << activities << " activities";
  out << (unknown > 0 ? " (" + std::to_string(unknown) + " points unknown: their runs say why)" : "") << ".\n"
      << "Points run " << (simulate ? "most simulator activities" : "most planner choices") << " first"
      << (simulate ? "; a strategy whose plan does not fit is not simulated.\n" : ".\n");
}

void print_dry_run(const SweepPoints& points, const std::vector<SweepTask>& tasks, const Shard& shard,
                   const std::string& grid_file, bool simulate, std::ostream& out) {
  out << "Grid  " << points.grid.name << " (" << grid_file << "): " << points.tasks.size() << " points, "
      << (points.grid.zip ? "zip" : "product") << " of " << points.grid.axes.size() << " ax"
      << (points.grid.axes.size() == 1 ? "is" : "es");
  if (points.duplicates > 0) out << " (" << points.duplicates << " duplicates of other points dropped)";
  if (shard.count > 1) out << "; shard " << shard_text(shard) << ": " << tasks.size() << " points";
  out << "\n\n";
  std::vector<std::string> header = {"#", "point"};
  for (const GridAxis& a : points.grid.axes) header.push_back(a.path);
  header.push_back("planner choices");
  if (simulate) header.push_back("simulator activities");
  present::TextTable table(header);
  for (const SweepTask& t : tasks) {
    std::vector<std::string> row = {std::to_string(t.index), t.id};
    for (const auto& [path, value] : t.axes) row.push_back(value);
    row.push_back(count_text(t.cost, t.cost.planner_choices));
    if (simulate) row.push_back(count_text(t.cost, t.cost.simulator_activities));
    table.add(row);
  }
  table.print(out);
  print_costs(tasks, simulate, out);
}

struct Counts {
  std::size_t done = 0, ok = 0, no_fit = 0, errors = 0;
};

Counts run_locally(const std::vector<SweepTask>& tasks, const SweepRunOptions& options, RowWriter& writer,
                   const SweepOptions& o) {
  const InterruptFlag interrupt;
  SweepProgress progress(std::cerr, progress_style(o.progress, o.quiet), tasks.size());
  ChildPool pool(options);
  Counts counts;
  std::size_t next = 0;
  progress.update(0, 0);
  while (counts.done < tasks.size()) {
    while (next < tasks.size() && pool.has_room() && !interrupt.raised()) pool.start(tasks[next++]);
    for (const Json& row : pool.poll(std::chrono::milliseconds(100))) {
      writer.append(row);
      ++counts.done;
      const std::string status = row["status"].get<std::string>();
      if (status == "ok") ++counts.ok;
      if (status == "does-not-fit") ++counts.no_fit;
      if (status == "error") ++counts.errors;
    }
    progress.update(counts.done, counts.errors);
    if (interrupt.raised()) {
      pool.kill_all();
      progress.close();
      throw sweep_interrupted(counts.done, tasks.size(), writer.path());
    }
  }
  progress.close();
  return counts;
}

[[noreturn]] void exec_mpi_helper(char** argv) {
  const std::string helper = sibling_executable("shardscope-sweep-mpi");
  ::execv(helper.c_str(), argv);
  const int reason = errno;
  throw UsageError("--mpi", "runs " + helper + ", which could not be started (" + std::strerror(reason) +
                                "): this shardscope was built without MPI, or the helper is missing");
}

}  // namespace

Registered register_sweep(CLI::App& app, char** argv) {
  auto* cmd =
      app.add_subcommand("sweep", "Plan (and simulate) every point of a scenario grid; JSON lines out");
  auto o = std::make_shared<SweepOptions>();
  add_sweep_options(*cmd, *o);
  return {
      cmd, [o, argv](std::ostream& out) {
        check_sweep_options(*o, simulator_built());
        if (o->mpi && !o->dry_run) exec_mpi_helper(argv);
        const Shard shard = o->shard.empty() ? Shard{} : parse_shard(o->shard, process_environment());
        const SweepPoints points =
            prepare_sweep(o->grid, o->quiet ? ResolveProgress() : resolve_progress_lines(std::cerr, o->grid),
                          o->simulate ? CostEstimate::simulated : CostEstimate::planned);
        for (const auto& [typed, name] : points.grid.strategy_spelling) {  // a framework's name: say which
          if (const std::string note = strategy_alias_note(typed); !note.empty())
            std::cerr << "note: " << escape_unprintable(o->grid) << ": " << escape_unprintable(note) << "\n";
        }
        const std::vector<SweepTask> mine = shard_tasks(points.tasks, shard);
        if (o->dry_run) {
          print_dry_run(points, mine, shard, o->grid, o->simulate, out);
          return;
        }
        refuse_input_as_output("--out", o->out, {o->grid});
        const ResultsLock lock(o->out, shard.index, shard.count);  // before its rows are read
        int skipped_lines = 0;
        std::size_t kept_errors = 0;
        std::vector<SweepTask> tasks = tasks_to_run(mine, *o, &skipped_lines, &kept_errors);
        order_by_cost(tasks, o->simulate);
        SweepRunOptions options;
        options.shardscope_binary = sibling_executable("shardscope");
        options.grid_file = o->grid;
        options.grid_name = points.grid.name;
        options.simulate = o->simulate;
        options.timeout_seconds = o->timeout_seconds;
        options.jobs =
            o->jobs > 0 ? o->jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
        RowWriter writer(o->out);
        if (!o->quiet) {
          std::cerr << "sweep " << points.grid.name << ": " << tasks.size() << " of " << mine.size()
                    << " points to run" << (shard.count > 1 ? " (shard " + shard_text(shard) + ")" : "")
                    << ", " << options.jobs << " at a time";
          if (mine.size() > tasks.size())
            std::cerr << "; " << mine.size() - tasks.size() << " already in " << o->out;
          if (skipped_lines > 0) std::cerr << "; " << skipped_lines << " unreadable lines there ignored";
          std::cerr << "\n";
        }
        const auto start = std::chrono::steady_clock::now();
        const Counts counts = run_locally(tasks, options, writer, *o);
        char wall[32];
        std::snprintf(wall, sizeof wall, "%.1f",
                      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        out << "Swept " << counts.done << " points of " << points.grid.name << " into " << o->out << " in "
            << wall << " s: " << counts.ok << " ok, " << counts.no_fit << " does-not-fit, " << counts.errors
            << " errors" << kept_errors_text(kept_errors) << "\n";
        if (counts.errors + kept_errors > 0)
          throw PointsFailed(failed_points_text(counts.errors, counts.done, kept_errors));
      }};
}

}  // namespace shardscope::cli
