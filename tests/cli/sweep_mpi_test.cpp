// `shardscope sweep --mpi` end to end: two ranks under mpirun run every point of the example grid once and a
// resume adds nothing, a crashing point is an error row, a run without mpirun is one rank; and the misuses
// (--shard with --mpi, a missing helper, --dry-run given to the helper) exit 2 saying why.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "run_command.hpp"
#include "sweep_files.hpp"

namespace shardscope {
namespace {

using test::rows_of;
using test::temp_path;

const std::string kBinary = SHARDSCOPE_BINARY;
const std::string kSource = SHARDSCOPE_SOURCE_DIR;
const std::string kGrid = kSource + "/scenarios/sweeps/example.yaml";
#ifdef SHARDSCOPE_SWEEP_MPI_BINARY
const std::string kHelper = SHARDSCOPE_SWEEP_MPI_BINARY;
const std::string kMpiexec = SHARDSCOPE_MPIEXEC;
#else
const std::string kHelper;
const std::string kMpiexec;
#endif

// Rows per point id.
std::map<std::string, int> points_of(const std::vector<nlohmann::json>& rows) {
  std::map<std::string, int> count;
  for (const auto& row : rows) ++count[row["point"].get<std::string>()];
  return count;
}

// Open MPI refuses to start as root unless told; a singleton run reads the same permission from the
// environment.
std::string root_environment() {
  return ::geteuid() == 0 ? "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 " : "";
}

std::string mpirun(int ranks) {
  return root_environment() + kMpiexec + " -n " + std::to_string(ranks) + " --oversubscribe" +
         (::geteuid() == 0 ? " --allow-run-as-root" : "") + " ";
}

// Empty when the helper and mpirun exist, else why the test cannot run.
std::string mpi_missing() {
  if (kHelper.empty()) return "this build has no MPI, so no shardscope-sweep-mpi";
  if (!std::filesystem::exists(kHelper)) return kHelper + " is not built";
  if (!std::filesystem::exists(kMpiexec)) return "mpirun (" + kMpiexec + ") is missing";
  return "";
}

TEST(SweepMpi, TwoRanksRunEveryPointOnceAndResumeAddsNothing) {
  if (const std::string why = mpi_missing(); !why.empty()) GTEST_SKIP() << why;
  const std::string out = temp_path("mpi.jsonl");
  const auto r = test::run_command(mpirun(2) + kBinary + " sweep " + kGrid + " --out " + out +
                                   " --mpi --jobs 1 --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("Swept 4 points of example into " + out), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("on 2 MPI ranks: 4 ok, 0 does-not-fit, 0 errors"), std::string::npos) << r.out;
  const std::vector<nlohmann::json> rows = rows_of(out);
  ASSERT_EQ(rows.size(), 4u);
  for (const auto& row : rows) EXPECT_EQ(row["status"], "ok") << row.dump();
  const auto points = points_of(rows);
  EXPECT_EQ(points.size(), 4u);
  // The same points as a sweep on one machine.
  const std::string local = temp_path("local.jsonl");
  ASSERT_EQ(test::run_command(kBinary + " sweep " + kGrid + " --out " + local + " --quiet").exit_code, 0);
  EXPECT_EQ(points_of(rows_of(local)), points);
  const auto resumed = test::run_command(mpirun(2) + kBinary + " sweep " + kGrid + " --out " + out +
                                         " --mpi --resume --quiet");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.out.find("Swept 0 points"), std::string::npos) << resumed.out;
  EXPECT_EQ(rows_of(out).size(), 4u);
  std::filesystem::remove(out);
  std::filesystem::remove(local);
}

TEST(SweepMpi, ResumeRunsOnlyThePointsNotRecorded) {
  if (const std::string why = mpi_missing(); !why.empty()) GTEST_SKIP() << why;
  const std::string out = temp_path("mpi-resume.jsonl");
  ASSERT_EQ(
      test::run_command(kBinary + " sweep " + kGrid + " --out " + out + " --shard 0/2 --quiet").exit_code, 0);
  ASSERT_EQ(rows_of(out).size(), 2u);
  const auto r = test::run_command(mpirun(2) + kBinary + " sweep " + kGrid + " --out " + out +
                                   " --mpi --resume --jobs 1 --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Swept 2 points"), std::string::npos) << r.out;
  const auto points = points_of(rows_of(out));
  EXPECT_EQ(points.size(), 4u);
  for (const auto& [id, count] : points) EXPECT_EQ(count, 1) << id;
  std::filesystem::remove(out);
}

TEST(SweepMpi, ACrashingPointIsAnErrorRowAndExitsFour) {
  if (const std::string why = mpi_missing(); !why.empty()) GTEST_SKIP() << why;
  const std::string out = temp_path("mpi-crash.jsonl");
  const auto r = test::run_command("SHARDSCOPE_SWEEP_FAULT=crash:1 " + mpirun(2) + kBinary + " sweep " +
                                   kGrid + " --out " + out + " --mpi --jobs 1 --quiet");
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find("1 of 4 points ended in error rows"), std::string::npos) << r.err;
  const std::vector<nlohmann::json> rows = rows_of(out);
  ASSERT_EQ(rows.size(), 4u);
  int errors = 0;
  for (const auto& row : rows) {
    if (row["status"] != "error") continue;
    ++errors;
    EXPECT_EQ(row["index"], 1);
    EXPECT_NE(row["error"].get<std::string>().find("signal 9"), std::string::npos) << row.dump();
  }
  EXPECT_EQ(errors, 1);
  // Resumed without --retry-errors, the error row stays and the sweep still ends in error.
  const auto kept = test::run_command(mpirun(2) + kBinary + " sweep " + kGrid + " --out " + out +
                                      " --mpi --jobs 1 --quiet --resume");
  EXPECT_EQ(kept.exit_code, 4) << kept.err;
  EXPECT_NE(kept.out.find("1 earlier error rows kept"), std::string::npos) << kept.out;
  EXPECT_NE(kept.err.find("1 points recorded earlier have only error rows"), std::string::npos) << kept.err;
  std::filesystem::remove(out);
}

// Issue 30, 10: a rank that stops responding while it holds a point used to hang the sweep forever; after the
// point timeout and its grace (10 s) rank 0 gives its point an error row, finishes the others and ends every
// rank, exit 4; --resume --retry-errors then completes the grid.
TEST(SweepMpi, ARankThatStopsRespondingEndsTheSweep) {
  if (const std::string why = mpi_missing(); !why.empty()) GTEST_SKIP() << why;
  const std::string out = temp_path("mpi-lost.jsonl");
  const auto started = std::chrono::steady_clock::now();
  const auto r = test::run_command("SHARDSCOPE_SWEEP_FAULT=rank-stops:1 " + mpirun(2) + kBinary + " sweep " +
                                   kGrid + " --out " + out + " --mpi --jobs 1 --quiet --timeout 1");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  EXPECT_LT(seconds, 100);
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find("error: rank 1 stopped responding (no word for 11.000 s"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("4 of 4 points are recorded"), std::string::npos) << r.err;
  const std::vector<nlohmann::json> rows = rows_of(out);
  ASSERT_EQ(rows.size(), 4u);
  int lost = 0;
  for (const auto& row : rows) {
    if (row["status"] != "error") continue;
    ++lost;
    EXPECT_NE(row["error"].get<std::string>().find("rank 1 held this point and stopped responding"),
              std::string::npos)
        << row.dump();
  }
  EXPECT_EQ(lost, 1);
  const auto retried = test::run_command(mpirun(2) + kBinary + " sweep " + kGrid + " --out " + out +
                                         " --mpi --jobs 1 --quiet --resume --retry-errors");
  EXPECT_EQ(retried.exit_code, 0) << retried.err;
  EXPECT_NE(retried.out.find("Swept 1 points"), std::string::npos) << retried.out;
  std::filesystem::remove(out);
}

TEST(SweepMpi, WithoutMpirunItIsOneRank) {
  if (const std::string why = mpi_missing(); !why.empty()) GTEST_SKIP() << why;
  const std::string out = temp_path("mpi-singleton.jsonl");
  const auto r = test::run_command(root_environment() + kBinary + " sweep " + kGrid + " --out " + out +
                                   " --mpi --jobs 2 --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("on 1 MPI rank: 4 ok"), std::string::npos) << r.out;
  EXPECT_EQ(points_of(rows_of(out)).size(), 4u);
  std::filesystem::remove(out);
}

TEST(SweepMpi, AResultsFileWithoutResumeIsRefusedOnce) {
  if (const std::string why = mpi_missing(); !why.empty()) GTEST_SKIP() << why;
  const std::string out = test::write_temp("mpi-full.jsonl", "{\"point\":\"x\"}\n");
  const auto r =
      test::run_command(mpirun(2) + kBinary + " sweep " + kGrid + " --out " + out + " --mpi --quiet");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  const std::string message = "already holds results: add --resume";
  const std::size_t first = r.err.find(message);
  ASSERT_NE(first, std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(message, first + 1), std::string::npos) << "one rank reports it:\n" << r.err;
  std::filesystem::remove(out);
}

TEST(SweepMpi, TheHelperRefusesADryRun) {
  if (const std::string why = mpi_missing(); !why.empty()) GTEST_SKIP() << why;
  const auto r = test::run_command(root_environment() + kHelper + " sweep " + kGrid + " --dry-run");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("error: --dry-run: lists the points without MPI"), std::string::npos) << r.err;
}

TEST(SweepMpi, ShardWithMpiIsRefused) {
  const auto r = test::run_command(kBinary + " sweep " + kGrid + " --out /dev/null --mpi --shard 0/2");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("error: --shard: --shard and --mpi exclude each other"), std::string::npos) << r.err;
  const auto no_out = test::run_command(kBinary + " sweep " + kGrid + " --mpi");
  EXPECT_EQ(no_out.exit_code, 2);
  EXPECT_NE(no_out.err.find("a sweep needs a results file"), std::string::npos) << no_out.err;
}

TEST(SweepMpi, AMissingHelperIsNamed) {
  // A copy of shardscope alone in a folder: no shardscope-sweep-mpi beside it.
  const std::filesystem::path folder = temp_path("lonely");
  std::filesystem::create_directories(folder);
  const std::filesystem::path copy = folder / "shardscope";
  std::filesystem::copy_file(kBinary, copy);
  const std::string out = (folder / "out.jsonl").string();
  const auto r = test::run_command(copy.string() + " sweep " + kGrid + " --out " + out + " --mpi");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find((folder / "shardscope-sweep-mpi").string() + ", which could not be started"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
  std::filesystem::remove_all(folder);
}

}  // namespace
}  // namespace shardscope
