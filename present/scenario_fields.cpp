// The scenario fields an editor offers, with their enum names from the planner's name tables.
#include "present/scenario_fields.hpp"

#include "planner/core/names.hpp"
#include "planner/core/scenario.hpp"

namespace shardscope::present {
namespace {

template <NamedEnum E>
std::string one_of(const std::string& what) {
  return what + ": " + join(names<E>(), ", ");
}

std::vector<ScenarioField> make_fields() {
  return {
      {"name", "Name", "the scenario's name, printed in reports"},
      {"model.preset", "Model preset", "a model from scenarios/models (or give model.transformer)"},
      {"model.sequence_length", "Sequence length", "tokens per sample; overrides the model's own"},
      {"cluster.preset", "Cluster preset", "a cluster from scenarios/clusters"},
      {"cluster.nodes", "Nodes", "machines in the cluster"},
      {"cluster.gpus_per_node", "GPUs per node", "GPUs in each machine"},
      {"cluster.gpu.memory", "GPU memory", "bytes of memory per GPU (24GiB); empty: the preset's"},
      {"cluster.network.nics_per_node", "NICs per node", "network interfaces per machine"},
      {"cluster.network.nic_rate", "NIC rate", "each NIC's rate (100Gbps, 12.5GB/s)"},
      {"training.memory_limit", "Memory limit", "bytes per GPU the plan may use (8GB, 7.5GiB)"},
      {"training.runtime_reserve", "Runtime reserve", "bytes per GPU kept for the framework (512MiB)"},
      {"training.micro_batch", "Micro-batch", "samples per GPU per step; empty: searched"},
      {"training.max_micro_batch", "Largest micro-batch", "the largest micro-batch the search tries"},
      {"training.global_batch", "Global batch", "samples per iteration over all GPUs; empty: none"},
      {"training.gradient_accumulation_steps", "Accumulation steps", "micro-batches per iteration"},
      {"training.precision", "Precision", one_of<Precision>("number formats")},
      {"training.optimizer", "Optimizer", one_of<OptimizerKind>("the optimizer's states")},
      {"training.checkpointing", "Checkpointing", one_of<CheckpointPolicy>("activation checkpointing")},
      {"training.group_size", "Group size", "GPUs of one PaRO / MiCS group"},
      {"training.slice_granularities", "Slices", "slice counts an operator may be split into ([1, 2, 4, 8])"},
      {"training.batch_policy", "Batch policy", one_of<BatchPolicy>("baselines' micro-batch")},
      {"planner.cost_model", "Cost model", one_of<CostModelKind>("how costs are modelled")},
      {"execution.overlap", "Overlap", "communication overlaps compute: true or false"},
      {"execution.collectives", "Collectives", one_of<CollectivesChoice>("how collectives are priced")},
  };
}

}  // namespace

const std::vector<ScenarioField>& scenario_fields() {
  static const std::vector<ScenarioField> fields = make_fields();
  return fields;
}

}  // namespace shardscope::present
