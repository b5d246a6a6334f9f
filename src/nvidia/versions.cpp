// Version helpers (nvidia.h "versions").
#include <cctype>
#include <cstdint>

#include "imagelint/nvidia.h"
#include "common/version.h"

namespace imagelint::nvidia {
namespace {

// Splits "a.b.c" into numbers; false for anything but digits and single dots.
bool Components(std::string_view s, std::vector<uint64_t>& out) {
  out.clear();
  if (s.empty()) return false;
  uint64_t value = 0;
  bool have_digit = false;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == '.') {
      if (!have_digit) return false;
      out.push_back(value);
      value = 0;
      have_digit = false;
      continue;
    }
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
    if (value > (UINT64_MAX - 9) / 10) return false;
    value = value * 10 + static_cast<uint64_t>(s[i] - '0');
    have_digit = true;
  }
  return true;
}

}  // namespace

std::optional<int> CompareVersions(std::string_view a, std::string_view b) {
  return ::imagelint::CompareVersions(a, b);
}

std::optional<int> CompareToolkitVersions(std::string_view a, std::string_view b) {
  // The natural order of common/version.h, for versions whose core ("1.18.0"
  // of "v1.18.0-rc.1") is a dotted version: a pre-release before its release.
  auto core = [](std::string_view s) {
    if (!s.empty() && (s[0] == 'v' || s[0] == 'V')) s.remove_prefix(1);
    return s.substr(0, s.find('-'));
  };
  if (!IsDottedVersion(core(a)) || !IsDottedVersion(core(b))) return std::nullopt;
  return CompareNaturalVersions(a, b);
}

std::optional<int> DriverBranch(std::string_view driver) {
  std::vector<uint64_t> c;
  if (!Components(driver, c) || c[0] > 100000) return std::nullopt;
  return static_cast<int>(c[0]);
}

std::optional<std::string> MajorMinor(std::string_view version) {
  std::vector<uint64_t> c;
  if (!Components(version, c)) return std::nullopt;
  return std::to_string(c[0]) + "." + std::to_string(c.size() > 1 ? c[1] : 0);
}

std::string ErrorName(int code, const Knowledge& knowledge) {
  if (const auto* row = knowledge.FindError(code)) return row->at("name").get<std::string>();
  return code == 0 ? "" : "cudaError" + std::to_string(code);
}

}  // namespace imagelint::nvidia
