// Scenario defaults and invariants: what every entry point relies on (positive sizes, dividing groups).
#include "planner/core/scenario_check.hpp"

#include <algorithm>
#include <cmath>

#include "planner/core/checked_math.hpp"
#include "planner/core/error.hpp"
#include "planner/core/printable.hpp"

namespace shardscope {
namespace {

class Issues {
 public:
  void add(std::string field, std::string message) {
    list_.push_back({std::move(field), std::move(message)});
  }
  void positive(const std::string& field, double value, const char* what) {
    if (!(value > 0) || !std::isfinite(value)) add(field, std::string("expected a positive ") + what);
  }
  void non_negative(const std::string& field, double value, const char* what) {
    if (!(value >= 0) || !std::isfinite(value)) add(field, std::string("expected a non-negative ") + what);
  }
  // A name the tool prints must be printable UTF-8 (core/printable.hpp).
  void printable(const std::string& field, const std::string& name) {
    if (const std::optional<std::string> reason = unprintable_reason(name)) {
      add(field, "expected a printable name, got '" + escape_unprintable(name) + "', which " + *reason);
    }
  }
  bool empty_so_far() const { return list_.empty(); }
  std::vector<ScenarioIssue> take() { return std::move(list_); }

 private:
  std::vector<ScenarioIssue> list_;
};

// The cluster's GPUs, computed without overflow (Cluster::gpus() is an int product); 0 when a count is bad.
std::int64_t gpu_count(const Cluster& c) {
  if (c.nodes < 1 || c.gpus_per_node < 1) return 0;
  return std::int64_t{c.nodes} * c.gpus_per_node;
}

void check_cluster(const Cluster& c, Issues& issues) {
  issues.printable("cluster.name", c.name);
  issues.printable("cluster.gpu.name", c.gpu.name);
  if (c.nodes < 1) issues.add("cluster.nodes", "expected at least one node");
  if (c.gpus_per_node < 1) issues.add("cluster.gpus_per_node", "expected at least one GPU per node");
  if (gpu_count(c) > kMaxGpus) {
    issues.add("cluster.nodes", "nodes x gpus_per_node exceeds " + std::to_string(kMaxGpus) + " GPUs");
  }
  issues.positive("cluster.gpu.peak_fp16", c.gpu.peak_flops_per_second_fp16, "FLOP/s rate");
  issues.positive("cluster.gpu.peak_fp32", c.gpu.peak_flops_per_second_fp32, "FLOP/s rate");
  if (!(c.gpu.achievable_fraction > 0 && c.gpu.achievable_fraction <= 1)) {
    issues.add("cluster.gpu.achievable_fraction", "expected a fraction in (0, 1]");
  }
  if (c.gpu.memory_bytes <= 0) issues.add("cluster.gpu.memory", "expected a positive byte size");
  issues.positive("cluster.gpu.hbm_bandwidth", c.gpu.hbm_bytes_per_second, "bandwidth");
  if (c.intra_node == IntraNodeKind::nvswitch) {
    issues.positive("cluster.intra_node.gpu_bandwidth", c.nvswitch.gpu_bytes_per_second, "bandwidth");
    issues.non_negative("cluster.intra_node.latency", c.nvswitch.latency_seconds, "duration");
  } else {
    const PcieTopology& p = c.pcie;
    if (p.sockets < 1 || p.switches_per_socket < 1 || p.gpus_per_switch < 1) {
      issues.add("cluster.intra_node", "expected at least one socket, switch per socket and GPU per switch");
    } else if (c.gpus_per_node > p.sockets * p.switches_per_socket * p.gpus_per_switch) {
      issues.add("cluster.intra_node.gpus_per_switch",
                 "the PCIe tree has fewer GPU slots than gpus_per_node");
    }
    issues.positive("cluster.intra_node.gpu_link_bandwidth", p.gpu_link_bytes_per_second, "bandwidth");
    issues.positive("cluster.intra_node.switch_uplink_bandwidth", p.switch_uplink_bytes_per_second,
                    "bandwidth");
    issues.positive("cluster.intra_node.inter_socket_bandwidth", p.inter_socket_bytes_per_second,
                    "bandwidth");
    issues.non_negative("cluster.intra_node.latency", p.latency_seconds, "duration");
  }
  if (c.nodes > 1) {
    const NetworkTopology& n = c.network;
    if (n.nics_per_node < 1)
      issues.add("cluster.network.nics_per_node", "expected at least one NIC per node");
    issues.positive("cluster.network.nic_rate", n.nic_bytes_per_second, "bandwidth");
    if (!(n.oversubscription >= 1) || !std::isfinite(n.oversubscription)) {
      issues.add("cluster.network.oversubscription", "expected a ratio of at least 1");
    }
    if (n.nodes_per_leaf < 0) issues.add("cluster.network.nodes_per_leaf", "expected 0 (all) or more nodes");
    if (n.leaves_per_pod < 0) issues.add("cluster.network.leaves_per_pod", "expected 0 (all) or more leaves");
    if (!(n.spine_oversubscription >= 1) || !std::isfinite(n.spine_oversubscription)) {
      issues.add("cluster.network.spine_oversubscription", "expected a ratio of at least 1");
    }
    issues.non_negative("cluster.network.latency", n.latency_seconds, "duration");
  }
}

void check_model(const Model& m, Issues& issues) {
  if (m.operators.empty()) issues.add("model.operators", "expected at least one operator");
  if (m.sequence_length < 1) issues.add("model.sequence_length", "expected at least one token per sample");
  issues.printable("model.name", m.name);
  // Every cost model validates its scenario, once per batch size: field names are built only for an
  // operator that has a problem.
  const auto well_formed = [](const Operator& op) {
    return !op.name.empty() && !unprintable_reason(op.name) && op.parameters >= 0 &&
           op.active_parameters >= 0 && op.active_parameters <= op.parameters &&
           op.forward_flops_per_sample >= 0 && std::isfinite(op.forward_flops_per_sample) &&
           op.backward_flops_per_sample >= 0 && std::isfinite(op.backward_flops_per_sample) &&
           op.activation_bytes_per_sample >= 0 && op.checkpoint_bytes_per_sample >= 0 &&
           op.workspace_bytes_per_sample >= 0 && op.loss_gradient_bytes_per_sample >= 0 &&
           op.selective_bytes_per_sample >= -1 && op.selective_recompute_flops_per_sample >= -1 &&
           op.selective_recompute_flops_per_sample <= op.forward_flops_per_sample;
  };
  for (std::size_t i = 0; i < m.operators.size(); ++i) {
    const Operator& op = m.operators[i];
    if (well_formed(op)) continue;
    const std::string at = "model.operators[" + std::to_string(i) + "]";
    if (op.name.empty()) issues.add(at + ".name", "expected a name");
    issues.printable(at + ".name", op.name);
    if (op.parameters < 0) issues.add(at + ".parameters", "expected a non-negative count");
    if (op.active_parameters < 0 || op.active_parameters > op.parameters) {
      issues.add(at + ".active_parameters", "expected a count between 0 and the operator's parameters");
    }
    issues.non_negative(at + ".forward_flops_per_sample", op.forward_flops_per_sample, "FLOP count");
    issues.non_negative(at + ".backward_flops_per_sample", op.backward_flops_per_sample, "FLOP count");
    if (op.activation_bytes_per_sample < 0 || op.checkpoint_bytes_per_sample < 0 ||
        op.workspace_bytes_per_sample < 0) {
      issues.add(at + ".activation_bytes_per_sample", "expected non-negative byte sizes");
    }
    if (op.loss_gradient_bytes_per_sample < 0) {
      issues.add(at + ".loss_gradient_bytes_per_sample", "expected a non-negative byte size");
    }
    if (op.selective_bytes_per_sample < -1) {
      issues.add(at + ".selective_bytes_per_sample", "expected a non-negative byte size");
    }
    if (op.selective_recompute_flops_per_sample < -1 ||
        op.selective_recompute_flops_per_sample > op.forward_flops_per_sample) {
      issues.add(at + ".selective_recompute_flops_per_sample",
                 "expected a FLOP count between 0 and the operator's forward FLOPs");
    }
  }
  // Legal operators can still add up past 64 bits (~8,200 at the largest activation size, or a large MoE).
  if (const std::optional<std::string_view> total = overflowing_total(m)) {
    issues.add("model.operators", std::string(*total) + " overflow 64-bit integers");
  }
}

// A global batch must be reachable: exactly micro_batch x gradient_accumulation_steps x GPUs when the
// micro-batch is given, else by some micro-batch of the planner's scan (1 to max_micro_batch) that divides
// the samples per GPU in at most kMaxAccumulationSteps steps.
void check_global_batch(const TrainingConfig& t, std::int64_t gpus, Issues& issues) {
  if (t.micro_batch > 0) {
    const std::optional<std::int64_t> per_step = checked_mul(t.micro_batch, gpus);
    const std::optional<std::int64_t> product =
        per_step ? checked_mul(*per_step, t.gradient_accumulation_steps) : std::nullopt;
    if (product != t.global_batch) {
      issues.add("training.global_batch",
                 "must equal micro_batch x gradient_accumulation_steps x GPUs (" +
                     (product ? std::to_string(*product) : std::string("beyond 64-bit integers")) + ")");
    }
    return;
  }
  if (t.global_batch % gpus != 0) {
    issues.add("training.global_batch",
               "must be a multiple of the number of GPUs (" + std::to_string(gpus) + ")");
    return;
  }
  const std::int64_t per_gpu = t.global_batch / gpus;
  constexpr std::int64_t kMaxSteps = kMaxAccumulationSteps;
  for (std::int64_t b = (per_gpu + kMaxSteps - 1) / kMaxSteps; b <= t.max_micro_batch && b <= per_gpu; ++b) {
    if (per_gpu % b == 0) return;  // micro-batch b needs per_gpu / b <= kMaxSteps steps
  }
  issues.add("training.global_batch",
             "needs more than " + std::to_string(kMaxSteps) +
                 " accumulation steps (the most supported) at every micro-batch from 1 to max_micro_batch (" +
                 std::to_string(t.max_micro_batch) + ") that divides its " + std::to_string(per_gpu) +
                 " samples per GPU; lower global_batch or raise max_micro_batch");
}

void check_training(const Scenario& s, Issues& issues) {
  const TrainingConfig& t = s.training;
  if (t.group_size < 1) {
    issues.add("training.group_size", "expected at least 1 (call resolve_defaults() for the GPUs per node)");
  } else if (gpu_count(s.cluster) % t.group_size != 0) {
    issues.add("training.group_size", "group size " + std::to_string(t.group_size) + " does not divide the " +
                                          std::to_string(gpu_count(s.cluster)) + " GPUs of the cluster");
  }
  if (t.memory_limit_bytes <= 0) {
    issues.add("training.memory_limit",
               "expected a positive byte size (call resolve_defaults() for the capacity)");
  } else if (t.memory_limit_bytes > s.cluster.gpu.memory_bytes) {
    issues.add("training.memory_limit", "the memory limit exceeds the GPU's capacity (" +
                                            std::to_string(s.cluster.gpu.memory_bytes) + " bytes)");
  }
  if (t.runtime_reserve_bytes < 0) {
    issues.add("training.runtime_reserve", "expected a non-negative byte size");
  } else if (t.memory_limit_bytes > 0 && t.runtime_reserve_bytes >= t.memory_limit_bytes) {
    issues.add("training.runtime_reserve", "the runtime reserve must be below the memory limit (" +
                                               std::to_string(t.memory_limit_bytes) + " bytes)");
  }
  if (t.micro_batch < 0) issues.add("training.micro_batch", "expected 0 (scan) or a positive count");
  if (t.gradient_accumulation_steps < 1 || t.gradient_accumulation_steps > kMaxAccumulationSteps) {
    issues.add("training.gradient_accumulation_steps",
               "expected 1 to " + std::to_string(kMaxAccumulationSteps) + " steps (the most supported)");
  }
  if (t.max_micro_batch < 1) issues.add("training.max_micro_batch", "expected at least 1");
  if (t.checkpoint_every < 1) issues.add("training.checkpoint_every", "expected a layer count of at least 1");
  if (t.global_batch < 0) issues.add("training.global_batch", "expected 0 (the planner chooses) or a count");
  const std::int64_t gpus = gpu_count(s.cluster);
  // A pipelined scenario's data-parallel ranks are its stages' (their scenarios check it).
  if (t.global_batch > 0 && gpus > 0 && t.micro_batch >= 0 && t.max_micro_batch >= 1 &&
      !s.parallelism.pipelined()) {
    check_global_batch(t, gpus, issues);
  }
  if (t.slice_granularities.empty())
    issues.add("training.slice_granularities", "expected at least one granularity");
  for (int g : t.slice_granularities) {
    if (g < 1 || g > 64) issues.add("training.slice_granularities", "expected granularities from 1 to 64");
  }
}

void check_execution(const ExecutionOptions& e, Issues& issues) {
  if (e.prefetch_depth < 0 || e.prefetch_depth > 64)
    issues.add("execution.prefetch_depth", "expected 0 to 64");
  issues.non_negative("execution.bucket", e.bucket_bytes, "byte size");
}

// A runtime profile other than ideal prices kernels by the GPU's measured efficiencies, which the paper cost
// model (its own formulas) does not read and a GPU without `kernels` does not give.
void check_runtime(const Scenario& s, Issues& issues) {
  const RuntimeProfile& r = s.execution.runtime;
  if (!r.kernel_pricing()) return;
  const std::string name = to_string(r.name);
  if (s.planner.cost_model == CostModelKind::paper) {
    issues.add("execution.runtime", "runtime " + name +
                                        " needs the topology cost model; the paper model prices the papers' "
                                        "own formulas (use runtime ideal)");
  } else if (!s.cluster.gpu.kernels) {
    issues.add("execution.runtime",
               "runtime " + name + " prices kernels by the GPU's measured efficiencies, " + "and GPU '" +
                   s.cluster.gpu.name + "' gives none (cluster.gpu.kernels); use runtime ideal or add them");
  }
}

// torch.compile and float8 change kernel pricing, which only a framework's profile has: compile needs the
// profile's compiled share, float8 the GPU's fp8 products and a bf16 or fp16 forward.
void check_kernel_options(const Scenario& s, Issues& issues) {
  const KernelOptions& o = s.execution.kernel_options;
  const RuntimeProfile& r = s.execution.runtime;
  const std::string name = to_string(r.name);
  if (o.compile && !r.kernel_pricing()) {
    issues.add("execution.compile",
               "true needs a framework's runtime (fsdp2 or fsdp1); runtime " + name + " prices no kernels");
  } else if (o.compile && !r.compiles()) {
    issues.add("execution.compile", "true, but runtime " + name +
                                        " has no compiled mode (compiled_elementwise_share in "
                                        "scenarios/runtimes/" +
                                        name + ".yaml); use fsdp2 or fsdp1");
  }
  if (o.float8 == Float8Recipe::none) return;
  const std::string float8(to_string(o.float8));
  if (!r.kernel_pricing()) {
    issues.add("execution.float8", float8 + " needs a framework's runtime (fsdp2 or fsdp1); runtime " + name +
                                       " prices no kernels");
  } else if (!s.cluster.gpu.kernels || s.cluster.gpu.kernels->fp8_speedup <= 0) {
    issues.add("execution.float8", float8 + ", but GPU '" + s.cluster.gpu.name +
                                       "' gives no fp8 product rate (cluster.gpu.kernels.fp8_speedup)");
  } else if (s.training.precision == Precision::fp32) {
    issues.add("execution.float8", float8 + " needs precision mixed-bf16 or mixed-fp16, not fp32");
  }
}

// Gradients reduced in fp32 change the topology model's collective sizes; the paper cost model prices the
// papers' own communication volumes.
void check_reduce_dtype(const Scenario& s, Issues& issues) {
  if (s.execution.reduce_dtype == ReduceDtype::gradient) return;
  if (s.planner.cost_model == CostModelKind::paper) {
    issues.add("execution.reduce_dtype",
               "fp32 needs the topology cost model; the paper model prices the papers' own communication "
               "volumes (use gradient)");
  }
}

// Op-level selective checkpointing is priced from each operator's selective bytes and recomputed FLOPs,
// which the paper cost model (one activation size per operator) does not have.
void check_selective(const Scenario& s, Issues& issues) {
  if (s.training.checkpointing != CheckpointPolicy::selective) return;
  if (s.planner.cost_model == CostModelKind::paper) {
    issues.add(
        "training.checkpointing",
        "selective checkpointing needs the topology cost model; the paper model knows only whole-operator "
        "checkpointing (use all, none or search)");
  }
}

// An unfused cross-entropy holds a second logit-sized gradient in the head's backward, which the paper cost
// model (its own activation sizes) does not price.
void check_cross_entropy(const Scenario& s, Issues& issues) {
  if (s.execution.cross_entropy == CrossEntropy::fused) return;
  if (s.planner.cost_model == CostModelKind::paper) {
    issues.add("execution.cross_entropy",
               "cross_entropy " + std::string(to_string(s.execution.cross_entropy)) +
                   " needs the topology cost model; the paper model prices the papers' own activation sizes "
                   "(use fused)");
  }
}

// A model must give an iteration something that takes time, or its throughput (samples / 0 s) is undefined:
// under the topology model some operator computes or has trainable parameters (an optimizer update); under
// the paper model some operator has a gamma, or on several GPUs there is something to communicate. (A paper
// operator without coefficients is the paper model's own error.)
void check_work(const Scenario& s, Issues& issues) {
  const std::vector<Operator>& ops = s.model.operators;
  if (ops.empty()) return;
  bool work = false;
  if (s.planner.cost_model == CostModelKind::paper) {
    const bool communicates = s.cluster.gpus() > 1 && s.planner.paper.alpha_seconds > 0;
    for (const Operator& op : ops) {
      if (!op.paper.given) return;
      work = work || op.paper.gamma_seconds_per_sample > 0 || communicates ||
             (s.cluster.gpus() > 1 && op.paper.parameter_bytes > 0);
    }
    if (!work) {
      issues.add(
          "model.operators",
          "the model has no work: every operator's paper.gamma is 0 and nothing is communicated, so an "
          "iteration takes 0 s and its throughput is undefined; give an operator a positive gamma");
    }
    return;
  }
  for (const Operator& op : ops) {
    work = work || op.forward_flops_per_sample > 0 || op.backward_flops_per_sample > 0 ||
           (op.trainable && op.parameters > 0);
  }
  if (!work) {
    issues.add(
        "model.operators",
        "the model has no work: no operator has FLOPs or trainable parameters, so an iteration takes 0 s "
        "and its throughput is undefined; give an operator forward_flops_per_sample or parameters");
  }
}

void check_planner(const PlannerOptions& p, Issues& issues) {
  if (p.cost_model == CostModelKind::paper) {
    issues.non_negative("planner.paper.alpha", p.paper.alpha_seconds, "duration");
    issues.positive("planner.paper.beta", p.paper.beta_seconds_per_byte, "seconds per byte");
  }
}

}  // namespace

void resolve_defaults(Scenario& scenario) {
  TrainingConfig& t = scenario.training;
  if (t.group_size == 0) t.group_size = scenario.cluster.gpus_per_node;
  if (t.memory_limit_bytes == 0) t.memory_limit_bytes = scenario.cluster.gpu.memory_bytes;
  if (scenario.name.empty()) scenario.name = scenario.model.name;
}

std::vector<ScenarioIssue> scenario_issues(const Scenario& scenario) {
  Issues issues;
  issues.printable("name", scenario.name);
  check_cluster(scenario.cluster, issues);
  check_model(scenario.model, issues);
  if (issues.empty_so_far()) check_work(scenario, issues);
  check_training(scenario, issues);
  check_planner(scenario.planner, issues);
  check_execution(scenario.execution, issues);
  check_runtime(scenario, issues);
  check_kernel_options(scenario, issues);
  check_reduce_dtype(scenario, issues);
  check_selective(scenario, issues);
  check_cross_entropy(scenario, issues);
  return issues.take();
}

std::vector<ScenarioIssue> calibration_issues(const Calibration& cal, const Scenario& scenario) {
  Issues issues;
  for (LinkClass lc : values<LinkClass>()) {
    const std::optional<LinkCalibration>& link = cal.links[static_cast<std::size_t>(lc)];
    if (!link) continue;
    const std::string at = "links." + std::string(to_string(lc));
    issues.non_negative(at + ".alpha", link->alpha_seconds, "duration");
    issues.positive(at + ".bandwidth", link->bytes_per_second, "bandwidth");
  }
  for (OperatorKind k : values<OperatorKind>()) {
    const std::optional<double>& f = cal.achievable_fraction[static_cast<std::size_t>(k)];
    if (f && !(*f > 0 && *f <= 1)) {
      issues.add("achievable_fraction." + std::string(to_string(k)), "expected a fraction in (0, 1]");
    }
  }
  issues.non_negative("overlap_slowdown", cal.overlap_slowdown, "fraction");
  issues.non_negative("slice_overhead", cal.slice_overhead_seconds, "duration");
  const auto check_table = [&issues](const std::vector<std::pair<double, double>>& table,
                                     const std::string& field, const std::string& size_key,
                                     const char* size_unit) {
    for (std::size_t i = 0; i < table.size(); ++i) {
      const auto& [size, factor] = table[i];
      const std::string at = field + "[" + std::to_string(i) + "]";
      issues.positive(at + "." + size_key, size, size_unit);
      if (i > 0 && !(size > table[i - 1].first)) {
        issues.add(at + "." + size_key, "sizes must increase from one point to the next");
      }
      if (!(factor > 0 && factor <= 1)) issues.add(at + ".factor", "expected a factor in (0, 1]");
    }
  };
  check_table(cal.message_efficiency, "message_efficiency", "bytes", "byte size");
  for (LinkClass lc : values<LinkClass>()) {
    check_table(cal.link_message_efficiency[static_cast<std::size_t>(lc)],
                "links." + std::string(to_string(lc)) + ".message_efficiency", "bytes", "byte size");
  }
  for (OperatorKind k : values<OperatorKind>()) {
    check_table(cal.gemm_efficiency[static_cast<std::size_t>(k)],
                "gemm_efficiency." + std::string(to_string(k)), "flops", "FLOP count");
  }
  if (cal.product_shapes) {
    const ProductShapeModel& m = *cal.product_shapes;
    issues.non_negative("product_shapes.half_rate_flops", m.half_rate_flops, "FLOP count");
    issues.positive("product_shapes.operand_bandwidth", m.operand_bytes_per_second, "bandwidth");
    if (!(m.misaligned_fraction >= 0 && m.misaligned_fraction <= 1))
      issues.add("product_shapes.misaligned_fraction", "expected a fraction in (0, 1], or 0 for none");
    if (m.alignment_elements < 1) issues.add("product_shapes.alignment", "expected a positive element count");
  }
  issues.non_negative("elementwise_bandwidth", cal.elementwise_bytes_per_second, "bandwidth");
  if (cal.runtime_reserve_bytes) {
    const double reserve = *cal.runtime_reserve_bytes;
    const std::int64_t limit = scenario.training.memory_limit_bytes;
    if (!(reserve >= 0) || !std::isfinite(reserve)) {
      issues.add("runtime_reserve", "expected a non-negative byte size");
    } else if (limit > 0 && reserve >= static_cast<double>(limit)) {
      issues.add("runtime_reserve",
                 "the runtime reserve must be below the memory limit (" + std::to_string(limit) + " bytes)");
    }
  }
  return issues.take();
}

void validate_calibration(const Calibration& calibration, const Scenario& scenario) {
  const std::vector<ScenarioIssue> issues = calibration_issues(calibration, scenario);
  if (issues.empty()) return;
  const std::string file = calibration.source_file.empty() ? "<calibration>" : calibration.source_file;
  throw InputError(file, 0, issues.front().field, issues.front().message);
}

double runtime_reserve_bytes(const Scenario& scenario, const Calibration& calibration) {
  // The scenario's own reserve, or its runtime profile's when that is larger (CUDA context, NCCL buffers,
  // allocator fragmentation: the framework holds them whatever the scenario says).
  const double own = std::max(static_cast<double>(scenario.training.runtime_reserve_bytes),
                              scenario.execution.runtime.reserve_bytes);
  if (scenario.planner.cost_model == CostModelKind::paper)
    return own;  // the paper model reads no calibration
  // A pipeline stage's receive buffers are held besides whatever the runtime reserves (a calibrated reserve
  // was measured without them).
  return calibration.runtime_reserve_bytes.value_or(own) + scenario.mesh.pipeline.receive_buffer_bytes;
}

void validate_scenario(const Scenario& scenario) {
  const std::vector<ScenarioIssue> issues = scenario_issues(scenario);
  const std::string file = scenario.source_file.empty() ? "<scenario>" : scenario.source_file;
  if (!issues.empty()) throw InputError(file, 0, issues.front().field, issues.front().message);
  // A pipelined scenario is whole: `plan` cuts it into stage scenarios (report/pipeline_search.hpp).
  if (scenario.parallelism.pipelined()) {
    throw InputError(
        file, 0, "parallelism.pipeline",
        "pipeline stages are planned by `shardscope plan` and simulated by `shardscope simulate` "
        "only; sweeping or inspecting a pipelined scenario is not built yet: plan or simulate it, or "
        "set parallelism.pipeline: 1 (--pp 1)");
  }
}

}  // namespace shardscope
