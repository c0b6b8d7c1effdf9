// Results rows read back (merge, plot, --resume): a field of the wrong type is an InputError naming the
// file, the row's line and the field, never a parser's internal error.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "apps/shardscope/sweep_rows.hpp"
#include "planner/core/error.hpp"

namespace shardscope::cli {
namespace {

const std::string kGood =
    R"({"point":"p1","index":0,"grid":"g","axes":{"model":"a"},"version":"0.1.0","revision":"r",)"
    R"("simulated":false,"status":"ok","metrics":{"fsdp":{"fits":true,"samples_per_second":2.5}},)"
    R"("wall_seconds":0.1})";

// kGood with `field` set to the JSON `value`, on line 2 after a good row.
std::string file_with(const std::string& field, const std::string& value) {
  Json bad = Json::parse(kGood);
  bad[field] = Json::parse(value);
  const std::string path =
      (std::filesystem::temp_directory_path() / ("shardscope-rows-" + std::to_string(::getpid()) + ".jsonl"))
          .string();
  std::ofstream(path) << kGood << "\n" << bad.dump() << "\n";
  return path;
}

void expect_refused(const std::string& field, const std::string& value, const std::string& named,
                    const std::string& expected) {
  const std::string path = file_with(field, value);
  try {
    read_rows(path);
    ADD_FAILURE() << field << " = " << value << " was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_EQ(e.line(), 2) << e.what();
    EXPECT_EQ(e.field(), named) << e.what();
    EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
  }
  std::filesystem::remove(path);
}

TEST(ResultRows, AFieldOfTheWrongTypeNamesItsLineAndField) {
  expect_refused("grid", "5", "grid", "expected a string, got 5");
  expect_refused("index", "\"x\"", "index", "a whole number of 0 or more");
  expect_refused("index", "-1", "index", "a whole number of 0 or more, got -1");
  expect_refused("simulated", "\"yes\"", "simulated", "true or false");
  expect_refused("status", "\"done\"", "status", "ok, does-not-fit or error");
  expect_refused("version", "3", "version", "a string");
  expect_refused("revision", "[]", "revision", "a string");
  expect_refused("error", "{}", "error", "a string");
  expect_refused("wall_seconds", "-1", "wall_seconds", "0 or more");
  expect_refused("axes", "[1]", "axes", "an object of axis values");
  expect_refused("axes", R"({"model":[1]})", "axes.model", "a value");
  expect_refused("axes", R"({"model":null})", "axes.model", "a value");
  expect_refused("metrics", "5", "metrics", "an object of strategies");
  expect_refused("metrics", R"({"fsdp":5})", "metrics.fsdp", "an object of metrics");
  expect_refused("metrics", R"({"fsdp":{"fits":{}}})", "metrics.fsdp.fits", "a number, text or true/false");
}

TEST(ResultRows, GoodRowsAndRowsWithoutOptionalFieldsAreRead) {
  Json minimal = {{"point", "p2"}};
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("shardscope-rows-ok-" + std::to_string(::getpid()) + ".jsonl"))
                               .string();
  std::ofstream(path) << kGood << "\n" << minimal.dump() << "\n";
  EXPECT_EQ(read_rows(path).size(), 2u);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace shardscope::cli
