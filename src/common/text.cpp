#include "common/text.h"

#include <algorithm>
#include <ctime>

namespace imagelint {
namespace {
bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
}  // namespace

std::string Today() {
  std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[16];
  std::strftime(text, sizeof text, "%Y-%m-%d", &utc);
  return text;
}

std::string ToLower(std::string_view text) {
  std::string out(text);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

std::string_view TrimView(std::string_view text) {
  while (!text.empty() && IsSpace(text.front())) text.remove_prefix(1);
  while (!text.empty() && IsSpace(text.back())) text.remove_suffix(1);
  return text;
}

std::string ReplaceChars(std::string_view text, std::initializer_list<std::pair<char, std::string_view>> table) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    auto it = std::find_if(table.begin(), table.end(), [c](const auto& row) { return row.first == c; });
    if (it == table.end()) out += c;
    else out += it->second;
  }
  return out;
}

std::string PercentEncode(std::string_view text, std::string_view keep) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (char ch : text) {
    auto c = static_cast<unsigned char>(ch);
    bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
                      c == '.' || c == '_' || c == '~';
    if (unreserved || (c != 0 && keep.find(ch) != std::string_view::npos)) {
      out += ch;
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

std::vector<std::string> SplitNonEmpty(std::string_view text, char separator) {
  std::vector<std::string> out;
  for (std::string& part : SplitOn(text, separator))
    if (!part.empty()) out.push_back(std::move(part));
  return out;
}

std::vector<std::string> SplitOn(std::string_view text, char separator) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t end = text.find(separator, start);
    if (end == std::string_view::npos) {
      out.emplace_back(text.substr(start));
      return out;
    }
    out.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
}


size_t EditDistance(std::string_view a_raw, std::string_view b_raw) {
  std::string a = ToLower(a_raw);
  std::string b = ToLower(b_raw);
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1, 0));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

std::string ClosestMatch(std::string_view word, const std::vector<std::string>& candidates, size_t max_distance) {
  constexpr size_t kMaxWordBytes = 256;  // hints are for typed words, not pasted blobs
  if (word.empty() || word.size() > kMaxWordBytes) return "";
  size_t limit = std::min(max_distance, std::max<size_t>(1, word.size() / 3));
  std::string best;
  size_t best_distance = limit + 1;
  for (const std::string& candidate : candidates) {
    if (candidate.size() > kMaxWordBytes) continue;
    size_t distance = EditDistance(word, candidate);
    if (distance < best_distance) {
      best_distance = distance;
      best = candidate;
    }
  }
  return best;
}

bool IsDockerfileName(std::string_view base) {
  std::string lower = ToLower(std::string(base));
  return lower == "dockerfile" || lower == "containerfile" || StartsWith(lower, "dockerfile.") ||
         StartsWith(lower, "containerfile.") || EndsWith(lower, ".dockerfile") || EndsWith(lower, ".containerfile");
}

bool ContainsAnyWord(std::string_view text, const std::vector<std::string>& words) {
  const std::string lower = ToLower(text);
  return std::any_of(words.begin(), words.end(),
                     [&](const std::string& word) { return lower.find(word) != std::string::npos; });
}

bool StartsWithAny(std::string_view text, const std::vector<std::string>& prefixes) {
  return std::any_of(prefixes.begin(), prefixes.end(),
                     [&](const std::string& prefix) { return StartsWith(text, prefix); });
}

bool StarMatch(std::string_view pattern, std::string_view text) {
  size_t p = 0, t = 0, star = std::string_view::npos, resume = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = t;
    } else if (p < pattern.size() && pattern[p] == text[t]) {
      ++p;
      ++t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

}  // namespace imagelint
