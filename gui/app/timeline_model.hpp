// TimelineModel: the tasks of a simulated iteration per GPU (rank) and stream, and each GPU's memory by
// category over the iteration, built from the simulator's full result (`shardscope simulate --result-json`,
// exchange/result_json.hpp) or read from the Chrome/Perfetto trace (Trace Event JSON) of `--trace`.
#pragma once

#include <string>
#include <vector>

#include "exchange/iteration_result.hpp"
#include "planner/program/iteration_program.hpp"

namespace shardscope::gui {

enum class TimelineStream { compute = 0, communication = 1 };
inline constexpr int kTimelineStreams = 2;

struct TimelineTask {
  std::string name;
  double start_seconds = 0;
  double duration_seconds = 0;
  double end_seconds() const { return start_seconds + duration_seconds; }
};

// What a GPU holds from `time_seconds` until the next sample, by category (MemoryCategory order).
struct TimelineMemorySample {
  double time_seconds = 0;
  MemoryBytes bytes{};
  double total_bytes() const;  // summed in category order, as the simulator sums its peak
};

struct TimelineRank {
  int rank = 0;
  std::string label;                                    // the trace's process name ("GPU 3")
  std::vector<TimelineTask> streams[kTimelineStreams];  // each sorted by start, then by end
  std::vector<TimelineMemorySample> memory;             // in trace order (sorted by time, stable)

  const std::vector<TimelineTask>& tasks(TimelineStream stream) const {
    return streams[static_cast<int>(stream)];
  }
  std::size_t task_count() const { return streams[0].size() + streams[1].size(); }
};

struct TimelineModel {
  std::vector<TimelineRank> ranks;  // by rank number
  double end_seconds = 0;           // the last task's end (the trace starts at 0)

  std::size_t task_count() const;
  const TimelineRank* find_rank(int rank) const;
};

// The traced ranks of `result` (those with tasks or memory samples), labelled "GPU n" as the trace labels
// them, with the same ordering as parse_trace_json; times are the result's own, in seconds. A task on a
// stream other than 0 or 1 is an InputError naming "simulation result" and "trace[i].stream".
TimelineModel timeline_from_result(const sim::IterationResult& result);

// Parses Trace Event JSON: metadata "process_name" events name the ranks (pid), complete ("ph": "X") events
// with tid 0 (compute) or 1 (communication) are the tasks (ts and dur in microseconds), and counter events
// ("ph": "C") named "memory (bytes)" are memory samples whose args give bytes per category (a category left
// out holds 0); other events are skipped. Throws InputError naming `source`, the event
// ("traceEvents[12].dur") and what was expected.
TimelineModel parse_trace_json(const std::string& text, const std::string& source);
TimelineModel load_trace_file(const std::string& path);

}  // namespace shardscope::gui
