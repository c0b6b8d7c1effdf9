// The results table's CSV: what table_csv writes parse_result_csv reads back (quotes, commas, line breaks),
// with each row's line, and malformed CSV refused naming the file and line.
#include "apps/shardscope/result_table.hpp"

#include <gtest/gtest.h>

#include <string>

#include "planner/core/error.hpp"

namespace shardscope::cli {
namespace {

TEST(ResultTable, CsvRoundTripKeepsCellsAndLines) {
  ResultTable table;
  table.columns = {"point", "error"};
  table.rows.push_back({{"p0", ""}, "", 0});
  table.rows.push_back({{"p1", "bad \"value\", at\nline 3"}, "", 0});
  table.rows.push_back({{"p2", "x"}, "", 0});
  const std::string csv = table_csv(table);
  EXPECT_EQ(csv, "point,error\np0,\np1,\"bad \"\"value\"\", at\nline 3\"\np2,x\n");
  const ResultTable back = parse_result_csv(csv, "t.csv");
  EXPECT_EQ(back.columns, table.columns);
  EXPECT_EQ(back.header_line, 1);
  ASSERT_EQ(back.rows.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(back.rows[i].cells, table.rows[i].cells);
  EXPECT_EQ(back.rows[1].line, 3);
  EXPECT_EQ(back.rows[2].line, 5);  // the quoted line break took a line
  EXPECT_EQ(back.rows[2].file, "t.csv");
  EXPECT_EQ(back.column("error"), 1);
  EXPECT_EQ(back.column("nope"), -1);
  // CRLF line ends read the same.
  EXPECT_EQ(parse_result_csv("a,b\r\n1,2\r\n", "w.csv").rows.at(0).cells,
            (std::vector<std::string>{"1", "2"}));
}

void expect_error(const std::string& text, int line, const std::string& part) {
  try {
    parse_result_csv(text, "t.csv");
    ADD_FAILURE() << "no error for " << text;
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "t.csv");
    EXPECT_EQ(e.line(), line) << e.what();
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

TEST(ResultTable, MalformedCsvNamesTheLine) {
  expect_error("", 0, "empty file");
  expect_error(" \n\n", 0, "empty file");
  expect_error("a,b\n1,2\n1,2,3\n", 3, "expected 2 cells as in the header (line 1), got 3");
  expect_error("a,b\n1,\"open\n", 2, "a quoted cell is not closed");
  expect_error("a,b\n\"x\"y,2\n", 2,
               "expected a comma or the end of the line after a closing quote, got 'y'");
}

}  // namespace
}  // namespace shardscope::cli
