// nccl-tests' header, rank lines and result rows, line by line; NCCL_DEBUG lines and launcher noise between
// them are skipped (a row starts with its size, an unsigned integer).
#include "validate/fit/nccl_tests_log.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <vector>

#include "planner/core/error.hpp"
#include "planner/io/text_file.hpp"

namespace shardscope::fit {

namespace {

bool is_unsigned(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// A finite number of the whole token, else nothing.
std::optional<double> number_of(const std::string& s) {
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

struct Rank {
  std::string host, device;
};

// The test a log names ("all_reduce_perf" -> all-reduce); nothing for a name calibrate does not read.
std::optional<CollectiveKind> kind_of_test(const std::string& name) {
  if (name.rfind("all_reduce", 0) == 0) return CollectiveKind::all_reduce;
  if (name.rfind("all_gather", 0) == 0) return CollectiveKind::all_gather;
  if (name.rfind("reduce_scatter", 0) == 0) return CollectiveKind::reduce_scatter;
  return std::nullopt;
}

class LogReader {
 public:
  LogReader(const std::string& file) : file_(file) {}

  void line(const std::string& text, int number) {
    static const std::regex rank(
        R"(^#?\s*Rank\s+(\d+)\s+(?:Group\s+\d+\s+)?Pid\s+\d+\s+on\s+(\S+)\s+device\s+\d+\s+\[[^\]]*\]\s*(.*)$)");
    static const std::regex starting(R"(^#\s*Collective test starting:\s*(\S+))");
    std::smatch m;
    if (std::regex_search(text, m, starting)) {
      test_ = m[1].str();
      test_line_ = number;
      return;
    }
    if (text.find("Using devices") != std::string::npos) {
      if (!ranks_.empty()) previous_ranks_ = ranks_;
      ranks_.clear();
      return;
    }
    if (std::regex_search(text, m, rank)) {
      const auto r = static_cast<std::size_t>(std::stoul(m[1].str()));
      if (r > (1u << 20)) throw InputError(file_, number, "rank", "rank " + m[1].str() + " is out of range");
      if (ranks_.size() <= r) ranks_.resize(r + 1);
      ranks_[r] = {m[2].str(), m[3].str()};
      return;
    }
    if (!text.empty() && text[0] == '#') {
      if (text.find("redop") != std::string::npos && text.find("size") != std::string::npos)
        with_root_ = text.find("root") != std::string::npos;
      return;
    }
    std::istringstream in(text);
    std::vector<std::string> tokens;
    for (std::string t; in >> t;) tokens.push_back(t);
    if (tokens.empty() || !is_unsigned(tokens[0])) return;  // NCCL_DEBUG output, launcher lines
    row(tokens, number);
  }

  InputError no_ranks(int number) const {
    return InputError(
        file_, number, "Rank",
        "no \"#  Rank N ... on HOST device D [..] NAME\" lines before this: the log's header is "
        "missing, so its ranks are unknown (keep nccl-tests' whole output)");
  }

  Measurements finish() {
    if (ranks_.empty() && previous_ranks_.empty()) throw no_ranks(0);
    if (m_.collectives.empty())
      throw InputError(file_, 0, "size", "no result rows (size count type redop root time algbw busbw ...)");
    return m_;
  }

 private:
  // The rank lines of the test this row belongs to, checked for holes and against the file's other tests.
  void settle_ranks(int number) {
    if (ranks_.empty()) ranks_ = previous_ranks_;
    if (ranks_.empty()) throw no_ranks(number);
    for (std::size_t r = 0; r < ranks_.size(); ++r)
      if (ranks_[r].host.empty())
        throw InputError(
            file_, number, "Rank",
            "no rank line for rank " + std::to_string(r) + " of " + std::to_string(ranks_.size()));
    std::map<std::string, int> per_host;
    for (const Rank& r : ranks_) ++per_host[r.host];
    int most = 0;
    for (const auto& [host, n] : per_host) most = std::max(most, n);
    const int ranks = static_cast<int>(ranks_.size());
    if (settled_ && (ranks != m_.machine.ranks || most != m_.machine.ranks_per_node))
      throw InputError(file_, number, "Rank",
                       "the tests of one log ran on different ranks (" + std::to_string(m_.machine.ranks) +
                           " then " + std::to_string(ranks) + ")");
    m_.machine.ranks = ranks;
    m_.machine.ranks_per_node = most;
    nodes_ = static_cast<int>(per_host.size());
    m_.machine.device_name = ranks_.front().device;
    settled_ = true;
  }

  CollectiveKind kind_of_row(const std::string& redop, const std::string& root, double size, double count,
                             double element, int number) {
    if (!test_.empty()) {
      const std::optional<CollectiveKind> k = kind_of_test(test_);
      if (!k)
        throw InputError(
            file_, test_line_, "test",
            test_ + ": calibrate reads all_reduce_perf, all_gather_perf and reduce_scatter_perf");
      return *k;
    }
    const double n = m_.machine.ranks;
    if (redop == "none" && size == count * element * n) return CollectiveKind::all_gather;
    if (redop != "none" && (root.empty() || root == "-1")) {
      if (size == count * element) return CollectiveKind::all_reduce;
      if (size == count * element * n) return CollectiveKind::reduce_scatter;
    }
    throw InputError(file_, number, "redop",
                     "cannot tell the collective of this row (redop " + redop +
                         "; no \"# Collective test starting\" line names the test)");
  }

  void row(const std::vector<std::string>& t, int number) {
    const bool root = with_root_.value_or(t.size() >= 13);
    const std::size_t body = root ? 5 : 4;
    if (t.size() < body + 8) {
      throw InputError(file_, number, "size",
                       "expected size count type redop" + std::string(root ? " root" : "") +
                           " then time algbw busbw #wrong, out-of-place and in-place; got " +
                           std::to_string(t.size()) + " fields");
    }
    settle_ranks(number);
    const double element = nccl_tests_type_bytes(t[2]);
    if (element <= 0) throw InputError(file_, number, "type", "unknown element type '" + t[2] + "'");
    const std::optional<double> size = number_of(t[0]), count = number_of(t[1]);
    if (!size || !count) throw InputError(file_, number, "size", "size and count must be integers");
    const CollectiveKind kind = kind_of_row(t[3], root ? t[4] : "", *size, *count, element, number);
    const double expected =
        kind == CollectiveKind::all_reduce ? *count * element : *count * element * m_.machine.ranks;
    if (*size != expected) {
      throw InputError(
          file_, number, "count",
          "size " + t[0] + " B is not count " + t[1] + " x " + std::to_string(static_cast<int>(element)) +
              " B" +
              (kind == CollectiveKind::all_reduce ? ""
                                                  : " x " + std::to_string(m_.machine.ranks) + " ranks") +
              " (" + contract_name(kind) + ")");
    }
    if (*size <= 0) return;  // nothing moved: nccl-tests prints the row, there is no time to fit
    for (std::size_t side = 0; side < 2; ++side) {
      const std::size_t at = body + 4 * side;
      const std::optional<double> us = number_of(t[at]);
      if (!us || *us <= 0) {
        throw InputError(file_, number, side == 0 ? "out-of-place time" : "in-place time",
                         "expected a positive time in microseconds, got '" + t[at] + "'");
      }
      CollectiveSample s;
      s.op = kind;
      s.group = GroupKind::global;
      s.group_size = m_.machine.ranks;
      s.nodes = nodes_;
      s.bytes = *size;
      s.time_seconds = *us * 1e-6;
      s.index = m_.collectives.size();
      m_.collectives.push_back(s);
    }
  }

  std::string file_;
  Measurements m_;
  std::vector<Rank> ranks_, previous_ranks_;
  std::optional<bool> with_root_;
  std::string test_;
  int test_line_ = 0;
  int nodes_ = 1;
  bool settled_ = false;
};

}  // namespace

double nccl_tests_type_bytes(const std::string& type) {
  static const std::map<std::string, double> bytes = {
      {"int8", 1},  {"uint8", 1},  {"char", 1}, {"f8e4m3", 1}, {"f8e5m2", 1}, {"half", 2},   {"bfloat16", 2},
      {"int32", 4}, {"uint32", 4}, {"int", 4},  {"float", 4},  {"int64", 8},  {"uint64", 8}, {"double", 8}};
  const auto it = bytes.find(type);
  return it == bytes.end() ? 0 : it->second;
}

Measurements parse_nccl_tests_log(const std::string& text, const std::string& file) {
  LogReader reader(file);
  std::istringstream in(text);
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    reader.line(line, number);
  }
  Measurements m = reader.finish();
  m.file = file;
  m.machine.backend = "nccl-tests";
  return m;
}

Measurements load_nccl_tests_log(const std::string& path) {
  return parse_nccl_tests_log(read_text_file(path, "nccl-tests log"), path);
}

}  // namespace shardscope::fit
