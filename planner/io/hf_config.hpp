// Hugging Face config.json import: llama, mistral, mixtral, gpt2, gpt_neox, opt -> TransformerSpec.
#pragma once

#include <string>

#include "planner/core/transformer.hpp"

namespace shardscope {

// Parses config.json text; unknown model_type or size-changing keys it does not understand ->
// InputError naming the file, line and key. `sequence_length` 0 means the config's maximum.
TransformerSpec parse_hf_config_string(const std::string& text, const std::string& file_name,
                                       std::int64_t sequence_length = 0);
TransformerSpec load_hf_config_file(const std::string& path, std::int64_t sequence_length = 0);

}  // namespace shardscope
