// Small string and path helpers every module shares. Paths here are the
// '/'-separated paths inside an image or a Dockerfile, never host paths
// (those go through std::filesystem).
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace imagelint {

inline bool StartsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}
inline bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// ASCII only: bytes >= 0x80 are left as they are (names can be any bytes).
std::string ToLower(std::string_view text);

// Whether `text`, lowered, contains one of `words` (given in lower case) /
// starts with one of `prefixes` (as given).
bool ContainsAnyWord(std::string_view text, const std::vector<std::string>& words);
bool StartsWithAny(std::string_view text, const std::vector<std::string>& prefixes);

// Whether `pattern` matches the whole of `text`, where `*` matches any run of
// characters (also '/') and every other character itself. The greedy match
// with one backtrack point: at most |pattern| x |text| steps, no recursion.
bool StarMatch(std::string_view pattern, std::string_view text);

// Without leading and trailing ASCII whitespace (space, \t, \n, \r, \f, \v).
std::string_view TrimView(std::string_view text);
inline std::string Trim(std::string_view text) { return std::string(TrimView(text)); }

// ASCII classes that do not depend on the locale, as the shell and Dockerfile
// readers need them: a variable name starts with a letter or '_' and goes on
// with letters, digits and '_'.
inline bool IsAsciiDigit(char c) { return c >= '0' && c <= '9'; }
inline bool IsAsciiAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
inline bool IsVariableNameStart(char c) { return IsAsciiAlpha(c) || c == '_'; }
inline bool IsVariableNameChar(char c) { return IsVariableNameStart(c) || IsAsciiDigit(c); }

// "YYYY-MM-DD" of the current UTC day (the command line lets $IMAGELINT_TODAY
// override it where it matters, for tests: imagelint::Context::today).
std::string Today();

// "a,b,,c" on ',' -> {"a", "b", "", "c"}; "" -> {""}.
std::vector<std::string> SplitOn(std::string_view text, char separator);
// The non-empty parts only ("/a//b/" on '/' is a, b): search paths, path components.
std::vector<std::string> SplitNonEmpty(std::string_view text, char separator);

// Percent-encoding (RFC 3986): every byte but the unreserved characters
// (A-Z a-z 0-9 - . _ ~) and those in `keep` becomes %XX (upper-case hex).
// PercentEncode("cuda:12.4 x") -> "cuda%3A12.4%20x"; with keep "/", paths keep their slashes.
std::string PercentEncode(std::string_view text, std::string_view keep = "");

// `text` with each character the table names replaced by its text, every
// other character kept: an output format's escaping, written as its table.
// ReplaceChars("a-b", {{'-', "\\-"}}) -> "a\\-b".
std::string ReplaceChars(std::string_view text, std::initializer_list<std::pair<char, std::string_view>> table);

// "usr/lib/libcuda.so.1" -> "libcuda.so.1"; a path without '/' is its own base name.
inline std::string BaseName(std::string_view path) {
  size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}
// "usr/lib/libcuda.so.1" -> "usr/lib"; "libcuda.so.1" -> ""; "/x" -> "".
inline std::string DirName(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? std::string() : std::string(path.substr(0, slash));
}

// Optimal string alignment distance (Levenshtein plus swaps of
// neighbours), ASCII case folded: EditDistance("expain", "Explain") == 1.
// Time and memory quadratic in the lengths: callers bound what they pass
// (typed names, not file contents).
size_t EditDistance(std::string_view a, std::string_view b);

// The candidate nearest to `word` for a "did you mean" hint: the smallest
// edit distance (insertions, deletions, substitutions, swaps of neighbours;
// ASCII case ignored), ties to the earlier candidate. "" when even the
// nearest is further than `max_distance`, or further than a third of the
// word's length (at least 1), so that unrelated words get no hint.
// ClosestMatch("expain", {"scan", "explain"}) -> "explain".
std::string ClosestMatch(std::string_view word, const std::vector<std::string>& candidates, size_t max_distance = 3);

// A file name that docker build and podman read as a Dockerfile by
// convention: Dockerfile, Containerfile, Dockerfile.<x>, <x>.Dockerfile (any
// case; the last component of a path).
bool IsDockerfileName(std::string_view base);

}  // namespace imagelint
