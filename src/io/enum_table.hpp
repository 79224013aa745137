// Name <-> enum tables for presets and flags: an exact lookup, the reverse, and the list of
// allowed names for messages. Mapped by hand so a typo never becomes the first enumerator.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace roofline::io {

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

/// `"x" is not one of: a, b, c`, the one wording for a bad choice.
template <typename E, std::size_t N>
std::string not_one_of(std::string_view got, const EnumTable<E, N>& table) {
  std::string allowed;
  for (const auto& entry : table) allowed += (allowed.empty() ? "" : ", ") + std::string(entry.first);
  return "\"" + std::string(got) + "\" is not one of: " + allowed;
}

}  // namespace roofline::io
