// PresetCatalog: the embedded presets of one kind (clusters, models): sorted names, lookup by name, and the
// one "unknown preset; did you mean ...? / known presets: ..." error.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "planner/io/embedded_files.hpp"

namespace shardscope {

class PresetCatalog {
 public:
  // `kind` names the presets in messages ("cluster", "model"); `folder` is where their files ship
  // ("scenarios/clusters").
  PresetCatalog(std::string kind, std::string folder, const std::vector<EmbeddedFile>& files);

  std::vector<std::string> names() const;  // sorted
  const EmbeddedFile* find(std::string_view name) const;
  // The preset called `name`; otherwise throws InputError(file, line, field) with unknown_message(name).
  const EmbeddedFile& get(const std::string& name, const std::string& file, int line,
                          const std::string& field) const;
  // "unknown cluster preset 'x'; did you mean 'y'?" or "...; known presets: a, b, c".
  std::string unknown_message(const std::string& name) const;
  // The preset's shipped path, e.g. "scenarios/clusters/dgx-a100.yaml" (for error messages).
  std::string path_of(const EmbeddedFile& preset) const;

 private:
  std::string kind_;
  std::string folder_;
  const std::vector<EmbeddedFile>* files_;
};

const PresetCatalog& cluster_presets();  // scenarios/clusters/*.yaml
const PresetCatalog& model_presets();    // scenarios/models/*.yaml
const PresetCatalog& runtime_presets();  // scenarios/runtimes/*.yaml

}  // namespace shardscope
