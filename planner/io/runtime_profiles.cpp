// Runtime profiles from their embedded files: host costs per operator pass and the memory reserve.
#include "planner/io/runtime_profiles.hpp"

#include "planner/io/internal/yaml_reader.hpp"
#include "planner/io/preset_catalog.hpp"

namespace shardscope {

namespace {

YamlMap profile_map(RuntimeName name) {
  const std::string key(to_string(name));
  const EmbeddedFile& file = runtime_presets().get(key, "<runtime profiles>", 0, "execution.runtime");
  const std::string path = runtime_presets().path_of(file);
  const YamlMap map(parse_yaml_mapping(std::string(file.text), path), path, "");
  map.reject_unknown({"name", "description", "source", "host_forward_per_operator",
                      "host_backward_per_operator", "reserve", "recompute_gathers_again",
                      "compiled_elementwise_share"});
  if (map.string("name") != key) map.fail("name", "expected '" + key + "', the file's own name");
  return map;
}

}  // namespace

RuntimeProfile runtime_profile(RuntimeName name) {
  const YamlMap map = profile_map(name);
  RuntimeProfile p;
  p.name = name;
  p.host_forward_seconds = map.duration("host_forward_per_operator");
  p.host_backward_seconds = map.duration("host_backward_per_operator");
  p.reserve_bytes = static_cast<double>(map.bytes("reserve", 0, std::int64_t{1} << 40));
  p.recompute_gathers_again = map.boolean_or("recompute_gathers_again", true);
  p.compiled_elementwise_share = map.number_or("compiled_elementwise_share", 0.0, 1e-3, 1.0);
  return p;
}

std::string runtime_profile_source(RuntimeName name) { return profile_map(name).string("source"); }

}  // namespace shardscope
