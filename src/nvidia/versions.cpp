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
  auto split = [](std::string_view s) {
    if (!s.empty() && (s[0] == 'v' || s[0] == 'V')) s.remove_prefix(1);
    size_t dash = s.find('-');
    return std::pair<std::string_view, std::string_view>(
        s.substr(0, dash), dash == std::string_view::npos ? std::string_view() : s.substr(dash + 1));
  };
  auto [core_a, pre_a] = split(a);
  auto [core_b, pre_b] = split(b);
  auto c = CompareVersions(core_a, core_b);
  if (!c) return std::nullopt;
  if (*c != 0) return c;
  if (pre_a.empty() != pre_b.empty()) return pre_a.empty() ? 1 : -1;
  if (pre_a == pre_b) return 0;
  // "rc.10" > "rc.9": compare the trailing numbers when the prefixes agree.
  size_t dot_a = pre_a.rfind('.'), dot_b = pre_b.rfind('.');
  if (dot_a != std::string_view::npos && dot_b != std::string_view::npos &&
      pre_a.substr(0, dot_a) == pre_b.substr(0, dot_b)) {
    if (auto n = CompareVersions(pre_a.substr(dot_a + 1), pre_b.substr(dot_b + 1))) return n;
  }
  return pre_a < pre_b ? -1 : 1;
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
