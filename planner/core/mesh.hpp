// Model parallelism around the data-parallel plan: the tensor-parallel mesh a scenario asks for, the slice a
// scenario runs, and the data-parallel cluster that remains once each node's GPUs are cut into TP groups.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "planner/core/cluster.hpp"
#include "planner/core/pipeline.hpp"
#include "planner/core/transformer.hpp"

namespace shardscope {

struct Scenario;

// What `parallelism:` asks for. A degree 0 (`search`): the planner searches every degree that divides the
// model and a node (`plan`; other commands run the mesh their plan records, else the fastest).
struct ParallelismRequest {
  int tensor = 1;
  bool sequence_parallel = false;  // applies to tensor degrees above 1
  int context = 1;
  int expert = 1;                 // 0: `search`, every degree that divides the experts and places
  double expert_imbalance = 1.0;  // parallelism.expert_imbalance (TensorSlice)
  // Pipeline stages over whole nodes or splitting each node's GPUs evenly (pipeline_stage_cluster; 0:
  // `search`, every count that divides the nodes, or one node's GPUs); `plan` plans them
  // (report/pipeline_search.hpp), the other commands refuse a pipelined scenario.
  int pipeline = 1;
  PipelineSchedule schedule = PipelineSchedule::one_f_one_b;
  int virtual_stages = 1;  // model chunks per GPU under the interleaved schedule
  // a tensor, context or expert degree to search
  bool search() const { return tensor == 0 || context == 0 || expert == 0; }
  // The slice these degrees ask for (meaningful when none is `search`).
  TensorSlice slice() const { return {tensor, sequence_parallel, context, expert, expert_imbalance}; }
  bool pipelined() const { return pipeline != 1; }
};

// The mesh a scenario's model and cluster are sliced for. Order and placement: the `degree` GPUs of a
// tensor-parallel group are consecutive inside one node (innermost), then the `context` TP groups of a
// context-parallel group (inside the node, or over whole consecutive nodes when the degree asked for is
// larger than a node's data-parallel ranks), then data parallelism. The ranks the plan's scopes (intra,
// inter, global) and PaRO's groups refer to are the GPUs of one TP index, context ranks included (they
// shard and reduce the gradients like data-parallel ranks, as torchtitan's FSDP over dp x cp does), so a
// node holds gpus_per_node / degree of them and its links and NICs are shared by the degree's families of
// rings. Under context parallelism a sample of the sliced scenario is one chunk, 1 / context of a sequence.
// Expert parallelism borrows from those ranks (as torchtitan's EP borrows from dp_shard x cp): an
// expert-parallel group is `expert` consecutive data-parallel ranks (inside a node, or whole nodes), and
// it is then PaRO's group (training.group_size = expert), so the GPUs holding the same experts are the
// inter-group ranks: an expert operator's G scope shards over them and its I scope is N (its group's GPUs
// hold different experts; collective_calls.hpp).
struct MeshSlice {
  TensorSlice tensor;      // degree and context 1: the whole model on the physical cluster
  Cluster physical;        // the cluster before slicing (set when sliced)
  PipelineStage pipeline;  // the stage a pipeline search made this scenario for (stages 1: none)
  bool sliced() const { return tensor.degree > 1 || tensor.context > 1 || tensor.expert > 1; }
};

// Why a mesh cannot be built, with the scenario field to blame ("parallelism.tensor", ...).
class MeshError : public std::invalid_argument {
 public:
  MeshError(std::string field, const std::string& message)
      : std::invalid_argument(message), field_(std::move(field)) {}
  const std::string& field() const { return field_; }

 private:
  std::string field_;
};

// The data-parallel view of `physical` for TP degree `degree`: gpus_per_node / degree GPUs per node; NVSwitch
// unchanged (non-blocking, a port per GPU); a PCIe tree keeps each GPU's link and shares the switch uplinks
// and the socket links among the families that cross them (a TP group may span switches and sockets when
// it takes whole ones, mesh.cpp); the NICs are divided among the degree's groups (whole NICs where the
// count divides, else each NIC's rate). A degree above a node's GPUs (only when asked for: a search stays
// inside a node) takes whole nodes: one data-parallel rank per TP group, on one node of it, with its share
// of that node's NICs. Throws MeshError when the degree does not divide a node (or into whole nodes that
// the nodes and leaf switches hold), or cuts a PCIe switch or socket unevenly.
Cluster data_parallel_cluster(const Cluster& physical, int degree);

// The cluster one of `stages` pipeline stages runs on: nodes / stages whole nodes where the stages divide the
// nodes; else, where they are a multiple of the nodes that splits each node evenly, gpus_per_node x nodes /
// stages consecutive GPUs of one node (on a PCIe tree part of one switch, whole switches of a socket or whole
// sockets) with its share of the node's NICs. Throws MeshError (parallelism.pipeline) otherwise.
Cluster pipeline_stage_cluster(const Cluster& physical, int stages);

// `whole` (unsliced, its model generated: Scenario::transformer) sliced for `slice`: the per-GPU model of
// generate_transformer, the data-parallel cluster, the group size in data-parallel ranks. The result still
// needs scenario_issues. Throws MeshError for an operator-list model, the paper cost model, or a slice the
// model or the cluster does not divide.
Scenario slice_scenario(const Scenario& whole, const TensorSlice& slice);

// The slices `plan` compares for a search: every tensor degree (or the one asked) times every context
// degree whose product divides the GPUs per node (or the context degree asked, which may span whole nodes)
// that slice_scenario accepts, times every expert degree (the one asked, or under `search` each that divides
// the layers' experts; a search pairs none above 1 with tensor parallelism)
// (sequence parallelism as asked, above tensor degree 1); each refused mesh's reason goes to `refused`
// ("TP 8: tensor-parallel degree 8 does not divide the 4 KV heads ...").
std::vector<TensorSlice> candidate_slices(const Scenario& whole, std::vector<std::string>* refused);

// "TP 4 + SP x CP 2 x DP 8 (64 GPUs)": the mesh of a sliced scenario, in words; "DP 64 (64 GPUs)" unsliced.
std::string slice_text(const TensorSlice& slice);  // "TP 4 + SP x CP 2" ("TP 1" unsliced)
std::string mesh_text(const Scenario& scenario);
// The GPUs the scenario runs on: the physical cluster's, sliced or not.
int physical_gpus(const Scenario& scenario);
// The whole model's parameters (the model a sliced scenario holds is one GPU's slice).
double whole_model_parameters(const Scenario& scenario);

}  // namespace shardscope
