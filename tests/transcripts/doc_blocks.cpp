// Reads the ```console blocks of a Markdown file and compares a run with the output a block shows.
#include "tests/transcripts/doc_blocks.hpp"

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <stdexcept>

namespace shardscope::test {

namespace {

const std::string kPrompt = "$ shardscope";

std::string trimmed(const std::string& s) {
  const std::size_t begin = s.find_first_not_of(" \t");
  if (begin == std::string::npos) return "";
  const std::size_t end = s.find_last_not_of(" \t");
  return s.substr(begin, end - begin + 1);
}

std::string where(const std::string& file, std::size_t line_index) {
  return file + ":" + std::to_string(line_index + 1) + ": ";
}

// The fence a line opens (``` or ~~~ and longer runs), or "" when it is not a fence.
std::string fence_of(const std::string& line) {
  const std::string t = trimmed(line);
  if (t.size() < 3 || (t[0] != '`' && t[0] != '~')) return "";
  const std::size_t run = t.find_first_not_of(t[0]);
  const std::string fence = t.substr(0, run == std::string::npos ? t.size() : run);
  return fence.size() >= 3 ? fence : "";
}

bool closes(const std::string& line, const std::string& fence) {
  const std::string t = trimmed(line);
  return t.size() >= fence.size() && t.find_first_not_of(fence[0]) == std::string::npos;
}

bool is_prompt(const std::string& line) { return line == kPrompt || starts_with(line, kPrompt + " "); }

// Applies the directives of an HTML comment (`<!-- requires sim; exit 3 -->`) to the block after it.
void apply_directives(DocBlock& block, const std::string& comment, const std::string& at) {
  const std::string body = trimmed(comment.substr(4, comment.size() - 7));
  std::size_t start = 0;
  while (start <= body.size()) {
    const std::size_t end = std::min(body.find(';', start), body.size());
    const std::string word = trimmed(body.substr(start, end - start));
    if (word == "requires sim") {
      block.requires_sim = true;
    } else if (word == "requires plot") {
      block.requires_plot = true;
    } else if (word == "requires fit") {
      block.requires_fit = true;
    } else if (word == "stderr") {
      block.shows_stderr = true;
    } else if (starts_with(word, "exit ") && word.size() > 5 && word.size() <= 8 &&
               word.find_first_not_of("0123456789", 5) == std::string::npos) {
      block.exit_code = std::stoi(word.substr(5));
    } else {
      throw std::runtime_error(
          at + "unknown directive '" + word +
          "' before a console block (expected requires sim, requires plot, requires fit, "
          "exit N or stderr, separated by ';')");
    }
    start = end + 1;
  }
}

// Reads the lines between a console block's fences into its command and the output it shows.
void read_console_lines(DocBlock& block, const std::vector<std::string>& lines, std::size_t first,
                        std::size_t end) {
  if (first == end || !is_prompt(lines[first])) {
    throw std::runtime_error(where(block.file, first - 1) +
                             "a console block starts with `$ shardscope ...` (use ```sh for other commands)");
  }
  std::size_t i = first;
  block.command = lines[i].substr(2);
  while (!block.command.empty() && block.command.back() == '\\' && i + 1 < end) {
    block.command += "\n" + lines[++i];
  }
  for (++i; i < end; ++i) {
    if (starts_with(lines[i], "$ ")) {
      throw std::runtime_error(where(block.file, i) + "one command per console block");
    }
    block.shown.push_back(lines[i]);
  }
  if (!block.shown.empty() && block.shown.back() == "...") {
    block.continues = true;
    block.shown.pop_back();
  }
}

std::string joined(const std::vector<std::string>& lines, std::size_t count) {
  std::string text;
  for (std::size_t i = 0; i < count && i < lines.size(); ++i) text += lines[i] + "\n";
  return text;
}

}  // namespace

std::vector<DocBlock> parse_doc_blocks(const std::string& file, const std::string& text) {
  const std::vector<std::string> lines = split_lines(text);
  std::vector<DocBlock> blocks;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string fence = fence_of(lines[i]);
    if (fence.empty()) continue;
    std::size_t close = i + 1;
    while (close < lines.size() && !closes(lines[close], fence)) ++close;
    if (close == lines.size()) throw std::runtime_error(where(file, i) + "a fenced block is never closed");
    const std::string info = trimmed(trimmed(lines[i]).substr(fence.size()));
    if (info == "console") {
      DocBlock block;
      block.file = file;
      block.line = static_cast<int>(i + 1);
      block.index = static_cast<int>(blocks.size() + 1);
      const std::string before = i > 0 ? trimmed(lines[i - 1]) : "";
      if (starts_with(before, "<!--") && before.size() >= 7 && before.rfind("-->") == before.size() - 3) {
        apply_directives(block, before, where(file, i - 1));
      }
      read_console_lines(block, lines, i + 1, close);
      blocks.push_back(std::move(block));
    } else {
      for (std::size_t k = i + 1; k < close; ++k) {
        if (starts_with(trimmed(lines[k]), kPrompt + " ")) {
          throw std::runtime_error(where(file, k) +
                                   "a shown run of shardscope belongs in a ```console block, " +
                                   "which the tests check (this block is ```" + info + ")");
        }
      }
    }
    i = close;
  }
  return blocks;
}

std::string doc_block_mismatch(const DocBlock& block, const Outcome& outcome) {
  const std::string label = block.file + ":" + std::to_string(block.line);
  std::string why;
  if (outcome.exit_code != block.exit_code) {
    why += "exit status " + std::to_string(outcome.exit_code) + ", expected " +
           std::to_string(block.exit_code) + " (another needs <!-- exit N --> before the block); stderr:\n" +
           outcome.err;
  }
  const std::string& actual = block.shows_stderr ? outcome.err : outcome.out;
  const std::string stream = block.shows_stderr ? "stderr" : "stdout";
  const std::string expected = joined(block.shown, block.shown.size());
  if (!block.continues) {
    if (actual != expected) why += stream + " differs:\n" + unified_diff(expected, actual, label);
    return why;
  }
  const std::vector<std::string> actual_lines = split_lines(actual);
  const std::string head = joined(actual_lines, block.shown.size());
  if (head != expected) {
    why += "the first " + std::to_string(block.shown.size()) + " lines of " + stream + " differ:\n" +
           unified_diff(expected, head, label);
  } else if (actual_lines.size() <= block.shown.size()) {
    why += "the block ends with `...` (the output continues), but " + stream + " ends after its " +
           std::to_string(actual_lines.size()) + " lines\n";
  }
  return why;
}

std::string doc_block_test_name(const DocBlock& block) {
  std::string name = starts_with(block.file, "docs/") ? block.file.substr(5) : block.file;
  for (char& c : name) {
    if (std::isalnum(static_cast<unsigned char>(c)) == 0) c = '_';
  }
  return name + "_" + std::to_string(block.index);
}

}  // namespace shardscope::test
