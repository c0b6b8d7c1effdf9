// run_sweep_mpi: what shardscope-sweep-mpi runs in every rank of `mpirun -n K shardscope sweep GRID --out F
// --mpi` (or srun), with the same command line; the ranks share the grid's points and rank 0 writes F.
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <exception>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "apps/shardscope/exit_status.hpp"
#include "apps/shardscope/simulator_exec.hpp"
#include "apps/shardscope/sweep_mpi.hpp"
#include "apps/shardscope/sweep_options.hpp"
#include "apps/shardscope/sweep_plan.hpp"
#include "planner/core/error.hpp"
#include "planner/core/printable.hpp"
#include "validate/mpi_base/mpi_error.hpp"
#include "validate/mpi_base/mpi_session.hpp"
#include "validate/mpi_base/mpi_text.hpp"

namespace {

namespace cli = shardscope::cli;
using cli::ExitStatus;

void print_error(const std::exception& error, int rank) {
  // An MPI failure or a lost rank is the cluster's, not a defect of the tool: its own words, no report plea.
  const bool mpi = dynamic_cast<const shardscope::mpi::MpiError*>(&error) != nullptr;
  std::string message = mpi ? std::string(error.what()) : cli::failure_message(error);
  if (dynamic_cast<const cli::Interrupted*>(&error) == nullptr)
    message = "error: " + message;
  else
    message = "interrupted: " + message;
  if (rank != 0) message = "rank " + std::to_string(rank) + ": " + message;
  std::cerr << shardscope::escape_unprintable(message) << "\n";
}

int exit_code_for(const std::exception& error) {
  if (dynamic_cast<const shardscope::mpi::MpiError*>(&error) != nullptr)
    return cli::to_int(ExitStatus::failed);
  return cli::to_int(cli::exit_status_for(error));
}

// What rank 0 found before the work, sent to every rank: the exit code (not 0: stop) and the grid's name.
struct Start {
  int exit_code = 0;
  std::string grid_name;
};

// What the results file held before the sweep: unreadable lines, points with only error rows kept.
struct Recorded {
  int skipped_lines = 0;
  std::size_t kept_errors = 0;
};

// Rank 0: checks the options, reads the grid and the results file; the tasks left to run.
std::vector<cli::SweepTask> prepare(const cli::SweepOptions& o, std::string& grid_name, std::size_t& total,
                                    Recorded& recorded, std::optional<cli::ResultsLock>& lock) {
  cli::check_sweep_options(o, cli::simulator_built());
  if (o.dry_run) {
    throw shardscope::UsageError("--dry-run",
                                 "lists the points without MPI: run `shardscope sweep GRID --dry-run`");
  }
  const cli::SweepPoints points = cli::prepare_sweep(
      o.grid, o.quiet ? cli::ResolveProgress() : cli::resolve_progress_lines(std::cerr, o.grid),
      o.simulate ? cli::CostEstimate::simulated : cli::CostEstimate::planned);
  grid_name = points.grid.name;
  total = points.tasks.size();
  lock.emplace(o.out, 0, 1);  // the whole grid, held until the sweep ends; before the rows are read
  std::vector<cli::SweepTask> tasks =
      cli::tasks_to_run(points.tasks, o, &recorded.skipped_lines, &recorded.kept_errors);
  cli::order_by_cost(tasks, o.simulate);  // rank 0 hands out the most expensive first
  return tasks;
}

// Rank 0 after the start: the sweep with the other ranks, then the summary line; the exit code.
int lead(const cli::SweepOptions& o, const std::vector<cli::SweepTask>& tasks,
         const cli::SweepRunOptions& options, int ranks, std::size_t total, const Recorded& recorded) {
  cli::RowWriter writer(o.out);
  if (!o.quiet) {
    std::cerr << "sweep " << options.grid_name << ": " << tasks.size() << " of " << total
              << " points to run on " << ranks << " MPI rank" << (ranks == 1 ? "" : "s");
    if (total > tasks.size()) std::cerr << "; " << total - tasks.size() << " already in " << o.out;
    if (recorded.skipped_lines > 0)
      std::cerr << "; " << recorded.skipped_lines << " unreadable lines there ignored";
    std::cerr << "\n";
  }
  const auto start = std::chrono::steady_clock::now();
  const cli::MpiSweepCounts counts =
      cli::coordinate_sweep(tasks, options, writer, cli::progress_style(o.progress, o.quiet), ranks);
  char wall[32];
  std::snprintf(wall, sizeof wall, "%.1f",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  std::ostringstream line;
  line << "Swept " << counts.done << " points of " << options.grid_name << " into " << o.out << " in " << wall
       << " s on " << ranks << " MPI rank" << (ranks == 1 ? "" : "s") << ": " << counts.ok << " ok, "
       << counts.no_fit << " does-not-fit, " << counts.errors << " errors"
       << cli::kept_errors_text(recorded.kept_errors) << "\n";
  std::cout << line.str() << std::flush;
  if (!o.quiet && ranks > 1) {
    std::cerr << "sweep: points run by rank 0.." << ranks - 1 << ":";
    for (const std::size_t n : counts.points_per_rank) std::cerr << " " << n;
    std::cerr << "\n";
  }
  if (counts.errors + recorded.kept_errors > 0) {
    std::cerr << "error: " << cli::failed_points_text(counts.errors, counts.done, recorded.kept_errors)
              << "\n";
    return cli::to_int(ExitStatus::failed);
  }
  return cli::to_int(ExitStatus::ok);
}

// Parses the command line into `o`; the exit code when the run ends here (--help, a usage error). Every rank
// has the same command line, so every rank ends alike; rank 0 alone says why.
std::optional<int> parse_options(int argc, char** argv, int rank, cli::SweepOptions& o) {
  CLI::App app{"shardscope sweep --mpi: the ranks of an MPI job share a sweep's points", "shardscope sweep"};
  app.footer(cli::exit_status_help());
  cli::add_sweep_options(app, o);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    std::ostringstream out, err;
    const int code = app.exit(e, out, err);
    if (rank == 0) {
      std::cout << out.str() << std::flush;
      std::cerr << shardscope::escape_unprintable(err.str());
    }
    return code == 0 ? 0 : cli::to_int(ExitStatus::bad_input);
  }
  return std::nullopt;
}

}  // namespace

int shardscope::cli::run_sweep_mpi(int argc, char** argv) {
  // `shardscope sweep ... --mpi` passes its own command line, `sweep` included; the helper run by itself
  // takes the same options without it.
  std::vector<char*> args(argv, argv + argc + 1);  // with argv[argc], the null pointer that ends it
  if (argc > 1 && std::string_view(args[1]) == "sweep") args.erase(args.begin() + 1);
  int arg_count = static_cast<int>(args.size()) - 1;
  char** arg_values = args.data();
  std::optional<shardscope::mpi::MpiSession> session;
  try {
    session.emplace(&arg_count, &arg_values);
  } catch (const std::exception& e) {
    print_error(e, 0);
    return exit_code_for(e);
  }
  const int rank = session->rank();
  const int ranks = session->size();

  cli::SweepOptions o;
  if (const std::optional<int> code = parse_options(arg_count, arg_values, rank, o)) return *code;

  Start start;
  std::vector<cli::SweepTask> tasks;
  std::size_t total = 0;
  Recorded recorded;
  std::optional<cli::ResultsLock> lock;
  if (rank == 0) {
    try {
      tasks = prepare(o, start.grid_name, total, recorded, lock);
    } catch (const std::exception& e) {
      print_error(e, 0);
      start.exit_code = exit_code_for(e);
    }
  }
  try {
    start.exit_code = shardscope::mpi::broadcast_int(start.exit_code);
    shardscope::mpi::broadcast_text(start.grid_name);
  } catch (const std::exception& e) {
    print_error(e, rank);
    session->abort(exit_code_for(e));
  }
  if (start.exit_code != 0) return start.exit_code;

  cli::SweepRunOptions options;
  options.shardscope_binary = cli::sibling_executable("shardscope");
  options.grid_file = o.grid;
  options.grid_name = start.grid_name;
  options.simulate = o.simulate;
  options.timeout_seconds = o.timeout_seconds;
  options.jobs = o.jobs > 0 ? o.jobs : cli::usable_cpus();
  int exit_code = 0;
  try {
    if (rank == 0) {
      exit_code = lead(o, tasks, options, ranks, total, recorded);
    } else {
      cli::work_for_rank_zero(options);
    }
    exit_code = shardscope::mpi::broadcast_int(exit_code);  // every rank ends with rank 0's code
  } catch (const std::exception& e) {
    // The other ranks may wait for this one: end them all. The rows written so far stay (--resume).
    print_error(e, rank);
    if (ranks > 1) session->abort(exit_code_for(e));
    return exit_code_for(e);
  }
  return exit_code;
}
