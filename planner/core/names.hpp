// Names: one spelling table per enum (value, name, one-line description), with to_string, parse_name, names()
// and "did you mean" suggestions by edit distance.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace shardscope {

template <typename E>
struct NameEntry {
  E value;
  const char* name;
  const char* description = "";
};

// Each enum declares its single table next to its definition:
//   template <> struct EnumNames<DType> {
//     static constexpr NameEntry<DType> table[] = {{DType::fp32, "fp32", "32-bit float"}, ...};
//   };
template <typename E>
struct EnumNames;

template <typename E>
concept NamedEnum = requires {
  EnumNames<E>::table;
};

template <NamedEnum E>
constexpr std::span<const NameEntry<E>> name_table() {
  return EnumNames<E>::table;
}

// The spelling of `value` ("?" for a value missing from the table, which a test rules out).
template <NamedEnum E>
constexpr const char* to_string(E value) {
  for (const NameEntry<E>& e : name_table<E>()) {
    if (e.value == value) return e.name;
  }
  return "?";
}

template <NamedEnum E>
constexpr const char* description(E value) {
  for (const NameEntry<E>& e : name_table<E>()) {
    if (e.value == value) return e.description;
  }
  return "";
}

// The value spelled exactly `text`, or nothing.
template <NamedEnum E>
constexpr std::optional<E> parse_name(std::string_view text) {
  for (const NameEntry<E>& e : name_table<E>()) {
    if (text == e.name) return e.value;
  }
  return std::nullopt;
}

// Every spelling, in table order (for help texts, error lists and GUI lists).
template <NamedEnum E>
std::vector<std::string> names() {
  std::vector<std::string> out;
  for (const NameEntry<E>& e : name_table<E>()) out.emplace_back(e.name);
  return out;
}

// Every value, in table order.
template <NamedEnum E>
std::vector<E> values() {
  std::vector<E> out;
  for (const NameEntry<E>& e : name_table<E>()) out.push_back(e.value);
  return out;
}

// "a, b, c" (or with another separator).
std::string join(const std::vector<std::string>& items, std::string_view separator = ", ");

// Case-insensitive edit distance: insertions, deletions, substitutions and swaps of two adjacent characters
// ("fdsp" is one edit from "fsdp").
int edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `text` when it is close enough to be a likely typo (at most a third of the
// length of `text` edits, at most 3, at least 1; ties go to the earlier candidate); otherwise nothing.
std::optional<std::string> nearest_name(std::string_view text, const std::vector<std::string>& candidates);

// "; did you mean 'x'?" when a candidate is close to `text`, else "; <list_intro> a, b, c".
std::string suggest_or_list(std::string_view text, const std::vector<std::string>& candidates,
                            std::string_view list_intro);

}  // namespace shardscope
