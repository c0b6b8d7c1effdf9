// The FSDP2 export: a Python module whose apply_plan(model) calls fully_shard per operator's modules on the
// plan's mesh, with its resharding, mixed precision and checkpointing.
#include <sstream>

#include "planner/core/printable.hpp"
#include "planner/report/internal/export_writers.hpp"

namespace shardscope::exporting {
namespace {

std::string quoted(const std::string& text) { return double_quoted(text); }

// A line inside the module's docstring: no backslash escapes, no quote that could close it.
std::string docstring_safe(const std::string& line) {
  std::string out;
  for (char c : line)
    out += c == '\\' ? std::string("\\\\") : c == '"' ? std::string("'") : std::string(1, c);
  return out;
}

std::string list(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i > 0 ? ", " : "") + quoted(items[i]);
  return out + "]";
}

void write_constants(const Scenario& scenario, const Plan& plan, std::ostream& out) {
  out << "import torch\n"
         "from torch.distributed._composable import checkpoint\n"
         "from torch.distributed.device_mesh import init_device_mesh\n"
         "from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard\n\n"
      << "WORLD_SIZE = " << scenario.cluster.gpus() << "\n"
      << "GROUP_SIZE = " << plan.group_size << "\n"
      << "MICRO_BATCH = " << plan.micro_batch << "\n"
      << "GRADIENT_ACCUMULATION_STEPS = " << plan.gradient_accumulation_steps << "\n"
      << "MIXED_PRECISION = MixedPrecisionPolicy(param_dtype=torch." << param_dtype(scenario)
      << ", reduce_dtype=torch." << reduce_dtype(scenario) << ")\n\n";
}

void write_plan_table(const std::vector<Placement>& placements, std::ostream& out) {
  out << "# Per shardscope operator, in model order: its modules in Hugging Face Llama-style models and in\n"
         "# torchtitan's Llama, the mesh its states live on, reshard_after_forward, and checkpointing.\n"
         "PLAN = [\n";
  for (const Placement& p : placements) {
    out << "    (" << quoted(p.op) << ", " << list(p.hf_modules) << ", " << list(p.titan_modules) << ", "
        << quoted(p.mesh) << ", " << p.reshard << ", " << (p.checkpoint ? "True" : "False") << "),  # "
        << p.scopes << "\n";
  }
  out << "]\n\n";
}

void write_functions(std::ostream& out) {
  out << "def meshes():\n"
         "    \"\"\"Every GPU; groups of GROUP_SIZE sharding, replicated across groups (HSDP); "
         "replication.\"\"\"\n"
         "    used = {kind for _, _, _, kind, _, _ in PLAN} | {\"global\"}\n"
         "    shapes = {\n"
         "        \"global\": ((WORLD_SIZE,), (\"shard\",)),\n"
         "        \"hsdp\": ((WORLD_SIZE // GROUP_SIZE, GROUP_SIZE), (\"replicate\", \"shard\")),\n"
         "        \"replicate\": ((WORLD_SIZE, 1), (\"replicate\", \"shard\")),\n"
         "    }\n"
         "    return {kind: init_device_mesh(\"cuda\", shapes[kind][0], mesh_dim_names=shapes[kind][1])\n"
         "            for kind in sorted(used)}\n\n\n"
         "def apply_plan(model, naming=\"hf\"):\n"
         "    \"\"\"Shards `model` as planned; naming is \"hf\" or \"torchtitan\" (which module paths to "
         "use).\"\"\"\n"
         "    if naming not in (\"hf\", \"torchtitan\"):\n"
         "        raise ValueError(f\"naming: expected 'hf' or 'torchtitan', got {naming!r}\")\n"
         "    if torch.distributed.get_world_size() != WORLD_SIZE:\n"
         "        raise ValueError(f\"the plan is for {WORLD_SIZE} GPUs, this job has \"\n"
         "                         f\"{torch.distributed.get_world_size()}\")\n"
         "    mesh = meshes()\n"
         "    for _, hf, titan, kind, reshard, checkpointed in PLAN:\n"
         "        modules = [model.get_submodule(path) for path in (hf if naming == \"hf\" else titan)]\n"
         "        if not modules:\n"
         "            continue\n"
         "        if checkpointed:\n"
         "            for module in modules:\n"
         "                checkpoint(module)\n"
         "        fully_shard(modules if len(modules) > 1 else modules[0], mesh=mesh[kind],\n"
         "                    reshard_after_forward=reshard, mp_policy=MIXED_PRECISION)\n"
         "    # Parameters of no operator's modules (the blocks' norms) go with the root, over every GPU.\n"
         "    fully_shard(model, mesh=mesh[\"global\"], mp_policy=MIXED_PRECISION)\n"
         "    return model\n";
}

}  // namespace

std::string fsdp2_module(const Scenario& scenario, const Plan& plan, const std::vector<std::string>& header,
                         const std::vector<Placement>& placements) {
  std::ostringstream out;
  out << "\"\"\"";
  for (std::size_t i = 0; i < header.size(); ++i) out << (i > 0 ? "\n" : "") << docstring_safe(header[i]);
  out << "\n\nUse: apply_plan(model) after torch.distributed is initialised (one process per GPU), before "
         "the\n"
         "optimizer is built; train with MICRO_BATCH samples per GPU and GRADIENT_ACCUMULATION_STEPS.\n"
         "Needs PyTorch 2.6 or later (fully_shard in torch.distributed.fsdp).\n\"\"\"\n\n";
  write_constants(scenario, plan, out);
  write_plan_table(placements, out);
  write_functions(out);
  return out.str();
}

}  // namespace shardscope::exporting
