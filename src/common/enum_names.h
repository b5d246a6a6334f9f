// Enums written by name: one table per enum, a constexpr array of
// {value, name} pairs, read in both directions, so a name cannot be spelt
// two ways. ReadNamed is the body of a json_record ReadValue hook.
//
//   constexpr std::array<std::pair<Color, std::string_view>, 2> kColorNames{{
//       {Color::kRed, "red"}, {Color::kBlue, "blue"}}};
//   std::string_view ColorName(Color c) { return NameIn(kColorNames, c); }
//   std::optional<Color> ParseColor(std::string_view s) { return ValueIn(kColorNames, s); }
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include "common/json_record.h"

namespace imagelint {

// The name of `value` ("" for a value the table leaves out).
template <class E, size_t N>
std::string_view NameIn(const std::array<std::pair<E, std::string_view>, N>& names, E value) {
  for (const auto& [each, name] : names)
    if (each == value) return name;
  return "";
}

// The value named `text`, if the table has it.
template <class E, size_t N>
std::optional<E> ValueIn(const std::array<std::pair<E, std::string_view>, N>& names, std::string_view text) {
  for (const auto& [each, name] : names)
    if (name == text) return each;
  return std::nullopt;
}

// An enum read from its JSON name; `what` lists the names for the message.
template <class E>
void ReadNamed(const nlohmann::json& value, E& out, std::string& problem, std::optional<E> (*parse)(std::string_view),
               std::string_view what) {
  std::optional<E> parsed = value.is_string() ? parse(value.get<std::string>()) : std::nullopt;
  if (parsed) {
    out = *parsed;
  } else {
    problem = "expected " + std::string(what) + ", got " +
              (value.is_string() ? "\"" + value.get<std::string>().substr(0, 64) + "\"" : json_record::JsonType(value));
  }
}

}  // namespace imagelint
