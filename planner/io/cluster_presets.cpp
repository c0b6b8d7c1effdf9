// Cluster presets from the embedded scenarios/clusters/*.yaml files, with overrides and node counts.
#include "planner/io/cluster_presets.hpp"

#include <filesystem>

#include "planner/core/error.hpp"
#include "planner/core/names.hpp"
#include "planner/io/internal/cluster_parser.hpp"
#include "planner/io/preset_catalog.hpp"

namespace shardscope {

namespace {
void apply_nodes(Cluster& cluster, int nodes, const std::string& file) {
  if (nodes <= 0) return;
  if (nodes > 100000 || static_cast<std::int64_t>(nodes) * cluster.gpus_per_node > 1048576) {
    throw InputError(file, 0, "nodes", "expected at most 100000 nodes and 2^20 GPUs");
  }
  cluster.nodes = nodes;
}
}  // namespace

Cluster cluster_preset(const std::string& name, int nodes) {
  const EmbeddedFile& preset = cluster_presets().get(name, "<cluster presets>", 0, "cluster.preset");
  const std::string file = cluster_presets().path_of(preset);
  Cluster cluster =
      parse_cluster(YamlMap(parse_checked_yaml_mapping(std::string(preset.text), file), file, ""));
  apply_nodes(cluster, nodes, file);
  return cluster;
}

bool names_cluster_file(const std::string& preset_or_path, const std::string& base_dir) {
  if (cluster_presets().find(preset_or_path) != nullptr) return false;
  std::error_code ec;
  return std::filesystem::exists(std::filesystem::path(base_dir) / preset_or_path, ec);
}

Cluster load_cluster(const std::string& preset_or_path, int nodes) {
  const bool is_preset = cluster_presets().find(preset_or_path) != nullptr;
  if (names_cluster_file(preset_or_path)) {
    const std::string text = read_text_file(preset_or_path, "cluster");
    Cluster cluster = parse_cluster(YamlMap(parse_yaml_mapping(text, preset_or_path), preset_or_path, ""));
    apply_nodes(cluster, nodes, preset_or_path);
    return cluster;
  }
  if (!is_preset) {
    throw InputError(preset_or_path, 0, "cluster",
                     "neither a cluster file nor a known preset" +
                         suggest_or_list(preset_or_path, cluster_presets().names(), "known presets:"));
  }
  return cluster_preset(preset_or_path, nodes);
}

}  // namespace shardscope
