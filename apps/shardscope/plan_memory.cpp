// The memory sweep of `plan --memory-sweep` as JSON and as text.
#include "apps/shardscope/plan_memory.hpp"

#include <string>
#include <vector>

#include "planner/core/units.hpp"
#include "present/plan_text.hpp"
#include "present/text_table.hpp"

namespace shardscope::cli {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

using present::fixed;

// Shown in the table: a row at least this much faster than the row shown above it.
constexpr double kShownGain = 0.01;

// The first breakpoint past the limit whose throughput is at least kShownGain above the one in force there
// (-1: none).
int first_worthwhile(const MemorySweep& sweep) {
  if (sweep.at_limit < 0 || sweep.next < 0) return -1;
  const double now = sweep.breakpoints[static_cast<std::size_t>(sweep.at_limit)].samples_per_second;
  for (std::size_t i = static_cast<std::size_t>(sweep.next); i < sweep.breakpoints.size(); ++i) {
    if (sweep.breakpoints[i].samples_per_second >= now * (1 + kShownGain)) return static_cast<int>(i);
  }
  return -1;
}

std::string step_text(const MemorySweep& sweep, int to) {
  const MemoryBreakpoint& now = sweep.breakpoints[static_cast<std::size_t>(sweep.at_limit)];
  const MemoryBreakpoint& next = sweep.breakpoints[static_cast<std::size_t>(to)];
  const double extra = next.peak_bytes - sweep.limit_bytes;
  const double gain = next.samples_per_second - now.samples_per_second;
  return "+" + units::format_bytes(extra) + " (" + units::format_bytes(next.peak_bytes) + ", micro-batch " +
         std::to_string(next.micro_batch) + ") gives +" + fixed(100.0 * gain / now.samples_per_second, 2) +
         " % samples/s, " + fixed(gain / (extra / kGiB), 2) + " samples/s per GiB";
}

// What the memory past the limit buys: the next breakpoint, and the first that gains at least 1 %.
std::string next_step_text(const MemorySweep& sweep) {
  const double limit = sweep.limit_bytes;
  if (sweep.next < 0) {
    return "No faster plan up to the device's " + units::format_bytes(sweep.device_bytes) +
           ": memory beyond the limit of " + units::format_bytes(limit) + " buys nothing.";
  }
  if (sweep.at_limit < 0) {
    const MemoryBreakpoint& next = sweep.breakpoints[static_cast<std::size_t>(sweep.next)];
    return "Nothing fits the limit of " + units::format_bytes(limit) + "; the smallest plan needs " +
           units::format_bytes(next.peak_bytes - limit) + " more (" + units::format_bytes(next.peak_bytes) +
           ").";
  }
  std::string text = "Past the limit of " + units::format_bytes(limit) + ": the next breakpoint, " +
                     step_text(sweep, sweep.next);
  const int worthwhile = first_worthwhile(sweep);
  if (worthwhile > sweep.next) text += "; the first to gain 1 %, " + step_text(sweep, worthwhile);
  return text + ".";
}

// The rows the table shows: the first and last, those where the micro-batch changes or the throughput has
// grown by kShownGain since the row shown above, and the rows at the limit, next and first worthwhile.
std::vector<std::size_t> shown_rows(const MemorySweep& sweep) {
  std::vector<std::size_t> out;
  const int worthwhile = first_worthwhile(sweep);
  for (std::size_t i = 0; i < sweep.breakpoints.size(); ++i) {
    const MemoryBreakpoint& b = sweep.breakpoints[i];
    const int index = static_cast<int>(i);
    const bool marked = index == sweep.at_limit || index == sweep.next || index == worthwhile;
    bool show = out.empty() || i + 1 == sweep.breakpoints.size() || marked;
    if (!show) {
      const MemoryBreakpoint& above = sweep.breakpoints[out.back()];
      show = b.micro_batch != above.micro_batch ||
             b.samples_per_second >= above.samples_per_second * (1 + kShownGain);
    }
    if (show) out.push_back(i);
  }
  return out;
}

}  // namespace

nlohmann::ordered_json memory_sweep_json(const MemorySweep& sweep) {
  nlohmann::ordered_json out;
  out["limit_bytes"] = sweep.limit_bytes;
  out["device_bytes"] = sweep.device_bytes;
  out["objective"] = "search";  // operators priced as if their neighbours chose alike
  out["breakpoints"] = nlohmann::ordered_json::array();
  for (const MemoryBreakpoint& b : sweep.breakpoints) {
    out["breakpoints"].push_back({{"peak_memory_bytes", b.peak_bytes},
                                  {"micro_batch", b.micro_batch},
                                  {"gradient_accumulation_steps", b.accumulation_steps},
                                  {"iteration_seconds", b.seconds},
                                  {"samples_per_second", b.samples_per_second}});
  }
  out["at_limit"] = sweep.at_limit;  // index into breakpoints, -1: none
  out["next"] = sweep.next;
  if (sweep.at_limit >= 0 && sweep.next >= 0) {
    const MemoryBreakpoint& now = sweep.breakpoints[static_cast<std::size_t>(sweep.at_limit)];
    const MemoryBreakpoint& next = sweep.breakpoints[static_cast<std::size_t>(sweep.next)];
    out["samples_per_second_per_gib"] =
        (next.samples_per_second - now.samples_per_second) / ((next.peak_bytes - sweep.limit_bytes) / kGiB);
  }
  return out;
}

void write_memory_sweep(std::ostream& os, const MemorySweep& sweep) {
  const std::vector<std::size_t> rows = shown_rows(sweep);
  os << "\nMemory sweep: the search's best plan at every memory limit up to the device's "
     << units::format_bytes(sweep.device_bytes)
     << " (its objective, operators priced as if their neighbours chose alike); " << sweep.breakpoints.size()
     << " breakpoints, shown where the micro-batch changes or samples/s grows by 1 % (--json has all)\n\n";
  present::TextTable table({"from memory", "micro-batch", "steps", "iteration", "samples/s", ""});
  const int worthwhile = first_worthwhile(sweep);
  for (const std::size_t i : rows) {
    const MemoryBreakpoint& b = sweep.breakpoints[i];
    const int index = static_cast<int>(i);
    table.add({units::format_bytes(b.peak_bytes), std::to_string(b.micro_batch),
               std::to_string(b.accumulation_steps), units::format_duration(b.seconds),
               fixed(b.samples_per_second, 2),
               index == sweep.at_limit ? "at the limit"
               : index == sweep.next   ? "next breakpoint"
               : index == worthwhile   ? "first +1 %"
                                       : ""});
  }
  table.print(os);
  os << "\n" << next_step_text(sweep) << "\n";
}

}  // namespace shardscope::cli
