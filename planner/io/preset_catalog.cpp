// PresetCatalog: lookup of embedded presets by name, with "did you mean" suggestions for unknown names.
#include "planner/io/preset_catalog.hpp"

#include <algorithm>

#include "planner/core/error.hpp"
#include "planner/core/names.hpp"

namespace shardscope {

PresetCatalog::PresetCatalog(std::string kind, std::string folder, const std::vector<EmbeddedFile>& files)
    : kind_(std::move(kind)), folder_(std::move(folder)), files_(&files) {}

std::vector<std::string> PresetCatalog::names() const {
  std::vector<std::string> out;
  for (const EmbeddedFile& f : *files_) out.emplace_back(f.name);
  std::sort(out.begin(), out.end());
  return out;
}

const EmbeddedFile* PresetCatalog::find(std::string_view name) const {
  for (const EmbeddedFile& f : *files_) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

const EmbeddedFile& PresetCatalog::get(const std::string& name, const std::string& file, int line,
                                       const std::string& field) const {
  const EmbeddedFile* preset = find(name);
  if (preset == nullptr) throw InputError(file, line, field, unknown_message(name));
  return *preset;
}

std::string PresetCatalog::unknown_message(const std::string& name) const {
  return "unknown " + kind_ + " preset '" + name + "'" + suggest_or_list(name, names(), "known presets:");
}

std::string PresetCatalog::path_of(const EmbeddedFile& preset) const {
  return folder_ + "/" + std::string(preset.file_name);
}

const PresetCatalog& cluster_presets() {
  static const PresetCatalog catalog("cluster", "scenarios/clusters", embedded_cluster_files());
  return catalog;
}

const PresetCatalog& model_presets() {
  static const PresetCatalog catalog("model", "scenarios/models", embedded_model_files());
  return catalog;
}

const PresetCatalog& runtime_presets() {
  static const PresetCatalog catalog("runtime", "scenarios/runtimes", embedded_runtime_files());
  return catalog;
}

}  // namespace shardscope
