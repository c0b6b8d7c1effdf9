// Sweep selection: points with ids, shards (explicit or from Slurm array variables), and resume.
#include "apps/shardscope/sweep_plan.hpp"

#include <sys/stat.h>

#include <cstdlib>
#include <set>

#include "planner/core/error.hpp"

namespace shardscope::cli {
namespace {

bool parse_int(const std::string& text, int& value) {
  if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos)
    return false;
  value = std::stoi(text);
  return true;
}

}  // namespace

SweepPoints prepare_sweep(const std::string& grid_file) {
  SweepPoints out;
  out.grid = load_sweep_grid(grid_file);
  const GridResolver resolver(out.grid);
  std::set<std::string> seen;
  for (const GridPoint& point : expand_grid(out.grid)) {
    const ResolvedPoint resolved = resolver.resolve(point);
    if (!seen.insert(resolved.id).second) {
      ++out.duplicates;
      continue;
    }
    out.tasks.push_back({point.index, resolved.id, point.values});
  }
  return out;
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
      throw InputError(
          "--shard", 0, "shard",
          "auto reads a Slurm job array's SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT, and they "
          "are not set to whole numbers here; under another scheduler give --shard i/n");
    }
    if (!get("SLURM_ARRAY_TASK_MIN").empty() && !parse_int(get("SLURM_ARRAY_TASK_MIN"), min)) {
      throw InputError("--shard", 0, "shard", "SLURM_ARRAY_TASK_MIN is not a whole number");
    }
    shard = {id - min, count};
    if (shard.index < 0 || shard.index >= shard.count) {
      throw InputError("--shard", 0, "shard",
                       "auto: SLURM_ARRAY_TASK_ID " + std::to_string(id) + " minus SLURM_ARRAY_TASK_MIN " +
                           std::to_string(min) + " is outside 0.." + std::to_string(count - 1) +
                           " (an array with steps, --array=0-9:2, needs --shard i/n)");
    }
    return shard;
  }
  const std::size_t slash = text.find('/');
  if (slash == std::string::npos || !parse_int(text.substr(0, slash), shard.index) ||
      !parse_int(text.substr(slash + 1), shard.count) || shard.count < 1 || shard.index >= shard.count) {
    throw InputError("--shard", 0, "shard",
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
    throw InputError(
        "--out", 0, "",
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
