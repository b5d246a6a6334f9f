// OCI artifacts: one blob as the one layer of an image manifest with an
// artifactType and the empty config (image-spec v1.1, manifest.md
// "Guidelines for Artifact Usage"), pushed and pulled through the client.
#include <nlohmann/json.hpp>

#include "common/json.h"
#include "imagelint/digest.h"
#include "imagelint/artifact.h"
#include "registry/client.h"
#include "registry/documents.h"

namespace imagelint::registry {

namespace {

constexpr const char* kEmptyMediaType = "application/vnd.oci.empty.v1+json";
constexpr const char* kEmptyConfig = "{}";
constexpr uint64_t kMaxArtifactManifestBytes = 1u << 20;

std::string DigestOf(std::string_view bytes) {
  return Sha256Digest({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()});
}

// A monolithic upload: POST for a session, PUT the bytes with their digest.
Status UploadBlob(Client& client, const std::string& bytes, const std::string& digest) {
  auto session = client.Send("POST", "blobs/uploads/", {"Content-Length: 0"}, "", "blob upload");
  if (!session.ok()) return session.error();
  std::string location = session->Header("location");
  if (location.empty())
    return MakeError(client.ref().ToString(), "the registry started a blob upload without a Location");
  location += (location.find('?') == std::string::npos ? "?" : "&") + std::string("digest=") + UrlEscape(digest);
  auto put = client.Send("PUT", location, {"Content-Type: application/octet-stream"}, bytes, "blob " + digest);
  if (!put.ok()) return put.error();
  return OkStatus();
}

}  // namespace

Result<PushedArtifact> PushArtifact(const Reference& ref, const ArtifactDescription& what, const std::string& blob,
                                    const RegistryOptions& options) {
  Client client(ref, options);
  PushedArtifact pushed;
  pushed.layer_digest = DigestOf(blob);
  pushed.layer_size = blob.size();
  const std::string config_digest = DigestOf(kEmptyConfig);
  IMAGELINT_TRY(UploadBlob(client, kEmptyConfig, config_digest));
  IMAGELINT_TRY(UploadBlob(client, blob, pushed.layer_digest));
  nlohmann::ordered_json layer = {{"mediaType", what.layer_media_type},
                                  {"digest", pushed.layer_digest},
                                  {"size", pushed.layer_size}};
  if (!what.title.empty()) layer["annotations"] = {{"org.opencontainers.image.title", what.title}};
  nlohmann::ordered_json manifest = {
      {"schemaVersion", 2},
      {"mediaType", kOciManifest},
      {"artifactType", what.artifact_type},
      {"config", {{"mediaType", kEmptyMediaType}, {"digest", config_digest}, {"size", 2}, {"data", "e30="}}},
      {"layers", nlohmann::ordered_json::array({layer})}};
  if (!what.annotations.empty()) {
    nlohmann::ordered_json annotations = nlohmann::ordered_json::object();
    for (const auto& [key, value] : what.annotations) annotations[key] = value;
    manifest["annotations"] = annotations;
  }
  const std::string bytes = manifest.dump();
  pushed.manifest_digest = DigestOf(bytes);
  auto put = client.Send("PUT", "manifests/" + ref.ManifestIdentifier(), {std::string("Content-Type: ") + kOciManifest},
                         bytes, "manifest");
  if (!put.ok()) return put.error();
  if (!ref.digest.empty() && ref.digest != pushed.manifest_digest)
    return MakeError(ref.ToString(), "the manifest pushed has digest " + pushed.manifest_digest + ", not the reference's");
  return pushed;
}

Result<PulledArtifact> PullArtifact(const Reference& ref, const std::string& artifact_type,
                                    const std::string& layer_media_type, uint64_t max_bytes,
                                    const std::string& pinned_digest, const RegistryOptions& options) {
  const std::string subject = ref.ToString();
  if (!pinned_digest.empty() && !ValidateDigest(pinned_digest).ok())
    return MakeError(pinned_digest, "not a digest (sha256:<64 hex digits>)");
  Client client(ref, options);
  auto document = client.GetDocument("manifests/" + ref.ManifestIdentifier(),
                                     {std::string("Accept: ") + kOciManifest}, kMaxArtifactManifestBytes, "manifest");
  if (!document.ok()) return document.error();
  PulledArtifact pulled;
  pulled.manifest_digest = Sha256Digest(document->bytes);
  if (!ref.digest.empty() && ref.digest != pulled.manifest_digest)
    return MakeError(subject, "the manifest served has digest " + pulled.manifest_digest + ", not the one asked for");
  if (!pinned_digest.empty() && pinned_digest != pulled.manifest_digest)
    return MakeError(subject, "digest mismatch: the manifest is " + pulled.manifest_digest + ", --digest pins " +
                                  pinned_digest + " (refused)");
  nlohmann::json manifest = nlohmann::json::parse(document->bytes.begin(), document->bytes.end(), nullptr, false);
  if (!manifest.is_object()) return MakeError(subject, "the manifest is not a JSON object");
  const std::string media_type = StringField(manifest, "mediaType");
  if (!media_type.empty() && media_type != kOciManifest)
    return MakeError(subject, "not an OCI artifact manifest (mediaType " + media_type.substr(0, 100) + ")");
  const nlohmann::json config = manifest.value("config", nlohmann::json::object());
  const std::string type = StringField(manifest, "artifactType");
  const bool typed = type == artifact_type || (type.empty() && config.is_object() && StringField(config, "mediaType") == artifact_type);
  if (!typed)
    return MakeError(subject, "its artifactType '" +
                                  (type.empty() ? (config.is_object() ? StringField(config, "mediaType") : "") : type).substr(0, 100) +
                                  "' is not " + artifact_type + " (refused)");
  const auto layers = manifest.find("layers");
  if (layers == manifest.end() || !layers->is_array() || layers->size() != 1 || !(*layers)[0].is_object())
    return MakeError(subject, "an artifact of " + artifact_type + " must have exactly one layer");
  const nlohmann::json& layer = (*layers)[0];
  if (StringField(layer, "mediaType") != layer_media_type)
    return MakeError(subject, "its layer is " + StringField(layer, "mediaType").substr(0, 100) + ", not " + layer_media_type);
  pulled.layer_digest = StringField(layer, "digest");
  if (!pulled.layer_digest.starts_with("sha256:") || !ValidateDigest(pulled.layer_digest).ok())
    return MakeError(subject, "its layer has no valid sha256 digest");
  if (!layer.contains("size") || !layer["size"].is_number_unsigned())
    return MakeError(subject, "its layer has no size");
  const uint64_t size = layer["size"].get<uint64_t>();
  if (size > max_bytes)
    return MakeError(subject, "its layer of " + std::to_string(size) + " bytes is larger than the " +
                                  std::to_string(max_bytes >> 20) + " MiB allowed (refused)");
  if (auto annotations = manifest.find("annotations"); annotations != manifest.end() && annotations->is_object())
    for (const auto& [key, value] : annotations->items())
      if (value.is_string() && pulled.annotations.size() < 64) pulled.annotations[key] = value.get<std::string>();
  auto stream = client.Get("blobs/" + pulled.layer_digest, {}, 0, "blob " + pulled.layer_digest);
  if (!stream.ok()) return stream.error();
  auto bytes = ReadAll(**stream, size + 1);
  if (!bytes.ok()) return MakeError(subject, "reading blob " + pulled.layer_digest + ": " + bytes.error().message);
  if (bytes->size() != size)
    return MakeError(subject, "blob " + pulled.layer_digest + " has " + std::to_string(bytes->size()) +
                                  " bytes, the manifest says " + std::to_string(size) + " (truncated or corrupt; refused)");
  if (Sha256Digest(*bytes) != pulled.layer_digest)
    return MakeError(subject, "blob " + pulled.layer_digest + " does not match its digest (corrupt; refused)");
  pulled.blob.assign(bytes->begin(), bytes->end());
  return pulled;
}

}  // namespace imagelint::registry
