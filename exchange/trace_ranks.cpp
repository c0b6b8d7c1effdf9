// Parsing and resolving `--trace-ranks`: first N, all, nodes:K, or a list of ranks and ranges.
#include "exchange/trace_ranks.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <stdexcept>

namespace shardscope::sim {
namespace {

constexpr std::int64_t kMaxRank = std::int64_t{1} << 30;
const char* const kExpected =
    "expected N (the first N ranks), all, nodes:K (every GPU of K nodes spread over the cluster), or ranks "
    "and ranges such as 0,5,8-15";

// A whole number 0 .. 2^30 spelled with digits only; nullopt otherwise.
std::optional<std::int64_t> whole(const std::string& text) {
  if (text.empty() || text.size() > 10 ||
      !std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c) != 0; })) {
    return std::nullopt;
  }
  const std::int64_t value = std::stoll(text);
  if (value > kMaxRank) return std::nullopt;
  return value;
}

struct Range {
  std::int64_t first = 0, last = 0;
};

// "a" or "a-b" (a <= b) pieces separated by commas; nullopt when any piece is not one.
std::optional<std::vector<Range>> ranges(const std::string& spec) {
  std::vector<Range> out;
  std::size_t start = 0;
  while (start <= spec.size()) {
    const std::size_t comma = spec.find(',', start);
    const std::string piece =
        spec.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const std::size_t dash = piece.find('-');
    const auto first = whole(piece.substr(0, dash));
    const auto last = dash == std::string::npos ? first : whole(piece.substr(dash + 1));
    if (!first || !last || *last < *first) return std::nullopt;
    out.push_back({*first, *last});
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

enum class Kind { first, all, nodes, list };

Kind kind_of(const std::string& spec) {
  if (spec == "all") return Kind::all;
  if (spec.rfind("nodes:", 0) == 0) return Kind::nodes;
  if (whole(spec)) return Kind::first;
  return Kind::list;
}

}  // namespace

std::optional<std::string> trace_ranks_syntax_error(const std::string& spec) {
  switch (kind_of(spec)) {
    case Kind::first:
    case Kind::all:
      return std::nullopt;
    case Kind::nodes: {
      const auto k = whole(spec.substr(6));
      if (!k || *k < 1) return std::string(kExpected) + " (nodes:K needs K of 1 or more), got '" + spec + "'";
      return std::nullopt;
    }
    case Kind::list:
      if (!ranges(spec)) return std::string(kExpected) + ", got '" + spec + "'";
      return std::nullopt;
  }
  return std::nullopt;
}

std::vector<unsigned char> traced_ranks(const std::string& spec, int gpus, int gpus_per_node) {
  if (const auto error = trace_ranks_syntax_error(spec)) throw std::invalid_argument(*error);
  std::vector<unsigned char> out(static_cast<std::size_t>(std::max(0, gpus)), 0);
  switch (kind_of(spec)) {
    case Kind::first: {
      const std::int64_t n = std::min<std::int64_t>(*whole(spec), gpus);
      std::fill(out.begin(), out.begin() + n, 1);
      break;
    }
    case Kind::all:
      std::fill(out.begin(), out.end(), 1);
      break;
    case Kind::nodes: {
      const int per_node = std::max(1, gpus_per_node);
      const std::int64_t nodes = (gpus + per_node - 1) / per_node;
      const std::int64_t k = *whole(spec.substr(6));
      if (k > nodes) {
        throw std::invalid_argument("nodes:" + std::to_string(k) +
                                    " asks for more nodes than the cluster's " + std::to_string(nodes));
      }
      // K nodes evenly spread: node round(i (nodes - 1) / (K - 1)) for i = 0 .. K-1 (node 0 alone for K = 1).
      for (std::int64_t i = 0; i < k; ++i) {
        const std::int64_t node = k == 1 ? 0 : (2 * i * (nodes - 1) + (k - 1)) / (2 * (k - 1));
        for (std::int64_t r = node * per_node; r < std::min<std::int64_t>(gpus, (node + 1) * per_node); ++r)
          out[static_cast<std::size_t>(r)] = 1;
      }
      break;
    }
    case Kind::list: {
      const std::vector<Range> list = *ranges(spec);  // a local: a temporary would die before the loop
      for (const Range& r : list) {
        if (r.last >= gpus) {
          throw std::invalid_argument("rank " + std::to_string(r.last) + " is not one of the cluster's " +
                                      std::to_string(gpus) + " GPUs (0-" + std::to_string(gpus - 1) + ")");
        }
        std::fill(out.begin() + r.first, out.begin() + r.last + 1, 1);
      }
      break;
    }
  }
  return out;
}

}  // namespace shardscope::sim
