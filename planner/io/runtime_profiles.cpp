// Runtime profiles from their embedded files: host costs per operator pass and the memory reserve.
#include "planner/io/runtime_profiles.hpp"

#include <algorithm>

#include "planner/io/internal/pair_spread.hpp"
#include "planner/io/internal/yaml_reader.hpp"
#include "planner/io/preset_catalog.hpp"

namespace shardscope {

namespace {

YamlMap profile_map(const std::string& text, const std::string& path, RuntimeName name) {
  const std::string key(to_string(name));
  const YamlMap map(parse_yaml_mapping(text, path), path, "");
  map.reject_unknown({"name", "description", "source", "host_forward_per_operator",
                      "host_backward_per_operator", "reserve", "recompute_gathers_again",
                      "sequence_parallel_keeps_gathered_inputs", "pipeline_shards_optimizer_only",
                      "pipeline_sends_block", "pipeline_keeps_receive_buffers", "compiled_elementwise_share",
                      "published_errors"});
  if (map.string("name") != key) map.fail("name", "expected '" + key + "', the file's own name");
  return map;
}

YamlMap profile_map(RuntimeName name) {
  const EmbeddedFile& file =
      runtime_presets().get(std::string(to_string(name)), "<runtime profiles>", 0, "execution.runtime");
  return profile_map(std::string(file.text), runtime_presets().path_of(file), name);
}

// `published_errors`: one entry per GPU name.
std::vector<PublishedError> published_errors(const YamlMap& profile) {
  std::vector<PublishedError> out;
  if (!profile.has("published_errors")) return out;
  const YamlMap gpus = profile.map("published_errors");
  for (const auto& entry : profile.raw("published_errors")) {
    const std::string gpu = entry.first.as<std::string>();
    const YamlMap m = gpus.map(gpu);
    m.reject_unknown({"rows", "mape", "bias", "worst", "min_parameters", "max_parameters", "min_gpus",
                      "max_gpus", "pairs", "pair_sd", "memory_rows", "memory_mape"});
    PublishedError e;
    e.gpu = gpu;
    e.rows = static_cast<int>(m.integer("rows", 1, 100000));
    e.mape = m.number("mape", 0, 10);
    e.bias = m.number("bias", -10, 10);
    e.worst = m.number("worst", 0, 10);
    e.min_parameters = m.number("min_parameters", 1, 1e15);
    e.max_parameters = m.number("max_parameters", e.min_parameters, 1e15);
    e.min_gpus = static_cast<int>(m.integer("min_gpus", 1, 1 << 20));
    e.max_gpus = static_cast<int>(m.integer("max_gpus", e.min_gpus, 1 << 20));
    read_pair_spread(m, e.pairs, e.pair_sd);
    if (m.has("memory_rows") || m.has("memory_mape")) {
      e.memory_rows = static_cast<int>(m.integer("memory_rows", 1, e.rows));
      e.memory_mape = m.number("memory_mape", 0, 10);
    }
    out.push_back(e);
  }
  std::sort(out.begin(), out.end(),
            [](const PublishedError& a, const PublishedError& b) { return a.gpu < b.gpu; });
  return out;
}

}  // namespace

RuntimeProfile parse_runtime_profile(const std::string& text, const std::string& file, RuntimeName name) {
  const YamlMap map = profile_map(text, file, name);
  RuntimeProfile p;
  p.name = name;
  p.host_forward_seconds = map.duration("host_forward_per_operator");
  p.host_backward_seconds = map.duration("host_backward_per_operator");
  p.reserve_bytes = static_cast<double>(map.bytes("reserve", 0, std::int64_t{1} << 40));
  p.recompute_gathers_again = map.boolean_or("recompute_gathers_again", true);
  p.sequence_parallel_keeps_gathered_inputs =
      map.boolean_or("sequence_parallel_keeps_gathered_inputs", false);
  p.pipeline_shards_optimizer_only = map.boolean_or("pipeline_shards_optimizer_only", false);
  p.pipeline_sends_block = map.boolean_or("pipeline_sends_block", false);
  p.pipeline_keeps_receive_buffers = map.boolean_or("pipeline_keeps_receive_buffers", false);
  p.compiled_elementwise_share = map.number_or("compiled_elementwise_share", 0.0, 1e-3, 1.0);
  p.published_errors = published_errors(map);
  return p;
}

RuntimeProfile runtime_profile(RuntimeName name) {
  const EmbeddedFile& file =
      runtime_presets().get(std::string(to_string(name)), "<runtime profiles>", 0, "execution.runtime");
  return parse_runtime_profile(std::string(file.text), runtime_presets().path_of(file), name);
}

std::string runtime_profile_source(RuntimeName name) { return profile_map(name).string("source"); }

}  // namespace shardscope
