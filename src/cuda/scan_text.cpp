// Hand-written scanners (see scan_text.h). Each one is linear in its input
// and copies at most kMaxCapturedValue bytes.
#include "cuda/scan_text.h"

#include "common/text.h"

namespace imagelint::cuda {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsHex(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f'); }
// Python's and std::regex's \s for ASCII: space, \t, \n, \v, \f, \r.
bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }
bool IsQuote(char c) { return c == '\'' || c == '"'; }

size_t SkipSpaces(std::string_view text, size_t at) {
  while (at < text.size() && IsSpace(text[at])) ++at;
  return at;
}

size_t DigitsAt(std::string_view text, size_t at) {
  size_t end = at;
  while (end < text.size() && IsDigit(text[end])) ++end;
  return end - at;
}

// A quoted literal at `at`: opening ' or ", then anything but quotes and
// newlines, then ' or ". nullopt when there is none; "too long" is reported
// through `too_long` so that the caller stops looking.
std::optional<std::string> QuotedAt(std::string_view text, size_t at, bool& too_long) {
  if (at >= text.size() || !IsQuote(text[at])) return std::nullopt;
  size_t start = ++at;
  while (at < text.size() && !IsQuote(text[at]) && text[at] != '\n') {
    if (at - start >= kMaxCapturedValue) {
      too_long = true;
      return std::nullopt;
    }
    ++at;
  }
  if (at >= text.size() || !IsQuote(text[at])) return std::nullopt;
  return std::string(text.substr(start, at - start));
}

// `name [: annotation] = 'value'` on one line (leading blanks allowed).
std::optional<std::string> AssignmentOnLine(std::string_view line, std::string_view name, bool& too_long) {
  size_t at = SkipSpaces(line, 0);
  if (line.substr(at, name.size()) != name) return std::nullopt;
  at = SkipSpaces(line, at + name.size());
  if (at < line.size() && line[at] == ':') {
    size_t equals = line.find('=', at);
    if (equals == std::string_view::npos) return std::nullopt;
    at = equals;
  }
  if (at >= line.size() || line[at] != '=') return std::nullopt;
  return QuotedAt(line, SkipSpaces(line, at + 1), too_long);
}

}  // namespace

std::optional<SharedObjectName> ParseSharedObjectName(std::string_view file_name) {
  for (size_t so = file_name.find(".so"); so != std::string_view::npos; so = file_name.find(".so", so + 1)) {
    if (so == 0) continue;
    // After ".so": nothing, or ".N" groups of digits.
    std::string_view rest = file_name.substr(so + 3);
    bool numbers = true;
    for (size_t at = 0; at < rest.size() && numbers;) {
      size_t digits = rest[at] == '.' ? DigitsAt(rest, at + 1) : 0;
      numbers = digits > 0;
      at += 1 + digits;
    }
    if (!numbers) continue;
    SharedObjectName out;
    out.prefix = std::string(file_name.substr(0, so));
    out.stem = out.prefix;
    out.version = rest.empty() ? "" : std::string(rest.substr(1));
    size_t n = out.prefix.size();
    if (n > 9 && out.prefix[n - 9] == '-') {
      bool hex = true;
      for (size_t i = n - 8; i < n; ++i) hex = hex && IsHex(out.prefix[i]);
      if (hex) {
        out.hashed = true;
        out.stem = out.prefix.substr(0, n - 9);
      }
    }
    return out;
  }
  return std::nullopt;
}

std::optional<std::string> ToolkitRoot(std::string_view path) {
  constexpr std::string_view kCuda = "usr/local/cuda";
  if (!StartsWith(path, kCuda)) return std::nullopt;
  size_t at = kCuda.size();
  if (at < path.size() && path[at] == '-') {
    size_t end = at + 1;
    while (end < path.size() && (IsDigit(path[end]) || path[end] == '.')) ++end;
    if (end > at + 1 && end < path.size() && path[end] == '/') return std::string(path.substr(0, end));
    return std::nullopt;
  }
  if (at < path.size() && path[at] == '/') return std::string(kCuda);
  return std::nullopt;
}

std::optional<std::string> ToolkitDirVersion(std::string_view path) {
  constexpr std::string_view kCuda = "usr/local/cuda-";
  if (!StartsWith(path, kCuda)) return std::nullopt;
  size_t at = kCuda.size();
  size_t major = DigitsAt(path, at);
  if (major == 0 || at + major >= path.size() || path[at + major] != '.') return std::nullopt;
  size_t minor = DigitsAt(path, at + major + 1);
  size_t end = at + major + 1 + minor;
  if (minor == 0 || end >= path.size() || path[end] != '/') return std::nullopt;
  return std::string(path.substr(at, end - at));
}

std::string PythonAssignment(std::string_view text, std::string_view name) {
  bool too_long = false;
  for (size_t start = 0; start <= text.size() && !too_long;) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    if (auto value = AssignmentOnLine(text.substr(start, end - start), name, too_long)) return *value;
    start = end + 1;
  }
  return "";
}

std::string PythonDictValue(std::string_view text, std::string_view key) {
  bool too_long = false;
  for (size_t at = text.find(key); at != std::string_view::npos && !too_long; at = text.find(key, at + 1)) {
    size_t after = at + key.size();
    if (at == 0 || !IsQuote(text[at - 1]) || after >= text.size() || !IsQuote(text[after])) continue;
    size_t colon = SkipSpaces(text, after + 1);
    if (colon >= text.size() || text[colon] != ':') continue;
    if (auto value = QuotedAt(text, SkipSpaces(text, colon + 1), too_long)) return *value;
  }
  return "";
}

std::string NumberAfter(std::string_view text, std::string_view marker) {
  for (size_t at = text.find(marker); at != std::string_view::npos; at = text.find(marker, at + 1)) {
    size_t start = at + marker.size();
    size_t end = start;
    while (end < text.size() && (IsDigit(text[end]) || text[end] == '.')) ++end;
    if (end == start) continue;
    if (end - start > kMaxCapturedValue) return "";
    return std::string(text.substr(start, end - start));
  }
  return "";
}

std::optional<std::string> CudaFromDistributionName(std::string_view name) {
  for (size_t at = name.find("-cu"); at != std::string_view::npos; at = name.find("-cu", at + 1)) {
    size_t start = at + 3;
    if (name.substr(start, 2) == "da") start += 2;
    size_t digits = DigitsAt(name, start);
    if (digits == 0 || digits > 8) continue;
    size_t end = start + digits;
    bool x = end < name.size() && name[end] == 'x';
    if (x) ++end;
    if (end != name.size() && name[end] != '-') continue;
    std::string number(name.substr(start, digits));
    if (x) return number + ".x";
    if (number.size() == 3) return number.substr(0, 2) + "." + number.substr(2);
    return number;
  }
  return std::nullopt;
}

std::optional<std::string> CudaFromCondaBuild(std::string_view build) {
  for (size_t at = build.find("cuda"); at != std::string_view::npos; at = build.find("cuda", at + 1)) {
    size_t start = at + 4;
    size_t digits = DigitsAt(build, start);
    if (digits == 0 || digits > 8) continue;
    size_t end = start + digits;
    // cuda12.1 / cuda11_8: major, separator, one minor digit.
    if (end + 1 < build.size() && (build[end] == '.' || build[end] == '_') && IsDigit(build[end + 1]))
      return std::string(build.substr(start, digits)) + "." + build[end + 1];
    // cuda121 / cuda118: the last digit is the minor.
    if (digits >= 2) return std::string(build.substr(start, digits - 1)) + "." + build[end - 1];
  }
  return std::nullopt;
}

}  // namespace imagelint::cuda
