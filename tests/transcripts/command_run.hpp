// Running one documented command the way a transcript does (/bin/sh -c from the repository root, LC_ALL=C,
// stdin from /dev/null, this build's shardscope first on PATH), and the text helpers both runners share.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace shardscope::test {

// What a command did.
struct Outcome {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs `/bin/sh -c command` in `dir` with stdin from /dev/null and LC_ALL=C, capturing both streams apart
// (stderr without the sanitizer's noise).
Outcome run_in(const std::string& command, const std::string& dir);

// A first word `shardscope` is the binary under test, quoted; one later in the line (`(ulimit -v N;
// shardscope ...)`, `... && shardscope inspect big.yaml`) finds the same binary first on run_in's PATH.
std::string command_line(const std::string& command);

// The binary under test and the repository root, as the build gave them.
const std::string& binary_path();
const std::string& source_dir();

std::string read_file(const std::filesystem::path& path);
void write_file(const std::filesystem::path& path, const std::string& text);

// The lines of `text` without their '\n'; a last line without one is kept.
std::vector<std::string> split_lines(const std::string& text);
bool starts_with(const std::string& s, const std::string& prefix);

// `diff -u` of two texts, labelled "expected LABEL" and "actual LABEL".
std::string unified_diff(const std::string& expected, const std::string& actual, const std::string& label);

}  // namespace shardscope::test
