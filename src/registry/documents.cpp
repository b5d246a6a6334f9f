#include "registry/documents.h"

#include "common/json.h"
#include "imagelint/digest.h"
#include "imagelint/image_documents.h"
#include "imagelint/open_image.h"

namespace imagelint::registry {

Result<std::string> TokenFromAnswer(std::string_view body, const std::string& subject) {
  auto json = ParseJson(body, subject);
  if (!json.ok()) return MakeError(subject, "the token server's answer is not JSON");
  // Either field may be of any type in a hostile answer: only strings count.
  std::string token = StringField(*json, "token");
  if (token.empty()) token = StringField(*json, "access_token");
  if (token.empty()) return MakeError(subject, "the token server's answer holds no token");
  for (char c : token) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      return MakeError(subject, "the token server's token has control characters");
    }
  }
  return token;
}

ErrorBody ReadErrorBody(std::string_view body) {
  ErrorBody out;
  auto json = ParseJson(body, "error body");
  if (!json.ok() || !json->is_object()) return out;
  auto errors = json->find("errors");
  if (errors == json->end() || !errors->is_array() || errors->empty()) return out;
  out.code = StringField((*errors)[0], "code");
  out.message = StringField((*errors)[0], "message");
  return out;
}

Result<ManifestStep> ReadManifestDocument(std::span<const uint8_t> bytes, const std::string& content_type,
                                          const OpenOptions& open, const std::string& subject,
                                          const std::string& what) {
  auto json = ParseJson(bytes, subject + " (" + what + ")");
  if (!json.ok()) return json.error();
  if (!json->is_object()) return MakeError(subject, what + " is not a JSON object");
  std::string body_type = StringField(*json, "mediaType");
  std::string type = content_type;
  bool known_header = type == kOciIndex || type == kOciManifest || type == kDockerList || type == kDockerManifest;
  if (!body_type.empty() && known_header && body_type != type) {
    return MakeError(subject, what + ": Content-Type " + type + " but the body says " + body_type);
  }
  auto schema = json->find("schemaVersion");
  if (type.find("prettyjws") != std::string::npos ||
      (schema != json->end() && schema->is_number_integer() && schema->get<int64_t>() == 1)) {
    return MakeError(subject, what + " is a schema 1 manifest, which imagelint does not read");
  }
  if (!known_header) type = body_type;
  bool is_index = type == kOciIndex || type == kDockerList || (type.empty() && json->contains("manifests"));
  const std::string document = subject + " (" + what + ")";
  ManifestStep step;
  if (is_index) {
    IMAGELINT_TRY(CheckImageIndex(*json, document));
    auto chosen = SelectPlatform(*json, open.platform, open.platform_explicit, document);
    if (!chosen.ok()) return chosen.error();
    step.is_index = true;
    step.next_digest = StringField(*chosen, "digest");
    auto valid = ValidateDigest(step.next_digest);
    if (!valid.ok()) return WithSubject(valid.error(), subject);
    auto size = chosen->find("size");
    step.next_size = size != chosen->end() && size->is_number_integer() ? size->get<int64_t>() : -1;
    return step;
  }
  if (!json->contains("config") || !(*json)["config"].is_object() || !json->contains("layers")) {
    return MakeError(subject, what + " is neither an image manifest nor an index (media type \"" + type + "\")");
  }
  IMAGELINT_TRY(CheckImageManifest(*json, document));
  step.manifest = std::move(*json);
  return step;
}

Result<ConfigDescriptor> ReadConfigDescriptor(const nlohmann::json& manifest, const std::string& subject) {
  const nlohmann::json& descriptor = manifest["config"];
  std::string config_type = StringField(descriptor, "mediaType");
  if (!config_type.empty() && config_type != kOciConfig && config_type != kDockerConfig) {
    return MakeError(subject, "not a container image: its config has media type " + config_type);
  }
  ConfigDescriptor out;
  out.digest = StringField(descriptor, "digest");
  auto valid = ValidateDigest(out.digest);
  if (!valid.ok()) return MakeError(subject, "config descriptor: " + valid.error().message);
  auto size = descriptor.find("size");
  out.size = size != descriptor.end() && size->is_number_integer() ? size->get<int64_t>() : -1;
  return out;
}

Result<ImageDocuments> ReadConfigDocument(std::span<const uint8_t> bytes, const nlohmann::json& manifest,
                                          const std::string& subject, const std::string& what,
                                          const std::string& manifest_digest) {
  const std::string document = subject + " (" + what + ")";
  auto config = ParseJson(bytes, document);
  if (!config.ok()) return config.error();
  if (!config->is_object()) return MakeError(subject, what + " is not a JSON object");
  IMAGELINT_TRY(CheckImageConfig(*config, document));
  auto layers = LayersFromManifest(manifest["layers"], *config, subject + " (manifest " + manifest_digest + ")");
  if (!layers.ok()) return layers.error();
  ImageDocuments out;
  out.platform.os = StringField(*config, "os");
  out.platform.architecture = StringField(*config, "architecture");
  out.platform.variant = StringField(*config, "variant");
  out.platform = out.platform.Normalized();
  out.config = std::move(*config);
  out.layers = std::move(*layers);
  return out;
}

}  // namespace imagelint::registry
