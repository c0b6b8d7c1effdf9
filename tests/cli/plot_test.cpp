// `shardscope plot` end to end (it runs shardscope-plot): SVG and PNG out, byte-identical runs, JSON lines
// and merged CSV giving the same picture, and every bad input exiting 2 with its file, line and column.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "tests/cli/run_command.hpp"

namespace shardscope {
namespace {

const std::string kBinary = SHARDSCOPE_BINARY;
const std::string kPlotter = SHARDSCOPE_PLOT_BINARY;

// Four points of a grid over nodes and memory limit; osdp does not fit at one of them (no value there).
std::string results_jsonl() {
  std::string rows;
  const char* nodes[] = {"1", "1", "2", "2"};
  const char* limits[] = {"8GB", "16GB", "8GB", "16GB"};
  const char* fsdp[] = {"10.5", "11", "19.75", "21"};
  const char* osdp[] = {"12.25", "", "22.5", "24"};
  for (int i = 0; i < 4; ++i) {
    const std::string osdp_metrics =
        std::string(osdp[i]).empty() ? R"({"fits":false,"shortfall_bytes":1000})"
                                     : std::string(R"({"fits":true,"samples_per_second":)") + osdp[i] + "}";
    rows += R"({"point":"p)" + std::to_string(i) + R"(","index":)" + std::to_string(i) +
            R"(,"grid":"toy","axes":{"cluster.nodes":")" + nodes[i] + R"(","training.memory_limit":")" +
            limits[i] +
            R"("},"simulated":false,"status":"ok","metrics":{"fsdp":{"fits":true,"samples_per_second":)" +
            fsdp[i] + R"(},"osdp":)" + osdp_metrics + "}}\n";
  }
  return rows;
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("shardscope_plot_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

// Runs `shardscope plot ARGS` and expects exit 2 with every one of `parts` on stderr.
void expect_bad_input(const std::string& args, std::initializer_list<std::string> parts) {
  const auto r = test::run_command(kBinary + " plot " + args);
  EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
  for (const std::string& part : parts)
    EXPECT_NE(r.err.find(part), std::string::npos) << part << "\n" << r.err;
}

TEST(Plot, SvgIsDeterministicAndNamesItsSeries) {
  const std::string results = test::write_temp("plot.jsonl", results_jsonl());
  const std::string a = temp_path("a.svg"), b = temp_path("b.svg");
  const std::string args =
      results + " --x training.memory_limit --y samples_per_second --series cluster.nodes";
  const auto first = test::run_command(kBinary + " plot " + args + " --out " + a);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(first.err, "");
  EXPECT_NE(first.out.find("Plotted 4 series, 7 values (bars): " + a), std::string::npos) << first.out;
  ASSERT_EQ(test::run_command(kBinary + " plot " + args + " --out " + b).exit_code, 0);
  const std::string svg = test::read_file(a);
  EXPECT_EQ(svg, test::read_file(b));
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_NE(svg.find("<title>toy: samples_per_second by training.memory_limit</title>"), std::string::npos);
  for (const char* name :
       {"fsdp nodes=1", "fsdp nodes=2", "osdp nodes=1", "osdp nodes=2", "8GB", "16GB", "n/a"}) {
    EXPECT_NE(svg.find(name), std::string::npos) << name;
  }
  // Without --out the same SVG goes to standard output.
  EXPECT_EQ(test::run_command(kBinary + " plot " + args).out, svg);
  // The merged CSV gives the same picture as the JSON lines it came from.
  const std::string csv = temp_path("r.csv"), c = temp_path("c.svg");
  ASSERT_EQ(test::run_command(kBinary + " merge " + results + " --csv " + csv).exit_code, 0);
  ASSERT_EQ(
      test::run_command(kPlotter + " " + csv + " " + args.substr(results.size()) + " --out " + c).exit_code,
      0);
  EXPECT_EQ(test::read_file(c), svg);
  for (const std::string& f : {results, a, b, csv, c}) std::filesystem::remove(f);
}

TEST(Plot, LinesOverNumericXAndPng) {
  const std::string results = test::write_temp("lines.jsonl", results_jsonl());
  const std::string png = temp_path("l.png");
  const auto r =
      test::run_command(kBinary + " plot " + results +
                        " --x cluster.nodes --y samples_per_second --where training.memory_limit=16GB "
                        "--strategies osdp,fsdp --title 'Scaling' --out " +
                        png);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Plotted 2 series, 3 values (lines)"), std::string::npos) << r.out;
  EXPECT_EQ(test::read_file(png).substr(0, 8), std::string("\x89PNG\r\n\x1a\n"));
  // A line chart over text on x is refused, naming the row.
  expect_bad_input(results + " --x training.memory_limit --y samples_per_second --kind line",
                   {results + ":1: training.memory_limit: a line chart needs a number on x, got '8GB'"});
  std::filesystem::remove(results);
  std::filesystem::remove(png);
}

TEST(Plot, RepeatedOptionsAddUpAndLeaveTheResultsFileAlone) {
  // --where and --strategies take one value each time (a list for --strategies), so a results file after
  // them is still the results file.
  const std::string results = test::write_temp("repeat.jsonl", results_jsonl());
  const std::string svg = temp_path("repeat.svg");
  const auto r =
      test::run_command(kBinary + " plot --where training.memory_limit=8GB --strategies osdp " + results +
                        " --x cluster.nodes --y samples_per_second --where cluster.nodes=2 --strategies "
                        "fsdp --kind bar --out " +
                        svg);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Plotted 2 series, 2 values (bars)"), std::string::npos) << r.out;
  std::filesystem::remove(results);
  std::filesystem::remove(svg);
}

TEST(Plot, UnknownColumnsNameTheFileAndOption) {
  const std::string results = test::write_temp("cols.jsonl", results_jsonl());
  expect_bad_input(results + " --x cluster.node --y samples_per_second",
                   {results + ": --x: no column 'cluster.node'", "did you mean 'cluster.nodes'"});
  expect_bad_input(
      results + " --x cluster.nodes --y samples_per_secnd",
      {"--y: no column or per-strategy metric 'samples_per_secnd'", "did you mean 'samples_per_second'"});
  expect_bad_input(results + " --x cluster.nodes --y samples_per_second --series modle",
                   {"--series: no column 'modle'"});
  expect_bad_input(results + " --x cluster.nodes --y samples_per_second --strategies osdb",
                   {"--strategies: no strategy 'osdb'", "did you mean 'osdp'"});
  expect_bad_input(results + " --x cluster.nodes --y samples_per_second --where nodes",
                   {"--where: expected COLUMN=VALUE"});
  expect_bad_input(results + " --x cluster.nodes --y samples_per_second --where training.memory_limit=4GB",
                   {"--where: no row has training.memory_limit=4GB"});
  // Two rows for one series at one x: the columns that tell them apart are named.
  expect_bad_input(
      results + " --x cluster.nodes --y samples_per_second",
      {results + ":2: cluster.nodes: series 'fsdp' already has a value at cluster.nodes = 1 (from " +
           results + ":1)",
       "columns that differ: training.memory_limit"});
  // In a CSV the header is line 1.
  const std::string csv =
      test::write_temp("cols.csv", "point,grid,cluster.nodes,osdp.samples_per_second\np0,g,1,2\n");
  expect_bad_input(csv + " --x nodes --y samples_per_second", {csv + ":1: --x: no column 'nodes'"});
  std::filesystem::remove(results);
  std::filesystem::remove(csv);
}

TEST(Plot, BadCellsAndEmptyFilesNameTheirLine) {
  const std::string bad = test::write_temp(
      "bad.csv", "point,grid,cluster.nodes,osdp.samples_per_second\np0,g,1,2.5\np1,g,2,fast\n");
  expect_bad_input(
      bad + " --x cluster.nodes --y samples_per_second",
      {bad +
       ":3: osdp.samples_per_second: expected a decimal number no larger than 1e300 in size, got 'fast'"});
  const std::string ragged =
      test::write_temp("ragged.csv", "point,cluster.nodes,osdp.samples_per_second\np0,1\n");
  expect_bad_input(ragged + " --x cluster.nodes --y samples_per_second",
                   {ragged + ":2: expected 3 cells as in the header (line 1), got 2"});
  const std::string empty_csv = test::write_temp("empty.csv", "");
  expect_bad_input(empty_csv + " --x cluster.nodes --y samples_per_second", {empty_csv + ": empty file"});
  const std::string header_only =
      test::write_temp("header.csv", "point,cluster.nodes,osdp.samples_per_second\n");
  expect_bad_input(header_only + " --x cluster.nodes --y samples_per_second",
                   {header_only + ":1: no result rows under the header"});
  const std::string empty_jsonl = test::write_temp("empty.jsonl", "\n");
  expect_bad_input(
      empty_jsonl + " --x cluster.nodes --y samples_per_second",
      {empty_jsonl + ": no result rows; expected JSON lines written by `shardscope sweep --out`"});
  const std::string none =
      test::write_temp("none.csv", "point,cluster.nodes,osdp.samples_per_second\np0,1,\n");
  expect_bad_input(none + " --x cluster.nodes --y samples_per_second",
                   {"--y: no plotted row has a value in osdp.samples_per_second"});
  expect_bad_input(temp_path("missing.jsonl") + " --x a --y b", {"missing.jsonl"});
  for (const std::string& f : {bad, ragged, empty_csv, header_only, empty_jsonl, none})
    std::filesystem::remove(f);
}

// Issue 30, 17: hexadecimal, infinite and undrawably large cells are refused (they drew y="nan" bars or read
// 0x10 as 16); a subnormal such as 1e-310 is the tiny number it is.
TEST(Plot, OnlyDecimalNumbersOfADrawableSizeAreValues) {
  for (const std::string cell : {"0x10", "1.7e308", "-1.7e308", "inf", "nan", "1e", "+", ".", "1.2.3"}) {
    const std::string csv = test::write_temp(
        "cell.csv", "point,grid,cluster.nodes,osdp.samples_per_second\np0,g,1,2\np1,g,2," + cell + "\n");
    expect_bad_input(csv + " --x cluster.nodes --y samples_per_second",
                     {csv +
                      ":3: osdp.samples_per_second: expected a decimal number no larger than 1e300 in size, "
                      "got '" +
                      cell + "'"});
    std::filesystem::remove(csv);
  }
  const std::string fine = test::write_temp(
      "fine.csv",
      "point,grid,cluster.nodes,osdp.samples_per_second\np0,g,1,1e-310\np1,g,2,-.5E+2\np2,g,3,7.\n");
  const std::string svg = temp_path("fine.svg");
  const auto r =
      test::run_command(kBinary + " plot " + fine + " --x cluster.nodes --y samples_per_second --out " + svg);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("3 values (lines)"), std::string::npos) << r.out;
  EXPECT_EQ(test::read_file(svg).find("nan"), std::string::npos);
  std::filesystem::remove(fine);
  std::filesystem::remove(svg);
}

TEST(Plot, UnwritableOutputsAreRefusedBeforeReading) {
  const std::string results = test::write_temp("out.jsonl", results_jsonl());
  const std::string args =
      results + " --x cluster.nodes --y samples_per_second --where training.memory_limit=8GB";
  expect_bad_input(args + " --out /nonexistent-folder/fig.svg",
                   {"--out: cannot write /nonexistent-folder/fig.svg"});
  expect_bad_input(args + " --out " + temp_path("fig.pdf"),
                   {"--out: expected a file name ending in .svg or .png"});
  expect_bad_input(args + " --out " + std::filesystem::temp_directory_path().string() + "/",
                   {"--out: expected a file name ending in .svg or .png"});
  const std::string folder = temp_path("folder.svg");
  std::filesystem::create_directory(folder);
  expect_bad_input(args + " --out " + folder, {"--out: cannot write " + folder + ": it is a directory"});
  std::filesystem::remove(folder);
  std::filesystem::remove(results);
}

TEST(Plot, ShardscopeWithoutThePlotterSaysSo) {
  // A shardscope whose folder has no shardscope-plot (a build without Qt) refuses `plot` clearly.
  const std::string folder = temp_path("noqt");
  std::filesystem::create_directory(folder);
  std::filesystem::copy_file(kBinary, folder + "/shardscope");
  const auto r = test::run_command(folder + "/shardscope plot x.jsonl --x a --y b");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("error: plot: runs " + folder +
                       "/shardscope-plot, which could not be started (No such file"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("built only when Qt 6"), std::string::npos) << r.err;
  std::filesystem::remove_all(folder);
}

}  // namespace
}  // namespace shardscope
