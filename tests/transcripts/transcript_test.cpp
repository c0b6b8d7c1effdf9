// Transcript tests (SimGrid .tesh style): replays every tests/transcripts/*.tesh and tests/hostile/*.tesh
// against the built binary and compares exit code, stdout and stderr byte for byte;
// SHARDSCOPE_UPDATE_GOLDEN=1 rewrites them.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "tests/transcripts/build_features.hpp"
#include "tests/transcripts/command_run.hpp"

namespace shardscope {
namespace {

namespace fs = std::filesystem;
using test::command_line;
using test::kHavePlot;
using test::kHaveSim;
using test::Outcome;
using test::read_file;
using test::split_lines;
using test::starts_with;
using test::unified_diff;
using test::write_file;

const std::string kBinary = SHARDSCOPE_BINARY;
const std::string kSource = SHARDSCOPE_SOURCE_DIR;

// The folders of transcripts under tests/, each a ctest suite of that name ("transcript" for
// tests/transcripts).
struct Suite {
  const char* folder;
  const char* test_suite;
};
constexpr std::array<Suite, 2> kSuites{Suite{"transcripts", "transcript"}, Suite{"hostile", "hostile"}};

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

fs::path suite_dir(const Suite& suite) { return fs::path(kSource) / "tests" / suite.folder; }

bool update_mode() {
  const char* v = std::getenv("SHARDSCOPE_UPDATE_GOLDEN");
  return v != nullptr && std::string(v) != "" && std::string(v) != "0";
}

// The parts of a transcript that are written by hand; everything else is regenerated from a run.
struct Transcript {
  std::vector<std::string> header;  // comment lines and `! requires sim`, kept verbatim
  bool requires_sim = false;
  bool requires_plot = false;         // `! requires plot`: runs shardscope-plot, built only with Qt 6
  bool not_under_sanitizers = false;  // `! not under sanitizers`: sets a ulimit -v that ASan cannot run under
  std::string command;                // after "$ ", relative to the repository root
  std::string stdout_file;            // `! stdout FILE`: expected stdout lives in FILE (relative to the root)
};

Transcript parse_transcript(const fs::path& path) {
  Transcript t;
  for (const std::string& line : split_lines(read_file(path))) {
    if (t.command.empty()) {
      if (starts_with(line, "$ ")) {
        t.command = line.substr(2);
      } else if (line == "! requires sim") {
        t.requires_sim = true;
        t.header.push_back(line);
      } else if (line == "! requires plot") {
        t.requires_plot = true;
        t.header.push_back(line);
      } else if (line == "! not under sanitizers") {
        t.not_under_sanitizers = true;
        t.header.push_back(line);
      } else if (line.empty() || starts_with(line, "#")) {
        t.header.push_back(line);
      } else {
        throw std::runtime_error(
            path.string() + ": before the `$ command` line only `#` comments and " +
            "`! requires sim`, `! requires plot` and `! not under sanitizers` may appear, not: " + line);
      }
    } else if (starts_with(line, "! stdout ")) {
      t.stdout_file = line.substr(9);
    }
  }
  if (t.command.empty()) throw std::runtime_error(path.string() + ": no `$ command` line");
  return t;
}

// Appends `prefix + line` for every line of `text`, and a marker when it does not end with a newline.
void render_stream(std::string& out, const std::string& prefix, const std::string& text,
                   const std::string& name) {
  for (const std::string& line : split_lines(text)) {
    out += (line.empty() ? prefix.substr(0, prefix.size() - 1) : prefix + line) + "\n";  // no trailing blank
  }
  if (!text.empty() && text.back() != '\n') out += "! " + name + " has no final newline\n";
}

// The canonical text of a transcript for this outcome; a transcript passes when its file equals it.
std::string render(const Transcript& t, const Outcome& o) {
  std::string out;
  for (const std::string& line : t.header) out += line + "\n";
  out += "$ " + t.command + "\n";
  out += "! exit " + std::to_string(o.exit_code) + "\n";
  if (!t.stdout_file.empty()) {
    out += "! stdout " + t.stdout_file + "\n";
  } else {
    render_stream(out, "> ", o.out, "stdout");
  }
  render_stream(out, "2> ", o.err, "stderr");
  return out;
}

// Every *.tesh file of a suite, sorted, as names relative to its folder (none when the folder is missing).
std::vector<std::string> transcript_names(const Suite& suite) {
  std::vector<std::string> names;
  if (!fs::is_directory(suite_dir(suite))) return names;
  for (const auto& entry : fs::directory_iterator(suite_dir(suite))) {
    if (entry.is_regular_file() && entry.path().extension() == ".tesh") {
      names.push_back(entry.path().filename().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

// Replays one transcript (or rewrites it in update mode).
void check_transcript(const Suite& suite, const std::string& name) {
  const fs::path path = suite_dir(suite) / name;
  const Transcript t = parse_transcript(path);
  if (t.requires_sim && !kHaveSim) GTEST_SKIP() << "the binary is built without SimGrid";
  if (t.requires_plot && !kHavePlot)
    GTEST_SKIP() << "shardscope-plot is built only with Qt 6, not found here";
  if (t.not_under_sanitizers && kSanitized) {
    GTEST_SKIP() << "AddressSanitizer reserves terabytes of address space: no run fits under a ulimit -v";
  }
  const Outcome o = test::run_in(command_line(t.command), kSource);
  const std::string expected = read_file(path);
  const std::string actual = render(t, o);
  const fs::path stdout_path = fs::path(kSource) / t.stdout_file;
  if (update_mode()) {
    if (actual != expected) {
      write_file(path, actual);
      std::cout << "updated " << path.string() << "\n";
    }
    if (!t.stdout_file.empty() && (!fs::exists(stdout_path) || read_file(stdout_path) != o.out)) {
      write_file(stdout_path, o.out);
      std::cout << "updated " << stdout_path.string() << "\n";
    }
    return;
  }
  const std::string how =
      "\nTo accept the new output: scripts/update-golden.sh (see tests/transcripts/README.md)\n";
  EXPECT_TRUE(expected == actual) << "transcript " << path.string() << " differs:\n"
                                  << unified_diff(expected, actual,
                                                  std::string("tests/") + suite.folder + "/" + name)
                                  << how;
  if (!t.stdout_file.empty()) {
    const std::string golden = fs::exists(stdout_path) ? read_file(stdout_path) : std::string();
    EXPECT_TRUE(golden == o.out) << "stdout differs from " << t.stdout_file << ":\n"
                                 << unified_diff(golden, o.out, t.stdout_file) << how;
  }
}

class TranscriptTest : public testing::Test {
 public:
  TranscriptTest(const Suite& suite, std::string name) : suite_(suite), name_(std::move(name)) {}
  void TestBody() override { check_transcript(suite_, name_); }

 private:
  Suite suite_;
  std::string name_;
};

// Registers one test per transcript, named <suite>.<file stem with '_' for other characters>.
const bool kRegistered = [] {
  for (const Suite& suite : kSuites) {
    for (const std::string& file : transcript_names(suite)) {
      std::string name = fs::path(file).stem().string();
      for (char& c : name) {
        if (std::isalnum(static_cast<unsigned char>(c)) == 0) c = '_';
      }
      testing::RegisterTest(suite.test_suite, name.c_str(), nullptr, nullptr, __FILE__, __LINE__,
                            [suite, file]() -> testing::Test* { return new TranscriptTest(suite, file); });
    }
  }
  return true;
}();

TEST(TranscriptFormat, RenderingRoundTripsOutputWithoutAFinalNewline) {
  Transcript t;
  t.header = {"# a case"};
  t.command = "shardscope --version";
  const std::string text = render(t, Outcome{2, "a\n\nb", "e\n"});
  EXPECT_EQ(text,
            "# a case\n$ shardscope --version\n! exit 2\n> a\n>\n> b\n! stdout has no final newline\n2> e\n");
  EXPECT_EQ(command_line("shardscope inspect x"), "'" + kBinary + "' inspect x");
  EXPECT_EQ(command_line("shardscopex"), "shardscopex");
}

}  // namespace
}  // namespace shardscope
