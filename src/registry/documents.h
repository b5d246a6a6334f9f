// What the registry sends as JSON, read without the network: token server
// answers, error bodies, manifests / indexes and configs. Kept apart from the
// HTTP code so that each reader is a plain function over bytes (and a fuzz
// target: tests/fuzz/registry_documents_fuzz.cpp).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "imagelint/result.h"
#include "imagelint/source.h"

namespace imagelint::registry {

inline constexpr const char* kOciIndex = "application/vnd.oci.image.index.v1+json";
inline constexpr const char* kOciManifest = "application/vnd.oci.image.manifest.v1+json";
inline constexpr const char* kDockerList = "application/vnd.docker.distribution.manifest.list.v2+json";
inline constexpr const char* kDockerManifest = "application/vnd.docker.distribution.manifest.v2+json";
inline constexpr const char* kOciConfig = "application/vnd.oci.image.config.v1+json";
inline constexpr const char* kDockerConfig = "application/vnd.docker.container.image.v1+json";

// The token of a token server's answer: "token", else "access_token"
// (distribution's token spec, https://distribution.github.io/distribution/spec/auth/token/).
// Errors: not JSON, no token, control characters in it.
Result<std::string> TokenFromAnswer(std::string_view body, const std::string& subject);

// The first entry of an error body ({"errors":[{"code":..,"message":..}]},
// distribution-spec "Error Codes"); empty strings for anything else.
struct ErrorBody {
  std::string code;
  std::string message;
};
ErrorBody ReadErrorBody(std::string_view body);

// One manifest document, by its Content-Type and body: an index leads to the
// manifest chosen for the platform (`next_digest`, `next_size`, -1 when not
// given); an image manifest comes back type-checked in `manifest`.
struct ManifestStep {
  bool is_index = false;
  std::string next_digest;
  int64_t next_size = -1;
  nlohmann::json manifest;
};
Result<ManifestStep> ReadManifestDocument(std::span<const uint8_t> bytes, const std::string& content_type,
                                          const OpenOptions& open, const std::string& subject,
                                          const std::string& what);

// The config descriptor of a checked image manifest: its digest (validated)
// and declared size (-1 when absent). Errors: not an image config.
struct ConfigDescriptor {
  std::string digest;
  int64_t size = -1;
};
Result<ConfigDescriptor> ReadConfigDescriptor(const nlohmann::json& manifest, const std::string& subject);

// The config document of that manifest: type-checked config, platform and
// layers (from the manifest's layers and the config's diff_ids and history).
struct ImageDocuments {
  nlohmann::json config;
  Platform platform;
  std::vector<LayerRef> layers;
};
Result<ImageDocuments> ReadConfigDocument(std::span<const uint8_t> bytes, const nlohmann::json& manifest,
                                          const std::string& subject, const std::string& what,
                                          const std::string& manifest_digest);

}  // namespace imagelint::registry
