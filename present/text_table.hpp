// TextTable: aligned plain-text tables as the CLI prints them (first two columns left-aligned, the rest
// right).
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace shardscope::present {

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header) : header_(std::move(header)) {}
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  // The header, a rule of dashes, the rows; each line indented by two spaces, trailing spaces trimmed.
  void print(std::ostream& os) const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace shardscope::present
