// Published measurements (validate/published/*.yaml): each row's setting and measured numbers, read strictly.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace shardscope::fit {

enum class PublishedPart { fit, held_out };
// selective: the source names no kind; selective_op: torchtitan's op policy (alternate products' outputs
// kept), priced as `checkpointing: selective`; selective_layer: every k-th layer checkpointed whole
// (PublishedRow::checkpoint_every), priced as `checkpointing: layers`.
enum class PublishedCheckpointing { none, full, selective, selective_op, selective_layer, unknown };
enum class Tristate { no, yes, unknown };  // a switch the source may leave unstated

struct PublishedSource {
  std::string name;
  std::string url;
  std::string commit;       // the repository commit read
  std::string file_commit;  // the commit that last changed the file ("" when not given)
  std::string table;
  std::string notes;
};

struct PublishedCluster {
  std::string gpu_stated;
  std::optional<int> gpus_per_node;  // nullopt: unknown
  std::string interconnect_stated;   // "unknown" when the source does not say
  std::string notes;
  std::string preset;         // shipped cluster preset (scenarios/clusters/) a prediction uses
  std::string gpu_memory;     // optional override of the preset ("96GB"), "" when none
  std::string hbm_bandwidth;  // optional override ("2400GB/s"), "" when none
  std::string peak_fp16;      // optional override ("838.7TFLOPS"), "" when none
  std::string peak_source;    // where peak_fp16 comes from (required with it)
};

struct PublishedModel {
  std::string name;
  std::string shape_from;
  int layers = 0;
  std::int64_t hidden = 0;
  int heads = 0;
  int kv_heads = 0;             // 0: as many as heads
  std::int64_t ffn_hidden = 0;  // 0: expansion_ratio x hidden
  double expansion_ratio = 0;   // 0: ffn_hidden given
  std::int64_t vocab = 0;
  std::string mlp = "gelu";        // gelu | gated
  std::string norm = "layernorm";  // layernorm | rmsnorm
  std::string positions = "learned";
  bool attention_bias = true;
  bool mlp_bias = true;
  bool tied_embeddings = true;
  std::int64_t ffn_hidden_resolved() const;  // ffn_hidden, or expansion_ratio x hidden
};

struct PublishedMeasured {
  double tokens_per_second_per_gpu = 0;
  std::optional<double> tokens_per_second;     // all GPUs together
  std::optional<double> sequences_per_second;  // all GPUs together
  std::optional<double> mfu_percent;
  std::optional<double> hfu_percent;
  std::optional<double> model_teraflops_per_second_per_gpu;
  std::optional<double> memory_gib;  // meaning: PublishedTable::memory_meaning
};

struct PublishedRow {
  std::string id;
  int line = 0;  // the row's line in the file
  PublishedPart part = PublishedPart::fit;
  std::string model;  // a PublishedModel name
  std::optional<std::int64_t> sequence_tokens;
  int gpus = 0;
  // Tensor parallelism the row ran (1: none; inside a node) and whether with sequence parallelism, and its
  // context parallelism; the micro-batch and the batch arithmetic then count data-parallel ranks
  // (gpus / (tensor_parallel x context_parallel)).
  int tensor_parallel = 1;
  bool sequence_parallel = false;
  int context_parallel =
      1;  // sequences cut into this many chunks (ring attention); the batch counts sequences
  // Pipeline stages (1: none) with their schedule (gpipe | 1f1b | interleaved) and model chunks per stage:
  // the micro-batch is the pipeline's, per data-parallel rank (gpus / (tensor x context x pipeline)).
  int pipeline_parallel = 1;
  std::string pipeline_schedule;
  int virtual_stages = 1;
  std::optional<std::int64_t> micro_batch_per_gpu;  // per data-parallel rank
  std::optional<std::int64_t> gradient_accumulation_steps;
  std::optional<std::int64_t> global_batch_sequences;
  std::optional<std::int64_t> global_batch_tokens;
  PublishedCheckpointing checkpointing = PublishedCheckpointing::unknown;
  std::string checkpointing_stated;
  std::optional<std::int64_t> checkpoint_every;  // selective_layer: the layer step, stated or assumed
  Tristate activation_cpu_offload = Tristate::unknown;
  std::string sharding_stated;
  std::string precision_stated;
  Tristate torch_compile = Tristate::unknown;
  Tristate float8 = Tristate::unknown;
  Tristate flash_attention = Tristate::unknown;
  std::optional<std::int64_t> parameters_stated;
  std::optional<std::int64_t> assumed_sequence_tokens;  // from the source's own config, not the table
  // The micro-batch from the source's own defaults (a pipeline's: the local batch over its micro-batches).
  std::optional<std::int64_t> assumed_micro_batch_per_gpu;
  std::string assumed_source;
  std::string note;
  PublishedMeasured measured;
};

struct PublishedTable {
  std::string file;
  PublishedSource source;
  std::string framework_stated;
  std::string runtime_profile;       // ideal | fsdp2 | fsdp1 | deepspeed
  std::string precision;             // a shardscope precision name: fp32 | mixed-bf16 | mixed-fp16
  std::string cross_entropy;         // the loss as the source's script computes it: fused | pytorch
  std::string cross_entropy_source;  // where that was read
  std::string reduce_dtype;          // the framework's gradient reduction: gradient | fp32 (empty: gradient)
  std::string reduce_dtype_source;   // where that was read
  std::string float8_recipe;         // rows with float8: dynamic | delayed (empty: no row runs float8)
  std::string float8_recipe_source;  // where that was read
  PublishedCluster cluster;
  std::string memory_meaning;  // max_reserved | max_active | max_allocated | unknown | none
  std::vector<PublishedModel> models;
  std::vector<PublishedRow> rows;
  const PublishedModel& model_of(const PublishedRow& row) const;
};

// A row's data-parallel ranks: gpus / (tensor_parallel x context_parallel x pipeline_parallel).
int data_parallel_ranks(const PublishedRow& row);

// Reads a published-measurements file; any problem is an InputError naming file, line and field.
PublishedTable load_published_file(const std::string& path);
PublishedTable parse_published_string(const std::string& text, const std::string& file_name = "<string>");

// The sequence length a prediction of `row` uses: the stated one, else the assumed one; nullopt when neither.
std::optional<std::int64_t> row_sequence_tokens(const PublishedRow& row);

// The text of a shardscope scenario for `row` (model as a transformer mapping, the header's cluster preset
// with nodes = gpus / GPUs per node, the row's micro-batch, accumulation and checkpointing). Throws
// InputError naming the row when its sequence length is unknown and not assumed, or its GPU count is not a
// whole number of the preset's nodes.
std::string published_scenario_text(const PublishedTable& table, const PublishedRow& row);

}  // namespace shardscope::fit
