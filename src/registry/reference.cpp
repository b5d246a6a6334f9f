// Image references, parsed like ParseNormalizedNamed of distribution/reference
// (https://github.com/distribution/reference/blob/main/normalize.go).
#include <arpa/inet.h>

#include <algorithm>
#include <cctype>

#include "common/text.h"
#include "imagelint/digest.h"
#include "imagelint/registry.h"

namespace imagelint::registry {
namespace {

constexpr size_t kMaxNameLength = 255;

bool IsLowerAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

// One path component: [a-z0-9]+((\.|_|__|-+)[a-z0-9]+)*
bool ValidComponent(std::string_view part) {
  if (part.empty() || !IsLowerAlnum(part.front()) || !IsLowerAlnum(part.back())) return false;
  size_t i = 0;
  while (i < part.size()) {
    if (IsLowerAlnum(part[i])) {
      ++i;
      continue;
    }
    // A separator run: ".", "_", "__" or one or more "-".
    size_t start = i;
    if (part[i] == '.') {
      ++i;
    } else if (part[i] == '_') {
      ++i;
      if (i < part.size() && part[i] == '_') ++i;
    } else if (part[i] == '-') {
      while (i < part.size() && part[i] == '-') ++i;
    } else {
      return false;
    }
    if (i == start || i >= part.size() || !IsLowerAlnum(part[i])) return false;
  }
  return true;
}

bool ValidTag(std::string_view tag) {
  if (tag.empty() || tag.size() > 128) return false;
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  if (!word(tag.front())) return false;
  return std::all_of(tag.begin(), tag.end(), [&](char c) { return word(c) || c == '.' || c == '-'; });
}

// host[:port], host being a DNS name, an IPv4 address or a bracketed IPv6 one.
bool ValidDomain(std::string_view domain) {
  if (domain.empty()) return false;
  std::string_view host = domain;
  if (host.front() == '[') {
    size_t close = host.find(']');
    if (close == std::string_view::npos) return false;
    std::string_view rest = host.substr(close + 1);
    if (!rest.empty() && (rest.front() != ':' || rest.size() < 2)) return false;
    host = host.substr(1, close - 1);
    return !host.empty() && std::all_of(host.begin(), host.end(), [](char c) {
      return std::isxdigit(static_cast<unsigned char>(c)) || c == ':' || c == '.';
    });
  }
  size_t colon = host.rfind(':');
  if (colon != std::string_view::npos) {
    std::string_view port = host.substr(colon + 1);
    if (port.empty() || port.size() > 5 ||
        !std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return false;
    }
    host = host.substr(0, colon);
  }
  // Dot-separated labels of letters, digits and inner hyphens.
  size_t start = 0;
  for (;;) {
    size_t dot = host.find('.', start);
    std::string_view label = host.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (label.empty() || !std::isalnum(static_cast<unsigned char>(label.front())) ||
        !std::isalnum(static_cast<unsigned char>(label.back())) ||
        !std::all_of(label.begin(), label.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-'; })) {
      return false;
    }
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

std::string HostWithoutPort(std::string_view host) {
  if (!host.empty() && host.front() == '[') {
    size_t close = host.find(']');
    return std::string(host.substr(1, close == std::string_view::npos ? host.size() - 1 : close - 1));
  }
  size_t colon = host.rfind(':');
  return std::string(colon == std::string_view::npos ? host : host.substr(0, colon));
}

}  // namespace

std::string Reference::ApiHost() const {
  return registry == "docker.io" ? "registry-1.docker.io" : registry;
}

std::string Reference::CredentialKey() const {
  return registry == "docker.io" ? "https://index.docker.io/v1/" : registry;
}

std::string Reference::ManifestIdentifier() const { return digest.empty() ? tag : digest; }

std::string Reference::ToString() const {
  std::string text = registry + "/" + repository;
  if (!tag.empty()) text += ":" + tag;
  if (!digest.empty()) text += "@" + digest;
  return text;
}

bool IsLoopbackHost(std::string_view host_port) {
  std::string host = ToLower(HostWithoutPort(host_port));
  if (host == "localhost" || host.ends_with(".localhost")) return true;
  in_addr v4{};
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  if (inet_pton(AF_INET6, host.c_str(), &v6) == 1) return IN6_IS_ADDR_LOOPBACK(&v6);
  return false;
}

Result<Reference> ParseReference(std::string_view text) {
  const std::string subject(text);
  if (text.empty()) return MakeError(subject, "empty image reference");
  if (text.size() > 4096) return MakeError(subject.substr(0, 64) + "...", "image reference too long");
  Reference ref;
  std::string_view rest = text;
  if (size_t at = rest.find('@'); at != std::string_view::npos) {
    ref.digest = std::string(rest.substr(at + 1));
    rest = rest.substr(0, at);
    auto algorithm = ValidateDigest(ref.digest);
    if (!algorithm.ok()) return MakeError(subject, "invalid digest \"" + ref.digest + "\": " + algorithm.error().message);
  }
  size_t last_slash = rest.rfind('/');
  size_t last_colon = rest.rfind(':');
  if (last_colon != std::string_view::npos && (last_slash == std::string_view::npos || last_colon > last_slash)) {
    ref.tag = std::string(rest.substr(last_colon + 1));
    rest = rest.substr(0, last_colon);
    if (!ValidTag(ref.tag)) return MakeError(subject, "invalid tag \"" + ref.tag + "\"");
  }
  std::string_view name = rest;
  size_t first_slash = name.find('/');
  std::string_view first = first_slash == std::string_view::npos ? std::string_view() : name.substr(0, first_slash);
  bool has_domain = first_slash != std::string_view::npos &&
                    (first.find_first_of(".:") != std::string_view::npos || first == "localhost" ||
                     std::any_of(first.begin(), first.end(), [](char c) { return c >= 'A' && c <= 'Z'; }));
  std::string repository;
  if (has_domain) {
    ref.registry = std::string(first);
    repository = std::string(name.substr(first_slash + 1));
    if (!ValidDomain(ref.registry)) return MakeError(subject, "invalid registry \"" + ref.registry + "\"");
  } else {
    ref.registry = "docker.io";
    repository = std::string(name);
  }
  if (ref.registry == "index.docker.io") ref.registry = "docker.io";
  if (ref.registry == "docker.io" && repository.find('/') == std::string::npos) repository = "library/" + repository;
  if (repository.empty()) return MakeError(subject, "missing repository name");
  size_t start = 0;
  for (;;) {
    size_t slash = repository.find('/', start);
    std::string_view part = std::string_view(repository).substr(
        start, slash == std::string::npos ? std::string::npos : slash - start);
    if (!ValidComponent(part)) {
      bool upper = std::any_of(part.begin(), part.end(), [](char c) { return c >= 'A' && c <= 'Z'; });
      return MakeError(subject, upper ? "repository name must be lowercase"
                                      : "invalid repository name component \"" + std::string(part) + "\"");
    }
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  if (ref.registry.size() + 1 + repository.size() > kMaxNameLength) {
    return MakeError(subject, "repository name longer than " + std::to_string(kMaxNameLength) + " characters");
  }
  ref.repository = std::move(repository);
  if (ref.tag.empty() && ref.digest.empty()) ref.tag = "latest";
  return ref;
}

}  // namespace imagelint::registry
