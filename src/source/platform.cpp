// Platforms (containerd's normalisation), index selection, manifest -> layers.
#include <algorithm>
#include <set>

#include "common/json.h"
#include "common/text.h"
#include "imagelint/digest.h"
#include "imagelint/open_image.h"

namespace imagelint {
namespace {

bool Matches(const Platform& wanted, const Platform& have) {
  Platform w = wanted.Normalized();
  Platform h = have.Normalized();
  if (w.os != h.os || w.architecture != h.architecture) return false;
  return w.variant.empty() || w.variant == h.variant;
}

Platform FromJson(const nlohmann::json& json) {
  Platform p;
  p.os = StringField(json, "os");
  p.architecture = StringField(json, "architecture");
  p.variant = StringField(json, "variant");
  return p.Normalized();
}

bool IsAttestation(const nlohmann::json& descriptor) {
  if (descriptor.contains("annotations") && descriptor["annotations"].is_object() &&
      descriptor["annotations"].contains("vnd.docker.reference.type")) {
    return true;
  }
  if (descriptor.contains("platform") && descriptor["platform"].is_object()) {
    Platform p = FromJson(descriptor["platform"]);
    if (p.os == "unknown" && p.architecture == "unknown") return true;
  }
  return false;
}

}  // namespace

Result<nlohmann::json> SelectPlatform(const nlohmann::json& index, const Platform& wanted, bool explicit_platform,
                                      const std::string& subject) {
  if (!index.is_object() || !index.contains("manifests") || !index["manifests"].is_array()) {
    return MakeError(subject, "image index without a manifests list");
  }
  std::vector<const nlohmann::json*> candidates;
  for (const auto& descriptor : index["manifests"]) {
    if (!descriptor.is_object() || !descriptor.contains("digest")) {
      return MakeError(subject, "manifest descriptor without a digest");
    }
    if (!IsAttestation(descriptor)) candidates.push_back(&descriptor);
  }
  if (candidates.empty()) return MakeError(subject, "the index lists no image manifests");
  for (const auto* descriptor : candidates) {
    if (!descriptor->contains("platform")) {
      if (candidates.size() == 1) return *descriptor;
      continue;
    }
    if (Matches(wanted, FromJson((*descriptor)["platform"]))) return *descriptor;
  }
  if (!explicit_platform && candidates.size() == 1) return *candidates.front();
  std::set<std::string> present;
  for (const auto* descriptor : candidates) {
    present.insert(descriptor->contains("platform") ? FromJson((*descriptor)["platform"]).ToString()
                                                    : std::string("(unspecified)"));
  }
  std::string list;
  size_t listed = 0;
  for (const auto& p : present) {
    if (++listed > 20) {
      list += ", and " + std::to_string(present.size() - 20) + " more";
      break;
    }
    list += (list.empty() ? "" : ", ") + p;
  }
  return MakeError(subject, "no image for platform " + wanted.ToString() + "; platforms present: " + list +
                                " (choose one with --platform)");
}

namespace {

// "ubuntu" -> "docker.io/library/ubuntu:latest", "reg:5000/a/b" ->
// "reg:5000/a/b:latest": enough of Docker's normalisation to compare names.
std::string NormalizedImageName(std::string name) {
  size_t slash = name.find('/');
  std::string first = slash == std::string::npos ? std::string() : name.substr(0, slash);
  bool has_registry = !first.empty() && (first.find('.') != std::string::npos ||
                                         first.find(':') != std::string::npos || first == "localhost");
  if (!has_registry) name = (slash == std::string::npos ? "docker.io/library/" : "docker.io/") + name;
  size_t last_slash = name.rfind('/');
  if (name.find('@', last_slash) == std::string::npos && name.find(':', last_slash) == std::string::npos) {
    name += ":latest";
  }
  return name;
}

}  // namespace

Result<size_t> SelectNamedImage(const std::vector<std::vector<std::string>>& names, const std::string& wanted,
                                const std::string& subject) {
  auto describe = [&] {
    constexpr size_t kListed = 20;  // a message stays one readable line
    std::string list;
    for (size_t i = 0; i < names.size() && i < kListed; ++i) {
      std::string label = names[i].empty() ? std::string("(unnamed)") : names[i].front();
      list += (i ? ", " : "") + std::string("@") + std::to_string(i) + " " + label;
    }
    if (names.size() > kListed) list += ", and " + std::to_string(names.size() - kListed) + " more";
    return list;
  };
  if (names.empty()) return MakeError(subject, "holds no image");
  if (wanted.empty()) {
    if (names.size() == 1) return size_t{0};
    return MakeError(subject, "holds " + std::to_string(names.size()) + " images: " + describe() +
                                  " (choose one with --image NAME or --image @N)");
  }
  if (wanted[0] == '@') {
    std::string digits = wanted.substr(1);
    if (!digits.empty() && digits.size() < 7 && std::all_of(digits.begin(), digits.end(), ::isdigit)) {
      size_t index = std::stoul(digits);
      if (index < names.size()) return index;
    }
    return MakeError(subject, "no image " + wanted + "; images: " + describe());
  }
  for (size_t i = 0; i < names.size(); ++i) {
    for (const auto& name : names[i]) {
      if (name == wanted || NormalizedImageName(name) == NormalizedImageName(wanted)) return i;
    }
  }
  return MakeError(subject, "no image named " + wanted + "; images: " + describe());
}

Result<std::vector<LayerRef>> LayersFromManifest(const nlohmann::json& manifest_layers, const nlohmann::json& config,
                                                 const std::string& subject) {
  if (!manifest_layers.is_array()) return MakeError(subject, "manifest has no layers list");
  const nlohmann::json* diff_ids = nullptr;
  if (config.contains("rootfs") && config["rootfs"].is_object() && config["rootfs"].contains("diff_ids") &&
      config["rootfs"]["diff_ids"].is_array()) {
    diff_ids = &config["rootfs"]["diff_ids"];
  }
  if (!diff_ids) return MakeError(subject, "image config has no rootfs.diff_ids");
  if (diff_ids->size() != manifest_layers.size()) {
    return MakeError(subject, "manifest lists " + std::to_string(manifest_layers.size()) +
                                  " layers but the config has " + std::to_string(diff_ids->size()) + " diff_ids");
  }
  std::vector<std::string> history;
  if (config.contains("history") && config["history"].is_array()) {
    for (const auto& item : config["history"]) {
      if (!item.is_object()) continue;
      if (auto empty = item.find("empty_layer"); empty != item.end() && empty->is_boolean() && empty->get<bool>()) {
        continue;
      }
      history.push_back(item.contains("created_by") && item["created_by"].is_string()
                            ? item["created_by"].get<std::string>()
                            : std::string());
    }
  }
  std::vector<LayerRef> layers;
  for (size_t i = 0; i < manifest_layers.size(); ++i) {
    const auto& descriptor = manifest_layers[i];
    LayerRef layer;
    if (descriptor.is_string()) {  // docker-archive manifest.json: a path; filled by the caller
      layer.media_type = "application/vnd.docker.image.rootfs.diff.tar";
    } else if (descriptor.is_object() && descriptor.contains("digest") && descriptor["digest"].is_string()) {
      layer.digest = descriptor["digest"].get<std::string>();
      auto valid = ValidateDigest(layer.digest);
      if (!valid.ok()) return WithSubject(valid.error(), subject);
      layer.media_type = StringField(descriptor, "mediaType");
      if (descriptor.contains("size") && descriptor["size"].is_number_integer()) {
        layer.size = descriptor["size"].get<int64_t>();
      }
    } else {
      return MakeError(subject, "layer descriptor " + std::to_string(i) + " has no digest");
    }
    if (!(*diff_ids)[i].is_string()) return MakeError(subject, "diff_id " + std::to_string(i) + " is not a string");
    layer.diff_id = (*diff_ids)[i].get<std::string>();
    auto valid = ValidateDigest(layer.diff_id);
    if (!valid.ok()) return WithSubject(valid.error(), subject);
    if (i < history.size()) layer.created_by = history[i];
    layers.push_back(std::move(layer));
  }
  return layers;
}

}  // namespace imagelint
