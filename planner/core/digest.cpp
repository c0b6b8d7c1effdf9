// Canonical text of a scenario and a calibration (one "key=value" line each, doubles as hex floats) and its
// FNV-1a 64.
#include "planner/core/digest.hpp"

#include <cstdio>

namespace shardscope {
namespace {

// Accumulates "key=value\n" lines; doubles are written exactly (%a), so equal values give equal text.
class CanonicalText {
 public:
  void add(const std::string& key, double value) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%a", value);
    line(key, buffer);
  }
  void add(const std::string& key, std::int64_t value) { line(key, std::to_string(value)); }
  void add(const std::string& key, int value) { line(key, std::to_string(value)); }
  void add(const std::string& key, bool value) { line(key, value ? "true" : "false"); }
  void add(const std::string& key, const char* value) { line(key, value); }
  const std::string& text() const { return text_; }

 private:
  void line(const std::string& key, const std::string& value) { text_ += key + "=" + value + "\n"; }
  std::string text_;
};

void add_operator(CanonicalText& c, const std::string& p, const Operator& op, bool selective,
                  bool unfused_loss) {
  c.add(p + "name", op.name.c_str());
  c.add(p + "kind", static_cast<int>(op.kind));
  c.add(p + "layer", op.layer);
  c.add(p + "parameters", op.parameters);
  c.add(p + "active_parameters", op.active_parameters);
  c.add(p + "parameter_dtype", static_cast<int>(op.parameter_dtype));
  c.add(p + "forward_flops_per_sample", op.forward_flops_per_sample);
  c.add(p + "backward_flops_per_sample", op.backward_flops_per_sample);
  c.add(p + "activation_bytes_per_sample", op.activation_bytes_per_sample);
  c.add(p + "checkpoint_bytes_per_sample", op.checkpoint_bytes_per_sample);
  c.add(p + "workspace_bytes_per_sample", op.workspace_bytes_per_sample);
  if (unfused_loss) c.add(p + "loss_gradient_bytes_per_sample", op.loss_gradient_bytes_per_sample);
  if (selective) {  // read only under selective checkpointing: other digests stay as they were
    c.add(p + "selective_bytes_per_sample", op.selective_bytes_per_sample);
    c.add(p + "selective_recompute_flops_per_sample", op.selective_recompute_flops_per_sample);
  }
  c.add(p + "splittable", op.splittable);
  c.add(p + "trainable", op.trainable);
  c.add(p + "paper.given", op.paper.given);
  c.add(p + "paper.gamma_seconds_per_sample", op.paper.gamma_seconds_per_sample);
  c.add(p + "paper.parameter_bytes", op.paper.parameter_bytes);
  c.add(p + "paper.model_bytes", op.paper.model_bytes);
  c.add(p + "paper.activation_bytes_per_sample", op.paper.activation_bytes_per_sample);
  c.add(p + "paper.extra_bytes", op.paper.extra_bytes);
  // Only under a tensor slice: every other digest stays as it was.
  for (std::size_t i = 0; i < op.tensor_collectives.size(); ++i) {
    const TensorCollective& t = op.tensor_collectives[i];
    const std::string q = p + "tensor_collective." + std::to_string(i) + ".";
    c.add(q + "kind", static_cast<int>(t.kind));
    c.add(q + "backward", t.backward);
    c.add(q + "bytes_per_sample", t.bytes_per_sample);
    if (t.all_to_all) c.add(q + "all_to_all", true);  // expert parallelism only: others as they were
  }
  if (op.expert_parallel) c.add(p + "expert_parallel", true);
}

void add_cluster(CanonicalText& c, const Cluster& k) {
  c.add("cluster.nodes", k.nodes);
  c.add("cluster.gpus_per_node", k.gpus_per_node);
  c.add("gpu.peak_flops_per_second_fp32", k.gpu.peak_flops_per_second_fp32);
  c.add("gpu.peak_flops_per_second_fp16", k.gpu.peak_flops_per_second_fp16);
  c.add("gpu.achievable_fraction", k.gpu.achievable_fraction);
  c.add("gpu.memory_bytes", k.gpu.memory_bytes);
  c.add("gpu.hbm_bytes_per_second", k.gpu.hbm_bytes_per_second);
  c.add("intra_node", static_cast<int>(k.intra_node));
  c.add("pcie.generation", k.pcie.generation);
  c.add("pcie.lanes", k.pcie.lanes);
  c.add("pcie.sockets", k.pcie.sockets);
  c.add("pcie.switches_per_socket", k.pcie.switches_per_socket);
  c.add("pcie.gpus_per_switch", k.pcie.gpus_per_switch);
  c.add("pcie.gpu_link_bytes_per_second", k.pcie.gpu_link_bytes_per_second);
  c.add("pcie.switch_uplink_bytes_per_second", k.pcie.switch_uplink_bytes_per_second);
  c.add("pcie.inter_socket_bytes_per_second", k.pcie.inter_socket_bytes_per_second);
  c.add("pcie.latency_seconds", k.pcie.latency_seconds);
  c.add("nvswitch.gpu_bytes_per_second", k.nvswitch.gpu_bytes_per_second);
  c.add("nvswitch.latency_seconds", k.nvswitch.latency_seconds);
  c.add("network.kind", static_cast<int>(k.network.kind));
  c.add("network.nics_per_node", k.network.nics_per_node);
  c.add("network.nic_bytes_per_second", k.network.nic_bytes_per_second);
  c.add("network.oversubscription", k.network.oversubscription);
  c.add("network.nodes_per_leaf", k.network.nodes_per_leaf);
  c.add("network.latency_seconds", k.network.latency_seconds);
  if (k.network.leaves_per_pod != 0) {  // only when set: digests of clusters without a spine level stay
    c.add("network.leaves_per_pod", k.network.leaves_per_pod);
    c.add("network.spine_oversubscription", k.network.spine_oversubscription);
  }
}

void add_training(CanonicalText& c, const TrainingConfig& t) {
  c.add("training.global_batch", t.global_batch);
  c.add("training.micro_batch", t.micro_batch);
  c.add("training.gradient_accumulation_steps", t.gradient_accumulation_steps);
  c.add("training.max_micro_batch", t.max_micro_batch);
  c.add("training.precision", to_string(t.precision));
  c.add("training.optimizer", to_string(t.optimizer));
  c.add("training.checkpointing", to_string(t.checkpointing));
  if (t.checkpointing == CheckpointPolicy::layers) c.add("training.checkpoint_every", t.checkpoint_every);
  for (std::size_t i = 0; i < t.slice_granularities.size(); ++i) {
    c.add("training.slice_granularities." + std::to_string(i), t.slice_granularities[i]);
  }
  c.add("training.group_size", t.group_size);
  c.add("training.memory_limit_bytes", t.memory_limit_bytes);
  c.add("training.runtime_reserve_bytes", t.runtime_reserve_bytes);
}

}  // namespace

std::uint64_t fnv1a_64(std::string_view bytes) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (const char ch : bytes) {
    hash ^= static_cast<unsigned char>(ch);
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

namespace {

void add_runtime(CanonicalText& c, const Scenario& scenario) {
  const RuntimeProfile& r = scenario.execution.runtime;
  if (!r.kernel_pricing()) return;
  c.add("execution.runtime", static_cast<int>(r.name));
  c.add("execution.runtime.host_forward_seconds", r.host_forward_seconds);
  c.add("execution.runtime.host_backward_seconds", r.host_backward_seconds);
  c.add("execution.runtime.reserve_bytes", r.reserve_bytes);
  c.add("execution.runtime.recompute_gathers_again", r.recompute_gathers_again);
  if (const std::optional<KernelEfficiency>& k = scenario.cluster.gpu.kernels) {
    c.add("gpu.kernels.gemm_fraction", k->gemm_fraction);
    c.add("gpu.kernels.gemm_half_rate_flops", k->gemm_half_rate_flops);
    c.add("gpu.kernels.attention_forward_fraction", k->attention_forward_fraction);
    c.add("gpu.kernels.attention_backward_fraction", k->attention_backward_fraction);
    c.add("gpu.kernels.elementwise_fraction", k->elementwise_fraction);
  }
}

}  // namespace

std::uint64_t scenario_digest(const Scenario& scenario) {
  CanonicalText c;
  c.add("model.sequence_length", scenario.model.sequence_length);
  for (std::size_t i = 0; i < scenario.model.operators.size(); ++i) {
    add_operator(c, "operator." + std::to_string(i) + ".", scenario.model.operators[i],
                 scenario.training.checkpointing == CheckpointPolicy::selective,
                 scenario.execution.cross_entropy != CrossEntropy::fused);
  }
  add_cluster(c, scenario.cluster);
  add_training(c, scenario.training);
  c.add("planner.cost_model", static_cast<int>(scenario.planner.cost_model));
  c.add("planner.paper.alpha_seconds", scenario.planner.paper.alpha_seconds);
  c.add("planner.paper.beta_seconds_per_byte", scenario.planner.paper.beta_seconds_per_byte);
  c.add("execution.overlap", scenario.execution.overlap);
  c.add("execution.prefetch_depth", scenario.execution.prefetch_depth);
  c.add("execution.bucket_bytes", scenario.execution.bucket_bytes);
  // Only when not the default: every other digest stays as it was.
  if (scenario.execution.cross_entropy != CrossEntropy::fused)
    c.add("execution.cross_entropy", static_cast<int>(scenario.execution.cross_entropy));
  // Only when on (every other digest stays as it was), with the numbers they price by.
  if (scenario.execution.reduce_dtype != ReduceDtype::gradient)
    c.add("execution.reduce_dtype", static_cast<int>(scenario.execution.reduce_dtype));
  if (scenario.execution.kernel_options.compile) {
    c.add("execution.compile", 1);
    c.add("execution.runtime.compiled_elementwise_share",
          scenario.execution.runtime.compiled_elementwise_share);
  }
  if (scenario.execution.kernel_options.float8 != Float8Recipe::none) {
    c.add("execution.float8", static_cast<int>(scenario.execution.kernel_options.float8));
    if (const std::optional<KernelEfficiency>& k = scenario.cluster.gpu.kernels)
      c.add("gpu.kernels.fp8_speedup", k->fp8_speedup);
  }
  add_runtime(c, scenario);      // nothing under ideal: its digests stay as they were
  if (scenario.mesh.sliced()) {  // the physical cluster the data-parallel one was cut from
    c.add("mesh.tensor", scenario.mesh.tensor.degree);
    c.add("mesh.sequence_parallel", scenario.mesh.tensor.sequence_parallel);
    if (scenario.mesh.tensor.context > 1) c.add("mesh.context", scenario.mesh.tensor.context);
    if (scenario.mesh.tensor.expert > 1) {
      c.add("mesh.expert", scenario.mesh.tensor.expert);
      c.add("mesh.expert_imbalance", scenario.mesh.tensor.expert_imbalance);
    }
    add_cluster(c, scenario.mesh.physical);
  }
  if (scenario.mesh.pipeline.pipelined()) {  // a pipeline stage's scenario
    c.add("execution.runtime.pipeline_shards_optimizer_only",
          scenario.execution.runtime.pipeline_shards_optimizer_only);
    c.add("mesh.pipeline.stages", scenario.mesh.pipeline.stages);
    c.add("mesh.pipeline.index", scenario.mesh.pipeline.index);
    c.add("mesh.pipeline.in_flight", scenario.mesh.pipeline.in_flight_micro_batches);
    c.add("mesh.pipeline.receive_buffers", scenario.mesh.pipeline.receive_buffer_bytes);
  }
  return fnv1a_64(c.text());
}

std::uint64_t model_digest(const Model& model) {
  CanonicalText c;
  for (std::size_t i = 0; i < model.operators.size(); ++i) {
    // The plan's model: what selective checkpointing keeps is in the scenario's digest, not here.
    add_operator(c, "operator." + std::to_string(i) + ".", model.operators[i], false, false);
  }
  return fnv1a_64(c.text());
}

std::uint64_t calibration_digest(const Calibration& calibration) {
  CanonicalText c;
  for (std::size_t i = 0; i < calibration.links.size(); ++i) {
    if (!calibration.links[i]) continue;
    c.add("link." + std::to_string(i) + ".alpha_seconds", calibration.links[i]->alpha_seconds);
    c.add("link." + std::to_string(i) + ".bytes_per_second", calibration.links[i]->bytes_per_second);
  }
  for (std::size_t i = 0; i < calibration.achievable_fraction.size(); ++i) {
    if (calibration.achievable_fraction[i]) {
      c.add("achievable_fraction." + std::to_string(i), *calibration.achievable_fraction[i]);
    }
  }
  c.add("overlap_slowdown", calibration.overlap_slowdown);
  c.add("slice_overhead_seconds", calibration.slice_overhead_seconds);
  if (calibration.runtime_reserve_bytes) c.add("runtime_reserve_bytes", *calibration.runtime_reserve_bytes);
  for (std::size_t i = 0; i < calibration.message_efficiency.size(); ++i) {
    c.add("message_efficiency." + std::to_string(i) + ".bytes", calibration.message_efficiency[i].first);
    c.add("message_efficiency." + std::to_string(i) + ".factor", calibration.message_efficiency[i].second);
  }
  for (std::size_t k = 0; k < calibration.link_message_efficiency.size();
       ++k) {  // only classes that have one
    const auto& table = calibration.link_message_efficiency[k];
    for (std::size_t i = 0; i < table.size(); ++i) {
      const std::string at = "link." + std::to_string(k) + ".message_efficiency." + std::to_string(i);
      c.add(at + ".bytes", table[i].first);
      c.add(at + ".factor", table[i].second);
    }
  }
  for (std::size_t k = 0; k < calibration.gemm_efficiency.size(); ++k) {  // none: the digest is unchanged
    const auto& table = calibration.gemm_efficiency[k];
    for (std::size_t i = 0; i < table.size(); ++i) {
      const std::string at = "gemm_efficiency." + std::to_string(k) + "." + std::to_string(i);
      c.add(at + ".flops", table[i].first);
      c.add(at + ".factor", table[i].second);
    }
  }
  if (calibration.product_shapes) {  // none: the digest is unchanged
    const ProductShapeModel& m = *calibration.product_shapes;
    c.add("product_shapes.half_rate_flops", m.half_rate_flops);
    c.add("product_shapes.operand_bytes_per_second", m.operand_bytes_per_second);
    c.add("product_shapes.misaligned_fraction", m.misaligned_fraction);
    c.add("product_shapes.alignment_elements", static_cast<double>(m.alignment_elements));
    if (m.misaligned_dimensions != MisalignedDimensions::rows_or_reduction)
      c.add("product_shapes.misaligned_dimensions", static_cast<double>(m.misaligned_dimensions));
  }
  const RuntimeCalibration& r = calibration.runtime;  // none: the digest is unchanged
  const std::pair<const char*, const std::optional<double>*> fits[] = {
      {"runtime.host_forward_seconds", &r.host_forward_seconds},
      {"runtime.host_backward_seconds", &r.host_backward_seconds},
      {"runtime.gemm_fraction", &r.gemm_fraction},
      {"runtime.gemm_half_rate_flops", &r.gemm_half_rate_flops},
      {"runtime.attention_forward_fraction", &r.attention_forward_fraction},
      {"runtime.attention_backward_fraction", &r.attention_backward_fraction},
      {"runtime.elementwise_fraction", &r.elementwise_fraction}};
  for (const auto& [key, value] : fits) {
    if (*value) c.add(key, **value);
  }
  if (calibration.elementwise_bytes_per_second > 0)
    c.add("elementwise_bytes_per_second", calibration.elementwise_bytes_per_second);
  // Only the factors a file gives: a calibration without them keeps its digest.
  for (std::size_t k = 0; k < calibration.collective_efficiency.size(); ++k) {
    for (std::size_t kind = 0; kind < calibration.collective_efficiency[k].size(); ++kind) {
      const std::optional<double>& factor = calibration.collective_efficiency[k][kind];
      if (factor)
        c.add("link." + std::to_string(k) + ".collective_efficiency." + std::to_string(kind), *factor);
    }
  }
  return fnv1a_64(c.text());
}

std::uint64_t plan_digest(const Plan& plan) {
  CanonicalText c;
  c.add("model_digest", static_cast<std::int64_t>(plan.model_digest));
  c.add("micro_batch", plan.micro_batch);
  c.add("gradient_accumulation_steps", plan.gradient_accumulation_steps);
  c.add("group_size", plan.group_size);
  c.add("precision", static_cast<int>(plan.precision));
  for (std::size_t i = 0; i < plan.operators.size(); ++i) {
    const OperatorChoice& o = plan.operators[i];
    const std::string p = "op" + std::to_string(i) + ".";
    c.add(p + "name", o.name.c_str());
    c.add(p + "scopes", o.scopes.name().c_str());
    c.add(p + "secondary_parameter_partition", o.secondary_parameter_partition);
    c.add(p + "slices", o.slices);
    c.add(p + "sharded_slices", o.sharded_slices);
    c.add(p + "checkpoint", o.checkpoint);
  }
  return fnv1a_64(c.text());
}

std::string format_digest(std::uint64_t digest) {
  char buffer[17];
  std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(digest));
  return buffer;
}

bool parse_digest(const std::string& text, std::uint64_t& digest) {
  if (text.size() != 16) return false;
  std::uint64_t value = 0;
  for (const char ch : text) {
    int nibble = 0;
    if (ch >= '0' && ch <= '9') {
      nibble = ch - '0';
    } else if (ch >= 'a' && ch <= 'f') {
      nibble = ch - 'a' + 10;
    } else {
      return false;
    }
    value = value << 4 | static_cast<std::uint64_t>(nibble);
  }
  digest = value;
  return true;
}

}  // namespace shardscope
