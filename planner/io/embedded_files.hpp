// Shipped scenario files (cluster and model presets) compiled into the binary, so no runtime lookup is
// needed.
#pragma once

#include <string_view>
#include <vector>

namespace shardscope {

struct EmbeddedFile {
  std::string_view name;       // preset name (file name without extension)
  std::string_view file_name;  // e.g. "dgx-a100.yaml", used in error messages
  std::string_view text;
};

const std::vector<EmbeddedFile>& embedded_cluster_files();  // scenarios/clusters/*.yaml
const std::vector<EmbeddedFile>& embedded_model_files();    // scenarios/models/*.yaml
const std::vector<EmbeddedFile>& embedded_runtime_files();  // scenarios/runtimes/*.yaml

}  // namespace shardscope
