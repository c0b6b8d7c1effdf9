// libFuzzer target for the sweep results readers (merge, plot, sweep --resume): the input as a JSON-lines
// results file, merged into a table and written back as CSV, and its rows as a resume reads them; the same
// bytes as merge's CSV, parsed and written back. InputError or success only.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "apps/shardscope/result_table.hpp"
#include "apps/shardscope/sweep_plan.hpp"
#include "apps/shardscope/sweep_rows.hpp"
#include "planner/core/error.hpp"

namespace {

// The reader takes a path: each input goes to this process's own file (two fuzzers may run side by side).
const std::string& rows_path() {
  static const std::string path = "/tmp/shardscope-results-fuzz-" + std::to_string(::getpid()) + ".jsonl";
  return path;
}

void read_as_rows(const std::string& text) {
  if (std::FILE* f = std::fopen(rows_path().c_str(), "wb")) {
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
  }
  try {
    std::ostringstream warnings;
    const shardscope::cli::ResultTable table = shardscope::cli::read_result_table({rows_path()}, warnings);
    (void)shardscope::cli::table_csv(table);
  } catch (const shardscope::InputError&) {
  }
  try {
    const std::vector<shardscope::cli::Json> rows = shardscope::cli::read_rows(rows_path());
    const std::vector<shardscope::cli::SweepTask> tasks = {{0, "p", {}}};
    (void)shardscope::cli::pending_tasks(tasks, rows, false, false);
    (void)shardscope::cli::kept_error_points(tasks, rows, true);
  } catch (const shardscope::InputError&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  read_as_rows(text);
  try {
    (void)shardscope::cli::table_csv(shardscope::cli::parse_result_csv(text, "fuzz.csv"));
  } catch (const shardscope::InputError&) {
  }
  return 0;
}
