// Small string helpers shared by the Dockerfile module's sources.
#pragma once

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>
#include <vector>

#include "common/version.h"

namespace imagelint::dockerfile {

inline bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
inline bool EndsWith(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}
inline std::string ToLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}
inline std::vector<std::string> SplitOn(std::string_view s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find(sep, start);
    if (end == std::string_view::npos) end = s.size();
    out.emplace_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}
inline bool IsVersion(std::string_view s) {
  if (s.empty() || !std::isdigit(static_cast<unsigned char>(s.front())) || s.back() == '.') return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c)) && c != '.') return false;
  return true;
}
// Natural version order (common/version.h); total, so text never fails.
inline int CompareVersions(std::string_view a, std::string_view b) { return CompareNaturalVersions(a, b); }
// "1.12.1" -> "1.12"
inline std::string MajorMinor(std::string_view version) {
  auto parts = SplitOn(version, '.');
  if (parts.size() < 2) return std::string(version);
  return parts[0] + "." + parts[1];
}

}  // namespace imagelint::dockerfile
