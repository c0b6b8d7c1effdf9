// Hugging Face config.json -> TransformerSpec for llama, mistral, mixtral, gpt2, gpt_neox and opt.
#include "planner/io/hf_config.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string_view>

#include "planner/core/error.hpp"
#include "planner/io/internal/json_reader.hpp"
#include "planner/io/internal/yaml_reader.hpp"

namespace shardscope {
namespace {

using Json = nlohmann::json;

// Every key must be known: either understood by the family's reader or listed as not changing the model's
// size.
void reject_unknown(const JsonObjectReader& c, std::set<std::string> understood) {
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
  understood.insert(neutral.begin(), neutral.end());
  c.reject_unknown(understood, "unknown key for model_type " + c.string("model_type") +
                                   "; shardscope cannot tell whether it changes the model's size");
}

constexpr std::int64_t kMaxHidden = 1 << 20;
constexpr std::int64_t kMaxLayers = 100000;
constexpr std::int64_t kMaxVocab = 100000000;

TransformerSpec llama_family(const JsonObjectReader& c, const std::string& type) {
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
  reject_unknown(c, understood);
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

TransformerSpec gpt2(const JsonObjectReader& c) {
  reject_unknown(
      c, {"n_embd", "n_layer", "n_head", "n_inner", "n_positions", "vocab_size", "tie_word_embeddings"});
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

TransformerSpec gpt_neox(const JsonObjectReader& c) {
  reject_unknown(c, {"hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads",
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

TransformerSpec opt(const JsonObjectReader& c) {
  reject_unknown(c, {"hidden_size", "ffn_dim", "num_hidden_layers", "num_attention_heads", "vocab_size",
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

// The config.json key that sets a TransformerSpec field in a model family ("" when none does).
std::string key_for(const std::string& type, const std::string& field) {
  static const std::map<std::string, std::map<std::string, std::string>> keys = {
      {"llama",
       {{"layers", "num_hidden_layers"},
        {"hidden", "hidden_size"},
        {"heads", "num_attention_heads"},
        {"kv_heads", "num_key_value_heads"},
        {"head_dim", "head_dim"},
        {"ffn_hidden", "intermediate_size"},
        {"vocab", "vocab_size"},
        {"max_positions", "max_position_embeddings"},
        {"sequence_length", "max_position_embeddings"},
        {"experts", "num_local_experts"},
        {"experts_per_token", "num_experts_per_tok"}}},
      {"gpt2",
       {{"layers", "n_layer"},
        {"hidden", "n_embd"},
        {"heads", "n_head"},
        {"ffn_hidden", "n_inner"},
        {"vocab", "vocab_size"},
        {"max_positions", "n_positions"},
        {"sequence_length", "n_positions"}}},
      {"gpt_neox",
       {{"layers", "num_hidden_layers"},
        {"hidden", "hidden_size"},
        {"heads", "num_attention_heads"},
        {"ffn_hidden", "intermediate_size"},
        {"vocab", "vocab_size"},
        {"max_positions", "max_position_embeddings"},
        {"sequence_length", "max_position_embeddings"}}},
      {"opt",
       {{"layers", "num_hidden_layers"},
        {"hidden", "hidden_size"},
        {"heads", "num_attention_heads"},
        {"ffn_hidden", "ffn_dim"},
        {"vocab", "vocab_size"},
        {"max_positions", "max_position_embeddings"},
        {"sequence_length", "max_position_embeddings"}}},
  };
  const std::string family = type == "mistral" || type == "mixtral" ? "llama" : type;
  const auto by_family = keys.find(family);
  if (by_family == keys.end()) return "";
  const auto key = by_family->second.find(field);
  return key == by_family->second.end() ? "" : key->second;
}

// Builds the model `spec` describes, so that what the generator refuses (a hidden size that heads do not
// divide, kv heads that do not divide heads, totals past 64 bits) is an error at the config key that set it,
// not at the scenario that names the file.
void check_buildable(const JsonObjectReader& c, const std::string& type, const TransformerSpec& spec) {
  Model model;
  try {
    model = generate_transformer(spec);
  } catch (const TransformerSpecError& e) {
    std::string key = key_for(type, e.field());
    if (e.field() == "kv_heads" && !c.has(key)) key = key_for(type, "heads");  // kv heads default to heads
    c.fail(key, e.what());
  }
  if (const std::optional<std::string_view> total = overflowing_total(model)) {
    c.fail(key_for(type, "layers"),
           "with these sizes the model's " + std::string(*total) + " overflow 64-bit integers");
  }
}

}  // namespace

TransformerSpec parse_hf_config_string(const std::string& text, const std::string& file_name,
                                       std::int64_t sequence_length) {
  const JsonDocument document(text, file_name);
  const Json& json = document.root();
  if (!json.is_object())
    throw InputError(file_name, 1, "", "expected a JSON object (a Hugging Face config.json)");
  if (!json.contains("model_type") || !json.at("model_type").is_string()) {
    throw InputError(file_name, document.line("/model_type"), "model_type",
                     "missing; expected a string such as \"llama\"");
  }
  const std::string type = json.at("model_type").get<std::string>();
  const JsonObjectReader reader(document, "", "", "; this key is required for model_type " + type);
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
  spec.name = reader.has("_name_or_path") && json.at("_name_or_path").is_string() &&
                      !json.at("_name_or_path").get<std::string>().empty()
                  ? reader.name("_name_or_path")
                  : type;
  const std::int64_t context = type == "opt" ? spec.max_positions - 2 : spec.max_positions;
  if (sequence_length > context) {
    throw InputError(file_name, reader.line(type == "gpt2" ? "n_positions" : "max_position_embeddings"),
                     "sequence_length",
                     "sequence length " + std::to_string(sequence_length) +
                         " exceeds the model's maximum of " + std::to_string(context));
  }
  spec.sequence_length = sequence_length > 0 ? sequence_length : context;
  spec.flash_attention = true;
  if (spec.positions == PositionKind::rotary) spec.max_positions = 0;
  check_buildable(reader, type, spec);
  return spec;
}

namespace {

// "org/name" (letters, digits, '.', '-', '_' on each side of one '/'): how the Hugging Face hub names a
// model.
bool looks_like_hub_id(const std::string& text) {
  const std::size_t slash = text.find('/');
  if (slash == 0 || slash == std::string::npos || slash + 1 == text.size()) return false;
  if (text.find('/', slash + 1) != std::string::npos || text.front() == '.') return false;
  if (text.size() > 5 && text.compare(text.size() - 5, 5, ".json") == 0) return false;  // a file's name
  return std::all_of(text.begin(), text.end(), [](unsigned char c) {
    return std::isalnum(c) != 0 || c == '/' || c == '.' || c == '-' || c == '_';
  });
}

}  // namespace

TransformerSpec load_hf_config_file(const std::string& path, std::int64_t sequence_length) {
  std::error_code ignored;
  if (looks_like_hub_id(path) && !std::filesystem::exists(path, ignored)) {
    throw InputError(
        path, 0, "",
        "no such file, and shardscope reads no network: a Hugging Face hub id needs its config.json "
        "downloaded first (huggingface-cli download " +
            path + " config.json), then give that file's path");
  }
  return parse_hf_config_string(read_text_file(path, "Hugging Face config.json"), path, sequence_length);
}

}  // namespace shardscope
