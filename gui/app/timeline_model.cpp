// The simulator's result or its Trace Event JSON as per-rank, per-stream task lists and memory samples.
#include "timeline_model.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "planner/core/error.hpp"

namespace shardscope::gui {
namespace {

using Json = nlohmann::json;

[[noreturn]] void fail(const std::string& source, const std::string& field, const std::string& message) {
  throw InputError(source, 0, field, message);
}

double number_field(const Json& event, const char* key, const std::string& source, const std::string& where) {
  const auto it = event.find(key);
  if (it == event.end() || !it->is_number()) fail(source, where + "." + key, "expected a number");
  const double value = it->get<double>();
  if (!(value >= 0)) fail(source, where + "." + key, "expected a number >= 0, got " + it->dump());
  return value;
}

int integer_field(const Json& event, const char* key, const std::string& source, const std::string& where) {
  const auto it = event.find(key);
  if (it == event.end() || !it->is_number_integer() || it->get<long long>() < 0 ||
      it->get<long long>() > (1 << 30)) {
    fail(source, where + "." + key, "expected a whole number from 0 to 2^30");
  }
  return it->get<int>();
}

// The "memory (bytes)" counter's args: a number >= 0 per category named as the simulator names them.
MemoryBytes memory_args(const Json& event, const std::string& source, const std::string& where) {
  MemoryBytes bytes{};
  const auto args = event.find("args");
  if (args == event.end() || !args->is_object())
    fail(source, where + ".args", "expected an object of bytes per memory category");
  for (const auto& [key, value] : args->items()) {
    const std::optional<MemoryCategory> category = parse_name<MemoryCategory>(key);
    if (!category)
      fail(source, where + ".args." + key,
           "expected a memory category (" + join(names<MemoryCategory>()) + ")");
    if (!value.is_number() || !(value.get<double>() >= 0))
      fail(source, where + ".args." + key, "expected a number of bytes >= 0, got " + value.dump());
    bytes[index_of(*category)] = value.get<double>();
  }
  return bytes;
}

// Labels unnamed ranks, sorts each stream by start (then end) and the memory by time, and collects the
// ranks in rank order.
TimelineModel assemble(std::map<int, TimelineRank>& by_rank) {
  TimelineModel model;
  for (auto& [pid, r] : by_rank) {
    if (r.label.empty()) r.label = "GPU " + std::to_string(pid);
    for (std::vector<TimelineTask>& stream : r.streams) {
      std::stable_sort(stream.begin(), stream.end(), [](const TimelineTask& a, const TimelineTask& b) {
        return a.start_seconds != b.start_seconds ? a.start_seconds < b.start_seconds
                                                  : a.end_seconds() < b.end_seconds();
      });
      for (const TimelineTask& t : stream) model.end_seconds = std::max(model.end_seconds, t.end_seconds());
    }
    std::stable_sort(r.memory.begin(), r.memory.end(),
                     [](const TimelineMemorySample& a, const TimelineMemorySample& b) {
                       return a.time_seconds < b.time_seconds;
                     });
    model.ranks.push_back(std::move(r));
  }
  return model;
}

}  // namespace

TimelineModel timeline_from_result(const sim::IterationResult& result) {
  std::map<int, TimelineRank> by_rank;
  for (std::size_t i = 0; i < result.trace.size(); ++i) {
    const sim::TraceEvent& e = result.trace[i];
    if (e.stream < 0 || e.stream >= kTimelineStreams)
      fail("simulation result", "trace[" + std::to_string(i) + "].stream",
           "expected 0 (compute) or 1 (communication), got " + std::to_string(e.stream));
    TimelineRank& r = by_rank[e.rank];
    r.rank = e.rank;
    r.streams[e.stream].push_back({e.name, e.start_seconds, e.end_seconds - e.start_seconds});
  }
  for (const sim::MemorySample& m : result.memory) {
    TimelineRank& r = by_rank[m.rank];
    r.rank = m.rank;
    r.memory.push_back({m.time_seconds, m.bytes});
  }
  return assemble(by_rank);
}

double TimelineMemorySample::total_bytes() const {
  double total = 0;
  for (double b : bytes) total += b;
  return total;
}

std::size_t TimelineModel::task_count() const {
  std::size_t n = 0;
  for (const TimelineRank& r : ranks) n += r.task_count();
  return n;
}

const TimelineRank* TimelineModel::find_rank(int rank) const {
  for (const TimelineRank& r : ranks) {
    if (r.rank == rank) return &r;
  }
  return nullptr;
}

TimelineModel parse_trace_json(const std::string& text, const std::string& source) {
  Json root;
  try {
    root = Json::parse(text);
  } catch (const Json::parse_error& e) {
    fail(source, "", std::string("not JSON: ") + e.what());
  }
  if (!root.is_object() || !root.contains("traceEvents") || !root["traceEvents"].is_array())
    fail(source, "traceEvents", "expected an object with a \"traceEvents\" array (Trace Event JSON)");
  std::map<int, TimelineRank> by_rank;
  const Json& events = root["traceEvents"];
  for (std::size_t i = 0; i < events.size(); ++i) {
    const Json& e = events[i];
    const std::string where = "traceEvents[" + std::to_string(i) + "]";
    if (!e.is_object()) fail(source, where, "expected an event object");
    const std::string phase = e.value("ph", "");
    if (phase == "M" && e.value("name", "") == "process_name") {
      const int pid = integer_field(e, "pid", source, where);
      TimelineRank& r = by_rank[pid];
      r.rank = pid;
      if (e.contains("args") && e["args"].is_object() && e["args"].contains("name") &&
          e["args"]["name"].is_string())
        r.label = e["args"]["name"].get<std::string>();
    }
    if (phase == "C" && e.value("name", "") == "memory (bytes)") {
      const int pid = integer_field(e, "pid", source, where);
      TimelineMemorySample sample;
      sample.time_seconds = number_field(e, "ts", source, where) * 1e-6;
      sample.bytes = memory_args(e, source, where);
      TimelineRank& r = by_rank[pid];
      r.rank = pid;
      r.memory.push_back(sample);
      continue;
    }
    if (phase != "X") continue;
    const int pid = integer_field(e, "pid", source, where);
    const int tid = integer_field(e, "tid", source, where);
    if (tid >= kTimelineStreams)
      fail(source, where + ".tid", "expected 0 (compute) or 1 (communication), got " + std::to_string(tid));
    TimelineTask task;
    if (!e.contains("name") || !e["name"].is_string()) fail(source, where + ".name", "expected a string");
    task.name = e["name"].get<std::string>();
    task.start_seconds = number_field(e, "ts", source, where) * 1e-6;
    task.duration_seconds = number_field(e, "dur", source, where) * 1e-6;
    TimelineRank& r = by_rank[pid];
    r.rank = pid;
    r.streams[tid].push_back(std::move(task));
  }
  return assemble(by_rank);
}

TimelineModel load_trace_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) fail(path, "", "is a folder; expected a simulator trace file");
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "", std::string("cannot be read: ") + std::strerror(errno != 0 ? errno : ENOENT));
  std::ostringstream text;
  text << in.rdbuf();
  return parse_trace_json(text.str(), path);
}

}  // namespace shardscope::gui
