// Hugging Face config.json -> TransformerSpec for llama, mistral, mixtral, gpt2, gpt_neox and opt.
#include "planner/io/hf_config.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "planner/core/error.hpp"
#include "planner/io/yaml_reader.hpp"

namespace shardscope {
namespace {

using Json = nlohmann::json;

int line_at(const std::string& text, std::size_t byte) {
  byte = std::min(byte, text.size());
  return 1 +
         static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(byte), '\n'));
}

// The line of a top-level key: the first occurrence of "key" followed by a colon.
int key_line(const std::string& text, const std::string& key) {
  const std::string quoted = "\"" + key + "\"";
  std::size_t pos = 0;
  while ((pos = text.find(quoted, pos)) != std::string::npos) {
    std::size_t after = pos + quoted.size();
    while (after < text.size() &&
           (text[after] == ' ' || text[after] == '\t' || text[after] == '\n' || text[after] == '\r')) {
      ++after;
    }
    if (after < text.size() && text[after] == ':') return line_at(text, pos);
    pos = after;
  }
  return 0;
}

class ConfigReader {
 public:
  ConfigReader(const Json& json, const std::string& text, std::string file)
      : json_(json), text_(text), file_(std::move(file)) {}

  [[noreturn]] void fail(const std::string& key, const std::string& message) const {
    throw InputError(file_, key_line(text_, key), key, message);
  }
  bool has(const std::string& key) const { return json_.contains(key) && !json_.at(key).is_null(); }
  std::int64_t integer(const std::string& key, std::int64_t min, std::int64_t max) const {
    if (!has(key)) fail(key, "missing; this key is required for model_type " + model_type());
    return integer_value(key, min, max);
  }
  std::int64_t integer_or(const std::string& key, std::int64_t fallback, std::int64_t min,
                          std::int64_t max) const {
    return has(key) ? integer_value(key, min, max) : fallback;
  }
  bool boolean_or(const std::string& key, bool fallback) const {
    if (!has(key)) return fallback;
    if (!json_.at(key).is_boolean()) fail(key, "expected true or false");
    return json_.at(key).get<bool>();
  }
  double number_or(const std::string& key, double fallback) const {
    if (!has(key)) return fallback;
    if (!json_.at(key).is_number()) fail(key, "expected a number");
    return json_.at(key).get<double>();
  }
  std::string model_type() const { return json_.at("model_type").get<std::string>(); }

  // Every key must be known: either understood above or listed as not changing the model's size.
  void reject_unknown(const std::set<std::string>& understood) const {
    static const std::set<std::string> neutral = {"architectures",
                                                  "model_type",
                                                  "torch_dtype",
                                                  "transformers_version",
                                                  "_name_or_path",
                                                  "bos_token_id",
                                                  "eos_token_id",
                                                  "pad_token_id",
                                                  "sep_token_id",
                                                  "decoder_start_token_id",
                                                  "initializer_range",
                                                  "init_std",
                                                  "use_cache",
                                                  "rms_norm_eps",
                                                  "layer_norm_eps",
                                                  "layer_norm_epsilon",
                                                  "hidden_act",
                                                  "activation_function",
                                                  "rope_theta",
                                                  "rope_scaling",
                                                  "rotary_emb_base",
                                                  "rotary_pct",
                                                  "pretraining_tp",
                                                  "attention_dropout",
                                                  "hidden_dropout",
                                                  "classifier_dropout",
                                                  "attention_probs_dropout_prob",
                                                  "hidden_dropout_prob",
                                                  "dropout",
                                                  "activation_dropout",
                                                  "layerdrop",
                                                  "resid_pdrop",
                                                  "embd_pdrop",
                                                  "attn_pdrop",
                                                  "sliding_window",
                                                  "max_window_layers",
                                                  "use_sliding_window",
                                                  "router_aux_loss_coef",
                                                  "output_router_logits",
                                                  "router_jitter_noise",
                                                  "summary_activation",
                                                  "summary_first_dropout",
                                                  "summary_proj_to_labels",
                                                  "summary_type",
                                                  "summary_use_proj",
                                                  "task_specific_params",
                                                  "scale_attn_weights",
                                                  "reorder_and_upcast_attn",
                                                  "scale_attn_by_inverse_layer_idx",
                                                  "n_ctx",
                                                  "prefix",
                                                  "use_parallel_residual",
                                                  "bias",
                                                  "is_decoder",
                                                  "gradient_checkpointing",
                                                  "return_dict",
                                                  "output_attentions",
                                                  "output_hidden_states",
                                                  "torchscript",
                                                  "tokenizer_class",
                                                  "id2label",
                                                  "label2id"};
    for (auto it = json_.begin(); it != json_.end(); ++it) {
      if (understood.count(it.key()) == 0 && neutral.count(it.key()) == 0) {
        fail(it.key(), "unknown key for model_type " + model_type() +
                           "; shardscope cannot tell whether it changes the model's size");
      }
    }
  }

 private:
  std::int64_t integer_value(const std::string& key, std::int64_t min, std::int64_t max) const {
    const Json& v = json_.at(key);
    if (!v.is_number_integer()) fail(key, "expected an integer");
    const bool is_unsigned = v.is_number_unsigned();
    if (is_unsigned && v.get<std::uint64_t>() > static_cast<std::uint64_t>(max)) {
      fail(key, "expected an integer between " + std::to_string(min) + " and " + std::to_string(max));
    }
    const std::int64_t value =
        is_unsigned ? static_cast<std::int64_t>(v.get<std::uint64_t>()) : v.get<std::int64_t>();
    if (value < min || value > max) {
      fail(key, "expected an integer between " + std::to_string(min) + " and " + std::to_string(max) +
                    ", got " + std::to_string(value));
    }
    return value;
  }

  const Json& json_;
  const std::string& text_;
  std::string file_;
};

constexpr std::int64_t kMaxHidden = 1 << 20;
constexpr std::int64_t kMaxLayers = 100000;
constexpr std::int64_t kMaxVocab = 100000000;

TransformerSpec llama_family(const ConfigReader& c, const std::string& type) {
  std::set<std::string> understood = {"hidden_size",
                                      "intermediate_size",
                                      "num_hidden_layers",
                                      "num_attention_heads",
                                      "num_key_value_heads",
                                      "vocab_size",
                                      "max_position_embeddings",
                                      "tie_word_embeddings",
                                      "attention_bias",
                                      "mlp_bias",
                                      "head_dim"};
  if (type == "mixtral") understood.insert({"num_local_experts", "num_experts_per_tok"});
  c.reject_unknown(understood);
  TransformerSpec s;
  s.hidden = c.integer("hidden_size", 1, kMaxHidden);
  s.ffn_hidden = c.integer("intermediate_size", 1, 16 * kMaxHidden);
  s.layers = static_cast<int>(c.integer("num_hidden_layers", 1, kMaxLayers));
  s.heads = static_cast<int>(c.integer("num_attention_heads", 1, kMaxHidden));
  s.kv_heads = static_cast<int>(c.integer_or("num_key_value_heads", s.heads, 1, kMaxHidden));
  s.head_dim = c.integer_or("head_dim", 0, 1, kMaxHidden);
  s.vocab = c.integer("vocab_size", 1, kMaxVocab);
  s.max_positions = c.integer("max_position_embeddings", 1, 100000000);
  s.tied_embeddings = c.boolean_or("tie_word_embeddings", false);
  s.attention_bias = c.boolean_or("attention_bias", false);
  s.mlp_bias = c.boolean_or("mlp_bias", false);
  s.mlp = MlpKind::gated;
  s.norm = NormKind::rmsnorm;
  s.positions = PositionKind::rotary;
  s.dropout = c.number_or("attention_dropout", 0.0) > 0;
  if (type == "mixtral") {
    s.experts = static_cast<int>(c.integer("num_local_experts", 1, 4096));
    s.experts_per_token = static_cast<int>(c.integer("num_experts_per_tok", 1, s.experts));
  }
  return s;
}

TransformerSpec gpt2(const ConfigReader& c) {
  c.reject_unknown(
      {"n_embd", "n_layer", "n_head", "n_inner", "n_positions", "vocab_size", "tie_word_embeddings"});
  TransformerSpec s;
  s.hidden = c.integer("n_embd", 1, kMaxHidden);
  s.layers = static_cast<int>(c.integer("n_layer", 1, kMaxLayers));
  s.heads = static_cast<int>(c.integer("n_head", 1, kMaxHidden));
  s.ffn_hidden = c.integer_or("n_inner", 4 * s.hidden, 1, 16 * kMaxHidden);  // null means 4 x n_embd
  s.max_positions = c.integer("n_positions", 1, 100000000);
  s.vocab = c.integer("vocab_size", 1, kMaxVocab);
  s.tied_embeddings = c.boolean_or("tie_word_embeddings", true);
  s.dropout = c.number_or("resid_pdrop", 0.1) > 0;
  return s;
}

TransformerSpec gpt_neox(const ConfigReader& c) {
  c.reject_unknown({"hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads",
                    "vocab_size", "max_position_embeddings", "tie_word_embeddings", "attention_bias"});
  TransformerSpec s;
  s.hidden = c.integer("hidden_size", 1, kMaxHidden);
  s.ffn_hidden = c.integer("intermediate_size", 1, 16 * kMaxHidden);
  s.layers = static_cast<int>(c.integer("num_hidden_layers", 1, kMaxLayers));
  s.heads = static_cast<int>(c.integer("num_attention_heads", 1, kMaxHidden));
  s.vocab = c.integer("vocab_size", 1, kMaxVocab);
  s.max_positions = c.integer("max_position_embeddings", 1, 100000000);
  s.tied_embeddings = c.boolean_or("tie_word_embeddings", false);
  s.attention_bias = c.boolean_or("attention_bias", true);
  s.positions = PositionKind::rotary;
  s.parallel_residual = c.boolean_or("use_parallel_residual", true);
  s.dropout = c.number_or("hidden_dropout", 0.0) > 0;
  return s;
}

TransformerSpec opt(const ConfigReader& c) {
  c.reject_unknown({"hidden_size", "ffn_dim", "num_hidden_layers", "num_attention_heads", "vocab_size",
                    "max_position_embeddings", "word_embed_proj_dim", "do_layer_norm_before", "enable_bias",
                    "layer_norm_elementwise_affine", "tie_word_embeddings", "_remove_final_layer_norm"});
  TransformerSpec s;
  s.hidden = c.integer("hidden_size", 1, kMaxHidden);
  s.ffn_hidden = c.integer("ffn_dim", 1, 16 * kMaxHidden);
  s.layers = static_cast<int>(c.integer("num_hidden_layers", 1, kMaxLayers));
  s.heads = static_cast<int>(c.integer("num_attention_heads", 1, kMaxHidden));
  s.vocab = c.integer("vocab_size", 1, kMaxVocab);
  // OPT's learned position table has two extra rows (its positions start at offset 2).
  s.max_positions = c.integer("max_position_embeddings", 1, 100000000) + 2;
  if (c.integer_or("word_embed_proj_dim", s.hidden, 1, kMaxHidden) != s.hidden) {
    c.fail("word_embed_proj_dim",
           "a projection between embedding and hidden size (as in OPT-350m) is not supported");
  }
  if (!c.boolean_or("do_layer_norm_before", true)) {
    c.fail("do_layer_norm_before", "post-norm OPT layout (as in OPT-350m) is not supported");
  }
  if (!c.boolean_or("layer_norm_elementwise_affine", true)) {
    c.fail("layer_norm_elementwise_affine", "layer norms without weights are not supported");
  }
  if (c.boolean_or("_remove_final_layer_norm", false)) {
    c.fail("_remove_final_layer_norm", "OPT without a final layer norm is not supported");
  }
  s.attention_bias = s.mlp_bias = c.boolean_or("enable_bias", true);
  s.tied_embeddings = c.boolean_or("tie_word_embeddings", true);
  s.dropout = c.number_or("dropout", 0.1) > 0;
  return s;
}

}  // namespace

TransformerSpec parse_hf_config_string(const std::string& text, const std::string& file_name,
                                       std::int64_t sequence_length) {
  Json json;
  try {
    json = Json::parse(text);
  } catch (const Json::parse_error& e) {
    throw InputError(file_name, line_at(text, e.byte > 0 ? e.byte - 1 : 0), "",
                     std::string("malformed JSON: ") + e.what());
  } catch (const Json::exception& e) {
    // e.g. out_of_range for a number such as 1e999 that no double can hold (found by the fuzzer)
    throw InputError(file_name, 0, "", std::string("malformed JSON: ") + e.what());
  }
  if (!json.is_object())
    throw InputError(file_name, 1, "", "expected a JSON object (a Hugging Face config.json)");
  if (!json.contains("model_type") || !json.at("model_type").is_string()) {
    throw InputError(file_name, key_line(text, "model_type"), "model_type",
                     "missing; expected a string such as \"llama\"");
  }
  const ConfigReader reader(json, text, file_name);
  const std::string type = json.at("model_type").get<std::string>();
  TransformerSpec spec;
  if (type == "llama" || type == "mistral" || type == "mixtral") {
    spec = llama_family(reader, type);
  } else if (type == "gpt2") {
    spec = gpt2(reader);
  } else if (type == "gpt_neox") {
    spec = gpt_neox(reader);
  } else if (type == "opt") {
    spec = opt(reader);
  } else {
    reader.fail("model_type", "unsupported model_type '" + type +
                                  "'; supported: llama, mistral, mixtral, gpt2, gpt_neox, opt");
  }
  spec.name = json.contains("_name_or_path") && json.at("_name_or_path").is_string()
                  ? json.at("_name_or_path").get<std::string>()
                  : type;
  const std::int64_t context = type == "opt" ? spec.max_positions - 2 : spec.max_positions;
  if (sequence_length > context) {
    throw InputError(file_name, key_line(text, type == "gpt2" ? "n_positions" : "max_position_embeddings"),
                     "sequence_length",
                     "sequence length " + std::to_string(sequence_length) +
                         " exceeds the model's maximum of " + std::to_string(context));
  }
  spec.sequence_length = sequence_length > 0 ? sequence_length : context;
  spec.flash_attention = true;
  if (spec.positions == PositionKind::rotary) spec.max_positions = 0;
  return spec;
}

TransformerSpec load_hf_config_file(const std::string& path, std::int64_t sequence_length) {
  return parse_hf_config_string(read_text_file(path, "Hugging Face config.json"), path, sequence_length);
}

}  // namespace shardscope
