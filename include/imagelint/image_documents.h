// Type checks of the JSON documents an image is made of, run right after
// each is parsed and before anything reads it: the OCI image index, image
// manifest and descriptors, the image config, and `docker save`'s
// manifest.json. Every field the OCI image spec (or Docker's save format)
// defines must have its type there (Docker and containerd decode these
// documents into typed Go structs and fail on a wrong type too); unknown
// fields are ignored, as they ignore them. After a check passes, readers of
// the document (here, in the facts and in the registry source) can take the
// types for granted.
//
// Specs: https://github.com/opencontainers/image-spec/blob/main/{image-index,manifest,descriptor,config}.md;
// docker save: https://github.com/moby/moby/blob/master/image/tarexport/tarexport.go (manifestItem).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "imagelint/result.h"

namespace imagelint {

// `subject` names the file (or registry document) in errors; errors also name
// the field: "manifests[1].platform.architecture is an array, expected a string".
Status CheckImageIndex(const nlohmann::json& index, const std::string& subject);
Status CheckImageManifest(const nlohmann::json& manifest, const std::string& subject);
Status CheckImageConfig(const nlohmann::json& config, const std::string& subject);
Status CheckDockerSaveManifest(const nlohmann::json& manifest, const std::string& subject);
// One descriptor (mediaType, digest, size, urls, annotations, platform...).
Status CheckDescriptor(const nlohmann::json& descriptor, const std::string& subject, const std::string& where);

}  // namespace imagelint
