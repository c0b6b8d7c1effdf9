// The torchtitan and DeepSpeed exports: one policy for the whole model (the placement most parameters
// have), as torchtitan's TOML fields and a DeepSpeed JSON config.
#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>

#include "planner/report/internal/export_writers.hpp"

namespace shardscope::exporting {
namespace {

// Data-parallel degrees (replicate, shard) of a placement's mesh.
std::pair<int, int> degrees(const std::string& mesh, int gpus, int group) {
  if (mesh == "hsdp") return {gpus / group, group};
  if (mesh == "replicate") return {gpus, 1};
  return {1, gpus};
}

// The DeepSpeed stage of shardscope's scopes ("PGO"): 0 states replicated, 1 optimizer sharded, 2 and
// gradients, 3 and parameters.
int zero_stage(const std::string& scopes) {
  if (scopes[2] == 'N') return 0;
  if (scopes[1] == 'N') return 1;
  if (scopes[0] == 'N') return 2;
  return 3;
}

void write_comments(const std::vector<std::string>& header, std::ostream& out) {
  for (const std::string& line : header) out << "# " << line << "\n";
}

}  // namespace

std::vector<std::string> single_policy_notes(ExportFormat format, const Scenario& scenario,
                                             const Dominant& dominant) {
  std::vector<std::string> out;
  const std::string name(to_string(format));
  if (!dominant.differing.empty()) {
    out.push_back("one policy for the model (" + name + "): the one holding most parameters (" +
                  dominant.placement.scopes + (dominant.placement.checkpoint ? ", checkpointed" : "") +
                  "); " + std::to_string(dominant.differing.size()) + " operators planned otherwise, e.g. " +
                  dominant.differing.front());
  }
  const Placement& p = dominant.placement;
  if (format == ExportFormat::torchtitan && p.reshard == "GROUP_SIZE")
    out.push_back(
        "resharding parameters to a group after forward (hpZ): torchtitan has no such option; "
        "fsdp_reshard_after_forward = \"always\"");
  const TensorSlice& mesh = scenario.mesh.tensor;
  if (format == ExportFormat::torchtitan && mesh.degree > 1 && !mesh.sequence_parallel)
    out.push_back(
        "tensor parallelism without sequence parallelism: torchtitan's tensor parallelism shards the norms "
        "and dropouts by sequence (the plan was priced without)");
  if (format == ExportFormat::torchtitan && mesh.expert > 1 && mesh.expert_imbalance > 1)
    out.push_back("the expert load imbalance (" + std::to_string(mesh.expert_imbalance) +
                  "): a routing outcome, not a setting");
  if (format == ExportFormat::deepspeed && p.mesh == "hsdp" && zero_stage(p.scopes) < 3)
    out.push_back("states sharded inside groups at ZeRO stage " + std::to_string(zero_stage(p.scopes)) +
                  " (PaRO's partial redundancy): DeepSpeed has MiCS groups at stage 3 only; sharded over "
                  "every GPU here");
  if (format == ExportFormat::deepspeed && scenario.training.checkpointing != CheckpointPolicy::none &&
      scenario.training.checkpointing != CheckpointPolicy::search)
    out.push_back(
        "activation checkpointing is the model code's under DeepSpeed (its own "
        "activation_checkpointing section does not wrap modules); checkpoint what the plan says");
  return out;
}

std::string torchtitan_toml(const Scenario& scenario, const Plan& plan,
                            const std::vector<std::string>& header, const Dominant& dominant) {
  const Placement& p = dominant.placement;
  // On a mesh the data-parallel view's ranks are dp_shard x cp: FSDP's degrees count the sequences' ranks
  // (torchtitan shards over dp_shard x cp itself), a sample is a chunk, a sequence C of them.
  const TensorSlice& mesh = scenario.mesh.tensor;
  const int context = std::max(1, mesh.context);
  const int ranks = scenario.cluster.gpus() / context;
  const auto [replicate, shard] = degrees(p.mesh, ranks, std::min(plan.group_size, ranks));
  std::ostringstream out;
  write_comments(header, out);
  out << "# Field names of torchtitan's job config (2025): merge into the model's TOML.\n\n"
      << "[training]\nlocal_batch_size = " << plan.micro_batch
      << "\nglobal_batch_size = " << plan.micro_batch * plan.gradient_accumulation_steps * ranks
      << "\nseq_len = " << scenario.model.sequence_length * context << "\nmixed_precision_param = \""
      << param_dtype(scenario) << "\"\nmixed_precision_reduce = \"" << reduce_dtype(scenario) << "\"\n\n"
      << "[parallelism]\ndata_parallel_replicate_degree = " << replicate
      << "\ndata_parallel_shard_degree = " << shard << "\nfsdp_reshard_after_forward = \""
      << (p.reshard == "False" ? "never" : "always") << "\"\n";
  if (scenario.mesh.sliced()) {
    out << "tensor_parallel_degree = " << mesh.degree << "\ncontext_parallel_degree = " << context
        << "\nexpert_parallel_degree = " << mesh.expert << "\n";
  }
  out << "\n[activation_checkpoint]\n";
  if (scenario.training.checkpointing == CheckpointPolicy::selective) {
    out << "mode = \"selective\"\nselective_ac_option = \"op\"\n";
  } else if (scenario.training.checkpointing == CheckpointPolicy::layers) {
    out << "mode = \"selective\"\nselective_ac_option = \"" << scenario.training.checkpoint_every << "\"\n";
  } else {
    out << "mode = \"" << (p.checkpoint ? "full" : "none") << "\"\n";
  }
  return out.str();
}

std::string deepspeed_json(const Scenario& scenario, const Plan& plan, const std::vector<std::string>& header,
                           const Dominant& dominant) {
  const Placement& p = dominant.placement;
  const int stage = zero_stage(p.scopes);
  nlohmann::ordered_json j;
  j["_shardscope"] = header;
  j["train_micro_batch_size_per_gpu"] = plan.micro_batch;
  j["gradient_accumulation_steps"] = plan.gradient_accumulation_steps;
  if (scenario.training.precision == Precision::mixed_bf16) j["bf16"] = {{"enabled", true}};
  if (scenario.training.precision == Precision::mixed_fp16) j["fp16"] = {{"enabled", true}};
  nlohmann::ordered_json zero = {{"stage", stage}, {"overlap_comm", true}, {"contiguous_gradients", true}};
  if (stage == 3 && p.mesh == "hsdp") zero["mics_shard_size"] = plan.group_size;
  if (stage == 3 && p.reshard == "GROUP_SIZE") zero["zero_hpz_partition_size"] = plan.group_size;
  // DeepSpeed's default bucket sizes (deepspeed/runtime/zero/config.py), which the deepspeed runtime
  // profile's reserve assumes (scenarios/runtimes/deepspeed.yaml).
  zero["reduce_bucket_size"] = 500000000;
  if (stage == 3) zero["stage3_prefetch_bucket_size"] = 500000000;
  j["zero_optimization"] = zero;
  return j.dump(2) + "\n";
}

}  // namespace shardscope::exporting
