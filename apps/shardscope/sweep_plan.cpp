// Sweep selection: points with ids, shards (explicit or from Slurm array variables), and resume.
#include "apps/shardscope/sweep_plan.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "planner/core/error.hpp"
#include "planner/search/search_space.hpp"

namespace shardscope::cli {
namespace {

bool parse_int(const std::string& text, int& value) {
  if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos)
    return false;
  value = std::stoi(text);
  return true;
}

}  // namespace

namespace {

// The ids of `points` (and their costs when asked), resolved by `workers` threads taking chunks in order. A
// failing point stops the chunks after it; every chunk before it is still resolved, so the error thrown is
// the first point's in grid order, whatever the threads' timing.
struct Resolved {
  std::string id;
  PointCost cost;
};

std::vector<Resolved> resolve_points(const SweepGrid& grid, const std::vector<GridPoint>& points,
                                     const ResolveProgress& progress, CostEstimate costs) {
  constexpr std::size_t kChunk = 256;
  const std::size_t workers =
      points.size() <= kChunk ? 1 : std::max<std::size_t>(1, std::thread::hardware_concurrency());
  std::vector<Resolved> ids(points.size());
  std::atomic<std::size_t> next{0}, done{0}, first_failure{points.size()};
  std::mutex failure_mutex;
  std::exception_ptr failure;
  const auto work = [&] {
    const GridResolver resolver(grid);
    for (;;) {
      const std::size_t start = next.fetch_add(kChunk);
      if (start >= points.size() || start > first_failure.load()) return;
      const std::size_t end = std::min(points.size(), start + kChunk);
      for (std::size_t i = start; i < end; ++i) {
        try {
          const ResolvedPoint point = resolver.resolve(points[i]);
          ids[i].id = point.id;
          if (costs != CostEstimate::none) {
            ids[i].cost =
                estimate_point_cost(point.scenario, point.strategies, costs == CostEstimate::simulated);
          }
        } catch (...) {
          const std::lock_guard<std::mutex> lock(failure_mutex);
          if (i < first_failure.load()) {
            first_failure.store(i);
            failure = std::current_exception();
          }
          break;
        }
      }
      done.fetch_add(end - start);
    }
  };
  // With progress to report, this thread watches and `workers` threads resolve; else it is one of them.
  const bool watch = progress && workers > 1;
  std::vector<std::thread> threads;
  for (std::size_t w = watch ? 0 : 1; w < workers; ++w) threads.emplace_back(work);
  if (watch) {
    while (done.load() < points.size() && first_failure.load() == points.size()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      progress(std::min(done.load(), points.size()), points.size());
    }
  } else {
    work();
  }
  for (std::thread& t : threads) t.join();
  if (failure) std::rethrow_exception(failure);
  return ids;
}

}  // namespace

SweepPoints prepare_sweep(const std::string& grid_file, const ResolveProgress& progress, CostEstimate costs) {
  SweepPoints out;
  out.grid = load_sweep_grid(grid_file, strategy_lookup());
  const std::vector<GridPoint> points = expand_grid(out.grid);
  const std::vector<Resolved> resolved = resolve_points(out.grid, points, progress, costs);
  std::set<std::string> seen;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (!seen.insert(resolved[i].id).second) {
      ++out.duplicates;
      continue;
    }
    out.tasks.push_back({points[i].index, resolved[i].id, points[i].values, resolved[i].cost});
  }
  return out;
}

void order_by_cost(std::vector<SweepTask>& tasks, bool simulate) {
  std::stable_sort(tasks.begin(), tasks.end(), [simulate](const SweepTask& a, const SweepTask& b) {
    return cost_order_key(a.cost, simulate) > cost_order_key(b.cost, simulate);
  });
}

ResolveProgress resolve_progress_lines(std::ostream& err, const std::string& grid_file) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  auto shown = std::make_shared<Clock::time_point>(start);
  return [&err, grid_file, start, shown](std::size_t done, std::size_t total) {
    const Clock::time_point now = Clock::now();
    if (now - start < std::chrono::seconds(2) || now - *shown < std::chrono::seconds(2)) return;
    *shown = now;
    err << "sweep " << grid_file << ": resolved " << done << " of " << total << " points ("
        << 100 * done / std::max<std::size_t>(total, 1) << " %)\n"
        << std::flush;
  };
}

Shard parse_shard(const std::string& text, const Environment& environment) {
  Shard shard;
  if (text == "auto") {
    auto get = [&](const char* name) -> std::string {
      const auto it = environment.find(name);
      return it == environment.end() ? "" : it->second;
    };
    int id = 0, count = 0, min = 0;
    if (!parse_int(get("SLURM_ARRAY_TASK_ID"), id) || !parse_int(get("SLURM_ARRAY_TASK_COUNT"), count) ||
        count < 1) {
      throw UsageError(
          "--shard",
          "auto reads a Slurm job array's SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT, and they "
          "are not set to whole numbers here; under another scheduler give --shard i/n");
    }
    if (!get("SLURM_ARRAY_TASK_MIN").empty() && !parse_int(get("SLURM_ARRAY_TASK_MIN"), min)) {
      throw UsageError("--shard", "SLURM_ARRAY_TASK_MIN is not a whole number");
    }
    shard = {id - min, count};
    if (shard.index < 0 || shard.index >= shard.count) {
      throw UsageError("--shard", "auto: SLURM_ARRAY_TASK_ID " + std::to_string(id) +
                                      " minus SLURM_ARRAY_TASK_MIN " + std::to_string(min) +
                                      " is outside 0.." + std::to_string(count - 1) +
                                      " (an array with steps, --array=0-9:2, needs --shard i/n)");
    }
    return shard;
  }
  const std::size_t slash = text.find('/');
  if (slash == std::string::npos || !parse_int(text.substr(0, slash), shard.index) ||
      !parse_int(text.substr(slash + 1), shard.count) || shard.count < 1 || shard.index >= shard.count) {
    throw UsageError("--shard",
                     "expected i/n with 0 <= i < n (for example 0/4), or auto, got '" + text + "'");
  }
  return shard;
}

Environment process_environment() {
  Environment out;
  for (const char* name : {"SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN"}) {
    if (const char* value = std::getenv(name)) out[name] = value;
  }
  return out;
}

std::vector<SweepTask> shard_tasks(const std::vector<SweepTask>& tasks, const Shard& shard) {
  std::vector<SweepTask> out;
  for (std::size_t i = static_cast<std::size_t>(shard.index); i < tasks.size();
       i += static_cast<std::size_t>(shard.count)) {
    out.push_back(tasks[i]);
  }
  return out;
}

std::vector<SweepTask> pending_tasks(const std::vector<SweepTask>& tasks, const std::vector<Json>& rows,
                                     bool simulate, bool retry_errors) {
  std::set<std::string> done;
  for (const Json& row : rows) {
    if (row.value("simulated", false) != simulate) continue;
    if (row_is_final(row) || !retry_errors) done.insert(row["point"].get<std::string>());
  }
  std::vector<SweepTask> out;
  for (const SweepTask& t : tasks) {
    if (done.count(t.id) == 0) out.push_back(t);
  }
  return out;
}

std::size_t kept_error_points(const std::vector<SweepTask>& tasks, const std::vector<Json>& rows,
                              bool simulate) {
  std::set<std::string> final_points, error_points;
  for (const Json& row : rows) {
    if (row.value("simulated", false) != simulate) continue;
    (row_is_final(row) ? final_points : error_points).insert(row["point"].get<std::string>());
  }
  std::size_t out = 0;
  for (const SweepTask& t : tasks) out += error_points.count(t.id) > 0 && final_points.count(t.id) == 0;
  return out;
}

std::vector<SweepTask> tasks_to_run(const std::vector<SweepTask>& mine, const SweepOptions& o,
                                    int* skipped_lines, std::size_t* kept_errors) {
  struct stat info {};
  if (!o.resume && ::stat(o.out.c_str(), &info) == 0 && info.st_size > 0) {
    throw UsageError(
        "--out",
        o.out + " already holds results: add --resume to continue that sweep, or choose another file");
  }
  std::vector<int> lines;
  const std::vector<Json> rows = o.resume ? read_rows(o.out, skipped_lines, &lines) : std::vector<Json>{};
  // Rows of another planner may hold other numbers for the same point: a resume would keep them as done.
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::string version = rows[i].value("version", std::string("?"));
    const std::string revision = rows[i].value("revision", std::string("?"));
    if (version == tool_version() && revision == git_revision()) continue;
    throw InputError(o.out, lines[i], "revision",
                     "written by shardscope " + version + " (revision " + revision + "), and this is " +
                         tool_version() + " (revision " + git_revision() +
                         "): a resume would keep another planner's numbers as done; sweep into a new file");
  }
  if (kept_errors != nullptr) *kept_errors = o.retry_errors ? 0 : kept_error_points(mine, rows, o.simulate);
  return pending_tasks(mine, rows, o.simulate, o.retry_errors);
}

std::string kept_errors_text(std::size_t kept) {
  return kept == 0 ? "" : "; " + std::to_string(kept) + " earlier error rows kept";
}

std::string failed_points_text(std::size_t errors, std::size_t done, std::size_t kept) {
  std::string out;
  if (errors > 0)
    out = std::to_string(errors) + " of " + std::to_string(done) + " points ended in error rows";
  if (kept > 0) {
    out += (out.empty() ? "" : ", and ") + std::to_string(kept) +
           " points recorded earlier have only error rows, kept as they are";
  }
  return out + " (their \"error\" says why; --resume --retry-errors runs them again)";
}

}  // namespace shardscope::cli
