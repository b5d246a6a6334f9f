// Reading images straight from a registry (OCI distribution spec,
// https://github.com/opencontainers/distribution-spec/blob/main/spec.md, and
// the Docker Registry HTTP API v2 it grew from).
//
//   auto ref = registry::ParseReference("nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04");
//   registry::RegistryOptions options;                  // credentials, TLS, retries
//   auto source = registry::OpenRegistryImage(*ref, open_options, options);
//   auto image = ScanImage(**source, analyzers);        // blobs stream into the scanner
//
// Manifests, indexes, configs and blobs are verified against their digests;
// blob downloads survive dropped connections (they resume with Range) and
// 429/5xx answers (retried with backoff). Passwords and tokens never appear
// in errors.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "imagelint/result.h"
#include "imagelint/source.h"

namespace imagelint::registry {

// `[registry/]name[:tag][@digest]`, normalised the way Docker does.
struct Reference {
  std::string registry;    // "docker.io", "ghcr.io", "127.0.0.1:5000" (host[:port])
  std::string repository;  // "library/ubuntu", "team/train"
  std::string tag;         // "latest" when neither tag nor digest is given
  std::string digest;      // "sha256:..." or empty

  // Host[:port] the API is served from (docker.io -> registry-1.docker.io).
  std::string ApiHost() const;
  // Key of this registry in credential stores (docker.io ->
  // "https://index.docker.io/v1/", else registry).
  std::string CredentialKey() const;
  // "tag" or "digest" as used in /v2/<name>/manifests/<...>.
  std::string ManifestIdentifier() const;
  // Fully qualified: "docker.io/library/ubuntu:22.04[@sha256:...]".
  std::string ToString() const;
};

// Parses like docker/distribution's ParseNormalizedNamed: the first
// component is a registry when it has a '.' or ':' or is "localhost";
// docker.io single names get "library/"; no tag and no digest -> "latest".
Result<Reference> ParseReference(std::string_view text);

// True when `host` (host[:port]) is a loopback name or address.
bool IsLoopbackHost(std::string_view host);

struct Credentials {
  std::string username;
  std::string password;        // or the identity token when identity_token is set
  bool identity_token = false; // docker "<token>" user: password is an OAuth2 refresh token
};

// Where stored credentials are looked up, in this order (skopeo/podman's,
// then Docker's): registry_auth_file, else <xdg_runtime_dir>/containers/auth.json;
// docker_auth_config (JSON text); <docker_config>/config.json, else
// <home>/.docker/config.json. The command line fills these from
// $REGISTRY_AUTH_FILE, $XDG_RUNTIME_DIR, $DOCKER_AUTH_CONFIG, $DOCKER_CONFIG and
// $HOME; the library reads no environment. All empty = no stored credentials.
struct CredentialStores {
  std::string registry_auth_file;
  std::string xdg_runtime_dir;
  std::string docker_auth_config;
  std::string docker_config;
  std::string home;
};

struct RegistryOptions {
  // --username / --password-stdin; when unset, credentials come from
  // `credential_stores` (credHelpers, credsStore, auths).
  std::optional<Credentials> credentials;
  CredentialStores credential_stores;
  // Hosts (host[:port]) reached without TLS verification, falling back to
  // plain HTTP (loopback hosts always are, as with Docker).
  std::vector<std::string> insecure_registries;
  std::string ca_file;  // PEM bundle replacing the system CAs; empty = system
  // "HOST:PORT:CONNECT-HOST:CONNECT-PORT" (curl's --connect-to): reach a
  // registry name at another address while TLS still checks that name.
  // For split-horizon DNS, and for tests of certificate checking.
  std::vector<std::string> connect_to;
  long connect_timeout_seconds = 30;
  long idle_timeout_seconds = 60;  // a transfer with no byte for this long fails (and is retried)
  int max_attempts = 5;            // per request, for 429/5xx and dropped connections
  int backoff_initial_ms = 250;    // doubled each attempt, capped at backoff_max_ms
  int backoff_max_ms = 8000;
  // When set, every request's connection and stall limits are cut to what is
  // left until then (at least a second each): a caller's time budget
  // (Dockerfile mode's --base-timeout).
  std::optional<std::chrono::steady_clock::time_point> deadline;
};

// Credentials stored for `ref`'s registry, if any (see RegistryOptions).
// Errors: a malformed auth file, a failing credential helper.
Result<std::optional<Credentials>> LookupCredentials(const Reference& ref, const CredentialStores& stores);

// Resolves the reference (index -> --platform manifest -> config), verifying
// every digest, and returns an ImageSource whose layers stream from the
// registry. Errors name the reference (401/403/404, network, digests).
Result<std::unique_ptr<ImageSource>> OpenRegistryImage(const Reference& ref, const OpenOptions& open,
                                                       const RegistryOptions& options);

// The tags of `repository` (its tag and digest are ignored), through the
// tag list API (GET /v2/<name>/tags/list), following the Link header's
// rel="next" pages on the same registry. Bounded: at most 100,000 tags and
// 10,000 pages of at most 4 MiB each; a tag that is not a valid tag name is
// an error. Errors name the repository.
Result<std::vector<std::string>> ListTags(const Reference& repository, const RegistryOptions& options);

}  // namespace imagelint::registry
