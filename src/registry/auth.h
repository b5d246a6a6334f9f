// Registry authentication pieces: WWW-Authenticate parsing, Basic encoding
// (Docker registry token authentication:
// https://distribution.github.io/distribution/spec/auth/token/), and
// credential stores (containers-auth.json(5), Docker's config.json and
// credential helpers: https://docs.docker.com/reference/cli/docker/login/).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "imagelint/registry.h"
#include "imagelint/result.h"

namespace imagelint::registry {

struct Challenge {
  std::string scheme;                         // lowercase: "bearer", "basic"
  std::map<std::string, std::string> params;  // lowercase keys: realm, service, scope, error
};

// Parses one or more (comma-joined) challenges of a WWW-Authenticate value,
// with quoted strings and escapes (RFC 7235).
std::vector<Challenge> ParseChallenges(const std::string& header);

std::string Base64Encode(const std::string& bytes);
Result<std::string> Base64Decode(const std::string& text);

// Looks up credentials in one auth file (docker config.json or containers
// auth.json): credHelpers[host], credsStore, auths (host, https://host,
// host/namespace prefixes, Docker Hub's historic key). `file` names the
// source in errors. Returns nullopt when nothing matches.
Result<std::optional<Credentials>> CredentialsFromConfig(const std::string& json_text, const std::string& file,
                                                         const Reference& ref);

// Runs `docker-credential-<helper> get` with the server URL on stdin.
Result<std::optional<Credentials>> CredentialsFromHelper(const std::string& helper, const std::string& server);

}  // namespace imagelint::registry
