// The container toolkit's reading of an image env, and Debian upstream
// versions (see image_env.h for the sources).
#include "imagelint/image_env.h"

#include <cstdint>

namespace imagelint::nvidia {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsIdentChar(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || IsDigit(c) || c == '-';
}

// golang.org/x/mod/semver parseInt: digits, no leading zero unless "0".
// Consumes from `text`; returns the digits, or nullopt.
std::optional<std::string_view> SemverNumber(std::string_view& text) {
  size_t i = 0;
  while (i < text.size() && IsDigit(text[i])) ++i;
  if (i == 0 || (text[0] == '0' && i != 1)) return std::nullopt;
  std::string_view digits = text.substr(0, i);
  text.remove_prefix(i);
  return digits;
}

// A numeric identifier with a leading zero ("01"), which semver forbids in prereleases.
bool IsBadNumber(std::string_view identifier) {
  size_t i = 0;
  while (i < identifier.size() && IsDigit(identifier[i])) ++i;
  return i == identifier.size() && i > 1 && identifier[0] == '0';
}

// Dot-separated non-empty identifiers of [0-9A-Za-z-] (x/mod parsePrerelease
// and parseBuild; prereleases also reject numeric identifiers with leading zeros).
bool SemverIdentifiers(std::string_view text, bool prerelease) {
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i < text.size() && text[i] != '.') {
      if (!IsIdentChar(text[i])) return false;
      continue;
    }
    std::string_view identifier = text.substr(start, i - start);
    if (identifier.empty() || (prerelease && IsBadNumber(identifier))) return false;
    start = i + 1;
  }
  return true;
}

struct SemverParts {
  std::string_view major, minor;
};

// golang.org/x/mod/semver parse(): "vMAJOR[.MINOR[.PATCH[-PRERELEASE][+BUILD]]]".
std::optional<SemverParts> ParseGoSemver(std::string_view v) {
  if (v.empty() || v[0] != 'v') return std::nullopt;
  v.remove_prefix(1);
  SemverParts parts;
  auto major = SemverNumber(v);
  if (!major) return std::nullopt;
  parts.major = *major;
  parts.minor = "0";
  if (v.empty()) return parts;
  if (v[0] != '.') return std::nullopt;
  v.remove_prefix(1);
  auto minor = SemverNumber(v);
  if (!minor) return std::nullopt;
  parts.minor = *minor;
  if (v.empty()) return parts;
  if (v[0] != '.') return std::nullopt;
  v.remove_prefix(1);
  if (!SemverNumber(v)) return std::nullopt;
  if (!v.empty() && v[0] == '-') {
    size_t end = v.find('+');
    if (!SemverIdentifiers(v.substr(1, end == std::string_view::npos ? std::string_view::npos : end - 1), true))
      return std::nullopt;
    v.remove_prefix(end == std::string_view::npos ? v.size() : end);
  }
  if (!v.empty() && v[0] == '+') {
    if (!SemverIdentifiers(v.substr(1), false)) return std::nullopt;
    v = {};
  }
  if (!v.empty()) return std::nullopt;
  return parts;
}

// strconv.ParseUint(s, 10, 32) for the digits semver accepted.
bool FitsUint32(std::string_view digits) {
  if (digits.size() > 10) return false;
  uint64_t value = 0;
  for (char c : digits) value = value * 10 + static_cast<uint64_t>(c - '0');
  return value <= UINT32_MAX;
}

}  // namespace

std::optional<bool> GoParseBool(std::string_view value) {
  if (value == "1" || value == "t" || value == "T" || value == "TRUE" || value == "true" || value == "True")
    return true;
  if (value == "0" || value == "f" || value == "F" || value == "FALSE" || value == "false" || value == "False")
    return false;
  return std::nullopt;
}

bool DisableRequireIsTrue(std::optional<std::string_view> value) {
  return value && GoParseBool(*value).value_or(false);
}

bool IsLegacyCudaImage(std::string_view cuda_version, std::string_view require_cuda) {
  return !cuda_version.empty() && require_cuda.empty();
}

std::optional<std::string> LegacyCudaRequirementVersion(std::string_view cuda_version) {
  // vVersion := "v" + strings.TrimPrefix(version, "v")
  std::string prefixed = "v";
  prefixed += cuda_version.substr(!cuda_version.empty() && cuda_version[0] == 'v' ? 1 : 0);
  auto parts = ParseGoSemver(prefixed);
  if (!parts || !FitsUint32(parts->major) || !FitsUint32(parts->minor)) return std::nullopt;
  return std::string(parts->major) + "." + std::string(parts->minor);
}

std::string PackageUpstreamVersion(std::string_view debian_version) {
  std::string_view version = debian_version;
  size_t colon = version.find(':');
  if (colon != std::string_view::npos) version.remove_prefix(colon + 1);
  size_t dash = version.rfind('-');
  if (dash != std::string_view::npos) version = version.substr(0, dash);
  size_t local = version.find_first_of("~+");
  if (local != std::string_view::npos) version = version.substr(0, local);
  return std::string(version);
}

facts::Requirements RequirementsFromEnv(const std::map<std::string, std::string>& env) {
  facts::Requirements out;
  for (const auto& [name, value] : env)
    if (facts::IsRequirementVariable(name)) out.variables[name] = value;
  auto get = [&](const char* name) -> std::optional<std::string_view> {
    auto it = env.find(name);
    if (it == env.end()) return std::nullopt;
    return std::string_view(it->second);
  };
  out.disabled = DisableRequireIsTrue(get("NVIDIA_DISABLE_REQUIRE"));
  std::string_view cuda_version = get("CUDA_VERSION").value_or("");
  bool legacy = IsLegacyCudaImage(cuda_version, get("NVIDIA_REQUIRE_CUDA").value_or(""));
  out.legacy = legacy;
  if (legacy) {
    out.legacy_cuda_version = LegacyCudaRequirementVersion(cuda_version);
    if (!out.legacy_cuda_version) out.legacy_cuda_version_invalid = true;
  }
  return out;
}

}  // namespace imagelint::nvidia
