#include "common/version.h"

#include <cstdint>

namespace imagelint {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Next dot-separated component of `rest` (consumed); "" once `rest` is empty.
std::string_view NextComponent(std::string_view& rest) {
  size_t dot = rest.find('.');
  std::string_view part = rest.substr(0, dot);
  rest = dot == std::string_view::npos ? std::string_view() : rest.substr(dot + 1);
  return part;
}

// Digit runs compare as numbers of any length: leading zeros off, then
// length, then the digits as text.
int CompareDigitRuns(std::string_view a, std::string_view b) {
  while (a.size() > 1 && a.front() == '0') a.remove_prefix(1);
  while (b.size() > 1 && b.front() == '0') b.remove_prefix(1);
  if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
  int c = a.compare(b);
  return c < 0 ? -1 : c > 0 ? 1 : 0;
}

// Digits and single dots, each component at most 18 digits (a number no
// driver, toolkit or package has; longer ones are noise, not versions).
bool IsStrictVersion(std::string_view s) {
  if (s.empty() || s.front() == '.' || s.back() == '.') return false;
  size_t run = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '.') {
      if (s[i + 1] == '.') return false;  // s.back() != '.', so i + 1 < size
      run = 0;
    } else if (!IsDigit(s[i]) || ++run > 18) {
      return false;
    }
  }
  return true;
}

}  // namespace

bool IsDottedVersion(std::string_view text) { return IsStrictVersion(text); }

std::optional<int> CompareVersions(std::string_view a, std::string_view b) {
  if (!IsStrictVersion(a) || !IsStrictVersion(b)) return std::nullopt;
  while (!a.empty() || !b.empty()) {
    std::string_view x = NextComponent(a), y = NextComponent(b);
    if (int c = CompareDigitRuns(x.empty() ? "0" : x, y.empty() ? "0" : y); c != 0) return c;
  }
  return 0;
}

int CompareNaturalVersions(std::string_view a, std::string_view b) {
  auto strip_v = [](std::string_view s) {
    if (s.size() > 1 && (s[0] == 'v' || s[0] == 'V') && IsDigit(s[1])) s.remove_prefix(1);
    return s;
  };
  a = strip_v(a);
  b = strip_v(b);
  while (!a.empty() || !b.empty()) {
    std::string_view x = NextComponent(a), y = NextComponent(b);
    size_t dx = 0, dy = 0;
    while (dx < x.size() && IsDigit(x[dx])) ++dx;
    while (dy < y.size() && IsDigit(y[dy])) ++dy;
    std::string_view nx = dx ? x.substr(0, dx) : std::string_view("0");
    std::string_view ny = dy ? y.substr(0, dy) : std::string_view("0");
    if (int c = CompareDigitRuns(nx, ny); c != 0) return c;
    std::string_view rx = x.substr(dx), ry = y.substr(dy);
    if (rx == ry) continue;
    if (rx.empty()) return 1;  // a release sorts after its pre-release
    if (ry.empty()) return -1;
    return rx < ry ? -1 : 1;
  }
  return 0;
}

}  // namespace imagelint
