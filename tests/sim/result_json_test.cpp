// Result JSON: a real simulated iteration survives the round trip exactly, and malformed input is a clear
// InputError naming the field.
#include "exchange/result_json.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "planner/core/error.hpp"
#include "planner/io/scenario_parser.hpp"
#include "planner/search/planner.hpp"
#include "sim/iteration_sim.hpp"

namespace shardscope::sim {
namespace {

IterationResult simulated() {
  const Scenario s = parse_scenario_string(
      "model: {preset: nd-48x1536}\ncluster: {preset: titan-rtx-8-pcie3}\n"
      "training: {memory_limit: 8GB, runtime_reserve: 512MiB, precision: mixed-fp16, max_micro_batch: 8}\n",
      "test.yaml");
  const StrategyResult planned =
      plan_strategy(ValidScenario(s), Calibration{}, space_by_name("fsdp", s.training));
  EXPECT_TRUE(planned.fits);
  return simulate_iteration(ValidScenario(s), Calibration{}, planned.plan, IterationOptions{});
}

IterationResult round_trip(const IterationResult& r) {
  return result_from_json_string(result_to_json(r).dump(), "result.json");
}

TEST(ResultJson, ARealResultRoundTripsExactlyFieldByField) {
  const IterationResult r = simulated();
  ASSERT_FALSE(r.gpus.empty());
  ASSERT_FALSE(r.trace.empty());
  ASSERT_FALSE(r.memory.empty());
  ASSERT_FALSE(r.links.empty());
  const IterationResult back = round_trip(r);
  EXPECT_EQ(back.iteration_seconds, r.iteration_seconds);
  EXPECT_EQ(back.samples_per_second, r.samples_per_second);
  EXPECT_EQ(back.tokens_per_second, r.tokens_per_second);
  EXPECT_EQ(back.activities, r.activities);
  EXPECT_TRUE(back.gpus == r.gpus);
  EXPECT_TRUE(back.trace == r.trace);
  EXPECT_TRUE(back.memory == r.memory);
  EXPECT_TRUE(back.links == r.links);
  EXPECT_TRUE(back == r);
  // Deterministic text: writing the read-back result gives the same bytes.
  EXPECT_EQ(result_to_json(back).dump(), result_to_json(r).dump());
}

TEST(ResultJson, AwkwardAndNonFiniteDoublesRoundTrip) {
  IterationResult r;
  r.iteration_seconds = 0.1 + 0.2;
  r.samples_per_second = std::numeric_limits<double>::infinity();
  r.tokens_per_second = std::numeric_limits<double>::denorm_min();
  r.activities = std::numeric_limits<std::int64_t>::max();
  r.gpus.push_back({3, std::numeric_limits<double>::max(), 0.1 + 0.7, 1.0 / 3.0,
                    -std::numeric_limits<double>::infinity()});
  r.trace.push_back({3, 1, "AG \"layer\"\n0", 1e-300, 2.5});
  MemoryBytes bytes{};
  bytes[0] = 1e20;
  bytes[6] = std::numeric_limits<double>::quiet_NaN();
  r.memory.push_back({3, 7.0, bytes});
  r.links.push_back({"gpu3-pcie", "down", 15.75e9, 123456789.0, 0.999999999999});
  const IterationResult back = round_trip(r);
  ASSERT_EQ(back.memory.size(), 1u);
  EXPECT_TRUE(std::isnan(back.memory[0].bytes[6]));
  IterationResult without_nan = back;
  without_nan.memory[0].bytes[6] = 0;
  r.memory[0].bytes[6] = 0;
  EXPECT_TRUE(without_nan == r);
}

std::string valid_text() {
  IterationResult r;
  r.iteration_seconds = 1;
  r.gpus.push_back({0, 1, 0.75, 0.5, 0.5});
  r.trace.push_back({0, 0, "fwd", 0, 0.5});
  r.memory.push_back({0, 0, MemoryBytes{}});
  r.links.push_back({"l", "up", 1, 1, 1});
  return result_to_json(r).dump();
}

// Replaces the first occurrence of `from` in a valid document and returns the reader's error.
std::string error_after(const std::string& from, const std::string& to) {
  std::string text = valid_text();
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  text.replace(at, from.size(), to);
  try {
    result_from_json_string(text, "r.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(ResultJson, MalformedInputIsAnInputErrorNamingTheField) {
  EXPECT_EQ(error_after(R"("version":2)", R"("version":3)"),
            "r.json: version: expected an integer from 2 to 2, got 3");
  EXPECT_EQ(error_after(R"("format":"shardscope-iteration-result")", R"("format":"other")"),
            "r.json: format: expected \"shardscope-iteration-result\", got \"other\"");
  EXPECT_EQ(error_after(R"("iteration_seconds":1.0,)", ""), "r.json: iteration_seconds: missing");
  EXPECT_EQ(error_after(R"("iteration_seconds":1.0)", R"("iteration_seconds":"fast")"),
            "r.json: iteration_seconds: expected a number (or \"inf\", \"-inf\", \"nan\"), got \"fast\"");
  EXPECT_EQ(error_after(R"("activities":0)", R"("activities":0.5)"),
            "r.json: activities: expected an integer from 0 to 9223372036854775807, got 0.5");
  EXPECT_EQ(error_after(R"("activities":0)", R"("activities":0,"extra":1)"), "r.json: extra: unexpected key");
  EXPECT_EQ(
      error_after(
          R"("gpus":[{"rank":0,"peak_memory_bytes":1.0,"allocated_peak_memory_bytes":0.75,"compute_seconds":0.5,)"
          R"("exposed_comm_seconds":0.5}])",
          R"("gpus":{})"),
      "r.json: gpus: expected an array, got object");
  EXPECT_EQ(error_after(R"("allocated_peak_memory_bytes":0.75,)", ""),
            "r.json: gpus[0].allocated_peak_memory_bytes: missing");
  EXPECT_EQ(error_after(R"({"rank":0,"peak_memory_bytes")", R"({"rank":-1,"peak_memory_bytes")"),
            "r.json: gpus[0].rank: expected an integer from 0 to 2147483647, got -1");
  EXPECT_EQ(error_after(R"("stream":0)", R"("stream":2)"),
            "r.json: trace[0].stream: expected an integer from 0 to 1, got 2");
  EXPECT_EQ(error_after(R"("name":"fwd")", R"("name":7)"), "r.json: trace[0].name: expected a string, got 7");
  EXPECT_EQ(error_after(R"("parameters":0.0)", R"("params":0.0)"),
            "r.json: memory[0].bytes.parameters: missing");
  EXPECT_EQ(error_after(R"("reserve":0.0)", R"("reserve":0.0,"cache":1)"),
            "r.json: memory[0].bytes.cache: unknown memory category");
  EXPECT_EQ(error_after(R"("bytes":{)", R"("bytes":[],"b":{)"), "r.json: memory[0].b: unexpected key");
  EXPECT_EQ(error_after(R"("direction":"up")", R"("direction":"sideways")"),
            "r.json: links[0].direction: expected \"up\" or \"down\", got \"sideways\"");
  EXPECT_EQ(error_after(R"("links":[{)", R"("links":[7,{)"),
            "r.json: links[0]: expected an object, got number");
}

TEST(ResultJson, SyntaxErrorsCarryTheLineAndUnreadableFilesTheirPath) {
  try {
    result_from_json_string("{\n  \"format\": \"shardscope-iteration-result\",\n  \"version\": ,\n}",
                            "r.json");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "r.json");
    EXPECT_EQ(e.line(), 3);
    EXPECT_NE(e.message().find("malformed JSON"), std::string::npos) << e.what();
  }
  EXPECT_THROW(result_from_json_string("", "r.json"), InputError);
  try {
    load_result_file("/nonexistent-dir/result.json");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "/nonexistent-dir/result.json: cannot read the file");
  }
}

}  // namespace
}  // namespace shardscope::sim
