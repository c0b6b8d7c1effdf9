// Measurements -> JSON in the contract's key order (deterministic: the recorded files and golden outputs
// depend on these exact bytes).
#include "validate/measurements/measurements.hpp"

namespace shardscope {

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

Json task_json(const MeasuredTask& t) {
  return Json{{"name", t.name},       {"stream", t.stream == Task::Stream::compute ? "compute" : "comm"},
              {"seconds", t.seconds}, {"operator", t.operator_name},
              {"kind", t.kind},       {"bytes", t.bytes}};
}

Json iteration_json(const MeasuredIteration& r) {
  Json tasks = Json::array();
  for (const MeasuredTask& t : r.tasks) tasks.push_back(task_json(t));
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

}  // namespace

nlohmann::ordered_json measurements_to_json(const Measurements& m) {
  Json collectives = Json::array();
  for (const CollectiveSample& c : m.collectives) {
    collectives.push_back(Json{{"op", contract_name(c.op)},
                               {"group", contract_name(c.group)},
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
  for (const GemmSample& g : m.gemms) {
    gemms.push_back(Json{{"m", g.m},
                         {"n", g.n},
                         {"k", g.k},
                         {"batch", g.batch},
                         {"dtype", g.dtype},
                         {"operator_kind", to_string(g.operator_kind)},
                         {"role", g.role},
                         {"time_seconds", g.time_seconds},
                         {"flops", g.flops},
                         {"flops_per_second", per_second(g.flops, g.time_seconds)}});
  }
  Json elementwise = Json::array();
  for (const BandwidthSample& b : m.elementwise) {
    elementwise.push_back(Json{{"bytes", b.bytes},
                               {"time_seconds", b.time_seconds},
                               {"bytes_per_second", per_second(b.bytes, b.time_seconds)}});
  }
  Json copies = Json::array();
  for (const BandwidthSample& b : m.copies) {
    copies.push_back(Json{{"kind", b.kind},
                          {"bytes", b.bytes},
                          {"time_seconds", b.time_seconds},
                          {"bytes_per_second", per_second(b.bytes, b.time_seconds)}});
  }
  Json overlap = Json::array();
  for (const OverlapSample& o : m.overlap) {
    overlap.push_back(Json{{"collective_bytes", o.collective_bytes},
                           {"compute_alone_seconds", o.compute_alone_seconds},
                           {"comm_alone_seconds", o.comm_alone_seconds},
                           {"compute_with_comm_seconds", o.compute_with_comm_seconds},
                           {"comm_with_compute_seconds", o.comm_with_compute_seconds}});
  }
  Json iterations = Json::array();
  for (const MeasuredIteration& r : m.iterations) iterations.push_back(iteration_json(r));
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

}  // namespace shardscope
