// Name <-> enum tables for presets and flags: an exact lookup, the reverse (the first entry of a
// value is its canonical name), and the list of allowed names for messages. Mapped by hand so a typo never becomes the
// first enumerator.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "text/user_text.hpp"

namespace roofline::text {

template <typename E, std::size_t N>
using EnumTable = std::array<std::pair<const char*, E>, N>;

template <typename E, std::size_t N>
std::optional<E> find_enum(const EnumTable<E, N>& table, std::string_view name) {
  for (const auto& [n, value] : table) {
    if (name == n) return value;
  }
  return std::nullopt;
}

template <typename E, std::size_t N>
const char* enum_name(E v, const EnumTable<E, N>& table) {
  for (const auto& [name, value] : table) {
    if (value == v) return name;
  }
  return "?";
}

/// Each value's canonical (first) name, in table order; later spellings of the same value are
/// accepted but not advertised (in messages and in shell completion).
template <typename E, std::size_t N>
std::vector<std::string> canonical_names(const EnumTable<E, N>& table) {
  std::vector<std::string> names;
  names.reserve(N);
  for (std::size_t i = 0; i < N; ++i) {
    bool seen = false;
    for (std::size_t k = 0; k < i; ++k) seen = seen || table[k].second == table[i].second;
    if (!seen) names.emplace_back(table[i].first);
  }
  return names;
}

/// `"x" is not one of: a, b, c`, the one wording for a bad choice, listing the canonical names.
template <typename E, std::size_t N>
std::string not_one_of(std::string_view got, const EnumTable<E, N>& table) {
  std::string allowed;
  for (const std::string& name : canonical_names(table)) allowed += (allowed.empty() ? "" : ", ") + name;
  return quote(got) + " is not one of: " + allowed;
}

}  // namespace roofline::text
