// Tensor-parallel meshes: slicing a scenario's generated model and cutting its cluster into TP groups.
#include "planner/core/mesh.hpp"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "planner/core/scenario.hpp"

namespace shardscope {

namespace {

// The PCIe tree one data-parallel family sees once each node's GPUs are cut into TP groups of `degree`.
// A group inside one switch: the switch holds gpus_per_switch / degree ranks of each family, and the
// uplink and the socket link carry all `degree` families. A group over several switches of one socket:
// each switch holds one GPU of `gps` families, so a family's rank has its switch's uplink at 1 / gps and
// the socket link at 1 / degree. A group over several sockets: one rank per group of sockets, each
// socket link carrying its own GPUs' families. Throws MeshError where a group would cut a switch or a
// socket unevenly.
PcieTopology data_parallel_pcie(const PcieTopology& physical, int degree) {
  PcieTopology out = physical;
  const int gps = physical.gpus_per_switch;
  const int socket_gpus = gps * physical.switches_per_socket;
  const auto refuse = [&](const std::string& what) {
    throw MeshError("parallelism.tensor",
                    "tensor-parallel degree " + std::to_string(degree) + " does not divide " + what);
  };
  if (degree <= gps) {
    if (gps % degree != 0) refuse("the " + std::to_string(gps) + " GPUs under one PCIe switch");
    out.gpus_per_switch = gps / degree;
    out.switch_uplink_bytes_per_second = physical.switch_uplink_bytes_per_second / degree;
    out.inter_socket_bytes_per_second = physical.inter_socket_bytes_per_second / degree;
    return out;
  }
  if (degree % gps != 0) refuse("into whole PCIe switches of " + std::to_string(gps) + " GPUs");
  out.gpus_per_switch = 1;
  out.switch_uplink_bytes_per_second = physical.switch_uplink_bytes_per_second / gps;
  if (degree <= socket_gpus) {
    if (socket_gpus % degree != 0) refuse("the " + std::to_string(socket_gpus) + " GPUs of one socket");
    out.switches_per_socket = socket_gpus / degree;
    out.inter_socket_bytes_per_second = physical.inter_socket_bytes_per_second / degree;
    return out;
  }
  if (degree % socket_gpus != 0) refuse("into whole sockets of " + std::to_string(socket_gpus) + " GPUs");
  out.switches_per_socket = 1;
  out.sockets = physical.sockets * socket_gpus / degree;
  out.inter_socket_bytes_per_second = physical.inter_socket_bytes_per_second / socket_gpus;
  return out;
}

// The PCIe tree of `gpus` consecutive GPUs of one node: part of one switch, whole switches of one socket,
// or whole sockets. Throws MeshError (parallelism.pipeline) where a stage would cut a switch or a socket
// unevenly.
PcieTopology stage_pcie(const PcieTopology& physical, int gpus) {
  PcieTopology out = physical;
  const int gps = physical.gpus_per_switch;
  const int socket_gpus = gps * physical.switches_per_socket;
  const auto refuse = [&](const std::string& what) {
    throw MeshError("parallelism.pipeline", "a pipeline stage of " + std::to_string(gpus) +
                                                " GPUs inside a node does not divide " + what);
  };
  out.sockets = 1;
  if (gpus <= gps) {
    if (gps % gpus != 0) refuse("the " + std::to_string(gps) + " GPUs under one PCIe switch");
    out.switches_per_socket = 1;
    out.gpus_per_switch = gpus;
    return out;
  }
  if (gpus <= socket_gpus) {
    if (gpus % gps != 0 || socket_gpus % gpus != 0)
      refuse("into whole PCIe switches of " + std::to_string(gps) + " GPUs of one socket");
    out.switches_per_socket = gpus / gps;
    return out;
  }
  if (gpus % socket_gpus != 0) refuse("into whole sockets of " + std::to_string(socket_gpus) + " GPUs");
  out.sockets = gpus / socket_gpus;
  return out;
}

}  // namespace

namespace {

// Tensor-parallel groups of whole nodes (a degree asked for above a node's GPUs): each node's GPUs are all
// in one group, at different TP indices, so a data-parallel rank of one index is one GPU of one node of its
// group, with that node's NICs shared among its GPUs' families; the view has a node per TP group (and a
// leaf switch holds its share of them).
Cluster data_parallel_cluster_across_nodes(const Cluster& physical, int degree) {
  const int per_node = physical.gpus_per_node;
  const int nodes = degree / per_node;  // physical nodes per tensor-parallel group
  const int leaf = physical.network.nodes_per_leaf;
  if (degree % per_node != 0 || physical.nodes % nodes != 0 ||
      (physical.network.kind == NetworkKind::fat_tree && leaf > 0 && leaf % nodes != 0)) {
    throw MeshError("parallelism.tensor",
                    "tensor-parallel degree " + std::to_string(degree) +
                        " spans nodes: a group across nodes takes whole nodes (a multiple of the " +
                        std::to_string(per_node) + " GPUs of a node), the " + std::to_string(physical.nodes) +
                        " nodes must hold whole groups, and a leaf switch whole groups");
  }
  Cluster out = data_parallel_cluster(physical, per_node);
  out.nodes = physical.nodes / nodes;
  if (leaf > 0) out.network.nodes_per_leaf = leaf / nodes;
  return out;
}

}  // namespace

Cluster data_parallel_cluster(const Cluster& physical, int degree) {
  if (degree < 1) throw MeshError("parallelism.tensor", "the tensor-parallel degree must be at least 1");
  if (degree == 1) return physical;
  if (degree > physical.gpus_per_node) return data_parallel_cluster_across_nodes(physical, degree);
  if (physical.gpus_per_node % degree != 0) {
    throw MeshError("parallelism.tensor",
                    "tensor-parallel degree " + std::to_string(degree) + " does not divide the " +
                        std::to_string(physical.gpus_per_node) +
                        " GPUs of a node (a degree above a node's GPUs takes whole nodes)");
  }
  Cluster out = physical;
  out.gpus_per_node = physical.gpus_per_node / degree;
  if (physical.intra_node == IntraNodeKind::pcie) out.pcie = data_parallel_pcie(physical.pcie, degree);
  if (physical.network.nics_per_node % degree == 0) {
    out.network.nics_per_node = physical.network.nics_per_node / degree;
  } else {
    out.network.nic_bytes_per_second = physical.network.nic_bytes_per_second / degree;
  }
  return out;
}

Cluster pipeline_stage_cluster(const Cluster& physical, int stages) {
  if (stages < 1) throw MeshError("parallelism.pipeline", "the pipeline needs at least 1 stage");
  Cluster out = physical;
  if (physical.nodes % stages == 0) {
    out.nodes = physical.nodes / stages;
    return out;
  }
  const int per_node = stages / physical.nodes;  // stages inside each node
  if (stages % physical.nodes != 0 || physical.gpus_per_node % per_node != 0) {
    throw MeshError(
        "parallelism.pipeline",
        std::to_string(stages) + " pipeline stages neither divide the " + std::to_string(physical.nodes) +
            " node(s) nor split each node's " + std::to_string(physical.gpus_per_node) +
            " GPUs evenly (stages take whole nodes, or the same number of GPUs inside each node)");
  }
  out.nodes = 1;
  out.gpus_per_node = physical.gpus_per_node / per_node;
  if (physical.intra_node == IntraNodeKind::pcie) out.pcie = stage_pcie(physical.pcie, out.gpus_per_node);
  // The stage's share of its node's NICs (whole ones where they divide): only its sends cross them.
  if (physical.network.nics_per_node % per_node == 0) {
    out.network.nics_per_node = physical.network.nics_per_node / per_node;
  } else {
    out.network.nic_bytes_per_second = physical.network.nic_bytes_per_second / per_node;
  }
  return out;
}

namespace {

// Where a group of `ranks` consecutive data-parallel ranks lands, a node holding `per_node` of them: inside a
// node it must divide the node's ranks; a larger group spans whole nodes (a multiple of a node's ranks) and
// the `nodes` must hold whole groups. Context- and expert-parallel groups are placed so.
enum class GroupFit { fits, cuts_a_node, spans_unevenly };
GroupFit consecutive_group_fit(int ranks, int per_node, int nodes) {
  if (ranks <= per_node) return per_node % ranks == 0 ? GroupFit::fits : GroupFit::cuts_a_node;
  return ranks % per_node == 0 && nodes % (ranks / per_node) == 0 ? GroupFit::fits : GroupFit::spans_unevenly;
}

// Why the CP groups of `slice` cannot be placed on `cluster` ("" when they can): consecutive_group_fit.
// TP groups stay inside a node (data_parallel_cluster) unless asked across whole nodes.
std::string context_placement_refusal(const Cluster& cluster, const TensorSlice& slice) {
  if (slice.degree > cluster.gpus_per_node) {
    return slice.context > 1 ? "context parallelism with tensor-parallel groups across nodes is not modelled"
                             : "";
  }
  if (slice.context < 1) return "the context-parallel degree must be at least 1";
  const int per_node = cluster.gpus_per_node / slice.degree;  // data-parallel ranks of a node
  const std::string mesh = "tensor-parallel degree " + std::to_string(slice.degree) +
                           " x context-parallel degree " + std::to_string(slice.context);
  switch (consecutive_group_fit(slice.context, per_node, cluster.nodes)) {
    case GroupFit::fits:
      return "";
    case GroupFit::cuts_a_node:
      return mesh + " does not divide the " + std::to_string(cluster.gpus_per_node) +
             " GPUs of a node (a context-parallel group across nodes takes whole nodes)";
    case GroupFit::spans_unevenly:
      break;
  }
  return mesh + " spans nodes: a context-parallel group across nodes takes whole nodes (a multiple of the " +
         std::to_string(per_node) + " data-parallel ranks of a node) and the " +
         std::to_string(cluster.nodes) + " nodes must hold whole groups";
}

// Why the expert-parallel groups of `slice` cannot be placed on `cluster` ("" when they can): `expert`
// consecutive data-parallel ranks (consecutive_group_fit), without TP; and the group is PaRO's, so a group
// size given otherwise is refused.
std::pair<std::string, std::string> expert_placement_refusal(const Scenario& whole,
                                                             const TensorSlice& slice) {
  if (slice.expert <= 1) return {"", ""};
  const std::string degree = "expert-parallel degree " + std::to_string(slice.expert);
  if (slice.degree > 1) {
    return {"parallelism.expert", degree + " with tensor-parallel degree " + std::to_string(slice.degree) +
                                      ": experts sliced by tensor parallelism too are not modelled"};
  }
  const Cluster& cluster = whole.cluster;
  const int per_node = cluster.gpus_per_node;  // data-parallel ranks of a node (no TP)
  switch (consecutive_group_fit(slice.expert, per_node, cluster.nodes)) {
    case GroupFit::fits:
      break;
    case GroupFit::cuts_a_node:
      return {"parallelism.expert",
              degree + " does not divide the " + std::to_string(per_node) +
                  " data-parallel ranks of a node (a group across nodes takes whole nodes)"};
    case GroupFit::spans_unevenly:
      return {"parallelism.expert",
              degree + " spans nodes: a group across nodes takes whole nodes (a multiple of the " +
                  std::to_string(per_node) + " data-parallel ranks of a node) and the " +
                  std::to_string(cluster.nodes) + " nodes must hold whole groups"};
  }
  const int group = whole.training.group_size;
  if (group != cluster.gpus_per_node && group != slice.expert) {
    return {"training.group_size", "group size " + std::to_string(group) +
                                       ": under expert parallelism PaRO's group is the " +
                                       "expert-parallel group (" + std::to_string(slice.expert) +
                                       " GPUs); leave training.group_size out or set it to that"};
  }
  return {"", ""};
}

// The scenario field a slice's refusal names: the first axis it asks for beyond the whole model.
std::string slice_field(const TensorSlice& slice) {
  if (slice.degree > 1 || slice.sequence_parallel) return "parallelism.tensor";
  if (slice.context > 1) return "parallelism.context";
  return slice.expert > 1 ? "parallelism.expert" : "parallelism.tensor";
}

// Why `slice` cannot cut `whole` before the model is generated ("" when it can), and the field to blame.
std::pair<std::string, std::string> mesh_refusal(const Scenario& whole, const TensorSlice& slice) {
  const std::string field = slice_field(slice);
  if (!whole.transformer) {
    return {field,
            "tensor, context and expert parallelism slice a generated transformer (model.preset, "
            "model.transformer or model.hf_config); this model is a list of operators"};
  }
  if (whole.planner.cost_model == CostModelKind::paper) {
    return {field,
            "the paper cost model has no tensor, context or expert parallelism (its operators' costs are "
            "given whole)"};
  }
  if (const std::string why = context_placement_refusal(whole.cluster, slice); !why.empty())
    return {field, why};
  if (auto refusal = expert_placement_refusal(whole, slice); !refusal.second.empty()) return refusal;
  // Groups across nodes under the default group size (a node): PaRO's group is then one TP group.
  const bool across_default =
      slice.degree > whole.cluster.gpus_per_node && whole.training.group_size == whole.cluster.gpus_per_node;
  if (whole.training.group_size % slice.degree != 0 && !across_default) {
    return {"training.group_size", "group size " + std::to_string(whole.training.group_size) +
                                       " GPUs is not a whole number of tensor-parallel groups of " +
                                       std::to_string(slice.degree)};
  }
  return {"", ""};
}

}  // namespace

Scenario slice_scenario(const Scenario& whole, const TensorSlice& slice) {
  if (whole.mesh.sliced()) throw MeshError("parallelism.tensor", "the scenario is sliced already");
  if (slice.whole()) return whole;
  Scenario out = whole;
  out.cluster = data_parallel_cluster(whole.cluster, slice.degree);  // its own refusals first
  if (const auto [field, why] = mesh_refusal(whole, slice); !why.empty()) throw MeshError(field, why);
  try {
    out.model = generate_transformer(
        *whole.transformer, slice,
        TensorParallelStyle{whole.execution.runtime.sequence_parallel_keeps_gathered_inputs});
  } catch (const TransformerSpecError& e) {
    const std::string& f = e.field();
    throw MeshError(f == "sequence_parallel" || f == "context" || f == "expert" || f == "expert_imbalance"
                        ? "parallelism." + f
                        : "parallelism.tensor",
                    e.what());
  }
  // Under expert parallelism PaRO's group is the expert-parallel group (expert_placement_refusal).
  out.training.group_size =
      slice.expert > 1 ? slice.expert : std::max(1, whole.training.group_size / slice.degree);
  // A fixed micro-batch under a global batch: the data-parallel ranks are fewer, the steps more; a sample
  // is a chunk under context parallelism, so the global batch counts chunks.
  TrainingConfig& t = out.training;
  t.global_batch = whole.training.global_batch * slice.context;
  const std::int64_t per_step = t.micro_batch * out.cluster.gpus();
  if (t.global_batch > 0 && t.micro_batch > 0 && t.global_batch % per_step == 0 &&
      t.global_batch / per_step <= kMaxAccumulationSteps) {
    t.gradient_accumulation_steps = static_cast<int>(t.global_batch / per_step);
  }
  out.mesh.tensor = slice;
  out.mesh.physical = whole.cluster;
  return out;
}

namespace {

// The expert-parallel degrees a mesh search tries: the one asked for, or under `search` every degree that
// divides the layers' experts and at most the GPUs (1 for a dense model).
std::vector<int> expert_degrees(const Scenario& whole) {
  const int asked = whole.parallelism.expert;
  if (asked > 0) return {asked};
  std::vector<int> out{1};
  const int experts = whole.transformer ? whole.transformer->experts : 0;
  for (int e = 2; e <= experts && e <= whole.cluster.gpus(); ++e) {
    if (experts % e == 0) out.push_back(e);
  }
  return out;
}

}  // namespace

std::vector<TensorSlice> candidate_slices(const Scenario& whole, std::vector<std::string>* refused) {
  const ParallelismRequest& asked = whole.parallelism;
  const int per_node = whole.cluster.gpus_per_node;
  const std::vector<int> experts = expert_degrees(whole);
  std::vector<TensorSlice> out;
  for (int degree = 1; degree <= per_node; ++degree) {
    if (per_node % degree != 0 || (asked.tensor > 0 && degree != asked.tensor)) continue;
    // A search stays inside a node; a degree asked for may span nodes.
    std::vector<int> contexts;
    for (int context = 1; context <= per_node / degree; ++context) {
      if ((per_node / degree) % context == 0 && asked.context == 0) contexts.push_back(context);
    }
    if (asked.context > 0) contexts.push_back(asked.context);
    for (const int context : contexts) {
      for (const int expert : experts) {
        // A search does not pair expert with tensor parallelism (not modelled); a pair asked for is refused.
        if (degree > 1 && expert > 1 && (asked.tensor == 0 || asked.expert == 0)) continue;
        const TensorSlice slice{degree, degree > 1 && asked.sequence_parallel, context, expert,
                                asked.expert_imbalance};
        try {
          slice_scenario(whole, slice);
          out.push_back(slice);
        } catch (const MeshError& e) {
          if (refused != nullptr) refused->push_back(slice_text(slice) + ": " + e.what());
        }
      }
    }
  }
  return out;
}

int physical_gpus(const Scenario& scenario) {
  return scenario.mesh.sliced() ? scenario.mesh.physical.gpus() : scenario.cluster.gpus();
}

double whole_model_parameters(const Scenario& scenario) {
  if (!scenario.mesh.sliced()) return static_cast<double>(scenario.model.parameters());
  return static_cast<double>(generate_transformer(*scenario.transformer).parameters());
}

std::string slice_text(const TensorSlice& slice) {
  std::string text = "TP " + std::to_string(slice.degree) + (slice.sequence_parallel ? " + SP" : "");
  if (slice.context > 1) text += " x CP " + std::to_string(slice.context);
  if (slice.expert > 1) text += " x EP " + std::to_string(slice.expert);
  return text;
}

std::string mesh_text(const Scenario& scenario) {
  const TensorSlice& slice = scenario.mesh.tensor;
  const std::string gpus = " (" + std::to_string(physical_gpus(scenario)) + " GPUs)";
  // Expert parallelism borrows its groups from the data-parallel ranks: named with them, not multiplied.
  const std::string dp = "DP " + std::to_string(scenario.cluster.gpus() / slice.context) +
                         (slice.expert > 1 ? " with EP " + std::to_string(slice.expert) : "");
  if (!scenario.mesh.sliced()) return dp + gpus;
  std::string text = slice.degree > 1 ? "TP " + std::to_string(slice.degree) : "";
  if (slice.sequence_parallel) text += " + SP";
  if (slice.context > 1) text += (text.empty() ? "" : " x ") + ("CP " + std::to_string(slice.context));
  return text.empty() ? dp + gpus : text + " x " + dp + gpus;
}

}  // namespace shardscope
