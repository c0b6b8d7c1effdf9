// Trace Event JSON and link CSV writers for simulated iterations.
#include "exchange/result_export.hpp"

#include <iomanip>
#include <set>
#include <string>

namespace shardscope::sim {

nlohmann::ordered_json trace_event_json(const IterationResult& result) {
  using Json = nlohmann::ordered_json;
  Json events = Json::array();
  std::set<int> ranks;
  for (const TraceEvent& e : result.trace) ranks.insert(e.rank);
  for (int rank : ranks) {
    events.push_back({{"name", "process_name"},
                      {"ph", "M"},
                      {"pid", rank},
                      {"args", {{"name", "GPU " + std::to_string(rank)}}}});
    events.push_back(
        {{"name", "thread_name"}, {"ph", "M"}, {"pid", rank}, {"tid", 0}, {"args", {{"name", "compute"}}}});
    events.push_back({{"name", "thread_name"},
                      {"ph", "M"},
                      {"pid", rank},
                      {"tid", 1},
                      {"args", {{"name", "communication"}}}});
  }
  for (const TraceEvent& e : result.trace) {
    Json event = {{"name", e.name},
                  {"cat", e.stream == 0 ? "compute" : "comm"},
                  {"ph", "X"},
                  {"ts", e.start_seconds * 1e6},
                  {"dur", (e.end_seconds - e.start_seconds) * 1e6},
                  {"pid", e.rank},
                  {"tid", e.stream}};
    if (!e.collective.empty()) {
      event["args"] = {{"collective", e.collective},
                       {"group", e.group},
                       {"bytes", e.bytes},
                       {"algorithm", e.algorithm},
                       {"channels", e.channels}};
    }
    events.push_back(std::move(event));
  }
  for (const MemorySample& m : result.memory) {
    Json args;
    for (std::size_t c = 0; c < kMemoryCategories; ++c) {
      args[to_string(static_cast<MemoryCategory>(c))] = m.bytes[c];
    }
    events.push_back({{"name", "memory (bytes)"},
                      {"ph", "C"},
                      {"ts", m.time_seconds * 1e6},
                      {"pid", m.rank},
                      {"args", args}});
  }
  return Json{{"traceEvents", events}, {"displayTimeUnit", "ms"}};
}

void write_link_csv(std::ostream& out, const std::vector<LinkUsage>& links) {
  out << "link,direction,bandwidth_bytes_per_second,bytes,utilisation\n";
  const std::ios_base::fmtflags flags = out.flags();
  const std::streamsize precision = out.precision();
  for (const LinkUsage& u : links) {
    // As printf's "%.17g" for the two doubles and "%.6f" for the utilisation.
    out << u.link << ',' << u.direction << ',' << std::defaultfloat << std::setprecision(17)
        << u.bytes_per_second << ',' << u.bytes << ',' << std::fixed << std::setprecision(6) << u.utilisation
        << '\n';
  }
  out.flags(flags);
  out.precision(precision);
}

}  // namespace shardscope::sim
