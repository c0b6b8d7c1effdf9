// The checked examples of the documentation: every ```console block of README.md and docs/*.md, read into a
// command and the output it shows, and the comparison of that output with a run
// (tests/transcripts/README.md).
#pragma once

#include <string>
#include <vector>

#include "tests/transcripts/command_run.hpp"

namespace shardscope::test {

// One ```console block: `$ shardscope ...` (a line ending in `\` continues on the next), then its output.
struct DocBlock {
  std::string file;                // relative to the repository root: README.md, docs/cli.md
  int line = 0;                    // the line of the opening fence, from 1
  int index = 0;                   // from 1, among the file's console blocks
  std::string command;             // after "$ ", relative to the repository root
  std::vector<std::string> shown;  // the output lines shown, without a final `...`
  bool continues = false;          // a last line `...`: the output goes on past the lines shown
  bool requires_sim = false;       // <!-- requires sim -->: skipped without SimGrid
  bool requires_plot = false;      // <!-- requires plot -->: skipped without shardscope-plot
  bool requires_fit = false;       // <!-- requires fit -->: skipped without `calibrate` (Eigen)
  int exit_code = 0;               // <!-- exit N -->: the exit status the run must end with (default 0)
  bool shows_stderr = false;       // <!-- stderr -->: the lines shown are stderr (stdout is not compared)
};

// The console blocks of one Markdown file. Throws std::runtime_error naming FILE:LINE for a console block
// that does not start with `$ shardscope`, holds a second `$ ` line or is never closed, for an unknown
// directive in the HTML comment before one, and for a `$ shardscope` line in a block of another kind (shown
// output must be checked).
std::vector<DocBlock> parse_doc_blocks(const std::string& file, const std::string& text);

// Empty when the run matches the block; otherwise why not, with a unified diff of the output.
std::string doc_block_mismatch(const DocBlock& block, const Outcome& outcome);

// The ctest name of a block: its file without `docs/`, '_' for other characters than letters and digits, and
// its index (README_md_1, cli_md_3).
std::string doc_block_test_name(const DocBlock& block);

}  // namespace shardscope::test
