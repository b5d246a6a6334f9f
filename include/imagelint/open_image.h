// Opening a local image: the input kind is detected by content, not by name.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "imagelint/result.h"
#include "imagelint/source.h"

namespace imagelint {

// `path` is a docker-save tarball (legacy, skopeo, Docker >= 25; optionally
// gzip'd), an OCI archive, an OCI layout directory or a root file system
// directory. Indexes / manifest lists are resolved with options.platform; when
// it is absent the error lists the platforms that exist.
Result<std::unique_ptr<ImageSource>> OpenLocalImage(const std::string& path, const OpenOptions& options);

// Selects a manifest from an OCI image index / Docker manifest list
// (`index` is the parsed JSON): skips attestation manifests, matches
// os/architecture/variant after normalisation. Returns the chosen descriptor.
// `subject` names the index in errors. Shared with the registry source.
// With `explicit_platform` false, an index holding a single image selects it
// whatever its platform.
Result<nlohmann::json> SelectPlatform(const nlohmann::json& index, const Platform& wanted,
                                      bool explicit_platform, const std::string& subject);

// The images a container holds, one entry per item: its names (may be empty).
// Picks one by OpenOptions::image_name rules (see source.h): returns its
// position, or an Error naming `subject` and listing the images.
Result<size_t> SelectNamedImage(const std::vector<std::vector<std::string>>& names, const std::string& wanted,
                                const std::string& subject);

// Builds the LayerRef list from a parsed manifest's layers[] and the config
// (diff_ids, history with empty_layer skipped). Shared with the registry source.
Result<std::vector<LayerRef>> LayersFromManifest(const nlohmann::json& manifest_layers,
                                                 const nlohmann::json& config, const std::string& subject);

}  // namespace imagelint
