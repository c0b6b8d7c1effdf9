// The results table as CSV (merge writes it, plot reads it back) and reading a results file of either kind.
#include <fstream>
#include <ostream>
#include <sstream>

#include "apps/shardscope/result_table.hpp"
#include "planner/core/error.hpp"

namespace shardscope::cli {
namespace {

std::string quoted_cell(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

bool ends_with(const std::string& text, const std::string& tail) {
  return text.size() >= tail.size() && text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

int ResultTable::column(const std::string& name) const {
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (columns[i] == name) return static_cast<int>(i);
  }
  return -1;
}

std::string table_csv(const ResultTable& table) {
  std::string csv;
  const auto line = [&](const std::vector<std::string>& cells) {
    for (std::size_t i = 0; i < cells.size(); ++i) csv += (i > 0 ? "," : "") + quoted_cell(cells[i]);
    csv += "\n";
  };
  line(table.columns);
  for (const ResultTable::Row& row : table.rows) line(row.cells);
  return csv;
}

ResultTable parse_result_csv(const std::string& text, const std::string& file) {
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
    throw InputError(file, 0, "",
                     "empty file; expected a CSV header line and rows, as `shardscope merge` writes");
  }
  ResultTable table;
  table.file = file;
  std::vector<std::vector<std::string>> records;
  std::vector<int> record_lines;
  std::vector<std::string> cells(1);
  int line = 1, record_line = 1;
  bool quoted = false, after_quote = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        cells.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
        after_quote = true;
      } else {
        if (c == '\n') ++line;
        cells.back() += c;
      }
      continue;
    }
    if (c == ',') {
      cells.emplace_back();
      after_quote = false;
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      records.push_back(std::move(cells));
      record_lines.push_back(record_line);
      cells.assign(1, std::string());
      after_quote = false;
      record_line = ++line;
    } else if (c == '"' && cells.back().empty() && !after_quote) {
      quoted = true;
    } else if (after_quote) {
      throw InputError(
          file, line, "",
          "expected a comma or the end of the line after a closing quote, got '" + std::string(1, c) + "'");
    } else {
      cells.back() += c;
    }
  }
  if (quoted)
    throw InputError(file, record_line, "", "a quoted cell is not closed before the end of the file");
  if (cells.size() > 1 || !cells.front().empty()) {
    records.push_back(std::move(cells));
    record_lines.push_back(record_line);
  }
  std::size_t first = 0;
  while (first < records.size() && records[first].size() == 1 && records[first][0].empty()) ++first;
  table.columns = records[first];
  table.header_line = record_lines[first];
  for (std::size_t r = first + 1; r < records.size(); ++r) {
    if (records[r].size() == 1 && records[r][0].empty()) continue;  // a blank line
    if (records[r].size() != table.columns.size()) {
      throw InputError(file, record_lines[r], "",
                       "expected " + std::to_string(table.columns.size()) + " cells as in the header (line " +
                           std::to_string(record_lines[first]) + "), got " +
                           std::to_string(records[r].size()));
    }
    table.rows.push_back({std::move(records[r]), file, record_lines[r]});
  }
  return table;
}

ResultTable read_result_table(const std::vector<std::string>& paths, std::ostream& warnings) {
  if (paths.empty()) throw UsageError("results", "expected a results file (.jsonl or .csv)");
  for (const std::string& path : paths) {
    std::ifstream probe(path);
    if (!probe) throw InputError(path, 0, "", "cannot read the file");
  }
  if (ends_with(paths.front(), ".csv")) {
    if (paths.size() > 1) {
      throw InputError(paths[1], 0, "", "a CSV file is read alone; merge JSON-lines results instead");
    }
    std::ifstream in(paths.front(), std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return parse_result_csv(text.str(), paths.front());
  }
  ResultTable table = merge_result_files(paths, {}, warnings).table;
  if (table.rows.empty()) {
    throw InputError(paths.front(), 0, "",
                     "no result rows; expected JSON lines written by `shardscope sweep --out` (or a .csv "
                     "written by `shardscope merge --csv`)");
  }
  return table;
}

}  // namespace shardscope::cli
