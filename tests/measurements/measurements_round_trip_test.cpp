// Writing measurements: the contract's key order, write -> read gives the same structs back, and every
// recorded file under validate/data reads back and writes back to the same bytes.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "planner/io/text_file.hpp"
#include "validate/measurements/measurements.hpp"

namespace shardscope {
namespace {

// Every field away from its default, so that a field the writer or the reader forgets fails the test.
Measurements full_measurements() {
  Measurements m;
  m.file = "m.json";
  m.machine = {
      "cuda-emulated", {"h0", "h1"}, 2, 2, "test gpu", {{"cuda", "13.0"}, {"nccl", "2.28"}}, 0.5, 8e10, 1};
  CollectiveSample c{
      CollectiveKind::reduce_scatter, GroupKind::inter, 2, 2, 4096, 512, "float32", 3e-5, 0.13, 0.07, 20, 0};
  m.collectives = {c, c};
  m.collectives[1].group = GroupKind::global;
  m.collectives[1].op = CollectiveKind::all_reduce;
  m.collectives[1].index = 1;
  m.gemms = {{"up+dgrad", OperatorKind::mlp, 2, 64, 32, 16, "bfloat16", 1e-5, gemm_flops(2, 64, 32, 16), 0}};
  m.elementwise = {{"", 1e8, 0.01}};
  m.copies = {{"device_to_host", 1e6, 1e-4}};
  m.overlap = {{1e6, 0.1, 0.2, 0.15, 0.25, 0}};
  m.reserve_bytes = 5e8;
  MeasuredIteration it;
  it.scenario = "s.yaml";
  it.strategy = "fsdp";
  it.plan_digest = "abc";
  it.micro_batch = 4;
  it.micro_steps = 2;
  it.iteration_seconds = 1.25;
  it.iteration_seconds_per_rank = {1.2, 1.3};
  it.peak_bytes = 1e9;
  it.peak_bytes_per_rank = {9e8, 1e9};
  it.counted_peak_bytes_per_rank = {8e8, 8.5e8};
  it.reserved_peak_bytes_per_rank = {1.1e9, 1.2e9};
  it.device_peak_bytes_per_rank = {1.3e9, 1.4e9};
  it.emulated_collective_seconds_per_rank = {0.01, 0.02};
  it.compute_seconds_per_rank = {0.9, 0.95};
  it.page_faults_per_rank = {10, 12};
  it.same_plan_as = "zero-3";
  it.measured_seconds_per_rank = {{1.2, 1.25}, {1.3, 1.35}};
  it.tasks = {{"fwd a", Task::Stream::compute, 0.1, "a", "compute", 0},
              {"ag a", Task::Stream::comm, 0.05, "", "all_gather", 4096}};
  it.planner_iteration_seconds = 1.1;
  it.planner_peak_bytes = 1.05e9;
  it.program_peak_bytes = 9.9e8;
  it.measured_iterations = 2;
  m.iterations = {it, it};
  m.iterations[1].index = 1;
  m.iterations[1].strategy = "zero-3";
  m.iterations[1].same_plan_as = "";
  return m;
}

std::string text_of(const Measurements& m) { return measurements_to_json(m).dump(2) + "\n"; }

TEST(MeasurementsWriter, KeysFollowTheContract) {
  const nlohmann::ordered_json j = measurements_to_json(full_measurements());
  std::vector<std::string> keys;
  for (const auto& item : j.items()) keys.push_back(item.key());
  EXPECT_EQ(keys,
            (std::vector<std::string>{"format", "version", "machine", "collectives", "gemms", "elementwise",
                                      "copies", "overlap", "reserve_bytes", "iterations"}));
  EXPECT_EQ(j["collectives"][0]["op"], "reduce_scatter");
  EXPECT_EQ(j["collectives"][1]["group"], "all");
  EXPECT_EQ(j["gemms"][0]["operator_kind"], "mlp");
  EXPECT_DOUBLE_EQ(j["gemms"][0]["flops_per_second"].get<double>(), 2.0 * 2 * 64 * 32 * 16 / 1e-5);
  EXPECT_EQ(j["iterations"][0]["tasks"][1]["stream"], "comm");
  EXPECT_FALSE(j["iterations"][1].contains("same_plan_as"));  // written only when set
}

TEST(MeasurementsWriter, WriteThenReadGivesTheSameMeasurements) {
  const Measurements m = full_measurements();
  const Measurements back = parse_measurements(text_of(m), "m.json");
  EXPECT_EQ(back, m);
  EXPECT_EQ(text_of(back), text_of(m));
}

TEST(MeasurementsWriter, DefaultsAndAbsentOptionsRoundTrip) {
  Measurements m;  // a cpu run: no reserve (null), no emulated rank, no optional lists
  m.file = "cpu.json";
  MeasuredIteration it;
  it.scenario = "s.yaml";
  it.strategy = "ddp";
  it.iteration_seconds = 2;
  m.iterations = {it};
  const std::string text = text_of(m);
  EXPECT_NE(text.find("\"reserve_bytes\": null"), std::string::npos);
  EXPECT_EQ(text.find("emulated_rank"), std::string::npos);
  EXPECT_EQ(parse_measurements(text, "cpu.json"), m);
}

// The measurements files recorded under validate/data (shardscope-validate's output).
std::vector<std::filesystem::path> recorded_files() {
  std::vector<std::filesystem::path> out;
  const std::filesystem::path root = std::filesystem::path(SHARDSCOPE_SOURCE_DIR) / "validate" / "data";
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    if (entry.path().extension() != ".json") continue;
    const std::string text = read_text_file(entry.path().string(), "measurements");
    if (text.find("\"shardscope-measurements\"") != std::string::npos) out.push_back(entry.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(MeasurementsWriter, RecordedFilesReadAndWriteBack) {
  const std::vector<std::filesystem::path> files = recorded_files();
  ASSERT_GE(files.size(), 20u);
  for (const std::filesystem::path& path : files) {
    SCOPED_TRACE(path.string());
    const std::string text = read_text_file(path.string(), "measurements");
    const Measurements m = parse_measurements(text, path.string());
    const std::string again = text_of(m);
    EXPECT_EQ(parse_measurements(again, path.string()), m);
    EXPECT_TRUE(again == text) << "written back differently";
  }
}

}  // namespace
}  // namespace shardscope
