// Measurements JSON reading: the contract's sections, each number checked (finite, in range), unknown
// fields ignored (the producer may add some), errors with file:line: field.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "planner/core/error.hpp"
#include "planner/io/internal/json_reader.hpp"
#include "planner/io/text_file.hpp"
#include "validate/measurements/measurements.hpp"

namespace shardscope {

namespace {

// `v` (under `key`) as a finite number from `min` to `max`, else the error "expected <noun> from ...".
double in_range(const JsonObjectReader& r, const std::string& key, const nlohmann::json& v, double min,
                double max, const char* noun) {
  const double x = v.is_number() ? v.get<double>() : std::nan("");
  if (!std::isfinite(x) || x < min || x > max) {
    char range[96];
    std::snprintf(range, sizeof range, "expected %s from %g to %g, got ", noun, min, max);
    r.fail(key, range + v.dump());
  }
  return x;
}

double number_in(const JsonObjectReader& r, const std::string& key, double min, double max) {
  const nlohmann::json& v = r.value(key);
  if (!v.is_number()) r.fail(key, "expected a number");
  return in_range(r, key, v, min, max, "a number");
}

double positive(const JsonObjectReader& r, const std::string& key, double max = 1e30) {
  const double x = number_in(r, key, 0, max);
  if (x <= 0) r.fail(key, "expected a positive number");
  return x;
}

CollectiveKind collective_of(const JsonObjectReader& r) {
  const std::string op = r.choice("op", {"all_reduce", "all_gather", "reduce_scatter"});
  if (op == "all_gather") return CollectiveKind::all_gather;
  if (op == "reduce_scatter") return CollectiveKind::reduce_scatter;
  return CollectiveKind::all_reduce;
}

GroupKind group_of(const JsonObjectReader& r) {
  const std::string g = r.choice("group", {"intra", "inter", "all"});
  if (g == "intra") return GroupKind::intra;
  if (g == "inter") return GroupKind::inter;
  return GroupKind::global;
}

OperatorKind operator_kind_of(const JsonObjectReader& r) {
  const std::string name = r.choice("operator_kind", names<OperatorKind>());
  return parse_name<OperatorKind>(name).value();
}

// A list of numbers from `min` to `max` under `key` (empty when absent).
std::vector<double> numbers_in(const JsonObjectReader& r, const std::string& key, double min, double max) {
  std::vector<double> out;
  if (!r.has(key)) return out;
  const nlohmann::json& list = r.value(key);
  if (!list.is_array()) r.fail(key, "expected a list of numbers, got " + list.dump());
  for (const nlohmann::json& v : list) out.push_back(in_range(r, key, v, min, max, "numbers"));
  return out;
}

// A list of lists of numbers from `min` to `max` under `key`, as written (empty when absent); every list
// non-empty and as long as the first, each number positive.
std::vector<std::vector<double>> per_rank_times(const JsonObjectReader& r, const std::string& key) {
  std::vector<std::vector<double>> out;
  if (!r.has(key)) return out;
  const nlohmann::json& ranks = r.value(key);
  if (!ranks.is_array() || ranks.empty())
    r.fail(key, "expected a list with each rank's list of measured iteration times, got " + ranks.dump());
  for (std::size_t rank = 0; rank < ranks.size(); ++rank) {
    const nlohmann::json& list = ranks[rank];
    if (!list.is_array() || list.empty())
      r.fail(key, "expected rank " + std::to_string(rank) + "'s list of times, got " + list.dump());
    if (rank > 0 && list.size() != out.front().size()) {
      r.fail(key, "expected every rank's list as long as rank 0's (" + std::to_string(out.front().size()) +
                      " iterations), rank " + std::to_string(rank) + " has " + std::to_string(list.size()));
    }
    std::vector<double>& times = out.emplace_back();
    for (const nlohmann::json& v : list) {
      const double x = in_range(r, key, v, 0, 1e9, "times in seconds");
      if (x <= 0) r.fail(key, "expected positive times in seconds, got " + v.dump());
      times.push_back(x);
    }
  }
  return out;
}

std::vector<std::string> strings_in(const JsonObjectReader& r, const std::string& key) {
  std::vector<std::string> out;
  if (!r.has(key)) return out;
  const nlohmann::json& list = r.value(key);
  if (!list.is_array()) r.fail(key, "expected a list of strings, got " + list.dump());
  for (const nlohmann::json& v : list) {
    if (!v.is_string()) r.fail(key, "expected a list of strings, got " + v.dump());
    out.push_back(v.get<std::string>());
  }
  return out;
}

std::map<std::string, std::string> string_map(const JsonObjectReader& r, const std::string& key) {
  std::map<std::string, std::string> out;
  if (!r.has(key)) return out;
  const nlohmann::json& object = r.value(key);
  if (!object.is_object())
    r.fail(key, "expected an object of names to version strings, got " + object.dump());
  for (const auto& [name, v] : object.items()) {
    if (!v.is_string()) r.fail(key, "expected version strings, got \"" + name + "\": " + v.dump());
    out[name] = v.get<std::string>();
  }
  return out;
}

template <typename F>
void each(const JsonObjectReader& root, const std::string& key, const F& f) {
  if (!root.has(key)) return;
  const std::size_t n = root.list_size(key);
  for (std::size_t i = 0; i < n; ++i) f(root.list_object(key, i), i);
}

MeasuredTask parse_task(const JsonObjectReader& t) {
  MeasuredTask task;
  task.name = t.string("name");
  if (t.has("stream") && t.choice("stream", {"compute", "comm"}) == "comm") task.stream = Task::Stream::comm;
  task.operator_name = t.has("operator") ? t.string("operator") : "";
  task.kind =
      t.has("kind") ? t.choice("kind", {"compute", "all_gather", "reduce_scatter", "all_reduce"}) : "compute";
  task.seconds = number_in(t, "seconds", 0, 1e9);
  task.bytes = t.has("bytes") ? number_in(t, "bytes", 0, 1e18) : 0;
  return task;
}

// The lists a backend writes only when it measured them.
void parse_rank_lists(const JsonObjectReader& r, MeasuredIteration& it) {
  it.iteration_seconds_per_rank = numbers_in(r, "iteration_seconds_per_rank", 0, 1e9);
  it.peak_bytes_per_rank = numbers_in(r, "peak_bytes_per_rank", 0, 1e18);
  it.counted_peak_bytes_per_rank = numbers_in(r, "counted_peak_bytes_per_rank", 0, 1e18);
  it.reserved_peak_bytes_per_rank = numbers_in(r, "reserved_peak_bytes_per_rank", 0, 1e18);
  it.device_peak_bytes_per_rank = numbers_in(r, "device_peak_bytes_per_rank", 0, 1e18);
  it.emulated_collective_seconds_per_rank = numbers_in(r, "emulated_collective_seconds_per_rank", 0, 1e9);
  it.compute_seconds_per_rank = numbers_in(r, "compute_seconds_per_rank", 0, 1e9);
  it.page_faults_per_rank = numbers_in(r, "page_faults_per_rank", 0, 1e18);
  it.measured_seconds_per_rank = per_rank_times(r, "measured_seconds_per_rank");
}

MeasuredIteration parse_iteration(const JsonObjectReader& r, std::size_t index) {
  MeasuredIteration it;
  it.index = index;
  it.scenario = r.string("scenario");
  it.strategy = r.name("strategy");
  it.plan_digest = r.has("plan_digest") ? r.string("plan_digest") : "";
  it.micro_batch = r.integer_or("micro_batch", 1, 1, std::int64_t{1} << 30);
  it.micro_steps = static_cast<int>(r.integer_or("micro_steps", 1, 1, 1 << 30));
  it.iteration_seconds = positive(r, "iteration_seconds");
  it.peak_bytes = number_in(r, "peak_bytes", 0, 1e18);
  parse_rank_lists(r, it);
  it.same_plan_as = r.has("same_plan_as") ? r.string("same_plan_as") : "";
  each(r, "tasks", [&](const JsonObjectReader& t, std::size_t) { it.tasks.push_back(parse_task(t)); });
  it.measured_iterations = static_cast<int>(r.integer_or("measured_iterations", 0, 0, 1 << 30));
  it.planner_iteration_seconds =
      r.has("planner_iteration_seconds") ? number_in(r, "planner_iteration_seconds", 0, 1e30) : 0;
  it.planner_peak_bytes = r.has("planner_peak_bytes") ? number_in(r, "planner_peak_bytes", 0, 1e30) : 0;
  it.program_peak_bytes = r.has("program_peak_bytes") ? number_in(r, "program_peak_bytes", 0, 1e30) : 0;
  return it;
}

MachineInfo parse_machine(const JsonObjectReader& machine) {
  MachineInfo m;
  m.backend = machine.has("backend") ? machine.string("backend") : "";
  m.hostnames = strings_in(machine, "hostnames");
  m.ranks = static_cast<int>(machine.integer("ranks", 1, 1 << 20));
  m.ranks_per_node = static_cast<int>(machine.integer_or("ranks_per_node", m.ranks, 1, 1 << 20));
  m.device_name = machine.has("device_name") ? machine.string("device_name") : "";
  m.versions = string_map(machine, "versions");
  m.emulated_rank = static_cast<int>(machine.integer_or("emulated_rank", -1, -1, 1 << 20));
  if (m.backend == "cuda-emulated" && m.emulated_rank < 0)
    machine.fail("emulated_rank", "expected the emulated rank (0 or more) of a cuda-emulated run");
  if (machine.has("compute_scale")) m.compute_scale = positive(machine, "compute_scale");
  if (machine.has("memory_bytes_per_rank"))
    m.memory_bytes_per_rank = number_in(machine, "memory_bytes_per_rank", 0, 1e18);
  return m;
}

CollectiveSample parse_collective(const JsonObjectReader& r, std::size_t index, int ranks) {
  CollectiveSample s;
  s.index = index;
  s.op = collective_of(r);
  s.group = group_of(r);
  s.group_size = static_cast<int>(r.integer("group_size", 1, ranks));
  s.nodes = static_cast<int>(r.integer_or("nodes", 1, 1, 1 << 20));
  s.bytes = positive(r, "bytes");
  s.count = r.integer_or("count", 0, 0, std::int64_t{1} << 50);
  s.type = r.has("type") ? r.string("type") : "float32";
  s.time_seconds = positive(r, "time_seconds", 1e6);
  s.algbw_gbps = r.has("algbw_GBps") ? number_in(r, "algbw_GBps", 0, 1e30) : 0;
  s.busbw_gbps = r.has("busbw_GBps") ? number_in(r, "busbw_GBps", 0, 1e30) : 0;
  s.iterations = static_cast<int>(r.integer_or("iterations", 0, 0, 1 << 30));
  return s;
}

GemmSample parse_gemm(const JsonObjectReader& r, std::size_t index) {
  GemmSample g;
  g.index = index;
  g.role = r.has("role") ? r.string("role") : "";
  g.operator_kind = operator_kind_of(r);
  g.m = r.integer("m", 1, std::int64_t{1} << 40);
  g.n = r.integer("n", 1, std::int64_t{1} << 40);
  g.k = r.integer("k", 1, std::int64_t{1} << 40);
  g.batch = r.integer_or("batch", 1, 1, std::int64_t{1} << 40);
  g.dtype = r.has("dtype") ? r.string("dtype") : "float32";
  g.time_seconds = positive(r, "time_seconds", 1e6);
  g.flops = r.has("flops") ? positive(r, "flops") : gemm_flops(g.batch, g.m, g.n, g.k);
  return g;
}

BandwidthSample parse_bandwidth(const JsonObjectReader& r, bool with_kind) {
  BandwidthSample b;
  if (with_kind) b.kind = r.choice("kind", {"device_to_device", "host_to_device", "device_to_host"});
  b.bytes = positive(r, "bytes");
  b.time_seconds = positive(r, "time_seconds", 1e6);
  return b;
}

OverlapSample parse_overlap(const JsonObjectReader& r, std::size_t index) {
  OverlapSample o;
  o.index = index;
  o.collective_bytes = number_in(r, "collective_bytes", 0, 1e18);
  o.compute_alone_seconds = positive(r, "compute_alone_seconds", 1e6);
  o.comm_alone_seconds = positive(r, "comm_alone_seconds", 1e6);
  o.compute_with_comm_seconds = positive(r, "compute_with_comm_seconds", 1e6);
  o.comm_with_compute_seconds = positive(r, "comm_with_compute_seconds", 1e6);
  return o;
}

}  // namespace

Measurements parse_measurements(const std::string& text, const std::string& file) {
  const JsonDocument doc(text, file);
  const JsonObjectReader root(doc, "");
  if (root.string("format") != "shardscope-measurements") {
    root.fail("format", "expected \"shardscope-measurements\" (a measurements file of shardscope-validate)");
  }
  if (root.integer("version", 1, 1000) != 1)
    root.fail("version", "expected 1 (the version this shardscope reads)");
  Measurements m;
  m.file = file;
  m.machine = parse_machine(root.object("machine"));
  each(root, "collectives", [&](const JsonObjectReader& r, std::size_t i) {
    m.collectives.push_back(parse_collective(r, i, m.machine.ranks));
  });
  each(root, "gemms", [&](const JsonObjectReader& r, std::size_t i) { m.gemms.push_back(parse_gemm(r, i)); });
  each(root, "elementwise",
       [&](const JsonObjectReader& r, std::size_t) { m.elementwise.push_back(parse_bandwidth(r, false)); });
  each(root, "copies",
       [&](const JsonObjectReader& r, std::size_t) { m.copies.push_back(parse_bandwidth(r, true)); });
  each(root, "overlap",
       [&](const JsonObjectReader& r, std::size_t i) { m.overlap.push_back(parse_overlap(r, i)); });
  if (root.has("reserve_bytes")) m.reserve_bytes = number_in(root, "reserve_bytes", 0, 1e15);
  each(root, "iterations",
       [&](const JsonObjectReader& r, std::size_t i) { m.iterations.push_back(parse_iteration(r, i)); });
  return m;
}

Measurements load_measurements_file(const std::string& path) {
  return parse_measurements(read_text_file(path, "measurements"), path);
}

}  // namespace shardscope
