// Where the facts of a Dockerfile's base image came from: the facts'
// `image.base.resolved_from` and the report's `images[].base.resolved_from`
// (docs/dockerfile.md "Base images"), one enum for both.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace imagelint {

enum class BaseSource {
  kDocker,     // the image itself, from the local Docker engine
  kRegistry,   // the image itself, from its registry
  kLocal,      // the image itself, from a --base-image REF=PATH archive or layout
  kKnowledge,  // the knowledge tables (base-images.yaml), the image not read
  kNone,       // nothing: no table knows the image and it was not read
};

// "docker" | "registry" | "local" | "knowledge" | "none"
std::string_view BaseSourceName(BaseSource source);
std::optional<BaseSource> ParseBaseSource(std::string_view text);

// docker, registry and local: the image itself was read, not a table row.
bool ReadFromImage(BaseSource source);

// Written and read by name (common/json_record.h hooks).
nlohmann::json WriteValue(const BaseSource& value);
void ReadValue(const nlohmann::json& value, BaseSource& out, std::string& problem);

}  // namespace imagelint
