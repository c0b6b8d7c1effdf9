// `shardscope collective --cluster PRESET_OR_FILE --op OP --algo ALGO --bytes SIZE`: one simulated
// collective.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "apps/shardscope/cli_names.hpp"
#include "apps/shardscope/commands.hpp"
#include "apps/shardscope/option_checks.hpp"
#include "apps/shardscope/simulator_exec.hpp"
#include "apps/shardscope/standard_streams.hpp"
#include "planner/core/cluster.hpp"
#include "planner/core/error.hpp"
#include "planner/core/units.hpp"
#include "planner/io/cluster_presets.hpp"
#include "sim/collective_sim.hpp"
#include "sim/resources.hpp"

namespace shardscope::cli {
namespace {
constexpr const char* kNoBandwidth =
    "one rank communicates nothing: the collective takes 0 s and has no bandwidth";
}  // namespace

Registered register_collective(CLI::App& app) {
  auto* cmd = app.add_subcommand("collective", kCollectiveDescription);
  struct Options {
    std::string cluster;
    std::string op = to_string(CollectiveKind::all_gather);
    std::string algo = to_string(sim::CollectiveAlgorithm::ring);
    std::string bytes;
    int gpus = 0;
    int group_size = 0;
    int concurrent = 1;
    int coarse_above = sim::kCoarseAboveRanks;
    bool coarse = false;
    bool json = false;
  };
  auto o = std::make_shared<Options>();
  cmd->add_option("--cluster", o->cluster, "Cluster preset name or cluster YAML file")
      ->required()
      ->check(non_empty("a cluster preset or file"));
  cmd->add_option("--op", o->op, "Collective:" + described_names<CollectiveKind>())
      ->check(one_of<CollectiveKind>("collective"));
  cmd->add_option("--algo", o->algo, "Algorithm:" + described_names<sim::CollectiveAlgorithm>())
      ->check(one_of<sim::CollectiveAlgorithm>("algorithm"));
  cmd->add_option("--bytes", o->bytes, "Total buffer size, e.g. 1GiB")->required();
  // The ranges of cluster files (nodes x gpus_per_node) and scenarios (training.group_size), checked as
  // flags; whether the counts fit the cluster is the simulator's check.
  cmd->add_option("--gpus", o->gpus,
                  "GPUs taking part (a multiple of GPUs per node; default: the whole cluster; the simulator "
                  "takes at most " +
                      std::to_string(sim::kMaxSimulatedGpus) + ")")
      ->check(CLI::Range(1, kMaxGpus));
  cmd->add_option("--group-size", o->group_size, "GPUs per group for hring/horing (default: GPUs per node)")
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--concurrent", o->concurrent, "Run this many copies at once (link contention)")
      ->check(CLI::Range(1, 64));
  // The model rule `simulate` uses (sim::coarse_ring), with the same flag.
  auto* coarse_above = cmd->add_option("--coarse-above", o->coarse_above,
                                       "Rings with more ranks than this use the coarse flow model (default " +
                                           std::to_string(sim::kCoarseAboveRanks) + ")")
                           ->check(CLI::Range(0, 1 << 30));
  cmd->add_flag("--coarse", o->coarse, "Every ring as one pipelined flow per edge (--coarse-above 0)")
      ->excludes(coarse_above);
  cmd->add_flag("--json", o->json, "Print JSON");
  return {cmd, [o](std::ostream& out) {
            const Cluster cluster = load_cluster(o->cluster);
            sim::CollectiveRequest r;
            r.kind = *parse_name<CollectiveKind>(o->op);  // checked by one_of
            r.algorithm = *parse_name<sim::CollectiveAlgorithm>(o->algo);
            try {
              r.total_bytes = static_cast<double>(units::parse_bytes(o->bytes));
            } catch (const std::invalid_argument& e) {
              throw InputError("collective", 0, "bytes", e.what());
            }
            r.gpus = o->gpus;
            r.group_size = o->group_size;
            r.coarse_above = o->coarse ? 0 : o->coarse_above;
            r.concurrent = o->concurrent;
            const double formula = sim::alpha_beta_collective_seconds(cluster, r);
            set_abort_explanation(kSimulatorAborted);
            const sim::CollectiveResult res = sim::simulate_collective(cluster, r);
            const int ranks = r.gpus > 0 ? r.gpus : cluster.gpus();
            if (o->json) {
              nlohmann::ordered_json j;
              j["cluster"] = cluster.name;
              j["op"] = o->op;
              j["algo"] = o->algo;
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
            } else {
              char line[256];
              out << o->op << " " << o->algo << " on " << ranks << " GPUs of " << cluster.name << " ("
                  << sim::model_description(res, r.coarse_above) << "), "
                  << units::format_bytes(r.total_bytes) << "\n";
              std::snprintf(line, sizeof line, "%14s %14s %12s %12s %16s\n", "size(B)", "time(us)",
                            "algbw(GB/s)", "busbw(GB/s)", "alpha-beta(us)");
              out << line;
              if (res.seconds > 0) {
                std::snprintf(line, sizeof line, "%14.0f %14.3f %12.3f %12.3f %16.3f\n", r.total_bytes,
                              res.seconds * 1e6, res.algbw_bytes_per_second / 1e9,
                              res.busbw_bytes_per_second / 1e9, formula * 1e6);
                out << line;
              } else {
                std::snprintf(line, sizeof line, "%14.0f %14.3f %12s %12s %16.3f\n", r.total_bytes,
                              res.seconds * 1e6, "-", "-", formula * 1e6);
                out << line << "note: " << kNoBandwidth << "\n";
              }
            }
          }};
}

}  // namespace shardscope::cli
