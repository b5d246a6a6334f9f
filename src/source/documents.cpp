#include "imagelint/image_documents.h"

#include <initializer_list>

#include "common/json.h"

namespace imagelint {
namespace {

using Json = nlohmann::json;

// Each named field, when present and not null, is a string.
Status Strings(const JsonFields& fields, std::initializer_list<const char*> keys) {
  for (const char* key : keys) {
    auto value = fields.String(key);
    if (!value.ok()) return value.error();
  }
  return OkStatus();
}

Status Integers(const JsonFields& fields, std::initializer_list<const char*> keys) {
  for (const char* key : keys) {
    auto value = fields.Integer(key);
    if (!value.ok()) return value.error();
  }
  return OkStatus();
}

Status StringLists(const JsonFields& fields, std::initializer_list<const char*> keys) {
  for (const char* key : keys) {
    auto list = StringArray(fields.Find(key), fields.subject(), fields.Name(key));
    if (!list.ok()) return list.error();
  }
  return OkStatus();
}

// A map whose values are all of `type` (or null), `expected` naming it for
// the message: map[string]string (annotations, labels) and map[string]struct{}
// (ExposedPorts, Volumes).
Status MapOf(const JsonFields& fields, const char* key, Json::value_t type, const char* expected) {
  auto map = fields.Object(key);
  if (!map.ok()) return map.error();
  if (!*map) return OkStatus();
  for (const auto& [name, value] : (*map)->items()) {
    if (value.type() != type && !value.is_null()) {
      return MakeError(fields.subject(), fields.Name(key) + "[\"" + name + "\"] is " + JsonTypePhrase(value) +
                                             ", expected " + expected);
    }
  }
  return OkStatus();
}
Status StringMap(const JsonFields& fields, const char* key) {
  return MapOf(fields, key, Json::value_t::string, "a string");
}
Status ObjectMap(const JsonFields& fields, const char* key) {
  return MapOf(fields, key, Json::value_t::object, "an object");
}

Status CheckPlatform(const Json& platform, const std::string& subject, const std::string& where) {
  JsonFields fields(platform, subject, where);
  IMAGELINT_TRY(Strings(fields, {"architecture", "os", "os.version", "variant"}));
  return StringLists(fields, {"os.features", "features"});
}

// The object at `key` is a descriptor (or absent).
Status OptionalDescriptor(const JsonFields& fields, const char* key) {
  auto object = fields.Object(key);
  if (!object.ok()) return object.error();
  if (*object) IMAGELINT_TRY(CheckDescriptor(**object, fields.subject(), fields.Name(key)));
  return OkStatus();
}

// The array at `key` holds descriptors (or is absent).
Status DescriptorList(const JsonFields& fields, const char* key) {
  auto list = fields.Array(key);
  if (!list.ok()) return list.error();
  if (!*list) return OkStatus();
  for (size_t i = 0; i < (*list)->size(); ++i) {
    std::string where = fields.Name(key) + "[" + std::to_string(i) + "]";
    const Json& item = (**list)[i];
    if (!item.is_object()) {
      return MakeError(fields.subject(), where + " is " + JsonTypePhrase(item) + ", expected an object");
    }
    IMAGELINT_TRY(CheckDescriptor(item, fields.subject(), where));
  }
  return OkStatus();
}

Status TopLevelObject(const Json& document, const std::string& subject, const char* what) {
  if (!document.is_object()) {
    return MakeError(subject, std::string(what) + " is " + JsonTypePhrase(document) + ", expected an object");
  }
  return OkStatus();
}

}  // namespace

Status CheckDescriptor(const Json& descriptor, const std::string& subject, const std::string& where) {
  if (!descriptor.is_object()) {
    return MakeError(subject, where + " is " + JsonTypePhrase(descriptor) + ", expected an object");
  }
  JsonFields fields(descriptor, subject, where);
  IMAGELINT_TRY(Strings(fields, {"mediaType", "digest", "data", "artifactType"}));
  IMAGELINT_TRY(Integers(fields, {"size"}));
  IMAGELINT_TRY(StringLists(fields, {"urls"}));
  IMAGELINT_TRY(StringMap(fields, "annotations"));
  auto platform = fields.Object("platform");
  if (!platform.ok()) return platform.error();
  if (*platform) IMAGELINT_TRY(CheckPlatform(**platform, subject, fields.Name("platform")));
  return OkStatus();
}

namespace {

// The fields an image index and an image manifest share (OCI image-spec);
// `own` checks the fields of the one kind, between the shared ones in the
// order they are checked, so the first error found is the same.
template <class Own>
Status CheckIndexOrManifest(const Json& document, const std::string& subject, const char* what, Own own) {
  IMAGELINT_TRY(TopLevelObject(document, subject, what));
  JsonFields fields(document, subject);
  IMAGELINT_TRY(Integers(fields, {"schemaVersion"}));
  IMAGELINT_TRY(Strings(fields, {"mediaType", "artifactType"}));
  IMAGELINT_TRY(own(fields));
  IMAGELINT_TRY(OptionalDescriptor(fields, "subject"));
  return StringMap(fields, "annotations");
}

}  // namespace

Status CheckImageIndex(const Json& index, const std::string& subject) {
  return CheckIndexOrManifest(index, subject, "the image index",
                              [](const JsonFields& fields) { return DescriptorList(fields, "manifests"); });
}

Status CheckImageManifest(const Json& manifest, const std::string& subject) {
  return CheckIndexOrManifest(manifest, subject, "the image manifest", [](const JsonFields& fields) -> Status {
    IMAGELINT_TRY(OptionalDescriptor(fields, "config"));
    return DescriptorList(fields, "layers");
  });
}

Status CheckImageConfig(const Json& config, const std::string& subject) {
  IMAGELINT_TRY(TopLevelObject(config, subject, "the image config"));
  JsonFields fields(config, subject);
  IMAGELINT_TRY(Strings(fields, {"created", "author", "architecture", "os", "os.version", "variant"}));
  IMAGELINT_TRY(StringLists(fields, {"os.features"}));
  // The container settings: OCI's "config", and Docker's older copy.
  for (const char* key : {"config", "container_config"}) {
    auto object = fields.Object(key);
    if (!object.ok()) return object.error();
    if (!*object) continue;
    JsonFields run(**object, subject, fields.Name(key));
    IMAGELINT_TRY(Strings(run, {"User", "WorkingDir", "StopSignal", "Image", "Hostname", "Domainname"}));
    IMAGELINT_TRY(StringLists(run, {"Env", "Entrypoint", "Cmd", "OnBuild", "Shell"}));
    IMAGELINT_TRY(StringMap(run, "Labels"));
    IMAGELINT_TRY(ObjectMap(run, "ExposedPorts"));
    IMAGELINT_TRY(ObjectMap(run, "Volumes"));
    auto escaped = run.Bool("ArgsEscaped");
    if (!escaped.ok()) return escaped.error();
  }
  auto rootfs = fields.Object("rootfs");
  if (!rootfs.ok()) return rootfs.error();
  if (*rootfs) {
    JsonFields layers(**rootfs, subject, "rootfs");
    IMAGELINT_TRY(Strings(layers, {"type"}));
    IMAGELINT_TRY(StringLists(layers, {"diff_ids"}));
  }
  auto history = fields.Array("history");
  if (!history.ok()) return history.error();
  if (*history) {
    for (size_t i = 0; i < (*history)->size(); ++i) {
      const Json& item = (**history)[i];
      std::string where = "history[" + std::to_string(i) + "]";
      if (!item.is_object()) return MakeError(subject, where + " is " + JsonTypePhrase(item) + ", expected an object");
      JsonFields entry(item, subject, where);
      IMAGELINT_TRY(Strings(entry, {"created", "author", "created_by", "comment"}));
      auto empty = entry.Bool("empty_layer");
      if (!empty.ok()) return empty.error();
    }
  }
  return OkStatus();
}

Status CheckDockerSaveManifest(const Json& manifest, const std::string& subject) {
  if (!manifest.is_array()) {
    return MakeError(subject, "manifest.json is " + JsonTypePhrase(manifest) + ", expected an array of images");
  }
  for (size_t i = 0; i < manifest.size(); ++i) {
    const Json& item = manifest[i];
    std::string where = "[" + std::to_string(i) + "]";
    if (!item.is_object()) return MakeError(subject, where + " is " + JsonTypePhrase(item) + ", expected an object");
    JsonFields fields(item, subject, where);
    IMAGELINT_TRY(Strings(fields, {"Config", "Parent"}));
    IMAGELINT_TRY(StringLists(fields, {"RepoTags", "Layers"}));
    auto sources = fields.Object("LayerSources");
    if (!sources.ok()) return sources.error();
    if (*sources) {
      for (const auto& [digest, descriptor] : (*sources)->items()) {
        IMAGELINT_TRY(CheckDescriptor(descriptor, subject, fields.Name("LayerSources") + "[\"" + digest + "\"]"));
      }
    }
  }
  return OkStatus();
}

}  // namespace imagelint
