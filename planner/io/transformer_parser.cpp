// Parsing of transformer specs (inline or preset files) with stage lists for inconsistent-width models.
#include "planner/io/transformer_parser.hpp"

#include "planner/core/error.hpp"
#include "planner/io/internal/transformer_yaml.hpp"
#include "planner/io/preset_catalog.hpp"

namespace shardscope {

TransformerSpec parse_transformer_spec(const YamlMap& map) {
  map.reject_unknown({"layers",
                      "hidden",
                      "layer_hidden",
                      "stages",
                      "heads",
                      "kv_heads",
                      "head_dim",
                      "ffn_hidden",
                      "vocab",
                      "sequence_length",
                      "max_positions",
                      "mlp",
                      "norm",
                      "positions",
                      "attention_bias",
                      "mlp_bias",
                      "tied_embeddings",
                      "parallel_residual",
                      "experts",
                      "experts_per_token",
                      "flash_attention",
                      "dropout",
                      "dtype"});
  TransformerSpec spec;
  const int given =
      (map.has("hidden") ? 1 : 0) + (map.has("layer_hidden") ? 1 : 0) + (map.has("stages") ? 1 : 0);
  if (given != 1) map.fail("hidden", "give exactly one of hidden, layer_hidden or stages");
  if (map.has("stages")) {
    const YAML::Node stages = map.raw("stages");
    if (!stages.IsSequence() || stages.size() == 0)
      map.fail("stages", "expected a non-empty list of {layers, hidden}");
    for (std::size_t i = 0; i < stages.size(); ++i) {
      const YamlMap stage(stages[i], map.file(), map.field("stages") + "[" + std::to_string(i) + "]",
                          map.line("stages"));
      stage.reject_unknown({"layers", "hidden"});
      const std::int64_t layers = stage.integer("layers", 1, 100000);
      const std::int64_t hidden = stage.integer("hidden", 1, 1048576);
      if (spec.layer_hidden.size() + static_cast<std::size_t>(layers) > 100000) {
        stage.fail("layers", "the stages add up to more than 100000 layers");
      }
      spec.layer_hidden.insert(spec.layer_hidden.end(), static_cast<std::size_t>(layers), hidden);
    }
    spec.layers = static_cast<int>(spec.layer_hidden.size());
    if (map.has("layers") && map.integer("layers", 1, 100000) != spec.layers) {
      map.fail("layers",
               "does not match the sum of the stages' layers (" + std::to_string(spec.layers) + ")");
    }
    spec.hidden = spec.layer_hidden.front();
  } else if (map.has("layer_hidden")) {
    spec.layer_hidden = map.integer_list("layer_hidden", 1, 1048576);
    spec.layers = static_cast<int>(
        map.integer_or("layers", static_cast<std::int64_t>(spec.layer_hidden.size()), 1, 100000));
    if (static_cast<std::size_t>(spec.layers) != spec.layer_hidden.size()) {
      map.fail("layer_hidden", "lists " + std::to_string(spec.layer_hidden.size()) + " sizes but layers is " +
                                   std::to_string(spec.layers));
    }
    spec.hidden = spec.layer_hidden.front();
  } else {
    spec.layers = static_cast<int>(map.integer("layers", 1, 100000));
    spec.hidden = map.integer("hidden", 1, 1048576);
  }
  spec.heads = static_cast<int>(map.integer("heads", 1, 100000));
  spec.kv_heads = static_cast<int>(map.integer_or("kv_heads", 0, 0, 100000));
  spec.head_dim = map.integer_or("head_dim", 0, 0, 65536);
  spec.ffn_hidden = map.integer_or("ffn_hidden", 0, 0, 16777216);
  spec.vocab = map.integer("vocab", 1, 100000000);
  spec.sequence_length = map.integer("sequence_length", 1, 10000000);
  spec.max_positions = map.integer_or("max_positions", 0, 0, 100000000);
  spec.mlp = map.choice_or("mlp", MlpKind::gelu);
  spec.norm = map.choice_or("norm", NormKind::layernorm);
  spec.positions = map.choice_or("positions", PositionKind::learned);
  spec.attention_bias = map.boolean_or("attention_bias", true);
  spec.mlp_bias = map.boolean_or("mlp_bias", true);
  spec.tied_embeddings = map.boolean_or("tied_embeddings", true);
  spec.parallel_residual = map.boolean_or("parallel_residual", false);
  spec.experts = static_cast<int>(map.integer_or("experts", 0, 0, 4096));
  spec.experts_per_token = static_cast<int>(map.integer_or("experts_per_token", 0, 0, 4096));
  spec.flash_attention = map.boolean_or("flash_attention", true);
  spec.dropout = map.boolean_or("dropout", false);
  spec.parameter_dtype = map.choice_or("dtype", DType::bf16);
  return spec;
}

TransformerSpec model_preset(const std::string& name, const std::string& file, int line,
                             const std::string& field) {
  const EmbeddedFile& preset = model_presets().get(name, file, line, field);
  const std::string preset_file = model_presets().path_of(preset);
  const YamlMap root(parse_checked_yaml_mapping(std::string(preset.text), preset_file), preset_file, "");
  root.reject_unknown({"name", "source", "transformer"});
  TransformerSpec spec = parse_transformer_spec(root.map("transformer"));
  spec.name = name;
  return spec;
}

}  // namespace shardscope
