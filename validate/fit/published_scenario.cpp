// A published row as a shardscope scenario: the model as a transformer, the header's preset with the row's
// nodes, its mesh, micro-batch, accumulation, checkpointing and the file's runtime (published.hpp).
#include <sstream>

#include "planner/core/error.hpp"
#include "planner/io/cluster_presets.hpp"
#include "validate/fit/published.hpp"

namespace shardscope::fit {

namespace {

// The scenario's execution: the table's framework and loss; torch.compile and Float8 where the row ran them.
void write_execution(std::ostream& out, const PublishedTable& table, const PublishedRow& row) {
  out << "execution:\n  runtime: " << table.runtime_profile << "\n";
  out << "  cross_entropy: " << table.cross_entropy << "\n";
  if (!table.reduce_dtype.empty()) out << "  reduce_dtype: " << table.reduce_dtype << "\n";
  if (row.torch_compile == Tristate::yes) out << "  compile: true\n";
  if (row.float8 == Tristate::yes) out << "  float8: " << table.float8_recipe << "\n";
}

// The row's mesh (parallelism:) and the training section's precision, micro-batch and accumulation.
void write_mesh_and_batch(std::ostream& out, const PublishedTable& table, const PublishedRow& row) {
  if (row.tensor_parallel > 1 || row.context_parallel > 1 || row.pipeline_parallel > 1) {
    out << "parallelism:\n  tensor: " << row.tensor_parallel
        << "\n  sequence_parallel: " << (row.sequence_parallel ? "true" : "false")
        << "\n  context: " << row.context_parallel << "\n";
  }
  if (row.pipeline_parallel > 1) {
    out << "  pipeline: " << row.pipeline_parallel << "\n  pipeline_schedule: " << row.pipeline_schedule
        << "\n";
    if (row.virtual_stages > 1) out << "  virtual_stages: " << row.virtual_stages << "\n";
  }
  out << "training:\n  precision: " << table.precision << "\n";
  const std::optional<std::int64_t> micro_batch =
      row.micro_batch_per_gpu ? row.micro_batch_per_gpu : row.assumed_micro_batch_per_gpu;
  if (micro_batch) out << "  micro_batch: " << *micro_batch << "\n";
  std::optional<std::int64_t> accumulation = row.gradient_accumulation_steps;
  const std::int64_t ranks = data_parallel_ranks(row);
  if (!accumulation && micro_batch && row.global_batch_sequences &&
      *row.global_batch_sequences % (*micro_batch * ranks) == 0) {
    accumulation = *row.global_batch_sequences / (*micro_batch * ranks);
    out << "  # accumulation from the stated global batch / (micro-batch x data-parallel ranks)\n";
  }
  if (accumulation) {
    out << "  gradient_accumulation_steps: " << *accumulation << "\n";
  } else {
    out << "  # gradient accumulation unknown: shardscope's default (1)\n";
  }
}

}  // namespace

std::string published_scenario_text(const PublishedTable& table, const PublishedRow& row) {
  const std::optional<std::int64_t> sequence = row_sequence_tokens(row);
  if (!sequence) {
    throw InputError(table.file, row.line, "rows." + row.id + ".sequence_tokens",
                     "unknown and not assumed; a prediction needs a sequence length");
  }
  const int per_node = cluster_preset(table.cluster.preset).gpus_per_node;
  if (row.gpus % per_node != 0) {
    throw InputError(table.file, row.line, "rows." + row.id + ".gpus",
                     std::to_string(row.gpus) + " GPUs are not a whole number of " + table.cluster.preset +
                         " nodes of " + std::to_string(per_node));
  }
  const PublishedModel& m = table.model_of(row);
  const auto flag = [](bool value) { return value ? "true" : "false"; };
  std::ostringstream out;
  out << "# " << table.source.name << ", " << table.source.table << ", row " << row.id << " ("
      << (row.part == PublishedPart::fit ? "fit" : "held out") << ").\n";
  if (!row.sequence_tokens)
    out << "# assumed sequence length " << *sequence << ": " << row.assumed_source << "\n";
  out << "name: " << row.id << "\n";
  out << "model:\n  name: " << m.name << "\n  transformer:\n";
  out << "    layers: " << m.layers << "\n    hidden: " << m.hidden << "\n    heads: " << m.heads << "\n";
  if (m.kv_heads > 0) out << "    kv_heads: " << m.kv_heads << "\n";
  out << "    ffn_hidden: " << m.ffn_hidden_resolved() << "\n    vocab: " << m.vocab << "\n";
  out << "    sequence_length: " << *sequence << "\n";
  out << "    mlp: " << m.mlp << "\n    norm: " << m.norm << "\n    positions: " << m.positions << "\n";
  out << "    attention_bias: " << flag(m.attention_bias) << "\n    mlp_bias: " << flag(m.mlp_bias) << "\n";
  out << "    tied_embeddings: " << flag(m.tied_embeddings) << "\n";
  if (row.flash_attention != Tristate::unknown)
    out << "    flash_attention: " << flag(row.flash_attention == Tristate::yes) << "\n";
  out << "cluster:\n  preset: " << table.cluster.preset << "\n  nodes: " << row.gpus / per_node << "\n";
  const PublishedCluster& c = table.cluster;
  if (!c.gpu_memory.empty() || !c.hbm_bandwidth.empty() || !c.peak_fp16.empty()) {
    out << "  gpu:\n";
    if (!c.gpu_memory.empty()) out << "    memory: " << c.gpu_memory << "\n";
    if (!c.hbm_bandwidth.empty()) out << "    hbm_bandwidth: " << c.hbm_bandwidth << "\n";
    if (!c.peak_fp16.empty()) out << "    peak_fp16: " << c.peak_fp16 << "\n";
  }
  write_mesh_and_batch(out, table, row);
  switch (row.checkpointing) {
    case PublishedCheckpointing::none:
      out << "  checkpointing: none\n";
      break;
    case PublishedCheckpointing::full:
      out << "  checkpointing: all\n";
      break;
    case PublishedCheckpointing::selective_op:
      out << "  # stated: " << row.checkpointing_stated << " (torchtitan's op policy)\n";
      out << "  checkpointing: selective\n";
      break;
    case PublishedCheckpointing::selective_layer:
      if (!row.checkpoint_every) {
        throw InputError(table.file, row.line, "rows." + row.id + ".activation_checkpointing_every",
                         "unknown and not assumed; selective-layer checkpointing needs its layer step");
      }
      out << "  # stated: " << row.checkpointing_stated << " (torchtitan's layer option)\n";
      out << "  checkpointing: layers\n  checkpoint_every: " << *row.checkpoint_every << "\n";
      break;
    case PublishedCheckpointing::selective:
    case PublishedCheckpointing::unknown:
      out << "  # stated: " << row.checkpointing_stated << " (its kind unknown)\n";
      out << "  checkpointing: search\n";
      break;
  }
  write_execution(out, table, row);
  return out.str();
}

}  // namespace shardscope::fit
