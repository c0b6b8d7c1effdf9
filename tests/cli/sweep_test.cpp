// `shardscope sweep` and `merge` end to end on the shipped example grid: dry run, rows, resume, shards,
// --shard auto, the CSV; and the overrides of plan/inspect (--set, --model, --cluster, --nodes).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
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

TEST(Sweep, DryRunListsEveryPointWithAStableId) {
  const auto a = test::run_command(kBinary + " sweep " + kGrid + " --dry-run");
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_NE(a.out.find("4 points, product of 2 axes"), std::string::npos) << a.out;
  EXPECT_NE(a.out.find("nd-64x1536"), std::string::npos) << a.out;
  EXPECT_EQ(test::run_command(kBinary + " sweep " + kGrid + " --dry-run").out, a.out);
  const auto shard = test::run_command(kBinary + " sweep " + kGrid + " --dry-run --shard 1/2");
  EXPECT_NE(shard.out.find("shard 1/2: 2 points"), std::string::npos) << shard.out;
}

// Issue 30, 22: an --out a sweep cannot append to and read back is exit 2 before any point runs (a folder
// was "already holding results", /dev/null failed on fsync with 4, a FIFO blocked forever).
TEST(Sweep, AnUnusableOutIsRefusedBeforeAnyPointRuns) {
  const std::string folder = temp_path("out-folder");
  std::filesystem::create_directory(folder);
  const std::string fifo = temp_path("out-fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string plain = test::write_temp("out-plain", "");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {folder, "it is a folder; name a results file in it"},
      {"/dev/null", "it is not a regular file (a device, pipe or socket)"},
      {fifo, "it is not a regular file (a device, pipe or socket)"},
      {folder + "/missing/r.jsonl", "its folder " + folder + "/missing cannot be used: No such file"},
      {plain + "/r.jsonl", plain + " is not a folder"},
  };
  for (const auto& [out, why] : cases) {
    const auto r = test::run_command("timeout 20 " + kBinary + " sweep " + kGrid + " --out " + out);
    EXPECT_EQ(r.exit_code, 2) << out << ": " << r.err;
    EXPECT_NE(r.err.find("error: --out: cannot write " + out + ": " + why), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("points to run"), std::string::npos) << r.err;
  }
  EXPECT_TRUE(std::filesystem::is_empty(folder));
  std::filesystem::remove_all(folder);
  std::filesystem::remove(fifo);
  std::filesystem::remove(plain);
}

TEST(Sweep, RowsResumeAndMerge) {
  const std::string out = temp_path("sweep.jsonl");
  const auto r = test::run_command(kBinary + " sweep " + kGrid + " --out " + out + " --jobs 2 --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<nlohmann::json> rows = rows_of(out);
  ASSERT_EQ(rows.size(), 4u);
  std::set<std::string> ids;
  for (const auto& row : rows) {
    ids.insert(row["point"].get<std::string>());
    EXPECT_EQ(row["status"], "ok") << row.dump();
    EXPECT_EQ(row["version"], "0.1.0");
    EXPECT_TRUE(row["revision"].is_string());
    EXPECT_TRUE(row["axes"].contains("training.memory_limit"));
    const auto& fsdp = row["metrics"]["fsdp"];
    ASSERT_TRUE(fsdp["fits"].get<bool>()) << row.dump();
    EXPECT_DOUBLE_EQ(fsdp["speedup_over_fsdp"].get<double>(), 1.0);
    EXPECT_GT(row["metrics"]["shardscope"]["samples_per_second"].get<double>(), 0);
    EXPECT_GT(row["wall_seconds"].get<double>(), 0);
  }
  EXPECT_EQ(ids.size(), 4u);
  // The same point planned alone gives the same numbers as its row.
  for (const auto& row : rows) {
    if (row["axes"]["model"] != "nd-48x1536" || row["axes"]["training.memory_limit"] != "16GB") continue;
    const auto plan = test::run_command(kBinary + " plan --json --quiet " + kSource +
                                        "/scenarios/default.yaml --set training.memory_limit=16GB");
    ASSERT_EQ(plan.exit_code, 0) << plan.err;
    const auto report = nlohmann::json::parse(plan.out);
    EXPECT_EQ(report["plan"]["predicted"]["samples_per_second"],
              row["metrics"]["shardscope"]["samples_per_second"]);
  }
  // A second run refuses the file; --resume has nothing left to do.
  EXPECT_EQ(test::run_command(kBinary + " sweep " + kGrid + " --out " + out + " --quiet").exit_code, 2);
  const auto resumed = test::run_command(kBinary + " sweep " + kGrid + " --out " + out + " --resume --quiet");
  EXPECT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.out.find("Swept 0 points"), std::string::npos) << resumed.out;
  EXPECT_EQ(rows_of(out).size(), 4u);
  // merge: one CSV line per point, a column per axis and metric, the same bytes every time.
  const std::string csv = temp_path("sweep.csv");
  const auto merged =
      test::run_command(kBinary + " merge " + out + " " + out + " --csv " + csv + " --grid " + kGrid);
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  EXPECT_NE(merged.err.find("4 of 4 points have an ok or does-not-fit row, none missing"), std::string::npos)
      << merged.err;
  const std::string text = test::read_file(csv);
  std::istringstream lines(text);
  std::string header;
  std::getline(lines, header);
  EXPECT_EQ(header.rfind("point,grid,index,simulated,status,model,training.memory_limit,shardscope.fits,", 0),
            0u)
      << header;
  EXPECT_NE(header.find(",fsdp.speedup_over_fsdp,"), std::string::npos);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 5);
  EXPECT_EQ(test::run_command(kBinary + " merge " + out).out, text);
  // Issue 30, 15: with --grid, a later row of another grid for one of its points (same id: same scenario)
  // and a row of a point not in the grid are left out, with a warning; the grid's own rows stay.
  nlohmann::json foreign = rows[0];
  foreign["grid"] = "other";
  foreign["metrics"]["shardscope"]["samples_per_second"] = 1e9;
  nlohmann::json stray = rows[1];
  stray["point"] = "0123456789abcdef";
  const std::string other = test::write_temp("other.jsonl", foreign.dump() + "\n" + stray.dump() + "\n");
  const auto kept = test::run_command(kBinary + " merge " + out + " " + other + " --grid " + kGrid);
  ASSERT_EQ(kept.exit_code, 0) << kept.err;
  EXPECT_EQ(kept.out, text);
  EXPECT_NE(kept.err.find("warning: 2 rows of other grids than example, or of points not in " + kGrid +
                          ", left out"),
            std::string::npos)
      << kept.err;
  // Issue 30, 14: rows of another planner revision are not mixed in: merge and --resume name the row.
  nlohmann::json older = rows[2];
  older["revision"] = "000000000000";
  const std::string old_rows = test::write_temp("older.jsonl", older.dump() + "\n");
  const auto mixed = test::run_command(kBinary + " merge " + out + " " + old_rows);
  EXPECT_EQ(mixed.exit_code, 2) << mixed.err;
  EXPECT_NE(
      mixed.err.find(old_rows + ":1: revision: written by shardscope 0.1.0 (revision 000000000000), but " +
                     out + ":1 by shardscope 0.1.0 (revision "),
      std::string::npos)
      << mixed.err;
  const auto resumed_old =
      test::run_command(kBinary + " sweep " + kGrid + " --out " + old_rows + " --resume --quiet");
  EXPECT_EQ(resumed_old.exit_code, 2) << resumed_old.err;
  EXPECT_NE(
      resumed_old.err.find(old_rows + ":1: revision: written by shardscope 0.1.0 (revision 000000000000)"),
      std::string::npos)
      << resumed_old.err;
  std::filesystem::remove(old_rows);
  // Without --grid every row is taken: the other grid's later row is the point's.
  EXPECT_NE(test::run_command(kBinary + " merge " + out + " " + other).out.find("1000000000"),
            std::string::npos);
  std::filesystem::remove(other);
  std::filesystem::remove(out);
  std::filesystem::remove(csv);
}

// Issue 30, 8: a large grid's points are resolved on every CPU; the ids are each point's own (as the point's
// child resolves it alone), and a grid with two bad values names the first in grid order, every time.
TEST(Sweep, ALargeGridResolvesInParallelAsEachPointAlone) {
  std::string limits, batches;
  for (int g = 1; g <= 20; ++g) limits += (g > 1 ? ", " : "") + std::to_string(g) + "GB";
  for (int b = 1; b <= 30; ++b) batches += (b > 1 ? ", " : "") + std::to_string(b);
  const std::string head = "name: large\nbase: " + kSource + "/scenarios/default.yaml\naxes:\n";
  const std::string grid =
      test::write_temp("large.yaml", head + "  training.memory_limit: [" + limits +
                                         "]\n  training.max_micro_batch: [" + batches + "]\n");
  const auto listed = test::run_command(kBinary + " sweep " + grid + " --dry-run");
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_NE(listed.out.find("600 points, product of 2 axes"), std::string::npos) << listed.out.substr(0, 300);
  for (int index : {0, 257, 599}) {  // each in another worker's chunk
    const auto alone =
        test::run_command(kBinary + " sweep-point " + grid + " --index " + std::to_string(index));
    ASSERT_EQ(alone.exit_code, 0) << alone.err;
    const std::string id = nlohmann::json::parse(alone.out)["point"].get<std::string>();
    const std::size_t at = listed.out.find(" " + id + " ");
    ASSERT_NE(at, std::string::npos) << index << " " << id;
    const std::size_t line = listed.out.rfind('\n', at) + 1;
    std::istringstream row(listed.out.substr(line, at - line));
    int listed_index = -1;
    row >> listed_index;
    EXPECT_EQ(listed_index, index) << id;
  }
  // 26GB (points 480-509) and 30GB (points 540-569) are over the GPU's 24 GiB: the first is named.
  const std::string bad = test::write_temp(
      "large-bad.yaml", head + "  training.memory_limit: [" + limits.substr(0, limits.rfind(", 17GB")) +
                            ", 26GB, 18GB, 30GB]\n  training.max_micro_batch: [" + batches + "]\n");
  for (int run = 0; run < 3; ++run) {
    const auto r = test::run_command(kBinary + " sweep " + bad + " --dry-run");
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("got 26GB"), std::string::npos) << r.err;
  }
  std::filesystem::remove(grid);
  std::filesystem::remove(bad);
}

// A grid may name strategies as frameworks do; the sweep says on stderr what each maps to, and the rows
// report them under the registry's names (issue 36, item 4).
TEST(Sweep, AFrameworksStrategyNameIsNotedAndReportedUnderTheRegistrysName) {
  const std::string grid = test::write_temp(
      "alias-grid.yaml", "name: alias\nbase: " + kSource +
                             "/scenarios/default.yaml\nstrategies: [HYBRID_SHARD, full_shard]\naxes:\n"
                             "  training.memory_limit: [7GB]\n");
  const std::string out = temp_path("alias-grid.jsonl");
  std::filesystem::remove(out);
  const auto r = test::run_command(kBinary + " sweep " + grid + " --out " + out + " --quiet");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("note: " + grid + ": 'HYBRID_SHARD' is shardscope's mics: "), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("note: " + grid + ": 'full_shard' is shardscope's fsdp: "), std::string::npos)
      << r.err;
  const std::vector<nlohmann::json> rows = test::rows_of(out);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0]["status"], "ok") << rows[0];
  EXPECT_TRUE(rows[0]["metrics"].contains("fsdp")) << rows[0];
  EXPECT_TRUE(rows[0]["metrics"].contains("mics")) << rows[0];
  std::filesystem::remove(out);
  std::filesystem::remove(grid);
}

// A point's values go to its child on the command line; values longer than one argument may be (an axis
// value of 150 KB here) leave the child to expand the grid instead of failing to start it.
TEST(Sweep, AxisValuesTooLongForOneArgumentStillRun) {
  const std::string long_text(150'000, 'a');
  const std::string grid = test::write_temp(
      "long-values.yaml", "name: long\nbase: " + kSource +
                              "/scenarios/default.yaml\nstrategies: [fsdp]\naxes:\n" + "  description: [" +
                              long_text + "]\n  training.memory_limit: [8GB, 16GB]\n");
  const std::string out = temp_path("long-values.jsonl");
  std::filesystem::remove(out);
  const auto r = test::run_command(kBinary + " sweep " + grid + " --out " + out + " --quiet --jobs 1");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::vector<nlohmann::json> rows = test::rows_of(out);
  ASSERT_EQ(rows.size(), 2u);
  for (const auto& row : rows) EXPECT_EQ(row["status"], "ok") << row["error"];
  std::filesystem::remove(out);
  std::filesystem::remove(grid);
}

TEST(Sweep, ShardsSplitThePointsAndAutoReadsSlurm) {
  const std::string out = temp_path("shards.jsonl");
  for (const char* shard : {"0/3", "1/3", "2/3"}) {
    const auto r =
        test::run_command(kBinary + " sweep " + kGrid + " --dry-run --shard " + std::string(shard));
    EXPECT_EQ(r.exit_code, 0) << r.err;
  }
  const auto a = test::run_command("SLURM_ARRAY_TASK_ID=5 SLURM_ARRAY_TASK_MIN=4 SLURM_ARRAY_TASK_COUNT=2 " +
                                   kBinary + " sweep " + kGrid + " --dry-run --shard auto");
  const auto b = test::run_command(kBinary + " sweep " + kGrid + " --dry-run --shard 1/2");
  EXPECT_EQ(a.exit_code, 0) << a.err;
  EXPECT_EQ(a.out, b.out);
  const auto none = test::run_command("env -u SLURM_ARRAY_TASK_ID " + kBinary + " sweep " + kGrid +
                                      " --dry-run --shard auto");
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("SLURM_ARRAY_TASK_ID"), std::string::npos) << none.err;
  EXPECT_EQ(test::run_command(kBinary + " sweep " + kGrid + " --dry-run --shard 2/2").exit_code, 2);
}

TEST(Overrides, PlanFromAHuggingFaceConfigWithoutAScenario) {
  const auto r = test::run_command(kBinary + " plan --json --quiet --no-baselines --model " + kSource +
                                   "/scenarios/hf/llama-2-7b.json --cluster dgx-a100 --nodes 4");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto report = nlohmann::json::parse(r.out);
  EXPECT_TRUE(report["plan"].contains("operators"));
  const auto inspect = test::run_command(kBinary + " inspect " + kSource +
                                         "/scenarios/hf/llama-2-7b.json --cluster dgx-a100 --json");
  ASSERT_EQ(inspect.exit_code, 0) << inspect.err;
  EXPECT_EQ(nlohmann::json::parse(inspect.out)["cluster"]["gpus"], 8);
}

TEST(Overrides, BadOverridesExitTwoNamingTheFlag) {
  const auto unknown = test::run_command(kBinary + " inspect " + kSource +
                                         "/scenarios/default.yaml --set training.memroy_limit=16GB");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(
      unknown.err.find("error: --set training.memroy_limit=16GB: unknown key; did you mean 'memory_limit'?"),
      std::string::npos)
      << unknown.err;
  const auto type =
      test::run_command(kBinary + " inspect " + kSource + "/scenarios/default.yaml --set cluster.nodes=two");
  EXPECT_EQ(type.exit_code, 2);
  EXPECT_NE(type.err.find("--set cluster.nodes=two: "), std::string::npos) << type.err;
  const auto none = test::run_command(kBinary + " inspect --cluster dgx-a100");
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("no scenario file and no model"), std::string::npos) << none.err;
}

}  // namespace
}  // namespace shardscope
