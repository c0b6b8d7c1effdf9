// Tensor-parallel meshes: slicing a scenario's generated model and cutting its cluster into TP groups.
#include "planner/core/mesh.hpp"

#include <algorithm>
#include <cstdio>

#include "planner/core/scenario.hpp"

namespace shardscope {

Cluster data_parallel_cluster(const Cluster& physical, int degree) {
  if (degree < 1) throw MeshError("parallelism.tensor", "the tensor-parallel degree must be at least 1");
  if (degree == 1) return physical;
  if (physical.gpus_per_node % degree != 0) {
    throw MeshError("parallelism.tensor",
                    "tensor-parallel degree " + std::to_string(degree) + " does not divide the " +
                        std::to_string(physical.gpus_per_node) +
                        " GPUs of a node (tensor parallelism across nodes is not modelled)");
  }
  Cluster out = physical;
  out.gpus_per_node = physical.gpus_per_node / degree;
  if (physical.intra_node == IntraNodeKind::pcie) {
    if (physical.pcie.gpus_per_switch % degree != 0) {
      throw MeshError("parallelism.tensor",
                      "tensor-parallel degree " + std::to_string(degree) + " does not divide the " +
                          std::to_string(physical.pcie.gpus_per_switch) + " GPUs under one PCIe switch");
    }
    out.pcie.gpus_per_switch = physical.pcie.gpus_per_switch / degree;
    out.pcie.switch_uplink_bytes_per_second = physical.pcie.switch_uplink_bytes_per_second / degree;
    out.pcie.inter_socket_bytes_per_second = physical.pcie.inter_socket_bytes_per_second / degree;
  }
  if (physical.network.nics_per_node % degree == 0) {
    out.network.nics_per_node = physical.network.nics_per_node / degree;
  } else {
    out.network.nic_bytes_per_second = physical.network.nic_bytes_per_second / degree;
  }
  return out;
}

Scenario slice_scenario(const Scenario& whole, const TensorSlice& slice) {
  if (whole.mesh.sliced()) throw MeshError("parallelism.tensor", "the scenario is sliced already");
  if (slice.degree == 1 && !slice.sequence_parallel) return whole;
  if (!whole.transformer) {
    throw MeshError("parallelism.tensor",
                    "tensor parallelism slices a generated transformer (model.preset, model.transformer or "
                    "model.hf_config); this model is a list of operators");
  }
  if (whole.planner.cost_model == CostModelKind::paper) {
    throw MeshError("parallelism.tensor",
                    "the paper cost model has no tensor parallelism (its operators' "
                    "costs are given whole)");
  }
  Scenario out = whole;
  out.cluster = data_parallel_cluster(whole.cluster, slice.degree);
  try {
    out.model = generate_transformer(*whole.transformer, slice);
  } catch (const TransformerSpecError& e) {
    throw MeshError(e.field() == "sequence_parallel" ? "parallelism.sequence_parallel" : "parallelism.tensor",
                    e.what());
  }
  if (whole.training.group_size % slice.degree != 0) {
    throw MeshError("training.group_size", "group size " + std::to_string(whole.training.group_size) +
                                               " GPUs is not a whole number of tensor-parallel groups of " +
                                               std::to_string(slice.degree));
  }
  out.training.group_size = whole.training.group_size / slice.degree;
  // A fixed micro-batch under a global batch: the data-parallel ranks are fewer, the steps more.
  TrainingConfig& t = out.training;
  const std::int64_t per_step = t.micro_batch * out.cluster.gpus();
  if (t.global_batch > 0 && t.micro_batch > 0 && t.global_batch % per_step == 0 &&
      t.global_batch / per_step <= kMaxAccumulationSteps) {
    t.gradient_accumulation_steps = static_cast<int>(t.global_batch / per_step);
  }
  out.mesh.tensor = slice;
  out.mesh.physical = whole.cluster;
  return out;
}

std::vector<TensorSlice> candidate_slices(const Scenario& whole, std::vector<std::string>* refused) {
  std::vector<TensorSlice> out;
  for (int degree = 1; degree <= whole.cluster.gpus_per_node; ++degree) {
    if (whole.cluster.gpus_per_node % degree != 0) continue;
    const TensorSlice slice{degree, degree > 1 && whole.parallelism.sequence_parallel};
    try {
      slice_scenario(whole, slice);
      out.push_back(slice);
    } catch (const MeshError& e) {
      if (refused != nullptr) refused->push_back(std::to_string(degree) + ": " + e.what());
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

std::string mesh_text(const Scenario& scenario) {
  const int gpus = physical_gpus(scenario);
  std::string text;
  if (scenario.mesh.sliced()) {
    text = "TP " + std::to_string(scenario.mesh.tensor.degree) +
           (scenario.mesh.tensor.sequence_parallel ? " + SP" : "") + " x ";
  }
  return text + "DP " + std::to_string(scenario.cluster.gpus()) + " (" + std::to_string(gpus) + " GPUs)";
}

}  // namespace shardscope
