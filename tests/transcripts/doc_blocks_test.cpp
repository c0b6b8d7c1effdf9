// The documentation's shown runs: every ```console block of README.md and docs/*.md is run like a transcript
// case and must print what it shows (ctest docs.<file>_<n>); and the rules a block is read by.
#include "tests/transcripts/doc_blocks.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/transcripts/build_features.hpp"
#include "tests/transcripts/command_run.hpp"

namespace shardscope::test {
namespace {

namespace fs = std::filesystem;

// The one build-dependent text the shown runs print: `simulate --help` states the actor stack size, which an
// ASan build raises (sim/resources.hpp: 1 MiB instead of 256 KiB). The documentation shows a regular build's.
std::string as_a_regular_build_prints(std::string text) {
#if defined(__SANITIZE_ADDRESS__)
  const std::string sanitized = "actor stacks of 1024 KiB", regular = "actor stacks of 256 KiB";
  for (std::size_t at = text.find(sanitized); at != std::string::npos; at = text.find(sanitized, at))
    text.replace(at, sanitized.size(), regular);
#endif
  return text;
}

// The checked Markdown files, relative to the root, as tests/transcripts/CMakeLists.txt lists them.
std::vector<std::string> doc_files() {
  std::vector<std::string> files;
  std::stringstream list(SHARDSCOPE_DOC_FILES);
  for (std::string file; std::getline(list, file, ',');) files.push_back(file);
  return files;
}

class DocBlockTest : public testing::Test {
 public:
  explicit DocBlockTest(DocBlock block) : block_(std::move(block)) {}
  void TestBody() override {
    if (block_.requires_sim && !kHaveSim) GTEST_SKIP() << "the binary is built without SimGrid";
    if (block_.requires_plot && !kHavePlot) GTEST_SKIP() << "shardscope-plot is built only with Qt 6";
    if (block_.requires_fit && !kHaveFit) GTEST_SKIP() << "calibrate is built only with Eigen";
    Outcome o = run_in(command_line(block_.command), source_dir());
    o.out = as_a_regular_build_prints(o.out);
    const std::string why = doc_block_mismatch(block_, o);
    EXPECT_TRUE(why.empty()) << block_.file << ":" << block_.line << ": `" << block_.command
                             << "` does not print what the block shows: " << why
                             << "\nRun the command from the repository root (LC_ALL=C) and paste its output "
                                "into the block (tests/transcripts/README.md, \"Documentation\").\n";
  }

 private:
  DocBlock block_;
};

// Registers one test per console block, docs.<file>_<n>; a file that cannot be read or parsed registers one
// failing test saying why, docs.<file>_format.
const bool kRegistered = [] {
  for (const std::string& file : doc_files()) {
    std::vector<DocBlock> blocks;
    std::string error;
    try {
      blocks = parse_doc_blocks(file, read_file(fs::path(source_dir()) / file));
    } catch (const std::exception& e) {
      error = e.what();
    }
    if (!error.empty()) {
      DocBlock stand_in;
      stand_in.file = file;
      const std::string name = doc_block_test_name(stand_in);  // FILE_0: FILE_format
      testing::RegisterTest("docs", (name.substr(0, name.size() - 1) + "format").c_str(), nullptr, nullptr,
                            __FILE__, __LINE__, [error]() -> testing::Test* {
                              struct Failing : testing::Test {
                                explicit Failing(std::string e) : e_(std::move(e)) {}
                                void TestBody() override { FAIL() << e_; }
                                std::string e_;
                              };
                              return new Failing(error);
                            });
      continue;
    }
    for (const DocBlock& block : blocks) {
      testing::RegisterTest("docs", doc_block_test_name(block).c_str(), nullptr, nullptr, __FILE__, __LINE__,
                            [block]() -> testing::Test* { return new DocBlockTest(block); });
    }
  }
  return true;
}();

TEST(DocFiles, EveryMarkdownFileUnderDocsIsChecked) {
  std::vector<std::string> on_disk{"README.md"};
  for (const auto& entry : fs::directory_iterator(fs::path(source_dir()) / "docs")) {
    if (entry.is_regular_file() && entry.path().extension() == ".md") {
      on_disk.push_back("docs/" + entry.path().filename().string());
    }
  }
  std::vector<std::string> listed = doc_files();
  std::sort(on_disk.begin(), on_disk.end());
  std::sort(listed.begin(), listed.end());
  EXPECT_EQ(listed, on_disk)
      << "list every docs/*.md in SHARDSCOPE_DOC_FILES (tests/transcripts/CMakeLists.txt)";
}

TEST(DocFiles, TheDocumentationShowsCheckedRuns) {
  std::size_t count = 0;
  for (const std::string& file : doc_files()) {
    count += parse_doc_blocks(file, read_file(fs::path(source_dir()) / file)).size();
  }
  EXPECT_GE(count, 10u);
}

const std::string kExample =
    "Text.\n"
    "\n"
    "<!-- requires sim; requires fit; exit 3 -->\n"
    "```console\n"
    "$ shardscope plan a.yaml \\\n"
    "    --json\n"
    "line 1\n"
    "\n"
    "...\n"
    "```\n"
    "\n"
    "```sh\n"
    "shardscope plan a.yaml --out plan.json   # not run\n"
    "```\n"
    "```console\n"
    "$ shardscope --version\n"
    "```\n";

TEST(DocBlockFormat, ReadsCommandOutputAndDirectives) {
  const std::vector<DocBlock> blocks = parse_doc_blocks("docs/x.md", kExample);
  ASSERT_EQ(blocks.size(), 2u);
  EXPECT_EQ(blocks[0].line, 4);
  EXPECT_EQ(blocks[0].index, 1);
  EXPECT_EQ(blocks[0].command, "shardscope plan a.yaml \\\n    --json");
  EXPECT_EQ(blocks[0].shown, (std::vector<std::string>{"line 1", ""}));
  EXPECT_TRUE(blocks[0].continues);
  EXPECT_TRUE(blocks[0].requires_sim);
  EXPECT_FALSE(blocks[0].requires_plot);
  EXPECT_TRUE(blocks[0].requires_fit);
  EXPECT_EQ(blocks[0].exit_code, 3);
  EXPECT_EQ(blocks[1].command, "shardscope --version");
  EXPECT_TRUE(blocks[1].shown.empty());
  EXPECT_FALSE(blocks[1].continues);
  EXPECT_EQ(blocks[1].exit_code, 0);
  EXPECT_EQ(doc_block_test_name(blocks[0]), "x_md_1");
  DocBlock readme;
  readme.file = "README.md";
  readme.index = 4;
  EXPECT_EQ(doc_block_test_name(readme), "README_md_4");
}

// Runs parse_doc_blocks and returns its error ("" when it accepts the text).
std::string parse_error(const std::string& text) {
  try {
    parse_doc_blocks("d.md", text);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(DocBlockFormat, RefusesBlocksThatWouldGoUnchecked) {
  EXPECT_EQ(parse_error("```console\n$ ls\n```\n"),
            "d.md:1: a console block starts with `$ shardscope ...` (use ```sh for other commands)");
  EXPECT_EQ(parse_error("```console\n$ shardscope a\nx\n$ shardscope b\n```\n"),
            "d.md:4: one command per console block");
  EXPECT_EQ(
      parse_error("```text\n$ shardscope inspect x\nout\n```\n"),
      "d.md:2: a shown run of shardscope belongs in a ```console block, which the tests check (this block is "
      "```text)");
  EXPECT_EQ(
      parse_error("<!-- requires simgrid -->\n```console\n$ shardscope a\n```\n"),
      "d.md:1: unknown directive 'requires simgrid' before a console block (expected requires sim, requires "
      "plot, requires fit, exit N or stderr, separated by ';')");
  EXPECT_EQ(parse_error("```console\n$ shardscope a\n"), "d.md:1: a fenced block is never closed");
  EXPECT_EQ(parse_error("<!-- a comment before other text -->\n```sh\nls\n```\n"), "");
}

DocBlock block_showing(std::vector<std::string> shown, bool continues) {
  DocBlock block;
  block.file = "docs/x.md";
  block.line = 7;
  block.command = "shardscope x";
  block.shown = std::move(shown);
  block.continues = continues;
  return block;
}

TEST(DocBlockCheck, TheWholeOutputMustMatchByteForByte) {
  const DocBlock block = block_showing({"a", "b"}, false);
  EXPECT_EQ(doc_block_mismatch(block, Outcome{0, "a\nb\n", "a warning\n"}), "");
  EXPECT_NE(doc_block_mismatch(block, Outcome{0, "a\nB\n", ""}), "");     // a wrong line
  EXPECT_NE(doc_block_mismatch(block, Outcome{0, "a\nb\nc\n", ""}), "");  // more output than shown
  EXPECT_NE(doc_block_mismatch(block, Outcome{0, "a\nb", ""}), "");       // no final newline
  EXPECT_NE(doc_block_mismatch(block, Outcome{0, "a\nb \n", ""}), "");    // a trailing space
  const std::string why = doc_block_mismatch(block, Outcome{2, "a\nb\n", "error: x\n"});
  EXPECT_EQ(why.rfind("exit status 2, expected 0", 0), 0u) << why;
}

TEST(DocBlockCheck, ADotLineShowsOnlyTheFirstLines) {
  const DocBlock block = block_showing({"a", "b"}, true);
  EXPECT_EQ(doc_block_mismatch(block, Outcome{0, "a\nb\nc\n", ""}), "");
  EXPECT_NE(doc_block_mismatch(block, Outcome{0, "a\nx\nc\n", ""}), "");
  EXPECT_EQ(doc_block_mismatch(block, Outcome{0, "a\nb\n", ""}),
            "the block ends with `...` (the output continues), but stdout ends after its 2 lines\n");
}

TEST(DocBlockCheck, AnErrorBlockShowsStderrAndItsExitStatus) {
  DocBlock block = block_showing({"error: bad"}, false);
  block.shows_stderr = true;
  block.exit_code = 2;
  EXPECT_EQ(doc_block_mismatch(block, Outcome{2, "", "error: bad\n"}), "");
  EXPECT_NE(doc_block_mismatch(block, Outcome{0, "", "error: bad\n"}), "");
  EXPECT_NE(doc_block_mismatch(block, Outcome{2, "error: bad\n", ""}), "");
}

}  // namespace
}  // namespace shardscope::test
