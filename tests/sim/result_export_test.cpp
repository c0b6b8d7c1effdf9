// Trace Event JSON and link CSV of a result: the events a trace viewer needs, and rows that are never cut.
#include "exchange/result_export.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace shardscope::sim {
namespace {

TEST(ResultExport, TraceHasNamesCompleteEventsAndMemoryCounters) {
  IterationResult r;
  r.trace.push_back({2, 1, "AG layer0", 0.5, 1.5});
  MemoryBytes bytes{};
  bytes[3] = 1024;
  r.memory.push_back({2, 0.25, bytes});
  const nlohmann::ordered_json trace = trace_event_json(r);
  EXPECT_EQ(trace.at("displayTimeUnit"), "ms");
  const auto& events = trace.at("traceEvents");
  ASSERT_EQ(events.size(), 5u);  // process name, two thread names, one task, one memory sample
  EXPECT_EQ(events[0].dump(), R"({"name":"process_name","ph":"M","pid":2,"args":{"name":"GPU 2"}})");
  EXPECT_EQ(events[2].at("args").at("name"), "communication");
  EXPECT_EQ(events[3].dump(),
            R"({"name":"AG layer0","cat":"comm","ph":"X","ts":500000.0,"dur":1000000.0,"pid":2,"tid":1})");
  EXPECT_EQ(events[4].at("ph"), "C");
  EXPECT_EQ(events[4].at("ts"), 250000.0);
  EXPECT_EQ(events[4].at("args").at("activations"), 1024.0);
}

TEST(ResultExport, LinkCsvRowsAreExactAndNeverTruncated) {
  const std::string long_name(600, 'x');
  std::ostringstream out;
  write_link_csv(out, {{"gpu0-pcie", "up", 15.75e9, 1.0 / 3.0, 0.5}, {long_name, "down", 1, 2, 1e300}});
  const std::string text = out.str();
  EXPECT_EQ(text.substr(0, text.find(long_name)),
            "link,direction,bandwidth_bytes_per_second,bytes,utilisation\n"
            "gpu0-pcie,up,15750000000,0.33333333333333331,0.500000\n");
  EXPECT_EQ(text.substr(text.find(long_name) + long_name.size(), 12), ",down,1,2,10");
  EXPECT_EQ(text.back(), '\n');
}

}  // namespace
}  // namespace shardscope::sim
