// Names: joining name lists and finding the nearest name (edit distance) for "did you mean" suggestions.
#include "planner/core/names.hpp"

#include <algorithm>
#include <cctype>

namespace shardscope {

std::string join(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (const std::string& item : items) {
    if (!out.empty()) out += separator;
    out += item;
  }
  return out;
}

int edit_distance(std::string_view a, std::string_view b) {
  auto same = [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
  };
  // Three rows of the (|a|+1) x (|b|+1) table: two rows back is needed for transpositions.
  std::vector<int> before(b.size() + 1), previous(b.size() + 1), row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) previous[j] = static_cast<int>(j);
  for (std::size_t i = 1; i <= a.size(); ++i) {
    row[0] = static_cast<int>(i);
    for (std::size_t j = 1; j <= b.size(); ++j) {
      row[j] =
          std::min({previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (same(a[i - 1], b[j - 1]) ? 0 : 1)});
      if (i > 1 && j > 1 && same(a[i - 1], b[j - 2]) && same(a[i - 2], b[j - 1])) {
        row[j] = std::min(row[j], before[j - 2] + 1);
      }
    }
    std::swap(before, previous);
    std::swap(previous, row);
  }
  return previous[b.size()];
}

std::optional<std::string> nearest_name(std::string_view text, const std::vector<std::string>& candidates) {
  const int limit = std::clamp(static_cast<int>(text.size()) / 3, 1, 3);
  std::optional<std::string> best;
  int best_distance = limit + 1;
  for (const std::string& c : candidates) {
    const int d = edit_distance(text, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

std::string suggest_or_list(std::string_view text, const std::vector<std::string>& candidates,
                            std::string_view list_intro) {
  if (const auto near = nearest_name(text, candidates)) return "; did you mean '" + *near + "'?";
  return "; " + std::string(list_intro) + " " + join(candidates);
}

}  // namespace shardscope
