// OCI artifacts in a registry (image-spec v1.1 "Guidelines for Artifact
// Usage"): push and pull of one blob as the one layer of a typed manifest.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "imagelint/registry.h"
#include "imagelint/result.h"

namespace imagelint::registry {

// One blob published as the one layer of an image manifest whose
// artifactType names what it is, with the empty config
// (application/vnd.oci.empty.v1+json, "{}"): what `imagelint knowledge push`
// and `update` exchange (docs/knowledge.md).
struct ArtifactDescription {
  std::string artifact_type;     // manifest artifactType
  std::string layer_media_type;  // the one layer's mediaType
  std::string title;             // org.opencontainers.image.title of the layer ("" = none)
  std::map<std::string, std::string> annotations;  // the manifest's annotations
};
struct PushedArtifact {
  std::string manifest_digest;  // "sha256:..." of the manifest bytes pushed
  std::string layer_digest;
  uint64_t layer_size = 0;
};
// Uploads the empty config and `blob` (monolithic POST + PUT uploads) and
// puts the manifest under `ref`'s tag (or digest). Errors name the reference.
Result<PushedArtifact> PushArtifact(const Reference& ref, const ArtifactDescription& what, const std::string& blob,
                                    const RegistryOptions& options);
struct PulledArtifact {
  std::string blob;             // the layer's bytes, verified against its digest and size
  std::string manifest_digest;  // sha256 of the manifest bytes as served
  std::string layer_digest;
  std::map<std::string, std::string> annotations;
};
// Reads `ref`'s manifest (at most 1 MiB), checks that it is an OCI image
// manifest of `artifact_type` (artifactType, or config.mediaType as
// registries without artifactType store it) with exactly one layer of
// `layer_media_type` of at most `max_bytes`, that its digest is `ref`'s
// digest and `pinned_digest` when either is given, then downloads the layer
// and checks its size and digest. Every refusal is an error that says why.
Result<PulledArtifact> PullArtifact(const Reference& ref, const std::string& artifact_type,
                                    const std::string& layer_media_type, uint64_t max_bytes,
                                    const std::string& pinned_digest, const RegistryOptions& options);

}  // namespace imagelint::registry
