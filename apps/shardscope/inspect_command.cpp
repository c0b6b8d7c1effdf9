// `shardscope inspect SCENARIO [--json]`: model, cluster and model-state memory summary of a scenario.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "apps/shardscope/commands.hpp"
#include "apps/shardscope/option_checks.hpp"
#include "apps/shardscope/scenario_flags.hpp"
#include "planner/core/calibration.hpp"
#include "planner/core/model_states.hpp"
#include "planner/core/printable.hpp"
#include "planner/core/runtime_profile.hpp"
#include "planner/core/scenario_check.hpp"
#include "planner/core/units.hpp"
#include "planner/cost/collective_calls.hpp"
#include "planner/cost/collective_cost.hpp"
#include "planner/io/calibration_parser.hpp"
#include "planner/io/scenario_parser.hpp"
#include "planner/search/search_space.hpp"
#include "present/text_table.hpp"

namespace shardscope::cli {
namespace {

// The classic ZeRO stages of the strategy registry (DDP, ZeRO-1, ZeRO-2, FSDP = ZeRO-3).
std::vector<const Strategy*> classic_strategies() {
  std::vector<const Strategy*> out;
  for (const Strategy& s : strategies()) {
    if (s.classic) out.push_back(&s);
  }
  return out;
}

// A lone flow on a link class: the calibrated figures where the calibration sets the class, else the
// cluster's (a NIC to itself for the network).
LinkProperties lone_flow(const Scenario& s, const Calibration& calibration, LinkClass lc) {
  LinkProperties p = link_properties(s.cluster, lc);
  if (const auto& c = calibration.links[static_cast<std::size_t>(lc)]) {
    p.bytes_per_second = c->bytes_per_second;
    p.latency_seconds = c->alpha_seconds;
  }
  return p;
}

// What the cost model gives each edge of a group kind's rings when every group runs its collective at once
// (the links' flows per direction shared: a NIC that several rings cross is split between them).
struct GroupRing {
  GroupKind group;
  RingLink ring;
};
std::vector<GroupRing> group_rings(const Scenario& s, const Calibration& calibration) {
  const CollectiveCost cost(s.cluster, s.training.group_size, calibration);
  std::vector<GroupRing> out;
  for (const GroupKind g : {GroupKind::intra, GroupKind::inter, GroupKind::global}) {
    if (cost.group_ranks(g) > 1) out.push_back({g, cost.ring(g)});
  }
  return out;
}

// Where the kernel pricing's products take their rates from (kernel_product_source): the kernels' curve, or
// the calibration's product_shapes model or per-kind fractions and tables.
void write_kernel_products(std::ostream& os, const Calibration& calibration, const KernelEfficiency& k) {
  const KernelProductSource source = kernel_product_source(calibration);
  os << "          products ";
  if (source == KernelProductSource::product_shapes) {
    const ProductShapeModel& m = *calibration.product_shapes;
    os << "by the calibration's product_shapes (half rate at " << units::format_count(m.half_rate_flops)
       << " FLOPs, operands at " << units::format_bandwidth(m.operand_bytes_per_second) << ")";
  } else if (source == KernelProductSource::kind_fits) {
    os << "by the calibration's achievable_fraction and gemm_efficiency per kind";
  } else {
    os << k.gemm_fraction << " of peak (half that at " << units::format_count(k.gemm_half_rate_flops)
       << " FLOPs)" << (source == KernelProductSource::runtime_fit ? ", the calibration's runtime fit" : "");
  }
  os << "\n";
  if (source == KernelProductSource::product_shapes || source == KernelProductSource::kind_fits) {
    os << "          ";
    for (const OperatorKind kind : values<OperatorKind>()) {
      const auto& fraction = calibration.achievable_fraction[static_cast<std::size_t>(kind)];
      if (fraction) os << to_string(kind) << " " << units::format_general(*fraction, 4) << ", ";
    }
    os << "other kinds " << k.gemm_fraction << " of peak\n";
  }
}

// `gpu` names the cluster's GPU (ScenarioFlags::gpu_label).
// The runtime profile the scenario runs, with the calibration's fits applied: its file, host time, reserve
// and, under a framework's profile, how a recompute gathers and the GPU's kernel efficiencies it prices with.
void write_runtime(std::ostream& os, const Scenario& s, const Calibration& calibration) {
  const RuntimeProfile r = effective_runtime(s.execution.runtime, calibration.runtime);
  os << "Runtime   " << to_string(r.name) << " (scenarios/runtimes/" << to_string(r.name)
     << ".yaml): " << description(r.name) << "\n";
  if (!r.kernel_pricing()) return;
  const KernelEfficiency k = effective_kernels(*s.cluster.gpu.kernels, calibration.runtime);
  os << "          host " << units::format_duration(r.host_forward_seconds) << " forward, "
     << units::format_duration(r.host_backward_seconds) << " backward per operator at least; reserve "
     << units::format_bytes(runtime_reserve_bytes(s, calibration)) << " per GPU\n";
  os << "          a checkpointed operator's recompute "
     << (r.recompute_gathers_again ? "gathers its parameters again before its backward"
                                   : "and backward share one parameter gather")
     << "\n";
  write_kernel_products(os, calibration, k);
  os << "          flash attention " << k.attention_forward_fraction << " forward, "
     << k.attention_backward_fraction << " backward, element-wise ";
  os << k.elementwise_fraction << " of HBM";
  if (calibration.elementwise_bytes_per_second > 0)
    os << " (the framework's kernels; the calibration's elementwise_bandwidth is the harness's own)";
  os << "\n";
  const KernelOptions& o = s.execution.kernel_options;
  if (o.compile)
    os << "          compiled (execution.compile): the blocks' element-wise kernels fused, "
       << r.compiled_elementwise_share << " of their eager time; the embedding and head eager\n";
  if (o.float8 != Float8Recipe::none)
    os << "          float8 " << to_string(o.float8) << " (execution.float8): the blocks' linear products "
       << k.fp8_speedup << "x faster than bf16"
       << (o.float8 == Float8Recipe::dynamic ? ", with their casts" : ", casts fused")
       << "; attention and the head in bf16\n";
}

// The loss's extra memory under an unfused cross-entropy (execution.cross_entropy): the second fp32
// gradient of the logits the head's backward holds, per sample. Nothing is said under the default, fused.
double unfused_loss_bytes_per_sample(const Scenario& s) {
  double bytes = 0;
  for (const Operator& op : s.model.operators)
    bytes += static_cast<double>(op.loss_gradient_bytes_per_sample);
  return bytes;
}

void write_loss(std::ostream& os, const Scenario& s) {
  if (s.execution.reduce_dtype == ReduceDtype::fp32)
    os << "Gradients reduce_dtype fp32: every gradient reduce-scatter and all-reduce moves 4 bytes per "
          "parameter\n";
  if (s.execution.cross_entropy == CrossEntropy::fused) return;
  os << "Loss      cross_entropy " << to_string(s.execution.cross_entropy)
     << ": the head's backward holds a second fp32 gradient of the logits, "
     << units::format_bytes(unfused_loss_bytes_per_sample(s)) << " per sample\n";
}

nlohmann::ordered_json runtime_json(const Scenario& s, const Calibration& calibration) {
  const RuntimeProfile r = effective_runtime(s.execution.runtime, calibration.runtime);
  nlohmann::ordered_json j;
  j["name"] = to_string(r.name);
  j["file"] = std::string("scenarios/runtimes/") + to_string(r.name) + ".yaml";
  j["host_forward_seconds"] = r.host_forward_seconds;
  j["host_backward_seconds"] = r.host_backward_seconds;
  j["reserve_bytes"] = runtime_reserve_bytes(s, calibration);
  if (r.kernel_pricing()) {
    j["recompute_gathers_again"] = r.recompute_gathers_again;
    const KernelEfficiency k = effective_kernels(*s.cluster.gpu.kernels, calibration.runtime);
    j["kernels"] = {{"gemm_fraction", k.gemm_fraction},
                    {"gemm_half_rate_flops", k.gemm_half_rate_flops},
                    {"attention_forward_fraction", k.attention_forward_fraction},
                    {"attention_backward_fraction", k.attention_backward_fraction},
                    {"elementwise_fraction", k.elementwise_fraction}};
    j["products"] = to_string(kernel_product_source(calibration));  // where the products' rates come from
    if (s.execution.kernel_options.compile) j["compiled_elementwise_share"] = r.compiled_elementwise_share;
    if (s.execution.kernel_options.float8 != Float8Recipe::none) {
      j["float8"] = to_string(s.execution.kernel_options.float8);
      j["fp8_speedup"] = k.fp8_speedup;
    }
  }
  return j;
}

// Only on a mesh: the model and cluster are one GPU's slice and its data-parallel ranks.
nlohmann::ordered_json mesh_json(const Scenario& s) {
  nlohmann::ordered_json out{{"tensor", s.mesh.tensor.degree},
                             {"sequence_parallel", s.mesh.tensor.sequence_parallel},
                             {"context", s.mesh.tensor.context},
                             {"gpus", physical_gpus(s)},
                             {"whole_model_parameters", whole_model_parameters(s)}};
  if (s.mesh.tensor.expert > 1) {
    out["expert"] = s.mesh.tensor.expert;
    out["expert_imbalance"] = s.mesh.tensor.expert_imbalance;
  }
  return out;
}

// A uniform strategy's model states per GPU: under expert parallelism an expert operator's I scope is N
// and its G scope shards over the GPUs holding the same experts (collective_calls.hpp).
ModelStateBytes strategy_states(const Scenario& s, const Scopes& scopes,
                                const StateBytesPerParameter& bytes) {
  std::int64_t dense = 0, experts = 0;  // trainable parameters
  for (const Operator& op : s.model.operators)
    if (op.trainable) (op.expert_parallel ? experts : dense) += op.parameters;
  const int n = s.cluster.gpus(), group = s.training.group_size;
  ModelStateBytes out = model_state_bytes_per_gpu(static_cast<double>(dense), scopes, n, group, bytes);
  if (experts == 0) return out;
  const Scopes expert = expert_parallel_choice(OperatorChoice{"", scopes}).scopes;
  const ModelStateBytes e =
      model_state_bytes_per_gpu(static_cast<double>(experts), expert, n / group, group, bytes);
  out.parameter_bytes += e.parameter_bytes;
  out.gradient_bytes += e.gradient_bytes;
  out.optimizer_bytes += e.optimizer_bytes;
  return out;
}

nlohmann::ordered_json to_json(const Scenario& s, const std::string& gpu, const Calibration& calibration) {
  nlohmann::ordered_json out;
  out["scenario"] = s.name;
  auto& model = out["model"];
  model["name"] = s.model.name;
  model["parameters"] = s.model.parameters();
  model["active_parameters"] = s.model.active_parameters();
  model["sequence_length"] = s.model.sequence_length;
  model["forward_flops_per_sample"] = s.model.forward_flops_per_sample();
  model["activation_bytes_per_sample"] = s.model.activation_bytes_per_sample();
  model["operators"] = nlohmann::ordered_json::array();
  for (const Operator& op : s.model.operators) {
    nlohmann::ordered_json o;
    o["name"] = op.name;
    o["kind"] = to_string(op.kind);
    o["layer"] = op.layer;
    o["parameters"] = op.parameters;
    o["forward_flops_per_sample"] = op.forward_flops_per_sample;
    o["backward_flops_per_sample"] = op.backward_flops_per_sample;
    o["activation_bytes_per_sample"] = op.activation_bytes_per_sample;
    o["checkpoint_bytes_per_sample"] = op.checkpoint_bytes_per_sample;
    o["workspace_bytes_per_sample"] = op.workspace_bytes_per_sample;
    model["operators"].push_back(o);
  }
  if (s.mesh.sliced()) out["mesh"] = mesh_json(s);
  auto& cluster = out["cluster"];
  cluster["name"] = s.cluster.name;
  cluster["gpus"] = s.cluster.gpus();
  cluster["nodes"] = s.cluster.nodes;
  cluster["gpus_per_node"] = s.cluster.gpus_per_node;
  cluster["gpu"] = gpu;
  cluster["gpu_memory_bytes"] = s.cluster.gpu.memory_bytes;
  cluster["memory_limit_bytes"] = s.training.memory_limit_bytes;
  cluster["peak_flops_per_second_fp16"] = s.cluster.gpu.peak_flops_per_second_fp16;
  cluster["link_classes"] = nlohmann::ordered_json::array();
  for (LinkClass lc : link_classes_present(s.cluster)) {
    const LinkProperties p = lone_flow(s, calibration, lc);
    cluster["link_classes"].push_back({{"class", to_string(lc)},
                                       {"bytes_per_second", p.bytes_per_second},
                                       {"latency_seconds", p.latency_seconds}});
  }
  cluster["rings"] = nlohmann::ordered_json::array();
  for (const GroupRing& r : group_rings(s, calibration)) {
    cluster["rings"].push_back({{"group", to_string(r.group)},
                                {"ranks", r.ring.ranks},
                                {"bytes_per_second", r.ring.bytes_per_second},
                                {"latency_seconds", r.ring.alpha_seconds},
                                {"bottleneck", to_string(r.ring.bottleneck)}});
  }
  out["runtime"] = runtime_json(s, calibration);
  if (s.execution.reduce_dtype != ReduceDtype::gradient)
    out["reduce_dtype"] = to_string(s.execution.reduce_dtype);
  if (s.execution.cross_entropy != CrossEntropy::fused) {
    out["loss"] = {{"cross_entropy", to_string(s.execution.cross_entropy)},
                   {"second_gradient_bytes_per_sample", unfused_loss_bytes_per_sample(s)}};
  }
  const StateBytesPerParameter bytes = state_bytes_per_parameter(s.training.precision, s.training.optimizer);
  out["model_states"] = nlohmann::ordered_json::array();
  for (const Strategy* b : classic_strategies()) {
    const ModelStateBytes m = strategy_states(s, b->scopes, bytes);
    out["model_states"].push_back({{"strategy", b->name},
                                   {"scopes", b->scopes.name()},
                                   {"parameter_bytes", m.parameter_bytes},
                                   {"gradient_bytes", m.gradient_bytes},
                                   {"optimizer_bytes", m.optimizer_bytes},
                                   {"bytes_per_gpu", m.total()},
                                   {"fits", m.total() + runtime_reserve_bytes(s, calibration) <=
                                                static_cast<double>(s.training.memory_limit_bytes)}});
  }
  return out;
}

void print_text(const Scenario& s, const std::string& gpu, const Calibration& calibration, std::ostream& os) {
  using units::format_bytes;
  using units::format_count;
  const Model& m = s.model;
  os << "Scenario  " << s.name << " (" << escape_unprintable(s.source_file) << ")\n";
  os << "Model     " << m.name << ": " << format_count(static_cast<double>(m.parameters())) << " parameters";
  if (m.active_parameters() != m.parameters()) {
    os << " (" << format_count(static_cast<double>(m.active_parameters())) << " active)";
  }
  os << ", " << m.operators.size() << " operators, sequence length " << m.sequence_length << "\n";
  os << "          " << format_count(m.forward_flops_per_sample()) << "FLOP forward per sample, "
     << format_bytes(static_cast<double>(m.activation_bytes_per_sample())) << " activations per sample\n";
  if (s.mesh.sliced()) {  // the figures above and below are one GPU's slice and the data-parallel view
    os << "Mesh      " << mesh_text(s) << ": one GPU's slice of the "
       << format_count(whole_model_parameters(s)) << "-parameter model"
       << (s.mesh.tensor.context > 1 ? ", a sample one chunk of a sequence" : "")
       << (s.mesh.tensor.expert > 1 ? ", experts / " + std::to_string(s.mesh.tensor.expert) + " per layer"
                                    : "")
       << "; the cluster below as its data-parallel ranks\n";
  } else if (s.parallelism.search()) {
    os << "Mesh      parallelism: search (`plan` compares every mesh; the whole model below)\n";
  }
  os << "\n";

  present::TextTable ops({"#", "operator", "kind", "parameters", "fwd FLOP/sample", "activations/sample"});
  for (std::size_t i = 0; i < m.operators.size(); ++i) {
    const Operator& op = m.operators[i];
    ops.add({std::to_string(i), op.name, to_string(op.kind), format_count(static_cast<double>(op.parameters)),
             format_count(op.forward_flops_per_sample),
             format_bytes(static_cast<double>(op.activation_bytes_per_sample))});
  }
  ops.print(os);

  const Cluster& c = s.cluster;
  os << "\nCluster   " << c.name << ": " << c.nodes << " node(s) x " << c.gpus_per_node
     << " GPUs = " << c.gpus() << " x " << gpu << ", "
     << format_bytes(static_cast<double>(c.gpu.memory_bytes)) << " each\n";
  os << "          " << units::format_flops_rate(c.gpu.peak_flops_per_second_fp16) << " fp16 peak x "
     << c.gpu.achievable_fraction << " achievable; memory limit "
     << format_bytes(static_cast<double>(s.training.memory_limit_bytes)) << " per GPU\n";
  write_runtime(os, s, calibration);
  write_loss(os, s);
  os << "\n";
  present::TextTable links({"link class", "lone flow/direction", "latency"});
  for (LinkClass lc : link_classes_present(c)) {
    const LinkProperties p = lone_flow(s, calibration, lc);
    links.add({to_string(lc), units::format_bandwidth(p.bytes_per_second),
               units::format_duration(p.latency_seconds)});
  }
  links.print(os);
  os << "\nRings of M = " << s.training.group_size
     << " as the ring model prices them (every group at once: flows per link direction share it)\n\n";
  present::TextTable rings({"group", "ranks", "bandwidth/edge", "latency", "bottleneck"});
  for (const GroupRing& r : group_rings(s, calibration)) {
    rings.add({to_string(r.group), std::to_string(r.ring.ranks),
               units::format_bandwidth(r.ring.bytes_per_second), units::format_duration(r.ring.alpha_seconds),
               to_string(r.ring.bottleneck)});
  }
  rings.print(os);

  const StateBytesPerParameter bytes = state_bytes_per_parameter(s.training.precision, s.training.optimizer);
  os << "\nModel states per GPU (" << to_string(s.training.precision) << ", "
     << to_string(s.training.optimizer) << ": " << bytes.parameter << " + " << bytes.gradient << " + "
     << bytes.optimizer << " bytes per parameter, " << c.gpus() << " GPUs)\n\n";
  present::TextTable states(
      {"strategy", "scopes", "parameters", "gradients", "optimizer", "total", "fits limit"});
  for (const Strategy* b : classic_strategies()) {
    const ModelStateBytes ms = strategy_states(s, b->scopes, bytes);
    const bool fits = ms.total() + runtime_reserve_bytes(s, calibration) <=
                      static_cast<double>(s.training.memory_limit_bytes);
    states.add({b->name, b->scopes.name(), format_bytes(ms.parameter_bytes), format_bytes(ms.gradient_bytes),
                format_bytes(ms.optimizer_bytes), format_bytes(ms.total()), fits ? "yes" : "no"});
  }
  states.print(os);
}

}  // namespace

Registered register_inspect(CLI::App& app) {
  auto* cmd = app.add_subcommand("inspect", "Summarise a scenario: model, cluster, model-state memory");
  auto flags = std::make_shared<ScenarioFlags>();
  auto json = std::make_shared<bool>(false);
  add_scenario_flags(*cmd, *flags);
  cmd->add_flag("--json", *json, "Print JSON instead of tables");
  return {cmd, [flags, json](std::ostream& out) {
            const Scenario scenario = flags->load();
            // Its memory table is of data-parallel plans: a pipelined scenario is refused as simulate does.
            if (scenario.parallelism.pipelined()) validate_scenario(scenario);
            // Read and checked as plan and simulate read it: a missing or bad calibration is the same error.
            const Calibration calibration = scenario_calibration(scenario);
            if (*json) {
              out << to_json(scenario, flags->gpu_label(scenario), calibration).dump(2) << "\n";
            } else {
              print_text(scenario, flags->gpu_label(scenario), calibration, out);
            }
          }};
}

}  // namespace shardscope::cli
