// What the exports share: each operator's modules (Hugging Face and torchtitan paths) and its FSDP2
// placement (mesh, resharding, checkpointing), the placement most parameters have, and the file header.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "planner/report/plan_export.hpp"

namespace shardscope::exporting {

// One operator as FSDP2 runs it: states stored on `mesh` (global: sharded over every GPU; hsdp: sharded
// inside a group, replicated across groups; replicate: on every GPU), parameters after forward kept
// (False), resharded over the mesh (True) or over a group (GROUP_SIZE).
struct Placement {
  std::string op;
  std::vector<std::string> hf_modules, titan_modules;  // empty: none to wrap (a tied head)
  std::int64_t parameters = 0;
  std::string mesh, reshard;
  bool checkpoint = false;
  std::string scopes;  // shardscope's, e.g. "IGG"
};

// Every operator's placement; what FSDP2 cannot express (gradients stored unlike optimizer state, operator
// slices, names that are not module paths, a tied head) is appended to `unexpressed`.
std::vector<Placement> placements(const Scenario& scenario, const Plan& plan,
                                  std::vector<std::string>& unexpressed);

// The placement (mesh, reshard, checkpoint) that holds most parameters, and the operators that differ.
struct Dominant {
  Placement placement;
  std::vector<std::string> differing;  // "layer0.attention (NGG: mesh global, reshard False)"
};
Dominant dominant_placement(const std::vector<Placement>& placements);

// The header's lines (without comment marks): what was planned, and what the target cannot express.
std::vector<std::string> header_lines(const Scenario& scenario, const Plan& plan, ExportFormat format,
                                      const std::vector<std::string>& unexpressed);

// The mixed-precision dtypes as PyTorch names: parameters and reductions.
std::string param_dtype(const Scenario& scenario);
std::string reduce_dtype(const Scenario& scenario);

}  // namespace shardscope::exporting
