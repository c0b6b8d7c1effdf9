// `shardscope collective --cluster PRESET_OR_FILE --op OP --algo ALGO --bytes SIZE | --sweep MIN:MAX`: one
// simulated collective, or nccl-tests' size ladder as its table.
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "apps/shardscope/cli_names.hpp"
#include "apps/shardscope/commands.hpp"
#include "apps/shardscope/option_checks.hpp"
#include "apps/shardscope/simgrid_simulation.hpp"
#include "apps/shardscope/simulator_exec.hpp"
#include "apps/shardscope/standard_streams.hpp"
#include "planner/core/cluster.hpp"
#include "planner/core/error.hpp"
#include "planner/core/units.hpp"
#include "planner/io/calibration_parser.hpp"
#include "planner/io/cluster_presets.hpp"
#include "sim/collective_sim.hpp"
#include "sim/resources.hpp"

namespace shardscope::cli {
namespace {
constexpr const char* kNoBandwidth =
    "one rank communicates nothing: the collective takes 0 s and has no bandwidth";
constexpr double kElementBytes = 4;  // nccl-tests' default type, float

// `MIN:MAX` byte sizes, e.g. 8B:1GiB: nccl-tests' -b MIN -e MAX -f 2.
std::vector<double> parse_sweep(const std::string& text) {
  const auto colon = text.find(':');
  if (colon == std::string::npos || text.find(':', colon + 1) != std::string::npos)
    throw UsageError("--sweep", "expected MIN:MAX byte sizes such as 8B:1GiB, got '" + text + "'");
  double bounds[2] = {0, 0};
  const std::string parts[2] = {text.substr(0, colon), text.substr(colon + 1)};
  for (int i = 0; i < 2; ++i) {
    try {
      bounds[i] = static_cast<double>(units::parse_bytes(parts[i]));
    } catch (const std::invalid_argument& e) {
      throw UsageError("--sweep", std::string(i == 0 ? "MIN: " : "MAX: ") + e.what());
    }
  }
  try {
    return sim::sweep_sizes(bounds[0], bounds[1], "sweep");
  } catch (const InputError& e) {  // the simulator's range check, blamed on the option
    throw UsageError("--sweep", e.message());
  }
}

// nccl-tests' count column: elements per rank; for all-gather and reduce-scatter the total / ranks rounded
// down to a multiple of 16 bytes (its GetCollByteCount).
double element_count(CollectiveKind kind, double bytes, int ranks) {
  const double elements = std::floor(bytes / kElementBytes);
  if (kind == CollectiveKind::all_reduce) return elements;
  const double per_16_bytes = 16 / kElementBytes;
  return std::floor(std::floor(elements / ranks) / per_16_bytes) * per_16_bytes;
}

// The bytes nccl-tests moves and prints for a requested size: its count's elements (times the ranks for
// all-gather and reduce-scatter, whose size is the total).
double moved_bytes(CollectiveKind kind, double requested, int ranks) {
  const double count = element_count(kind, requested, ranks);
  return count * kElementBytes * (kind == CollectiveKind::all_reduce ? 1 : ranks);
}

// nccl-tests' width-limited number: two decimals when they fit `width`, then one, none, an exponent.
std::string fitted_number(double value, int width) {
  char text[64];
  for (const char* format : {"%*.2f", "%*.1f", "%*.0f"}) {
    std::snprintf(text, sizeof text, format, width, value);
    if (static_cast<int>(std::string(text).size()) <= width) return text;
  }
  std::snprintf(text, sizeof text, width >= 7 ? "%*.1e" : "%*.0e", width, value);
  return text;
}

// The model column as one field: "nccl:ring/Simple:12ch", "step", "coarse" or "step<=N,coarse".
std::string model_token(const sim::CollectiveResult& r, int coarse_above) {
  if (!r.nccl_algorithm.empty())
    return "nccl:" + r.nccl_algorithm + "/" + r.nccl_protocol + ":" + std::to_string(r.nccl_channels) + "ch";
  if (r.coarse_rings == 0) return "step";
  if (r.step_rings == 0) return "coarse";
  return "step<=" + std::to_string(coarse_above) + ",coarse";
}

// The text table in nccl-tests' own layout (util.cu's header, rank lines and row formats), so the parsers
// people run on nccl-tests logs read it, `calibrate --nccl-tests` too; the model's columns follow #wrong.
// One simulated time serves both sides (the model has no in-place variant); #wrong is N/A (nothing checked).
void print_nccl_tests_table(std::ostream& out, const Cluster& cluster, const sim::CollectiveRequest& r,
                            const std::string& op, const std::string& algo, const std::vector<double>& sizes,
                            const std::vector<sim::CollectiveResult>& results,
                            const std::vector<double>& formulas, double average) {
  const int ranks = r.gpus > 0 ? r.gpus : cluster.gpus();
  char line[512];
  out << "# shardscope collective: " << op << " " << algo << " on " << ranks << " GPUs of " << cluster.name
      << ", simulated (no GPU ran it); nccl-tests' columns, then the alpha-beta formula and the model\n";
  std::snprintf(
      line, sizeof line,
      "# nThread 1 nGpus 1 minBytes %.0f maxBytes %.0f step: 2(factor) warmup iters: 0 iters: 1 agg iters: "
      "1 validation: 0 graph: 0\n#\n# Using devices\n",
      sizes.front(), sizes.back());
  out << line;
  for (int rank = 0; rank < ranks; ++rank) {
    const std::string host = "node" + std::to_string(cluster.node_of(rank));
    std::snprintf(line, sizeof line, "#  Rank %2d Group %2d Pid %6d on %10s device %2d [0x00] %s\n", rank, 0,
                  0, host.c_str(), rank % cluster.gpus_per_node, cluster.gpu.name.c_str());
    out << line;
  }
  out << "#\n";
  std::snprintf(line, sizeof line,
                "# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place\n", "", "",
                "", "", "");
  out << line;
  std::snprintf(line, sizeof line,
                "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s  %14s  %s\n", "size",
                "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw",
                "busbw", "#wrong", "alpha-beta", "model");
  out << line;
  std::snprintf(
      line, sizeof line, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s  %14s\n", "(B)",
      "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)");
  out << line;
  const char* redop = r.kind == CollectiveKind::all_gather ? "none" : "sum";
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    const sim::CollectiveResult& res = results[k];
    std::string side = "  " + fitted_number(res.seconds * 1e6, 7) + "  " +
                       fitted_number(res.algbw_bytes_per_second / 1e9, 6) + "  " +
                       fitted_number(res.busbw_bytes_per_second / 1e9, 6) + "    N/A";
    std::snprintf(line, sizeof line, "%12.0f  %12.0f  %8s  %6s  %6d%s%s  %14.2f  %s\n", sizes[k],
                  element_count(r.kind, sizes[k], ranks), "float", redop, -1, side.c_str(), side.c_str(),
                  formulas[k] * 1e6, model_token(res, r.coarse_above).c_str());
    out << line;
  }
  std::snprintf(line, sizeof line, "# %-20s : %d %s\n# %-20s : %g \n#\n", "Out of bounds values", 0, "OK",
                "Avg bus bandwidth", average);
  out << line;
}

void print_sweep(std::ostream& out, const Cluster& cluster, const sim::CollectiveRequest& r,
                 const std::string& op, const std::string& algo, bool json, const std::vector<double>& sizes,
                 const std::vector<sim::CollectiveResult>& results, const std::vector<double>& formulas) {
  const int ranks = r.gpus > 0 ? r.gpus : cluster.gpus();
  double busbw_sum = 0;
  for (const auto& res : results) busbw_sum += res.busbw_bytes_per_second / 1e9;
  const double average = busbw_sum / static_cast<double>(results.size());
  if (json) {
    nlohmann::ordered_json j;
    j["cluster"] = cluster.name;
    j["op"] = op;
    j["algo"] = algo;
    j["gpus"] = ranks;
    j["type"] = "float";
    j["min_bytes"] = sizes.front();
    j["max_bytes"] = sizes.back();
    j["step_factor"] = 2;
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (std::size_t k = 0; k < sizes.size(); ++k) {
      nlohmann::ordered_json row;
      row["size"] = sizes[k];
      row["count"] = element_count(r.kind, sizes[k], ranks);
      row["time_us"] = results[k].seconds * 1e6;
      row["algbw_gbps"] = results[k].algbw_bytes_per_second / 1e9;
      row["busbw_gbps"] = results[k].busbw_bytes_per_second / 1e9;
      row["alpha_beta_us"] = formulas[k] * 1e6;
      row["model"] = sim::model_description(results[k], r.coarse_above);
      rows.push_back(row);
    }
    j["rows"] = rows;
    j["avg_busbw_gbps"] = average;  // nccl-tests' footer: the mean over the rows
    if (results.front().seconds <= 0) j["bandwidth_note"] = kNoBandwidth;
    out << j.dump(2) << "\n";
    return;
  }
  print_nccl_tests_table(out, cluster, r, op, algo, sizes, results, formulas, average);
  if (results.front().seconds <= 0) out << "note: " << kNoBandwidth << "\n";
}
struct Options {
  std::string cluster;
  std::string op = to_string(CollectiveKind::all_gather);
  std::string algo = to_string(sim::CollectiveAlgorithm::ring);
  std::string bytes;
  std::string sweep;
  int gpus = 0;
  int group_size = 0;
  int concurrent = 1;
  int coarse_above = sim::kCoarseAboveRanks;
  bool coarse = false;
  bool json = false;
  std::string calibration;
};

void add_collective_options(CLI::App& cmd, Options& o) {
  cmd.add_option("--cluster", o.cluster, "Cluster preset name or cluster YAML file")
      ->required()
      ->check(non_empty("a cluster preset or file"));
  cmd.add_option("--op", o.op, "Collective (default " + o.op + "):" + described_names<CollectiveKind>())
      ->check(one_of<CollectiveKind>("collective"));
  cmd.add_option("--algo", o.algo,
                 "Algorithm (default " + o.algo + "):" + described_names<sim::CollectiveAlgorithm>())
      ->check(one_of<sim::CollectiveAlgorithm>("algorithm"));
  auto* bytes = cmd.add_option("--bytes", o.bytes, "Total buffer size, e.g. 1GiB");
  cmd.add_option("--sweep", o.sweep,
                 "Sizes MIN:MAX doubling from MIN (nccl-tests -b MIN -e MAX -f 2), e.g. 8B:1GiB: prints "
                 "nccl-tests' table (size, count, time, algbw, busbw) with the alpha-beta formula")
      ->excludes(bytes);
  // The ranges of cluster files (nodes x gpus_per_node) and scenarios (training.group_size), checked as
  // flags; whether the counts fit the cluster is the simulator's check.
  cmd.add_option("--gpus", o.gpus,
                 "GPUs taking part (a multiple of GPUs per node; default: the whole cluster; the simulator "
                 "takes at most " +
                     std::to_string(sim::kMaxSimulatedGpus) + ")")
      ->check(CLI::Range(1, kMaxGpus));
  cmd.add_option("--group-size", o.group_size, "GPUs per group for hring/horing (default: GPUs per node)")
      ->check(CLI::Range(1, 1 << 20));
  cmd.add_option("--concurrent", o.concurrent, "Run this many copies at once (link contention)")
      ->check(CLI::Range(1, 64));
  // The model rule `simulate` uses (sim::coarse_ring), with the same flag.
  auto* coarse_above = cmd.add_option("--coarse-above", o.coarse_above,
                                      "Rings with more ranks than this use the coarse flow model (default " +
                                          std::to_string(sim::kCoarseAboveRanks) + ")")
                           ->check(CLI::Range(0, 1 << 30));
  cmd.add_flag("--coarse", o.coarse, "Every ring as one pipelined flow per edge (--coarse-above 0)")
      ->excludes(coarse_above);
  cmd.add_option("--calibration", o.calibration,
                 "Calibration YAML: its link alpha, bandwidth and message efficiency shape the links")
      ->check(non_empty("a calibration file"));
  cmd.add_flag("--json", o.json, "Print JSON");
}

// `--sweep MIN:MAX`: each requested size as nccl-tests runs it (rounded to whole, aligned per-rank counts).
void run_sweep(const Options& o, const Cluster& cluster, const Calibration& calibration,
               sim::CollectiveRequest& r, std::ostream& out) {
  std::vector<double> sizes;
  for (const double requested : parse_sweep(o.sweep)) {
    const double moved = moved_bytes(r.kind, requested, r.gpus > 0 ? r.gpus : cluster.gpus());
    if (moved > 0 && (sizes.empty() || moved > sizes.back())) sizes.push_back(moved);
  }
  if (sizes.empty()) {
    throw UsageError("--sweep",
                     "every size is below one aligned element per rank (nccl-tests would move nothing)");
  }
  std::vector<double> formulas;
  for (const double size : sizes) {
    r.total_bytes = size;
    formulas.push_back(sim::alpha_beta_collective_seconds(cluster, r, calibration));
  }
  set_abort_explanation(kSimulatorAborted);
  const auto results = sim::simulate_collective_sweep(cluster, r, sizes, calibration);
  print_sweep(out, cluster, r, o.op, o.algo, o.json, sizes, results, formulas);
}

void print_one_json(const Options& o, const sim::CollectiveRequest& r, const Cluster& cluster, int ranks,
                    const sim::CollectiveResult& res, double formula, std::ostream& out) {
  nlohmann::ordered_json j;
  j["cluster"] = cluster.name;
  j["op"] = o.op;
  j["algo"] = o.algo;
  j["gpus"] = ranks;
  j["bytes"] = r.total_bytes;
  j["seconds"] = res.seconds;
  if (res.seconds > 0) {
    j["algbw_gbps"] = res.algbw_bytes_per_second / 1e9;
    j["busbw_gbps"] = res.busbw_bytes_per_second / 1e9;
  } else {
    j["bandwidth_note"] = kNoBandwidth;  // a rate over 0 s is undefined: omitted, with the reason
  }
  j["alpha_beta_seconds"] = formula;
  j["messages"] = res.messages;
  j["model"] = sim::model_description(res, r.coarse_above);
  out << j.dump(2) << "\n";
}

void print_one_text(const Options& o, const sim::CollectiveRequest& r, const Cluster& cluster, int ranks,
                    const sim::CollectiveResult& res, double formula, std::ostream& out) {
  char line[256];
  out << o.op << " " << o.algo << " on " << ranks << " GPUs of " << cluster.name << " ("
      << sim::model_description(res, r.coarse_above) << "), " << units::format_bytes(r.total_bytes) << "\n";
  std::snprintf(line, sizeof line, "%14s %14s %12s %12s %16s\n", "size(B)", "time(us)", "algbw(GB/s)",
                "busbw(GB/s)", "alpha-beta(us)");
  out << line;
  if (res.seconds > 0) {
    std::snprintf(line, sizeof line, "%14.0f %14.3f %12.3f %12.3f %16.3f\n", r.total_bytes, res.seconds * 1e6,
                  res.algbw_bytes_per_second / 1e9, res.busbw_bytes_per_second / 1e9, formula * 1e6);
    out << line;
  } else {
    std::snprintf(line, sizeof line, "%14.0f %14.3f %12s %12s %16.3f\n", r.total_bytes, res.seconds * 1e6,
                  "-", "-", formula * 1e6);
    out << line << "note: " << kNoBandwidth << "\n";
  }
}

void run_collective(const Options& o, std::ostream& out) {
  const Cluster cluster = load_cluster(o.cluster);
  const Calibration calibration =
      o.calibration.empty() ? Calibration{} : load_calibration_file(o.calibration);
  sim::CollectiveRequest r;
  r.kind = *parse_name<CollectiveKind>(o.op);  // checked by one_of
  r.algorithm = *parse_name<sim::CollectiveAlgorithm>(o.algo);
  r.gpus = o.gpus;
  r.group_size = o.group_size;
  r.coarse_above = o.coarse ? 0 : o.coarse_above;
  r.concurrent = o.concurrent;
  if (o.bytes.empty() && o.sweep.empty())
    throw UsageError("--bytes", "expected --bytes SIZE or --sweep MIN:MAX");
  if (!o.sweep.empty()) {
    run_sweep(o, cluster, calibration, r, out);
    return;
  }
  try {
    r.total_bytes = static_cast<double>(units::parse_bytes(o.bytes));
  } catch (const std::invalid_argument& e) {
    throw UsageError("--bytes", e.what());
  }
  const double formula = sim::alpha_beta_collective_seconds(cluster, r, calibration);
  set_abort_explanation(kSimulatorAborted);
  const sim::CollectiveResult res = sim::simulate_collective(cluster, r, calibration);
  const int ranks = r.gpus > 0 ? r.gpus : cluster.gpus();
  if (o.json) {
    print_one_json(o, r, cluster, ranks, res, formula, out);
  } else {
    print_one_text(o, r, cluster, ranks, res, formula, out);
  }
}

}  // namespace

Registered register_collective(CLI::App& app) {
  auto* cmd = app.add_subcommand("collective", kCollectiveDescription);
  auto o = std::make_shared<Options>();
  add_collective_options(*cmd, *o);
  return {cmd, [o](std::ostream& out) { run_collective(*o, out); }};
}

}  // namespace shardscope::cli
