// Measurements -> JSON in the contract's key order (deterministic), and the parts describe reads back.
#include "validate/core/measurements.hpp"

#include <stdexcept>

#include "validate/core/bus_bandwidth.hpp"

namespace shardscope::validate {

namespace {

using Json = nlohmann::ordered_json;

double per_second(double amount, double seconds) { return seconds > 0 ? amount / seconds : 0; }

Json machine_json(const MachineInfo& m) {
  Json versions = Json::object();
  for (const auto& [name, version] : m.versions) versions[name] = version;
  Json json{{"backend", m.backend},
            {"hostnames", m.hostnames},
            {"ranks", m.ranks},
            {"ranks_per_node", m.ranks_per_node},
            {"device_name", m.device_name},
            {"versions", versions},
            {"compute_scale", m.compute_scale},
            {"memory_bytes_per_rank", m.memory_bytes_per_rank}};
  if (m.emulated_rank >= 0) json["emulated_rank"] = m.emulated_rank;
  return json;
}

Json task_json(const TaskTiming& t) {
  return Json{{"name", t.name},       {"stream", t.stream == Task::Stream::compute ? "compute" : "comm"},
              {"seconds", t.seconds}, {"operator", t.operator_name},
              {"kind", t.kind},       {"bytes", t.bytes}};
}

Json iteration_json(const IterationResult& r) {
  Json tasks = Json::array();
  for (const TaskTiming& t : r.tasks) tasks.push_back(task_json(t));
  Json json{{"scenario", r.scenario},
            {"strategy", r.strategy},
            {"plan_digest", r.plan_digest},
            {"micro_batch", r.micro_batch},
            {"micro_steps", r.micro_steps},
            {"iteration_seconds", r.iteration_seconds},
            {"iteration_seconds_per_rank", r.iteration_seconds_per_rank},
            {"peak_bytes", r.peak_bytes},
            {"peak_bytes_per_rank", r.peak_bytes_per_rank}};
  const std::pair<const char*, const std::vector<double>*> optional_lists[] = {
      {"counted_peak_bytes_per_rank", &r.counted_peak_bytes_per_rank},
      {"reserved_peak_bytes_per_rank", &r.reserved_peak_bytes_per_rank},
      {"device_peak_bytes_per_rank", &r.device_peak_bytes_per_rank},
      {"emulated_collective_seconds_per_rank", &r.emulated_collective_seconds_per_rank},
      {"compute_seconds_per_rank", &r.compute_seconds_per_rank},
      {"page_faults_per_rank", &r.page_faults_per_rank}};
  for (const auto& [key, values] : optional_lists) {
    if (!values->empty()) json[key] = *values;
  }
  if (!r.same_plan_as.empty()) json["same_plan_as"] = r.same_plan_as;
  if (!r.measured_seconds_per_rank.empty()) json["measured_seconds_per_rank"] = r.measured_seconds_per_rank;
  json["tasks"] = tasks;
  json["measured_iterations"] = r.measured_iterations;
  json["planner_iteration_seconds"] = r.planner_iteration_seconds;
  json["planner_peak_bytes"] = r.planner_peak_bytes;
  json["program_peak_bytes"] = r.program_peak_bytes;
  return json;
}

template <typename T>
T field(const nlohmann::json& object, const char* key, const std::string& where) {
  if (!object.is_object() || !object.contains(key)) {
    throw std::invalid_argument(where + "." + key + ": missing");
  }
  try {
    return object.at(key).get<T>();
  } catch (const nlohmann::json::exception&) {
    throw std::invalid_argument(where + "." + key + ": wrong type");
  }
}

const nlohmann::json& list(const nlohmann::json& json, const char* key) {
  static const nlohmann::json empty = nlohmann::json::array();
  if (!json.contains(key)) return empty;
  if (!json.at(key).is_array()) throw std::invalid_argument(std::string(key) + ": expected a list");
  return json.at(key);
}

}  // namespace

nlohmann::ordered_json measurements_to_json(const Measurements& m) {
  Json collectives = Json::array();
  for (const CollectiveResult& c : m.collectives) {
    collectives.push_back(Json{{"op", c.op},
                               {"group", c.group},
                               {"group_size", c.group_size},
                               {"nodes", c.nodes},
                               {"bytes", c.bytes},
                               {"count", c.count},
                               {"type", c.type},
                               {"time_seconds", c.time_seconds},
                               {"algbw_GBps", c.algbw_gbps},
                               {"busbw_GBps", c.busbw_gbps},
                               {"iterations", c.iterations}});
  }
  Json gemms = Json::array();
  for (const GemmResult& g : m.gemms) {
    gemms.push_back(Json{{"m", g.gemm.m},
                         {"n", g.gemm.n},
                         {"k", g.gemm.k},
                         {"batch", g.gemm.batch},
                         {"dtype", g.dtype},
                         {"operator_kind", g.gemm.operator_kind},
                         {"role", g.gemm.role},
                         {"time_seconds", g.time_seconds},
                         {"flops", g.gemm.flops()},
                         {"flops_per_second", per_second(g.gemm.flops(), g.time_seconds)}});
  }
  Json elementwise = Json::array();
  for (const BandwidthResult& b : m.elementwise) {
    elementwise.push_back(Json{{"bytes", b.bytes},
                               {"time_seconds", b.time_seconds},
                               {"bytes_per_second", per_second(b.bytes, b.time_seconds)}});
  }
  Json copies = Json::array();
  for (const BandwidthResult& b : m.copies) {
    copies.push_back(Json{{"kind", b.kind},
                          {"bytes", b.bytes},
                          {"time_seconds", b.time_seconds},
                          {"bytes_per_second", per_second(b.bytes, b.time_seconds)}});
  }
  Json overlap = Json::array();
  for (const OverlapResult& o : m.overlap) {
    overlap.push_back(Json{{"collective_bytes", o.collective_bytes},
                           {"compute_alone_seconds", o.compute_alone_seconds},
                           {"comm_alone_seconds", o.comm_alone_seconds},
                           {"compute_with_comm_seconds", o.compute_with_comm_seconds},
                           {"comm_with_compute_seconds", o.comm_with_compute_seconds}});
  }
  Json iterations = Json::array();
  for (const IterationResult& r : m.iterations) iterations.push_back(iteration_json(r));
  return Json{{"format", "shardscope-measurements"},
              {"version", 1},
              {"machine", machine_json(m.machine)},
              {"collectives", collectives},
              {"gemms", gemms},
              {"elementwise", elementwise},
              {"copies", copies},
              {"overlap", overlap},
              {"reserve_bytes", m.reserve_bytes ? Json(*m.reserve_bytes) : Json(nullptr)},
              {"iterations", iterations}};
}

Measurements measurements_from_json(const nlohmann::json& json) {
  if (field<std::string>(json, "format", "measurements") != "shardscope-measurements") {
    throw std::invalid_argument("measurements.format: expected \"shardscope-measurements\"");
  }
  Measurements m;
  const nlohmann::json& machine = json.contains("machine") ? json.at("machine") : nlohmann::json();
  m.machine.backend = field<std::string>(machine, "backend", "machine");
  m.machine.hostnames = field<std::vector<std::string>>(machine, "hostnames", "machine");
  m.machine.ranks = field<int>(machine, "ranks", "machine");
  m.machine.ranks_per_node = field<int>(machine, "ranks_per_node", "machine");
  m.machine.device_name = field<std::string>(machine, "device_name", "machine");
  m.machine.compute_scale = field<double>(machine, "compute_scale", "machine");
  if (machine.contains("memory_bytes_per_rank")) {
    m.machine.memory_bytes_per_rank = field<double>(machine, "memory_bytes_per_rank", "machine");
  }
  for (const nlohmann::json& c : list(json, "collectives")) {
    CollectiveResult r;
    r.op = field<std::string>(c, "op", "collectives[]");
    r.group = field<std::string>(c, "group", "collectives[]");
    r.group_size = field<int>(c, "group_size", "collectives[]");
    r.bytes = field<double>(c, "bytes", "collectives[]");
    r.time_seconds = field<double>(c, "time_seconds", "collectives[]");
    r.busbw_gbps = field<double>(c, "busbw_GBps", "collectives[]");
    m.collectives.push_back(r);
  }
  for (const nlohmann::json& g : list(json, "gemms")) {
    GemmResult r;
    r.gemm.m = field<std::int64_t>(g, "m", "gemms[]");
    r.gemm.n = field<std::int64_t>(g, "n", "gemms[]");
    r.gemm.k = field<std::int64_t>(g, "k", "gemms[]");
    r.gemm.batch = field<std::int64_t>(g, "batch", "gemms[]");
    r.time_seconds = field<double>(g, "time_seconds", "gemms[]");
    m.gemms.push_back(r);
  }
  for (const nlohmann::json& e : list(json, "elementwise")) {
    m.elementwise.push_back(
        {"", field<double>(e, "bytes", "elementwise[]"), field<double>(e, "time_seconds", "elementwise[]")});
  }
  return m;
}

}  // namespace shardscope::validate
