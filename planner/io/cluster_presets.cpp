// Cluster presets from the embedded scenarios/clusters/*.yaml files, with overrides and node counts.
#include "planner/io/cluster_presets.hpp"

#include <algorithm>
#include <filesystem>

#include "planner/core/error.hpp"
#include "planner/io/cluster_parser.hpp"
#include "planner/io/embedded_files.hpp"

namespace shardscope {

std::vector<std::string> cluster_preset_names() {
  std::vector<std::string> names;
  for (const EmbeddedFile& f : embedded_cluster_files()) names.emplace_back(f.name);
  std::sort(names.begin(), names.end());
  return names;
}

namespace {
const EmbeddedFile* find_preset(const std::string& name) {
  for (const EmbeddedFile& f : embedded_cluster_files()) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::string known_list() {
  std::string list;
  for (const std::string& n : cluster_preset_names()) list += (list.empty() ? "" : ", ") + n;
  return list;
}

void apply_nodes(Cluster& cluster, int nodes, const std::string& file) {
  if (nodes <= 0) return;
  if (nodes > 100000 || static_cast<std::int64_t>(nodes) * cluster.gpus_per_node > 1048576) {
    throw InputError(file, 0, "nodes", "expected at most 100000 nodes and 2^20 GPUs");
  }
  cluster.nodes = nodes;
}
}  // namespace

Cluster cluster_preset(const std::string& name, int nodes) {
  const EmbeddedFile* preset = find_preset(name);
  if (preset == nullptr) {
    throw InputError("<cluster presets>", 0, "cluster.preset",
                     "unknown cluster preset '" + name + "'; known presets: " + known_list());
  }
  const std::string file = "scenarios/clusters/" + std::string(preset->file_name);
  Cluster cluster = parse_cluster(YamlMap(parse_yaml_mapping(std::string(preset->text), file), file, ""));
  apply_nodes(cluster, nodes, file);
  return cluster;
}

Cluster load_cluster(const std::string& preset_or_path, int nodes) {
  std::error_code ec;
  if (find_preset(preset_or_path) == nullptr && std::filesystem::exists(preset_or_path, ec)) {
    const std::string text = read_text_file(preset_or_path, "cluster");
    Cluster cluster = parse_cluster(YamlMap(parse_yaml_mapping(text, preset_or_path), preset_or_path, ""));
    apply_nodes(cluster, nodes, preset_or_path);
    return cluster;
  }
  if (find_preset(preset_or_path) == nullptr) {
    throw InputError(preset_or_path, 0, "cluster",
                     "neither a cluster file nor a known preset; known presets: " + known_list());
  }
  return cluster_preset(preset_or_path, nodes);
}

}  // namespace shardscope
