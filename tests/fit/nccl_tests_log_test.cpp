// nccl-tests' text output read as measurements: ranks and nodes from the rank lines, each row's out-of-place
// and in-place times as samples of the collective the log names (or its redop and sizes say), old layouts
// and NCCL_DEBUG noise tolerated, and every malformed log refused at its line and field.
#include "validate/fit/nccl_tests_log.hpp"

#include <gtest/gtest.h>

#include <string>

#include "planner/core/error.hpp"

namespace shardscope::fit {
namespace {

const std::string kHeader =
    "# nccl-tests version 2.17.1 nccl-headers=22703 nccl-library=22703\n"
    "# Collective test starting: all_reduce_perf\n"
    "# nThread 1 nGpus 1 minBytes 1048576 maxBytes 4194304 step: 2(factor) warmup iters: 1 iters: 20 agg "
    "iters: 1 "
    "validation: 1 graph: 0\n#\n# Using devices\n";

std::string ranks(int nodes, int per_node) {
  std::string out;
  for (int r = 0; r < nodes * per_node; ++r) {
    char line[128];
    std::snprintf(line, sizeof line,
                  "#  Rank %2d Group  0 Pid %6d on %10s device %2d [0x%02x] NVIDIA H100 80GB HBM3\n", r,
                  1000 + r, ("node" + std::to_string(r / per_node)).c_str(), r % per_node, r);
    out += line;
  }
  return out;
}

const std::string kColumns =
    "#\n#                                                              out-of-place                       "
    "in-place\n"
    "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   "
    "busbw "
    "#wrong\n"
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  "
    "(GB/s)\n";

std::string error_of(const std::string& text) {
  try {
    parse_nccl_tests_log(text, "log.txt");
  } catch (const InputError& e) {
    return std::to_string(e.line()) + " " + e.field() + ": " + e.what();
  }
  return "no error";
}

TEST(NcclTestsLog, AnAllReduceOnTwoNodesGivesTwoSamplesPerRow) {
  const std::string log =
      kHeader + ranks(2, 8) + kColumns +
      "     1048576        262144     float     sum      -1    64.10   16.36   30.67      0    "
      "63.90   16.41   30.77      0\n"
      "gpu-node1:123:456 [3] NCCL INFO comm 0x1 rank 11 nranks 16 - Init COMPLETE\n"
      "     2097152        524288     float     sum      -1    90.00   23.30   43.69      0    "
      "89.00   23.56   44.18      0\n"
      "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 37.33 \n#\n";
  const Measurements m = parse_nccl_tests_log(log, "ar.log");
  EXPECT_EQ(m.machine.backend, "nccl-tests");
  EXPECT_EQ(m.machine.ranks, 16);
  EXPECT_EQ(m.machine.ranks_per_node, 8);
  EXPECT_EQ(m.machine.device_name, "NVIDIA H100 80GB HBM3");
  ASSERT_EQ(m.collectives.size(), 4u);
  for (const CollectiveSample& s : m.collectives) {
    EXPECT_EQ(s.op, CollectiveKind::all_reduce);
    EXPECT_EQ(s.group, GroupKind::global);
    EXPECT_EQ(s.group_size, 16);
    EXPECT_EQ(s.nodes, 2);
  }
  EXPECT_DOUBLE_EQ(m.collectives[0].bytes, 1048576);
  EXPECT_DOUBLE_EQ(m.collectives[0].time_seconds, 64.10e-6);
  EXPECT_DOUBLE_EQ(m.collectives[1].time_seconds, 63.90e-6);  // in-place
  EXPECT_DOUBLE_EQ(m.collectives[3].bytes, 2097152);
}

// Before nccl-tests 2.10: no Group, no root column, an "error" column of floats; no test line, so the
// collective comes from the redop and the sizes.
TEST(NcclTestsLog, AnOldLayoutWithoutTheTestsNameIsReadFromItsRedopAndSizes) {
  const std::string old =
      "# nThread 1 nGpus 8 minBytes 1024 maxBytes 2048 step: 2(factor) warmup iters: 5 iters: 20 validation: "
      "1\n"
      "#\n# Using devices\n"
      "#   Rank  0 Pid  1320 on     dgx01 device  0 [0x07] A100-SXM4-40GB\n"
      "#   Rank  1 Pid  1320 on     dgx01 device  1 [0x0f] A100-SXM4-40GB\n"
      "#\n#                                                     out-of-place                       in-place\n"
      "#       size         count    type   redop     time   algbw   busbw  error     time   algbw   busbw  "
      "error\n"
      "        1024           128   float    none    10.00    0.10    0.05  0e+00    10.00    0.10    0.05  "
      "0e+00\n"
      "        1024           256   float     sum    12.00    0.09    0.09  0e+00    12.00    0.09    0.09  "
      "0e+00\n"
      "        1024           128   float     sum    11.00    0.09    0.05  0e+00    11.00    0.09    0.05  "
      "0e+00\n";
  const Measurements m = parse_nccl_tests_log(old, "old.log");
  EXPECT_EQ(m.machine.ranks, 2);
  ASSERT_EQ(m.collectives.size(), 6u);
  EXPECT_EQ(m.collectives[0].op, CollectiveKind::all_gather);      // none, 128 x 4 B x 2 ranks
  EXPECT_EQ(m.collectives[2].op, CollectiveKind::all_reduce);      // sum, 256 x 4 B
  EXPECT_EQ(m.collectives[4].op, CollectiveKind::reduce_scatter);  // sum, 128 x 4 B x 2 ranks
}

TEST(NcclTestsLog, AMalformedLogIsRefusedAtItsLineAndField) {
  const std::string head = kHeader + ranks(1, 8) + kColumns;  // rows start at line 18
  const std::string ok =
      "     1048576        262144     float     sum      -1    64.10   16.36   28.63      0    63.90   "
      "16.41   28.72      0\n";
  EXPECT_EQ(error_of(head + ok), "no error");
  const std::string no_ranks = error_of(kColumns + ok);
  EXPECT_EQ(no_ranks.rfind("5 Rank: ", 0), 0u) << no_ranks;  // the first row, with no rank line before it
  EXPECT_NE(no_ranks.find("ranks are unknown"), std::string::npos) << no_ranks;
  EXPECT_EQ(error_of(head).rfind("0 size: ", 0), 0u) << error_of(head);
  const std::string short_row =
      error_of(head + "     1048576        262144     float     sum      -1    64.10\n");
  EXPECT_EQ(short_row.rfind("18 size: ", 0), 0u) << short_row;
  const std::string type = error_of(
      head +
      "     1048576        262144    float8     sum      -1    64.10   16.36   28.63      0    63.90   "
      "16.41   28.72      0\n");
  EXPECT_EQ(type.rfind("18 type: log.txt:18: type: unknown element type 'float8'", 0), 0u) << type;
  const std::string time = error_of(
      head +
      "     1048576        262144     float     sum      -1     0.00   16.36   28.63      0    63.90   "
      "16.41   28.72      0\n");
  EXPECT_EQ(time.rfind("18 out-of-place time: ", 0), 0u) << time;
  const std::string count = error_of(
      head +
      "     1048576        262100     float     sum      -1    64.10   16.36   28.63      0    63.90   "
      "16.41   28.72      0\n");
  EXPECT_EQ(count.rfind("18 count: log.txt:18: count: size 1048576 B is not count 262100 x 4 B", 0), 0u)
      << count;
  std::string alltoall = head;
  alltoall.replace(alltoall.find("all_reduce_perf"), 15, "alltoall_perf");
  EXPECT_EQ(error_of(alltoall + ok).rfind("2 test: log.txt:2: test: alltoall_perf: calibrate reads", 0), 0u)
      << error_of(alltoall + ok);
  std::string hole = kHeader + ranks(1, 8) + kColumns;
  hole.erase(hole.find("#  Rank  3"), hole.find("#  Rank  4") - hole.find("#  Rank  3"));
  EXPECT_EQ(error_of(hole + ok).rfind("17 Rank: log.txt:17: Rank: no rank line for rank 3 of 8", 0), 0u)
      << error_of(hole + ok);
}

TEST(NcclTestsLog, TypeSizesAreNcclTests) {
  EXPECT_EQ(nccl_tests_type_bytes("float"), 4);
  EXPECT_EQ(nccl_tests_type_bytes("bfloat16"), 2);
  EXPECT_EQ(nccl_tests_type_bytes("half"), 2);
  EXPECT_EQ(nccl_tests_type_bytes("double"), 8);
  EXPECT_EQ(nccl_tests_type_bytes("int8"), 1);
  EXPECT_EQ(nccl_tests_type_bytes("fp4"), 0);
}

}  // namespace
}  // namespace shardscope::fit
