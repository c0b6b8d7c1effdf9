// Reading measurements JSON (the producer/consumer contract): the contract's example reads, unknown fields
// are ignored, and each malformed or out-of-range field is an error naming file, line and field.
#include <gtest/gtest.h>

#include "planner/core/error.hpp"
#include "validate/measurements/measurements.hpp"

namespace shardscope {
namespace {

const char* kExample = R"({
  "format": "shardscope-measurements", "version": 1,
  "machine": {"backend": "cpu-mpi", "hostnames": ["h"], "ranks": 2, "ranks_per_node": 2,
              "device_name": "cpu", "versions": {"mpi": "4.1"}, "compute_scale": 0.25, "extra": 1},
  "collectives": [{"op": "all_gather", "group": "all", "group_size": 2, "nodes": 1, "bytes": 1048576,
                   "count": 262144, "type": "float32", "time_seconds": 1.2e-4, "algbw_GBps": 8.7,
                   "busbw_GBps": 4.3, "iterations": 20}],
  "gemms": [{"m": 64, "n": 32, "k": 16, "batch": 2, "dtype": "float32", "operator_kind": "mlp",
             "time_seconds": 1e-5}],
  "elementwise": [], "copies": [{"kind": "host_to_device", "bytes": 1000, "time_seconds": 1e-6}],
  "overlap": [], "reserve_bytes": 0,
  "iterations": [{"scenario": "s.yaml", "strategy": "ddp", "plan_digest": "x", "micro_batch": 2,
                  "micro_steps": 1, "iteration_seconds": 1.5, "peak_bytes": 100,
                  "compute_seconds_per_rank": [0.5, 0.55], "same_plan_as": "zero-2",
                  "measured_seconds_per_rank": [[1.4, 1.6, 1.5], [1.6, 1.6, 1.7]],
                  "tasks": [{"name": "fwd a", "stream": "compute", "seconds": 0.1, "operator": "a",
                             "kind": "compute", "bytes": 0}]}]
})";

TEST(Measurements, ReadsTheContractExample) {
  const Measurements m = parse_measurements(kExample, "m.json");
  EXPECT_EQ(m.machine.ranks, 2);
  EXPECT_EQ(m.machine.compute_scale, 0.25);
  ASSERT_EQ(m.collectives.size(), 1u);
  EXPECT_EQ(m.collectives[0].op, CollectiveKind::all_gather);
  EXPECT_EQ(m.collectives[0].group, GroupKind::global);
  EXPECT_EQ(ring_message_bytes(m.collectives[0]), 524288.0);
  EXPECT_EQ(sample_ring_steps(m.collectives[0]), 1);
  ASSERT_EQ(m.gemms.size(), 1u);
  EXPECT_EQ(m.gemms[0].flops, 2.0 * 2 * 64 * 32 * 16);  // 2 batch m n k when flops is absent
  EXPECT_EQ(m.gemms[0].operator_kind, OperatorKind::mlp);
  EXPECT_EQ(*m.reserve_bytes, 0.0);
  ASSERT_EQ(m.iterations.size(), 1u);
  EXPECT_EQ(m.iterations[0].tasks[0].operator_name, "a");
  EXPECT_EQ(m.iterations[0].compute_seconds_per_rank, (std::vector<double>{0.5, 0.55}));
  EXPECT_EQ(m.iterations[0].same_plan_as, "zero-2");
  const std::vector<double> samples = iteration_samples(m.iterations[0]);
  ASSERT_EQ(samples.size(), 3u);  // each iteration's mean over the two ranks
  EXPECT_DOUBLE_EQ(samples[0], 1.5);
  EXPECT_DOUBLE_EQ(samples[1], 1.6);
  EXPECT_DOUBLE_EQ(samples[2], 1.6);
  EXPECT_EQ(m.machine.hostnames, (std::vector<std::string>{"h"}));
  EXPECT_EQ(m.machine.versions.at("mpi"), "4.1");
  EXPECT_EQ(m.collectives[0].count, 262144);
  EXPECT_EQ(m.collectives[0].iterations, 20);
  EXPECT_EQ(m.collectives[0].busbw_gbps, 4.3);
  EXPECT_EQ(m.copies[0].kind, "host_to_device");
  EXPECT_EQ(m.iterations[0].tasks[0].stream, Task::Stream::compute);
}

void expect_error(const std::string& text, int line, const std::string& field, const std::string& words) {
  try {
    (void)parse_measurements(text, "m.json");
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "m.json");
    EXPECT_EQ(e.line(), line) << e.what();
    EXPECT_EQ(e.field(), field) << e.what();
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

std::string replaced(const std::string& from, const std::string& to) {
  std::string s = kExample;
  s.replace(s.find(from), from.size(), to);
  return s;
}

TEST(Measurements, ErrorsNameFileLineAndField) {
  expect_error("{\"format\": ", 1, "", "malformed JSON");
  expect_error(replaced("shardscope-measurements", "nccl-tests"), 2, "format", "shardscope-measurements");
  expect_error(replaced("\"version\": 1", "\"version\": 2"), 2, "version", "expected 1");
  expect_error(replaced("\"ranks\": 2,", ""), 3, "machine.ranks", "missing");
  expect_error(replaced("\"op\": \"all_gather\"", "\"op\": \"broadcast\""), 5, "collectives[0].op",
               "all_reduce");
  expect_error(replaced("\"time_seconds\": 1.2e-4", "\"time_seconds\": -1"), 6, "collectives[0].time_seconds",
               "expected");
  expect_error(replaced("\"group_size\": 2", "\"group_size\": 3"), 5, "collectives[0].group_size", "");
  expect_error(replaced("\"operator_kind\": \"mlp\"", "\"operator_kind\": \"conv\""), 8,
               "gemms[0].operator_kind", "mlp");
  expect_error(replaced("\"iteration_seconds\": 1.5", "\"iteration_seconds\": \"fast\""), 13,
               "iterations[0].iteration_seconds", "expected a number");
  expect_error(replaced("[0.5, 0.55]", "[0.5, \"slow\"]"), 14, "iterations[0].compute_seconds_per_rank",
               "expected numbers from 0");
  expect_error(replaced("[0.5, 0.55]", "0.5"), 14, "iterations[0].compute_seconds_per_rank",
               "expected a list of numbers");
  expect_error(replaced("[0.5, 0.55]", "[0.5, -1]"), 14, "iterations[0].compute_seconds_per_rank",
               "expected numbers from 0");
  const std::string times = "[[1.4, 1.6, 1.5], [1.6, 1.6, 1.7]]";
  const std::string field = "iterations[0].measured_seconds_per_rank";
  expect_error(replaced(times, "[[1.4, 1.6, 1.5], [1.6, 1.6]]"), 15, field, "rank 1 has 2");
  expect_error(replaced(times, "[[1.4, 0, 1.5], [1.6, 1.6, 1.7]]"), 15, field, "expected positive times");
  expect_error(replaced(times, "[[1.4, \"x\", 1.5], [1.6, 1.6, 1.7]]"), 15, field, "times in seconds");
  expect_error(replaced(times, "[1.4, 1.6]"), 15, field, "rank 0's list of times");
  expect_error(replaced(times, "[]"), 15, field, "each rank's list");
  expect_error(replaced(times, "{}"), 15, field, "each rank's list");
}

TEST(Measurements, ErrorsInTheMachineNameTheField) {
  expect_error(replaced("\"hostnames\": [\"h\"]", "\"hostnames\": \"h\""), 3, "machine.hostnames",
               "expected a list of strings");
  expect_error(replaced("\"hostnames\": [\"h\"]", "\"hostnames\": [1]"), 3, "machine.hostnames",
               "expected a list of strings");
  expect_error(replaced("{\"mpi\": \"4.1\"}", "[\"4.1\"]"), 4, "machine.versions", "expected an object");
  expect_error(replaced("{\"mpi\": \"4.1\"}", "{\"mpi\": 4}"), 4, "machine.versions",
               "expected version strings, got \"mpi\": 4");
  expect_error(replaced("\"compute_scale\": 0.25", "\"compute_scale\": 0"), 4, "machine.compute_scale",
               "expected a positive number");
  expect_error(replaced("\"compute_scale\": 0.25", "\"memory_bytes_per_rank\": -1"), 4,
               "machine.memory_bytes_per_rank", "expected a number from 0");
  expect_error(replaced("\"backend\": \"cpu-mpi\"", "\"backend\": \"cuda-emulated\""), 3,
               "machine.emulated_rank", "expected the emulated rank");
  expect_error(replaced("\"machine\": {", "\"machines\": {"), 0, "machine", "missing");
}

TEST(Measurements, ErrorsInTheSectionsNameTheField) {
  expect_error(replaced("\"count\": 262144", "\"count\": -1"), 6, "collectives[0].count", "");
  expect_error(replaced("\"type\": \"float32\"", "\"type\": 4"), 6, "collectives[0].type", "string");
  expect_error(replaced("\"algbw_GBps\": 8.7", "\"algbw_GBps\": -8.7"), 6, "collectives[0].algbw_GBps",
               "expected a number from 0");
  expect_error(replaced("\"busbw_GBps\": 4.3", "\"busbw_GBps\": \"x\""), 7, "collectives[0].busbw_GBps",
               "expected a number");
  expect_error(replaced("\"iterations\": 20", "\"iterations\": 2.5"), 7, "collectives[0].iterations", "");
  expect_error(replaced("\"batch\": 2,", "\"batch\": 2, \"role\": 7,"), 8, "gemms[0].role", "string");
  expect_error(replaced("\"m\": 64", "\"m\": 0"), 8, "gemms[0].m", "");
  expect_error(replaced("\"time_seconds\": 1e-5", "\"time_seconds\": 0"), 9, "gemms[0].time_seconds",
               "expected a positive number");
  expect_error(replaced("\"host_to_device\"", "\"disk\""), 10, "copies[0].kind", "device_to_device");
  expect_error(replaced("\"overlap\": []", "\"overlap\": [{\"collective_bytes\": 1}]"), 11,
               "overlap[0].compute_alone_seconds", "missing");
  expect_error(replaced("\"reserve_bytes\": 0", "\"reserve_bytes\": -1"), 11, "reserve_bytes", "expected");
  expect_error(replaced("\"stream\": \"compute\"", "\"stream\": \"copy\""), 16,
               "iterations[0].tasks[0].stream", "comm");
  expect_error(replaced("\"kind\": \"compute\"", "\"kind\": \"broadcast\""), 17,
               "iterations[0].tasks[0].kind", "all_reduce");
  expect_error(replaced("\"peak_bytes\": 100", "\"peak_bytes\": 100, \"peak_bytes_per_rank\": [-1]"), 13,
               "iterations[0].peak_bytes_per_rank", "expected numbers from 0");
  expect_error(replaced("\"peak_bytes\": 100", "\"peak_bytes\": 100, \"measured_iterations\": -2"), 13,
               "iterations[0].measured_iterations", "");
  expect_error(replaced("\"peak_bytes\": 100", "\"peak_bytes\": 100, \"planner_peak_bytes\": -2"), 13,
               "iterations[0].planner_peak_bytes", "expected a number from 0");
  expect_error(replaced("\"strategy\": \"ddp\"", "\"strategy\": \"\""), 12, "iterations[0].strategy", "");
}

}  // namespace
}  // namespace shardscope
