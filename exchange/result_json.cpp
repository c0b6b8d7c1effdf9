// Full IterationResult JSON: a fixed-order writer and a strict reader that names the bad field.
#include "exchange/result_json.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <sstream>

#include "planner/core/error.hpp"

namespace shardscope::sim {
namespace {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

constexpr const char* kFormat = "shardscope-iteration-result";
constexpr int kVersion = 2;  // 2: gpus[].allocated_peak_memory_bytes

OrderedJson number_json(double value) {
  if (std::isfinite(value)) return value;
  if (std::isnan(value)) return "nan";
  return value > 0 ? "inf" : "-inf";
}

OrderedJson memory_json(const MemoryBytes& bytes) {
  OrderedJson out = OrderedJson::object();
  for (std::size_t c = 0; c < kMemoryCategories; ++c) {
    out[to_string(static_cast<MemoryCategory>(c))] = number_json(bytes[c]);
  }
  return out;
}

std::string join(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

std::string index(const std::string& path, std::size_t i) { return path + "[" + std::to_string(i) + "]"; }

// Typed access to a parsed document; every failure is an InputError naming the field's path.
class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const std::string& field, const std::string& message) const {
    throw InputError(file_, 0, field, message);
  }

  // Checks that `value` is an object with exactly `keys`.
  const Json& object(const Json& value, const std::string& path,
                     std::initializer_list<const char*> keys) const {
    if (!value.is_object()) fail(path, "expected an object, got " + std::string(value.type_name()));
    for (const char* key : keys) {
      if (!value.contains(key)) fail(join(path, key), "missing");
    }
    for (auto it = value.begin(); it != value.end(); ++it) {
      const std::string& key = it.key();  // a plain name: clang 14 cannot capture a structured binding
      if (std::find_if(keys.begin(), keys.end(), [&](const char* k) { return key == k; }) == keys.end()) {
        fail(join(path, key), "unexpected key");
      }
    }
    return value;
  }

  const Json& array(const Json& value, const std::string& path) const {
    if (!value.is_array()) fail(path, "expected an array, got " + std::string(value.type_name()));
    return value;
  }

  double number(const Json& value, const std::string& path) const {
    if (value.is_number()) return value.get<double>();
    if (value.is_string()) {
      const std::string s = value.get<std::string>();
      if (s == "inf") return std::numeric_limits<double>::infinity();
      if (s == "-inf") return -std::numeric_limits<double>::infinity();
      if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
    }
    fail(path, "expected a number (or \"inf\", \"-inf\", \"nan\"), got " + value.dump());
  }

  std::int64_t integer(const Json& value, const std::string& path, std::int64_t low,
                       std::int64_t high) const {
    const bool fits =
        value.is_number_integer() &&
        (!value.is_number_unsigned() ||
         value.get<std::uint64_t>() <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()));
    if (fits) {
      const auto v = value.get<std::int64_t>();
      if (v >= low && v <= high) return v;
    }
    fail(path, "expected an integer from " + std::to_string(low) + " to " + std::to_string(high) + ", got " +
                   value.dump());
  }

  int small_integer(const Json& value, const std::string& path, int low, int high) const {
    return static_cast<int>(integer(value, path, low, high));
  }

  std::string string(const Json& value, const std::string& path) const {
    if (!value.is_string()) fail(path, "expected a string, got " + value.dump());
    return value.get<std::string>();
  }

  MemoryBytes memory(const Json& value, const std::string& path) const {
    if (!value.is_object()) fail(path, "expected an object of bytes per memory category");
    MemoryBytes bytes{};
    for (std::size_t c = 0; c < kMemoryCategories; ++c) {
      const char* name = to_string(static_cast<MemoryCategory>(c));
      if (!value.contains(name)) fail(join(path, name), "missing");
      bytes[c] = number(value.at(name), join(path, name));
    }
    if (value.size() != kMemoryCategories) {
      for (const auto& [key, item] : value.items()) {
        bool known = false;
        for (std::size_t c = 0; c < kMemoryCategories; ++c)
          known = known || key == to_string(static_cast<MemoryCategory>(c));
        if (!known) fail(join(path, key), "unknown memory category");
      }
    }
    return bytes;
  }

 private:
  std::string file_;
};

constexpr int kMaxInt = std::numeric_limits<int>::max();

GpuResult gpu_from(const Reader& in, const Json& value, const std::string& path) {
  in.object(value, path,
            {"rank", "peak_memory_bytes", "allocated_peak_memory_bytes", "compute_seconds",
             "exposed_comm_seconds"});
  return {in.small_integer(value.at("rank"), join(path, "rank"), 0, kMaxInt),
          in.number(value.at("peak_memory_bytes"), join(path, "peak_memory_bytes")),
          in.number(value.at("allocated_peak_memory_bytes"), join(path, "allocated_peak_memory_bytes")),
          in.number(value.at("compute_seconds"), join(path, "compute_seconds")),
          in.number(value.at("exposed_comm_seconds"), join(path, "exposed_comm_seconds"))};
}

TraceEvent trace_from(const Reader& in, const Json& value, const std::string& path) {
  const bool comm = value.is_object() && value.contains("collective");
  if (comm) {
    in.object(value, path,
              {"rank", "stream", "name", "start_seconds", "end_seconds", "collective", "group", "bytes",
               "algorithm", "channels"});
  } else {
    in.object(value, path, {"rank", "stream", "name", "start_seconds", "end_seconds"});
  }
  TraceEvent e;
  e.rank = in.small_integer(value.at("rank"), join(path, "rank"), 0, kMaxInt);
  e.stream = in.small_integer(value.at("stream"), join(path, "stream"), 0, 1);
  e.name = in.string(value.at("name"), join(path, "name"));
  e.start_seconds = in.number(value.at("start_seconds"), join(path, "start_seconds"));
  e.end_seconds = in.number(value.at("end_seconds"), join(path, "end_seconds"));
  if (comm) {
    e.collective = in.string(value.at("collective"), join(path, "collective"));
    e.group = in.string(value.at("group"), join(path, "group"));
    e.bytes = in.number(value.at("bytes"), join(path, "bytes"));
    e.algorithm = in.string(value.at("algorithm"), join(path, "algorithm"));
    e.channels = in.small_integer(value.at("channels"), join(path, "channels"), 0, kMaxInt);
  }
  return e;
}

MemorySample memory_from(const Reader& in, const Json& value, const std::string& path) {
  in.object(value, path, {"rank", "time_seconds", "bytes"});
  return {in.small_integer(value.at("rank"), join(path, "rank"), 0, kMaxInt),
          in.number(value.at("time_seconds"), join(path, "time_seconds")),
          in.memory(value.at("bytes"), join(path, "bytes"))};
}

LinkUsage link_from(const Reader& in, const Json& value, const std::string& path) {
  in.object(value, path, {"link", "direction", "bytes_per_second", "bytes", "utilisation"});
  LinkUsage u;
  u.link = in.string(value.at("link"), join(path, "link"));
  u.direction = in.string(value.at("direction"), join(path, "direction"));
  if (u.direction != "up" && u.direction != "down") {
    in.fail(join(path, "direction"), "expected \"up\" or \"down\", got \"" + u.direction + "\"");
  }
  u.bytes_per_second = in.number(value.at("bytes_per_second"), join(path, "bytes_per_second"));
  u.bytes = in.number(value.at("bytes"), join(path, "bytes"));
  u.utilisation = in.number(value.at("utilisation"), join(path, "utilisation"));
  return u;
}

template <typename T, typename ReadOne>
std::vector<T> list_from(const Reader& in, const Json& value, const std::string& path, ReadOne read_one) {
  std::vector<T> out;
  const Json& items = in.array(value, path);
  out.reserve(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) out.push_back(read_one(in, items[i], index(path, i)));
  return out;
}

}  // namespace

nlohmann::ordered_json result_to_json(const IterationResult& result) {
  OrderedJson out;
  out["format"] = kFormat;
  out["version"] = kVersion;
  out["iteration_seconds"] = number_json(result.iteration_seconds);
  out["samples_per_second"] = number_json(result.samples_per_second);
  out["tokens_per_second"] = number_json(result.tokens_per_second);
  out["activities"] = result.activities;
  out["steady_state_micro_steps"] = result.steady_state_micro_steps;
  out["gpus"] = OrderedJson::array();
  for (const GpuResult& g : result.gpus) {
    out["gpus"].push_back({{"rank", g.rank},
                           {"peak_memory_bytes", number_json(g.peak_memory_bytes)},
                           {"allocated_peak_memory_bytes", number_json(g.allocated_peak_memory_bytes)},
                           {"compute_seconds", number_json(g.compute_seconds)},
                           {"exposed_comm_seconds", number_json(g.exposed_comm_seconds)}});
  }
  out["trace"] = OrderedJson::array();
  for (const TraceEvent& e : result.trace) {
    OrderedJson event = {{"rank", e.rank},
                         {"stream", e.stream},
                         {"name", e.name},
                         {"start_seconds", number_json(e.start_seconds)},
                         {"end_seconds", number_json(e.end_seconds)}};
    if (!e.collective.empty()) {  // a communication event
      event["collective"] = e.collective;
      event["group"] = e.group;
      event["bytes"] = number_json(e.bytes);
      event["algorithm"] = e.algorithm;
      event["channels"] = e.channels;
    }
    out["trace"].push_back(std::move(event));
  }
  out["memory"] = OrderedJson::array();
  for (const MemorySample& m : result.memory) {
    out["memory"].push_back(
        {{"rank", m.rank}, {"time_seconds", number_json(m.time_seconds)}, {"bytes", memory_json(m.bytes)}});
  }
  out["links"] = OrderedJson::array();
  for (const LinkUsage& u : result.links) {
    out["links"].push_back({{"link", u.link},
                            {"direction", u.direction},
                            {"bytes_per_second", number_json(u.bytes_per_second)},
                            {"bytes", number_json(u.bytes)},
                            {"utilisation", number_json(u.utilisation)}});
  }
  return out;
}

IterationResult result_from_json(const nlohmann::json& json, const std::string& file) {
  const Reader in(file);
  in.object(json, "",
            {"format", "version", "iteration_seconds", "samples_per_second", "tokens_per_second",
             "activities", "steady_state_micro_steps", "gpus", "trace", "memory", "links"});
  if (in.string(json.at("format"), "format") != kFormat) {
    in.fail("format", "expected \"" + std::string(kFormat) + "\", got " + json.at("format").dump());
  }
  in.integer(json.at("version"), "version", kVersion, kVersion);
  IterationResult result;
  result.iteration_seconds = in.number(json.at("iteration_seconds"), "iteration_seconds");
  result.samples_per_second = in.number(json.at("samples_per_second"), "samples_per_second");
  result.tokens_per_second = in.number(json.at("tokens_per_second"), "tokens_per_second");
  result.activities =
      in.integer(json.at("activities"), "activities", 0, std::numeric_limits<std::int64_t>::max());
  result.steady_state_micro_steps = static_cast<int>(in.integer(
      json.at("steady_state_micro_steps"), "steady_state_micro_steps", 0, std::numeric_limits<int>::max()));
  result.gpus = list_from<GpuResult>(in, json.at("gpus"), "gpus", gpu_from);
  result.trace = list_from<TraceEvent>(in, json.at("trace"), "trace", trace_from);
  result.memory = list_from<MemorySample>(in, json.at("memory"), "memory", memory_from);
  result.links = list_from<LinkUsage>(in, json.at("links"), "links", link_from);
  return result;
}

IterationResult result_from_json_string(const std::string& text, const std::string& file) {
  Json json;
  try {
    json = Json::parse(text);
  } catch (const Json::parse_error& e) {
    const std::size_t end = std::min(text.size(), e.byte > 0 ? static_cast<std::size_t>(e.byte - 1) : 0);
    const int line =
        1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(end), '\n'));
    std::string message = e.what();
    const std::size_t bracket = message.find("] ");
    if (message.rfind("[json.exception", 0) == 0 && bracket != std::string::npos)
      message.erase(0, bracket + 2);
    throw InputError(file, line, "", "malformed JSON: " + message);
  }
  return result_from_json(json, file);
}

IterationResult load_result_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path, 0, "", "cannot read the file");
  std::stringstream text;
  text << in.rdbuf();
  return result_from_json_string(text.str(), path);
}

void write_result_json(std::ostream& out, const IterationResult& result) {
  out << result_to_json(result).dump() << "\n";
}

}  // namespace shardscope::sim
