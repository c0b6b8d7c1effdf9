// A plan as the configuration a framework runs: an FSDP2 Python module (fully_shard per module group), a
// torchtitan TOML fragment, or a DeepSpeed JSON config; with what the target cannot express listed.
#pragma once

#include <string>
#include <vector>

#include "planner/core/names.hpp"
#include "planner/core/plan.hpp"
#include "planner/core/scenario.hpp"

namespace shardscope {

enum class ExportFormat { fsdp2, torchtitan, deepspeed };

template <>
struct EnumNames<ExportFormat> {
  static constexpr NameEntry<ExportFormat> table[] = {
      {ExportFormat::fsdp2, "fsdp2", "a Python module applying fully_shard per module group (PyTorch FSDP2)"},
      {ExportFormat::torchtitan, "torchtitan", "torchtitan's TOML fields (one policy for every block)"},
      {ExportFormat::deepspeed, "deepspeed", "a DeepSpeed JSON config (one ZeRO stage for the model)"},
  };
};

struct PlanExport {
  std::string text;                      // the file's contents
  std::vector<std::string> unexpressed;  // what the target cannot express (also in the file's header)
};

// The plan in the target's terms. The module paths are those of Hugging Face Llama-style models and of
// torchtitan's Llama for a generated transformer (embedding, layerN.attention, layerN.mlp, head); other
// operators' names are taken as module paths as they are (and listed).
PlanExport export_plan(const Scenario& scenario, const Plan& plan, ExportFormat format);

}  // namespace shardscope
