// Path cleaning, quote-aware splitting and the shell's glob match for the
// Dockerfile module (fnmatch(3) semantics, without its recursion).
#include "dockerfile/util.h"

#include <cctype>
#include <optional>
#include <utility>

#include "common/text.h"

namespace imagelint::dockerfile {

bool IsDottedNumber(std::string_view text) {
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text.front())) || text.back() == '.') return false;
  for (char c : text)
    if (!std::isdigit(static_cast<unsigned char>(c)) && c != '.') return false;
  return true;
}

std::string MajorMinor(std::string_view version) {
  size_t first = version.find('.');
  if (first == std::string_view::npos) return std::string(version);
  size_t second = version.find('.', first + 1);
  return std::string(version.substr(0, second));
}

std::string CleanPath(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  std::string out;
  out.reserve(path.size());
  for (size_t i = 0; i < path.size(); ++i)
    if (!(path[i] == '/' && i + 1 < path.size() && path[i + 1] == '/')) out.push_back(path[i]);
  return out;
}

std::vector<std::string> SplitKeepingQuotes(std::string_view text, char escape) {
  std::vector<std::string> out;
  std::string current;
  char quote = 0;
  bool have = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == escape && quote != '\'' && i + 1 < text.size()) {
      current.push_back(c);
      current.push_back(text[++i]);
      have = true;
      continue;
    }
    if (quote) {
      if (c == quote) quote = 0;
      current.push_back(c);
      continue;
    }
    if (c == '"' || c == '\'') {
      quote = c;
      current.push_back(c);
      have = true;
      continue;
    }
    if (c == ' ' || c == '\t') {
      if (have) out.push_back(current);
      current.clear();
      have = false;
      continue;
    }
    current.push_back(c);
    have = true;
  }
  if (have) out.push_back(current);
  return out;
}

namespace {

// A bracket expression at pattern[p] == '['. Returns the position after it and
// whether `c` is in it; nullopt when the bracket is not closed (then `[` is literal).
std::optional<std::pair<size_t, bool>> MatchBracket(std::string_view pattern, size_t p, char c) {
  size_t i = p + 1;
  bool negate = i < pattern.size() && (pattern[i] == '!' || pattern[i] == '^');
  if (negate) ++i;
  bool found = false;
  bool first = true;
  while (i < pattern.size() && (first || pattern[i] != ']')) {
    first = false;
    char low = pattern[i];
    if (low == '\\' && i + 1 < pattern.size()) low = pattern[++i];
    char high = low;
    if (i + 2 < pattern.size() && pattern[i + 1] == '-' && pattern[i + 2] != ']') {
      high = pattern[i + 2];
      i += 2;
    }
    if (static_cast<unsigned char>(low) <= static_cast<unsigned char>(c) &&
        static_cast<unsigned char>(c) <= static_cast<unsigned char>(high))
      found = true;
    ++i;
  }
  if (i >= pattern.size()) return std::nullopt;
  return std::make_pair(i + 1, found != negate);
}

// One path segment (or a whole text without FNM_PATHNAME): greedy `*` with
// a single backtracking point, so no recursion and no exponential cases.
bool MatchSegment(std::string_view pattern, std::string_view text) {
  size_t p = 0, t = 0, star_p = std::string_view::npos, star_t = 0;
  while (t < text.size()) {
    if (p < pattern.size()) {
      char c = pattern[p];
      if (c == '*') {
        star_p = ++p;
        star_t = t;
        continue;
      }
      if (c == '?') {
        ++p;
        ++t;
        continue;
      }
      bool literal = true;
      if (c == '[') {
        if (auto bracket = MatchBracket(pattern, p, text[t])) {
          literal = false;
          if (bracket->second) {
            p = bracket->first;
            ++t;
            continue;
          }
        }
      }
      if (literal) {
        size_t length = 1;
        if (c == '\\' && p + 1 < pattern.size()) {
          c = pattern[p + 1];
          length = 2;
        }
        if (c == text[t]) {
          p += length;
          ++t;
          continue;
        }
      }
    }
    if (star_p == std::string_view::npos) return false;
    p = star_p;
    t = ++star_t;
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

}  // namespace

bool GlobMatch(std::string_view pattern, std::string_view text, bool pathname) {
  if (!pathname) return MatchSegment(pattern, text);
  auto patterns = SplitOn(pattern, '/');
  auto texts = SplitOn(text, '/');
  if (patterns.size() != texts.size()) return false;
  for (size_t i = 0; i < patterns.size(); ++i)
    if (!MatchSegment(patterns[i], texts[i])) return false;
  return true;
}

}  // namespace imagelint::dockerfile
