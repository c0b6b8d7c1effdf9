// Reading validate/published/*.yaml into PublishedTable, with the checks across fields (the scenario of a
// row: published_scenario.cpp).
#include "validate/fit/published.hpp"

#include <cctype>
#include <cmath>
#include <set>

#include "planner/core/error.hpp"
#include "planner/io/cluster_presets.hpp"
#include "planner/io/internal/yaml_reader.hpp"
#include "planner/io/preset_catalog.hpp"
#include "planner/io/text_file.hpp"

namespace shardscope::fit {

namespace {

constexpr std::int64_t kMaxCount = std::int64_t{1} << 50;
constexpr double kMaxRate = 1e15;

bool is_unknown(const YamlMap& map, const std::string& key) {
  const YAML::Node value = map.raw(key);
  return value.IsScalar() && value.Scalar() == "unknown";
}

// A positive integer, or `unknown` (nullopt); the key must be present.
PublishedCheckpointing checkpointing(const YamlMap& map, const std::string& key) {
  const std::string ac =
      map.choice(key, {"none", "full", "selective", "selective-op", "selective-layer", "unknown"});
  return ac == "none"              ? PublishedCheckpointing::none
         : ac == "full"            ? PublishedCheckpointing::full
         : ac == "selective"       ? PublishedCheckpointing::selective
         : ac == "selective-op"    ? PublishedCheckpointing::selective_op
         : ac == "selective-layer" ? PublishedCheckpointing::selective_layer
                                   : PublishedCheckpointing::unknown;
}

// What a row assumes from its source's own configuration, only where the row leaves it open.
void read_assumed(const YamlMap& assumed, PublishedRow& r) {
  assumed.reject_unknown({"sequence_tokens", "activation_checkpointing", "activation_checkpointing_every",
                          "micro_batch_per_gpu", "source"});
  r.assumed_source = assumed.name("source");
  if (assumed.has("activation_checkpointing")) {
    // Which kind of selective checkpointing a row that says only "selective" ran.
    if (r.checkpointing != PublishedCheckpointing::selective)
      assumed.fail("activation_checkpointing",
                   "the row states its policy; assume only a selective one's kind");
    r.checkpointing = checkpointing(assumed, "activation_checkpointing");
    if (r.checkpointing != PublishedCheckpointing::selective_op &&
        r.checkpointing != PublishedCheckpointing::selective_layer)
      assumed.fail("activation_checkpointing",
                   "expected selective-op or selective-layer (the kinds shardscope prices)");
  }
  if (assumed.has("activation_checkpointing_every")) {
    if (r.checkpoint_every)
      assumed.fail("activation_checkpointing_every", "the row states it; assume only what is unknown");
    r.checkpoint_every = assumed.integer("activation_checkpointing_every", 1, 1000000);
  }
  if (assumed.has("sequence_tokens")) {
    if (r.sequence_tokens) assumed.fail("sequence_tokens", "the row states it; assume only what is unknown");
    r.assumed_sequence_tokens = assumed.integer("sequence_tokens", 1, 10000000);
  }
  if (assumed.has("micro_batch_per_gpu")) {
    if (r.micro_batch_per_gpu)
      assumed.fail("micro_batch_per_gpu", "the row states it; assume only what is unknown");
    r.assumed_micro_batch_per_gpu = assumed.integer("micro_batch_per_gpu", 1, 1000000);
  }
}

std::optional<std::int64_t> count_or_unknown(const YamlMap& map, const std::string& key) {
  if (!map.has(key)) map.fail(key, "missing; this field is required (give a positive integer or unknown)");
  if (is_unknown(map, key)) return std::nullopt;
  return map.integer(key, 1, kMaxCount);
}

// The same for a key that may be left out altogether.
std::optional<std::int64_t> optional_count(const YamlMap& map, const std::string& key) {
  if (!map.has(key)) return std::nullopt;
  return count_or_unknown(map, key);
}

Tristate tristate(const YamlMap& map, const std::string& key, bool required) {
  if (!map.has(key)) {
    if (required) map.fail(key, "missing; this field is required (true, false or unknown)");
    return Tristate::unknown;
  }
  if (is_unknown(map, key)) return Tristate::unknown;
  return map.boolean_or(key, false) ? Tristate::yes : Tristate::no;
}

std::optional<double> optional_rate(const YamlMap& map, const std::string& key, double min) {
  if (!map.has(key)) return std::nullopt;
  return map.number(key, min, kMaxRate);
}

// A number above zero (the reader's range check admits 0 at min = 0).
double positive(const YamlMap& map, const std::string& key, double max) {
  const double value = map.number(key, 0, max);
  if (!(value > 0)) map.fail(key, "expected a number above 0, got " + map.raw(key).Scalar());
  return value;
}

std::optional<double> optional_positive(const YamlMap& map, const std::string& key, double max) {
  if (!map.has(key)) return std::nullopt;
  return positive(map, key, max);
}

PublishedSource parse_source(const YamlMap& map) {
  map.reject_unknown({"name", "url", "commit", "file_commit", "table", "notes"});
  PublishedSource s;
  s.name = map.name("name");
  s.url = map.name("url");
  s.commit = map.name("commit");
  s.file_commit = map.optional_name("file_commit").value_or("");
  s.table = map.name("table");
  s.notes = map.optional_string("notes").value_or("");
  if (s.url.rfind("https://", 0) != 0) map.fail("url", "expected an https:// address, got '" + s.url + "'");
  return s;
}

PublishedCluster parse_cluster_header(const YamlMap& map) {
  map.reject_unknown({"gpu", "gpus_per_node", "interconnect", "notes", "shardscope"});
  PublishedCluster c;
  c.gpu_stated = map.name("gpu");
  if (const auto per_node = count_or_unknown(map, "gpus_per_node")) {
    if (*per_node > 1024) map.fail("gpus_per_node", "expected at most 1024 GPUs per node");
    c.gpus_per_node = static_cast<int>(*per_node);
  }
  c.interconnect_stated = map.name("interconnect");
  c.notes = map.optional_string("notes").value_or("");
  const YamlMap shardscope = map.map("shardscope");
  shardscope.reject_unknown({"preset", "gpu_memory", "hbm_bandwidth", "peak_fp16", "peak_source"});
  c.preset = shardscope.name("preset");
  if (cluster_presets().find(c.preset) == nullptr)
    shardscope.fail("preset", "'" + c.preset + "' is not a shipped cluster preset (scenarios/clusters/)");
  if (shardscope.has("gpu_memory")) {
    shardscope.bytes("gpu_memory", 1, std::int64_t{1} << 44);
    c.gpu_memory = shardscope.string("gpu_memory");
  }
  if (shardscope.has("hbm_bandwidth")) {
    shardscope.bandwidth("hbm_bandwidth");
    c.hbm_bandwidth = shardscope.string("hbm_bandwidth");
  }
  if (shardscope.has("peak_fp16")) {
    shardscope.flops("peak_fp16");
    c.peak_fp16 = shardscope.string("peak_fp16");
    c.peak_source = shardscope.optional_string("peak_source").value_or("");
    if (c.peak_source.empty())
      shardscope.fail("peak_fp16", "a peak other than the preset's needs peak_source: where it comes from");
  } else if (shardscope.has("peak_source")) {
    shardscope.fail("peak_source", "names the source of peak_fp16, which is not given");
  }
  return c;
}

PublishedModel parse_model(const YamlMap& map, const std::string& name) {
  map.reject_unknown({"shape_from", "layers", "hidden", "heads", "kv_heads", "ffn_hidden", "expansion_ratio",
                      "vocab", "mlp", "norm", "positions", "attention_bias", "mlp_bias", "tied_embeddings"});
  PublishedModel m;
  m.name = name;
  m.shape_from = map.name("shape_from");
  m.layers = static_cast<int>(map.integer("layers", 1, 100000));
  m.hidden = map.integer("hidden", 1, 1048576);
  m.heads = static_cast<int>(map.integer("heads", 1, 100000));
  m.kv_heads = static_cast<int>(map.integer_or("kv_heads", 0, 1, m.heads));
  if (map.has("kv_heads") && m.heads % m.kv_heads != 0) map.fail("kv_heads", "does not divide heads");
  if (m.hidden % m.heads != 0) map.fail("heads", "does not divide hidden (" + std::to_string(m.hidden) + ")");
  if (map.has("ffn_hidden") == map.has("expansion_ratio"))
    map.fail("ffn_hidden", "give exactly one of ffn_hidden and expansion_ratio");
  if (map.has("ffn_hidden")) {
    m.ffn_hidden = map.integer("ffn_hidden", 1, 16777216);
  } else {
    m.expansion_ratio = positive(map, "expansion_ratio", 1024);
    const double ffn = m.expansion_ratio * static_cast<double>(m.hidden);
    if (ffn != std::floor(ffn)) map.fail("expansion_ratio", "expansion_ratio x hidden is not a whole number");
  }
  m.vocab = map.integer("vocab", 1, 100000000);
  if (map.has("mlp")) m.mlp = map.choice("mlp", {"gelu", "gated"});
  if (map.has("norm")) m.norm = map.choice("norm", {"layernorm", "rmsnorm"});
  if (map.has("positions")) m.positions = map.choice("positions", {"learned", "rotary"});
  m.attention_bias = map.boolean_or("attention_bias", true);
  m.mlp_bias = map.boolean_or("mlp_bias", true);
  m.tied_embeddings = map.boolean_or("tied_embeddings", true);
  return m;
}

PublishedMeasured parse_measured(const YamlMap& map, const std::string& memory_meaning) {
  map.reject_unknown({"tokens_per_second_per_gpu", "tokens_per_second", "sequences_per_second", "mfu_percent",
                      "hfu_percent", "model_teraflops_per_second_per_gpu", "memory_gib"});
  PublishedMeasured m;
  m.tokens_per_second_per_gpu = positive(map, "tokens_per_second_per_gpu", kMaxRate);
  m.tokens_per_second = optional_positive(map, "tokens_per_second", kMaxRate);
  m.sequences_per_second =
      optional_rate(map, "sequences_per_second", 0);  // the source rounds small rates to 0
  m.mfu_percent = optional_positive(map, "mfu_percent", 100);
  m.hfu_percent = optional_positive(map, "hfu_percent", 100);
  m.model_teraflops_per_second_per_gpu = optional_positive(map, "model_teraflops_per_second_per_gpu", 1e6);
  m.memory_gib = optional_positive(map, "memory_gib", 1e6);
  if (m.memory_gib && memory_meaning == "none")
    map.fail("memory_gib", "the header's memory_meaning is none; say what the memory figure is");
  return m;
}

// pipeline_parallel, and its schedule (required with stages) and virtual stages (interleaved only).
void read_pipeline(const YamlMap& map, PublishedRow& r) {
  r.pipeline_parallel = static_cast<int>(map.integer_or("pipeline_parallel", 1, 1, 1024));
  if (r.pipeline_parallel == 1) {
    if (map.has("pipeline_schedule")) map.fail("pipeline_schedule", "needs pipeline_parallel above 1");
    if (map.has("virtual_stages")) map.fail("virtual_stages", "needs pipeline_parallel above 1");
    return;
  }
  r.pipeline_schedule = map.choice("pipeline_schedule", {"gpipe", "1f1b", "interleaved"});
  r.virtual_stages = static_cast<int>(map.integer_or("virtual_stages", 1, 1, 64));
  if (r.pipeline_schedule == "interleaved" && r.virtual_stages < 2)
    map.fail("virtual_stages", "the interleaved schedule needs at least 2 model chunks per stage");
  if (r.pipeline_schedule != "interleaved" && r.virtual_stages != 1)
    map.fail("virtual_stages", "only the interleaved schedule has more than one model chunk per stage");
}

// Checks across one row's fields: the batch arithmetic and total against per-GPU throughput.
void check_row(const YamlMap& map, const PublishedRow& r) {
  if (r.gpus % r.tensor_parallel != 0)
    map.fail("tensor_parallel", "does not divide the row's " + std::to_string(r.gpus) + " GPUs");
  if (r.gpus % (r.tensor_parallel * r.context_parallel) != 0) {
    map.fail("context_parallel",
             "times tensor_parallel does not divide the row's " + std::to_string(r.gpus) + " GPUs");
  }
  if (r.gpus % (r.tensor_parallel * r.context_parallel * r.pipeline_parallel) != 0) {
    map.fail("pipeline_parallel", "times tensor_parallel and context_parallel does not divide the row's " +
                                      std::to_string(r.gpus) + " GPUs");
  }
  const int ranks = data_parallel_ranks(r);
  if (r.micro_batch_per_gpu && r.gradient_accumulation_steps && r.global_batch_sequences &&
      *r.micro_batch_per_gpu * *r.gradient_accumulation_steps * ranks != *r.global_batch_sequences) {
    map.fail("global_batch_sequences",
             "is not micro_batch_per_gpu x gradient_accumulation_steps x gpus / (tensor_parallel x "
             "context_parallel x pipeline_parallel) (" +
                 std::to_string(*r.micro_batch_per_gpu * *r.gradient_accumulation_steps * ranks) + ")");
  }
  if (r.global_batch_sequences && r.global_batch_tokens && r.sequence_tokens &&
      *r.global_batch_sequences * *r.sequence_tokens != *r.global_batch_tokens) {
    map.fail("global_batch_tokens", "is not global_batch_sequences x sequence_tokens (" +
                                        std::to_string(*r.global_batch_sequences * *r.sequence_tokens) + ")");
  }
  if (r.measured.tokens_per_second &&
      std::abs(*r.measured.tokens_per_second / r.gpus - r.measured.tokens_per_second_per_gpu) > 1.0) {
    map.fail("measured.tokens_per_second",
             "differs from gpus x tokens_per_second_per_gpu by more than 1 per GPU");
  }
}

PublishedRow parse_row(const YamlMap& map, const PublishedTable& table) {
  map.reject_unknown({"id",
                      "part",
                      "model",
                      "sequence_tokens",
                      "gpus",
                      "tensor_parallel",
                      "sequence_parallel",
                      "context_parallel",
                      "pipeline_parallel",
                      "pipeline_schedule",
                      "virtual_stages",
                      "micro_batch_per_gpu",
                      "gradient_accumulation_steps",
                      "global_batch_sequences",
                      "global_batch_tokens",
                      "activation_checkpointing",
                      "activation_checkpointing_stated",
                      "activation_cpu_offload",
                      "sharding_stated",
                      "precision_stated",
                      "torch_compile",
                      "float8",
                      "flash_attention",
                      "parameters_stated",
                      "assumed",
                      "activation_checkpointing_every",
                      "note",
                      "measured"});
  PublishedRow r;
  r.line = map.own_line();
  r.id = map.name("id");
  for (const char c : r.id) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.')
      map.fail("id", "'" + r.id + "': expected letters, digits, '-', '_' and '.' only");
  }
  r.part = map.choice("part", {"fit", "held_out"}) == "fit" ? PublishedPart::fit : PublishedPart::held_out;
  r.model = map.name("model");
  bool known_model = false;
  for (const PublishedModel& m : table.models) known_model = known_model || m.name == r.model;
  if (!known_model) map.fail("model", "'" + r.model + "' is not one of the header's models");
  r.sequence_tokens = count_or_unknown(map, "sequence_tokens");
  r.gpus = static_cast<int>(map.integer("gpus", 1, 1 << 20));
  r.tensor_parallel = static_cast<int>(map.integer_or("tensor_parallel", 1, 1, 1024));
  r.sequence_parallel = map.boolean_or("sequence_parallel", false);
  r.context_parallel = static_cast<int>(map.integer_or("context_parallel", 1, 1, 1024));
  if (r.sequence_parallel && r.tensor_parallel == 1)
    map.fail("sequence_parallel", "needs tensor_parallel above 1");
  read_pipeline(map, r);
  r.micro_batch_per_gpu = count_or_unknown(map, "micro_batch_per_gpu");
  r.gradient_accumulation_steps = count_or_unknown(map, "gradient_accumulation_steps");
  r.global_batch_sequences = optional_count(map, "global_batch_sequences");
  r.global_batch_tokens = optional_count(map, "global_batch_tokens");
  r.checkpointing = checkpointing(map, "activation_checkpointing");
  r.checkpointing_stated = map.name("activation_checkpointing_stated");
  r.activation_cpu_offload = tristate(map, "activation_cpu_offload", false);
  r.sharding_stated = map.name("sharding_stated");
  r.precision_stated = map.name("precision_stated");
  r.torch_compile = tristate(map, "torch_compile", true);
  r.float8 = tristate(map, "float8", true);
  r.flash_attention = tristate(map, "flash_attention", true);
  r.parameters_stated = optional_count(map, "parameters_stated");
  r.checkpoint_every = optional_count(map, "activation_checkpointing_every");
  if (map.has("assumed")) read_assumed(map.map("assumed"), r);
  r.note = map.optional_string("note").value_or("");
  r.measured = parse_measured(map.map("measured"), table.memory_meaning);
  check_row(map, r);
  return r;
}

}  // namespace

std::int64_t PublishedModel::ffn_hidden_resolved() const {
  return ffn_hidden > 0 ? ffn_hidden
                        : static_cast<std::int64_t>(expansion_ratio * static_cast<double>(hidden));
}

const PublishedModel& PublishedTable::model_of(const PublishedRow& row) const {
  for (const PublishedModel& m : models)
    if (m.name == row.model) return m;
  throw InputError(file, row.line, "model", "'" + row.model + "' is not one of the header's models");
}

namespace {

// A header setting stated as `{kind: ONE_OF, source: where it was read}`.
void read_kind(const YamlMap& map, const std::vector<std::string>& kinds, std::string& kind,
               std::string& source) {
  map.reject_unknown({"kind", "source"});
  kind = map.choice("kind", kinds);
  source = map.name("source");
}

}  // namespace

PublishedTable parse_published_string(const std::string& text, const std::string& file_name) {
  const YamlMap root(parse_yaml_mapping(text, file_name), file_name, "");
  root.reject_unknown({"source", "framework", "runtime_profile", "precision", "cross_entropy", "reduce_dtype",
                       "float8_recipe", "cluster", "memory_meaning", "models", "rows"});
  PublishedTable t;
  t.file = file_name;
  t.source = parse_source(root.map("source"));
  t.framework_stated = root.name("framework");
  t.runtime_profile = root.choice("runtime_profile", {"ideal", "fsdp2", "fsdp1", "deepspeed"});
  t.precision = root.choice("precision", {"fp32", "mixed-bf16", "mixed-fp16"});
  read_kind(root.map("cross_entropy"), {"fused", "pytorch"}, t.cross_entropy, t.cross_entropy_source);
  if (root.has("reduce_dtype"))
    read_kind(root.map("reduce_dtype"), {"gradient", "fp32"}, t.reduce_dtype, t.reduce_dtype_source);
  if (root.has("float8_recipe"))
    read_kind(root.map("float8_recipe"), {"dynamic", "delayed"}, t.float8_recipe, t.float8_recipe_source);
  t.cluster = parse_cluster_header(root.map("cluster"));
  t.memory_meaning =
      root.choice("memory_meaning", {"max_reserved", "max_active", "max_allocated", "unknown", "none"});
  const YamlMap models = root.map("models");
  if (models.node().size() == 0) root.fail("models", "expected at least one model shape");
  for (auto it = models.node().begin(); it != models.node().end(); ++it) {
    const std::string name = it->first.Scalar();
    t.models.push_back(parse_model(models.map(name), name));
  }
  const YAML::Node rows = root.raw("rows");
  if (!rows.IsDefined() || rows.IsNull()) root.fail("rows", "missing; this field is required");
  if (!rows.IsSequence() || rows.size() == 0) root.fail("rows", "expected a non-empty list of rows");
  std::set<std::string> ids;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const YamlMap row(rows[i], file_name, "rows[" + std::to_string(i) + "]", root.line("rows"));
    t.rows.push_back(parse_row(row, t));
    if (!ids.insert(t.rows.back().id).second) row.fail("id", "'" + t.rows.back().id + "' is given twice");
    if (t.rows.back().float8 == Tristate::yes && t.float8_recipe.empty())
      row.fail("float8",
               "true, and the file names no float8_recipe (kind: dynamic | delayed, with its source)");
  }
  return t;
}

PublishedTable load_published_file(const std::string& path) {
  return parse_published_string(read_text_file(path, "published measurements"), path);
}

int data_parallel_ranks(const PublishedRow& row) {
  return row.gpus / (row.tensor_parallel * row.context_parallel * row.pipeline_parallel);
}

std::optional<std::int64_t> row_sequence_tokens(const PublishedRow& row) {
  return row.sequence_tokens ? row.sequence_tokens : row.assumed_sequence_tokens;
}

}  // namespace shardscope::fit
