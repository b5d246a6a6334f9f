// docker-archive (legacy, skopeo, Docker >= 25), OCI layout and OCI archive,
// all read through a FileStore; input kind detected by content.
#include <sys/stat.h>

#include <algorithm>
#include <map>

#include "common/json.h"
#include "common/text.h"
#include "imagelint/digest.h"
#include "imagelint/scan.h"
#include "imagelint/image_documents.h"
#include "imagelint/open_image.h"
#include "source/rootfs.h"
#include "source/store.h"

namespace imagelint {
namespace {

constexpr int kMaxIndexDepth = 4;

constexpr const char* kNotAnImageDirectory =
    "not an image: expected an OCI layout directory (oci-layout, index.json), an extracted `docker save` "
    "(manifest.json) or a root file system (etc/os-release, or a dynamic loader in lib64/ or lib/); "
    "to read any directory as a root file system, name it rootfs:DIR (or --rootfs DIR)";

const char* kOciIndex = "application/vnd.oci.image.index.v1+json";
const char* kDockerList = "application/vnd.docker.distribution.manifest.list.v2+json";

Result<nlohmann::json> ReadJson(const FileStore& store, const std::string& path, uint64_t limit) {
  auto bytes = store.ReadSmall(path, limit);
  if (!bytes.ok()) return bytes.error();
  return ParseJson(std::span<const uint8_t>(*bytes), store.Describe(path));
}

std::string BlobPath(const std::string& digest) {
  size_t colon = digest.find(':');
  return "blobs/" + digest.substr(0, colon) + "/" + digest.substr(colon + 1);
}

// Reads a blob named by digest and checks that its bytes hash to it.
Result<nlohmann::json> ReadBlobJson(const FileStore& store, const std::string& digest, uint64_t limit,
                                    const std::string& what) {
  auto valid = ValidateDigest(digest);
  if (!valid.ok()) return MakeError(store.Location(), what + " descriptor: " + valid.error().ToString());
  std::string path = BlobPath(digest);
  if (!store.Exists(path)) {
    return MakeError(store.Describe(path), what + " " + digest + " is referenced but missing");
  }
  auto bytes = store.ReadSmall(path, limit);
  if (!bytes.ok()) return bytes.error();
  if (*valid == "sha256" && Sha256Digest(*bytes) != digest) {
    return MakeError(store.Describe(path), what + " digest mismatch: content hashes to " + Sha256Digest(*bytes));
  }
  return ParseJson(std::span<const uint8_t>(*bytes), store.Describe(path));
}

std::string Annotation(const nlohmann::json& descriptor, const char* key) {
  auto annotations = descriptor.is_object() ? descriptor.find("annotations") : descriptor.end();
  return annotations == descriptor.end() ? "" : StringField(*annotations, key);
}

Platform PlatformOf(const nlohmann::json& config) {
  Platform platform;
  if (config.is_object()) {
    platform.os = StringField(config, "os");
    platform.architecture = StringField(config, "architecture");
    platform.variant = StringField(config, "variant");
  }
  return platform;
}

// A layout's top-level index may hold several images (skopeo/umoci tags,
// `docker save` of several names): descriptors grouped by name, platform
// variants of one name staying together. Returns the index narrowed to the
// image OpenOptions::image_name picks.
Result<nlohmann::json> SelectImageInIndex(const nlohmann::json& index, const std::string& wanted,
                                          const std::string& subject) {
  if (!index.is_object() || !index.contains("manifests") || !index["manifests"].is_array()) {
    return MakeError(subject, "image index without a manifests list");
  }
  struct Image {
    std::string key;                          // containerd name, else ref name
    std::vector<std::string> names;
    std::vector<nlohmann::json> descriptors;  // its platform variants
  };
  std::vector<Image> images;
  std::map<std::string, size_t> by_digest;
  std::map<std::string, size_t> by_key;  // (a linear search per descriptor was quadratic)
  for (const auto& descriptor : index["manifests"]) {
    std::string containerd = Annotation(descriptor, "io.containerd.image.name");
    std::string ref = Annotation(descriptor, "org.opencontainers.image.ref.name");
    std::string key = containerd.empty() ? ref : containerd;
    std::string digest = descriptor.is_object() ? StringField(descriptor, "digest") : std::string();
    // Several names for one manifest (docker save a:1 a:2 of one image) are one image.
    auto same = digest.empty() ? by_digest.end() : by_digest.find(digest);
    size_t at = images.size();
    if (same != by_digest.end()) {
      at = same->second;
    } else if (auto named = by_key.find(key); named != by_key.end()) {
      at = named->second;
    }
    if (at == images.size()) {
      images.push_back({key, {}, {}});
      by_key.emplace(key, at);
    }
    Image& image = images[at];
    if (same == by_digest.end()) {
      image.descriptors.push_back(descriptor);
      if (!digest.empty()) by_digest.emplace(digest, at);
    }
    for (const auto& name : {containerd, ref}) {
      if (!name.empty() && image.names.size() < 64 &&
          std::find(image.names.begin(), image.names.end(), name) == image.names.end()) {
        image.names.push_back(name);
      }
    }
  }
  std::vector<std::vector<std::string>> names;
  for (const auto& image : images) names.push_back(image.names);
  auto chosen = SelectNamedImage(names, wanted, subject);
  if (!chosen.ok()) return chosen.error();
  nlohmann::json narrowed = index;
  narrowed["manifests"] = images[*chosen].descriptors;
  return narrowed;
}

class StoreImageSource final : public ImageSource {
 public:
  StoreImageSource(std::unique_ptr<FileStore> store, ImageMetadata metadata, std::vector<std::string> layer_paths,
                   bool blob_digest_known, const OpenOptions& options)
      : store_(std::move(store)), metadata_(std::move(metadata)), layer_paths_(std::move(layer_paths)),
        blob_digest_known_(blob_digest_known), options_(options) {}

  const ImageMetadata& Metadata() const override { return metadata_; }

  Result<std::unique_ptr<EntryReader>> OpenLayer(size_t index) override {
    if (index >= layer_paths_.size()) return MakeError(store_->Location(), "no layer " + std::to_string(index));
    const std::string& path = layer_paths_[index];
    auto stream = store_->Open(path);
    if (!stream.ok()) {
      if (stream.error().message != kNotInStore) return stream.error();
      return MakeError(store_->Describe(path), "layer " + std::to_string(index) + " blob is missing from the image");
    }
    LayerRef ref = metadata_.layers[index];
    if (!blob_digest_known_) ref.digest.clear();  // legacy layer.tar: only the diff ID is known
    LayerReadOptions read_options;
    read_options.max_uncompressed_bytes = options_.max_uncompressed_layer_bytes;
    read_options.verify = options_.verify_digests;
    read_options.verify_diff_ids = options_.verify_diff_ids;
    auto reader = OpenLayerStream(std::move(*stream), ref, read_options);
    if (!options_.verify_digests || !blob_digest_known_) return std::move(reader);
    // A flipped byte in a compressed blob shows first as corrupt data (often
    // already in the first block, while opening): say that the blob does not
    // match its digest, which is the cause.
    auto explain = [this, index](const Error& symptom) -> std::optional<Error> {
      auto hashed = HashStoredLayer(index, StoredDigest(index));
      if (hashed.ok()) return std::nullopt;
      Error cause = hashed.error();
      if (cause.message.find("digest mismatch") == std::string::npos) return std::nullopt;
      cause.message += " (first symptom: " + symptom.message + ")";
      return cause;
    };
    return ExplainReadFailures(std::move(reader), explain);
  }

  // Hashes the stored blob (no decompression) against the digest the
  // verified manifest gives it. A legacy layer.tar has only its diff ID, so
  // its bytes are decompressed (not parsed) and hashed against that. A blob
  // the memo knows unchanged since it was last hashed is not hashed again.
  Result<bool> VerifyLayerForCache(size_t index, VerifiedBlobMemo* memo) override {
    if (index >= layer_paths_.size()) return MakeError(store_->Location(), "no layer " + std::to_string(index));
    const std::string& expected = StoredDigest(index);
    if (expected.rfind("sha256:", 0) != 0) return false;
    // --no-verify: the image is trusted as it is, so the entry a verified scan
    // filed under the digest it names answers for it without hashing.
    if (!options_.verify_digests) return true;
    // --verify-diff-ids: a compressed layer's tar is hashed only by reading it.
    const LayerRef& ref = metadata_.layers[index];
    if (options_.verify_diff_ids && blob_digest_known_ && ref.digest != ref.diff_id) return false;
    std::optional<StoredBlobStamp> before = memo ? StoredLayerStamp(index) : std::nullopt;
    if (before && memo->Contains(*before)) return true;
    auto hashed = HashStoredLayer(index, expected);
    if (!hashed.ok() || !*hashed || !before) return hashed;
    if (auto after = StoredLayerStamp(index)) memo->Remember(*before, *after);
    return true;
  }

  std::optional<std::vector<size_t>> SequentialLayerOrder() override {
    std::vector<std::pair<uint64_t, size_t>> offsets;
    for (size_t i = 0; i < layer_paths_.size(); ++i) {
      auto offset = store_->SequentialOffset(layer_paths_[i]);
      if (offset) offsets.emplace_back(*offset, i);
    }
    if (offsets.empty()) return std::nullopt;  // a store that seeks
    std::sort(offsets.begin(), offsets.end());
    std::vector<size_t> order;
    std::vector<bool> placed(layer_paths_.size(), false);
    for (const auto& [offset, index] : offsets) {
      order.push_back(index);
      placed[index] = true;
    }
    // Layers held in memory (small ones) have no offset: any time is fine.
    for (size_t i = 0; i < layer_paths_.size(); ++i) {
      if (!placed[i]) order.push_back(i);
    }
    return order;
  }

  std::optional<StoredBlobStamp> StoredLayerStamp(size_t index) override {
    if (!options_.verify_digests || index >= layer_paths_.size()) return std::nullopt;
    const std::string& expected = StoredDigest(index);
    if (expected.rfind("sha256:", 0) != 0) return std::nullopt;
    auto stamp = store_->Identity(layer_paths_[index]);
    if (!stamp) return std::nullopt;
    stamp->key = "blob " + stamp->key + (blob_digest_known_ ? " digest " : " diff-id ") + expected;
    return stamp;
  }

 private:
  // What the stored bytes of layer `index` hash to: the blob digest, or for
  // a legacy layer.tar (only its diff ID known) the diff ID.
  const std::string& StoredDigest(size_t index) const {
    const LayerRef& ref = metadata_.layers[index];
    return blob_digest_known_ ? ref.digest : ref.diff_id;
  }

  // Hashes the stored bytes of layer `index` against `expected`.
  Result<bool> HashStoredLayer(size_t index, const std::string& expected) {
    const std::string& path = layer_paths_[index];
    auto stream = store_->Open(path);
    if (!stream.ok()) {
      if (stream.error().message != kNotInStore) return stream.error();
      return MakeError(store_->Describe(path), "layer " + std::to_string(index) + " blob is missing from the image");
    }
    std::unique_ptr<ByteStream> bytes = std::move(*stream);
    if (!blob_digest_known_) {
      // Only the diff ID is known (legacy layer.tar, possibly compressed):
      // hash the decompressed tar, still without parsing or analysing it.
      auto plain = OpenDecompressed(std::move(bytes), options_.max_uncompressed_layer_bytes);
      if (!plain.ok()) return WithSubject(plain.error(), store_->Describe(path));
      bytes = std::move(*plain);
    }
    Sha256 hasher;
    std::vector<uint8_t> buffer(1 << 20);
    for (;;) {
      auto n = bytes->Read(buffer);
      if (!n.ok()) return WithSubject(n.error(), store_->Describe(path));
      if (*n == 0) break;
      hasher.Update({buffer.data(), *n});
    }
    std::string actual = hasher.FinishDigest();
    if (actual == expected) return true;
    return MakeError(store_->Describe(path), std::string(blob_digest_known_ ? "blob digest" : "diff ID") +
                                                 " mismatch: expected " + expected + ", got " + actual);
  }

  std::unique_ptr<FileStore> store_;
  ImageMetadata metadata_;
  std::vector<std::string> layer_paths_;
  bool blob_digest_known_;
  OpenOptions options_;
};

Result<std::unique_ptr<ImageSource>> OpenOci(std::unique_ptr<FileStore> store, const std::string& kind,
                                             const std::string& path, const OpenOptions& options) {
  const uint64_t limit = options.max_metadata_bytes;
  auto layout = ReadJson(*store, "oci-layout", limit);
  if (!layout.ok()) return layout.error();
  if (!layout->is_object() || !layout->contains("imageLayoutVersion") || !(*layout)["imageLayoutVersion"].is_string()) {
    return MakeError(store->Describe("oci-layout"), "not an OCI layout header (no imageLayoutVersion string)");
  }
  auto index = ReadJson(*store, "index.json", limit);
  if (!index.ok()) return index.error();
  std::string subject = store->Describe("index.json");
  IMAGELINT_TRY(CheckImageIndex(*index, subject));
  auto narrowed = SelectImageInIndex(*index, options.image_name, subject);
  if (!narrowed.ok()) return narrowed.error();
  // Walk nested indexes down to one image manifest.
  nlohmann::json current = std::move(*narrowed);
  nlohmann::json descriptor;
  std::string ref;
  for (int depth = 0;; ++depth) {
    if (depth > kMaxIndexDepth) return MakeError(subject, "image indexes nested too deeply");
    auto chosen = SelectPlatform(current, options.platform, options.platform_explicit, subject);
    if (!chosen.ok()) return chosen.error();
    descriptor = *chosen;
    if (ref.empty()) ref = Annotation(descriptor, "io.containerd.image.name");
    if (ref.empty()) ref = Annotation(descriptor, "org.opencontainers.image.ref.name");
    if (!descriptor["digest"].is_string()) return MakeError(subject, "descriptor digest is not a string");
    std::string media_type = StringField(descriptor, "mediaType");
    auto blob = ReadBlobJson(*store, descriptor["digest"].get<std::string>(), limit, "manifest");
    if (!blob.ok()) return blob.error();
    std::string inner_type = blob->is_object() ? StringField(*blob, "mediaType") : std::string();
    bool is_index = media_type == kOciIndex || media_type == kDockerList || inner_type == kOciIndex ||
                    inner_type == kDockerList || (blob->is_object() && blob->contains("manifests"));
    std::string blob_subject = store->Describe(BlobPath(descriptor["digest"].get<std::string>()));
    IMAGELINT_TRY(is_index ? CheckImageIndex(*blob, blob_subject) : CheckImageManifest(*blob, blob_subject));
    if (is_index) {
      current = std::move(*blob);
      subject = blob_subject;
      continue;
    }
    current = std::move(*blob);
    break;
  }
  const nlohmann::json& manifest = current;
  std::string manifest_subject = store->Describe(BlobPath(descriptor["digest"].get<std::string>()));
  if (!manifest.is_object() || !manifest.contains("config") || !manifest["config"].is_object() ||
      !manifest["config"].contains("digest") || !manifest["config"]["digest"].is_string()) {
    return MakeError(manifest_subject, "image manifest without a config descriptor");
  }
  auto config = ReadBlobJson(*store, manifest["config"]["digest"].get<std::string>(), limit, "config");
  if (!config.ok()) return config.error();
  IMAGELINT_TRY(CheckImageConfig(*config, store->Describe(BlobPath(manifest["config"]["digest"].get<std::string>()))));
  if (!manifest.contains("layers")) return MakeError(manifest_subject, "image manifest without layers");
  auto layers = LayersFromManifest(manifest["layers"], *config, manifest_subject);
  if (!layers.ok()) return layers.error();

  ImageMetadata metadata;
  metadata.ref = ref.empty() ? path : ref;
  metadata.location = path;
  metadata.digest = descriptor["digest"].get<std::string>();
  metadata.kind = kind;
  metadata.platform = PlatformOf(*config);
  metadata.config = std::move(*config);
  metadata.layers = std::move(*layers);
  std::vector<std::string> paths;
  for (const auto& layer : metadata.layers) paths.push_back(BlobPath(layer.digest));
  return std::unique_ptr<ImageSource>(
      std::make_unique<StoreImageSource>(std::move(store), std::move(metadata), std::move(paths), true, options));
}

// docker save names the config by its digest ("<hex>.json" up to Docker 24,
// "blobs/sha256/<hex>" since 25; skopeo and podman as Docker 24): the name
// covers the config's bytes, and the config's diff IDs then cover the
// layers. A config under another name is where the archive's chain starts.
Status CheckConfigName(const std::string& path, std::span<const uint8_t> bytes, const std::string& subject) {
  std::string_view name = path;
  if (name.starts_with("blobs/sha256/")) {
    name.remove_prefix(13);
  } else if (name.ends_with(".json") && name.find('/') == std::string_view::npos) {
    name.remove_suffix(5);
  } else {
    return OkStatus();
  }
  const std::string named = "sha256:" + std::string(name);
  if (name.size() != 64 || !ValidateDigest(named).ok()) return OkStatus();
  const std::string actual = Sha256Digest(bytes);
  if (actual == named) return OkStatus();
  return MakeError(subject, "config digest mismatch: named " + named + ", content hashes to " + actual);
}

Result<std::unique_ptr<ImageSource>> OpenDockerLegacy(std::unique_ptr<FileStore> store, const std::string& path,
                                                      const OpenOptions& options) {
  const uint64_t limit = options.max_metadata_bytes;
  std::string subject = store->Describe("manifest.json");
  auto manifest = ReadJson(*store, "manifest.json", limit);
  if (!manifest.ok()) return manifest.error();
  IMAGELINT_TRY(CheckDockerSaveManifest(*manifest, subject));
  if (!manifest->is_array() || manifest->empty()) return MakeError(subject, "expected a non-empty array of images");
  std::vector<std::vector<std::string>> names;
  for (const auto& entry : *manifest) {
    if (!entry.is_object()) return MakeError(subject, "image entry is not an object");
    names.emplace_back();
    if (entry.contains("RepoTags") && entry["RepoTags"].is_array()) {
      for (const auto& tag : entry["RepoTags"]) {
        if (tag.is_string()) names.back().push_back(tag.get<std::string>());
      }
    }
  }
  auto chosen = SelectNamedImage(names, options.image_name, subject);
  if (!chosen.ok()) return chosen.error();
  const nlohmann::json& item = (*manifest)[*chosen];
  if (!item.contains("Config") || !item["Config"].is_string()) return MakeError(subject, "image without Config");
  if (!item.contains("Layers") || !item["Layers"].is_array()) return MakeError(subject, "image without Layers");
  std::string config_path = item["Config"].get<std::string>();
  if (!store->Exists(config_path)) {
    return MakeError(store->Describe(config_path), "config named by manifest.json is missing from the archive");
  }
  auto config_bytes = store->ReadSmall(config_path, limit);
  if (!config_bytes.ok()) return config_bytes.error();
  IMAGELINT_TRY(CheckConfigName(config_path, *config_bytes, store->Describe(config_path)));
  auto config = ParseJson(std::span<const uint8_t>(*config_bytes), store->Describe(config_path));
  if (!config.ok()) return config.error();
  IMAGELINT_TRY(CheckImageConfig(*config, store->Describe(config_path)));
  auto layers = LayersFromManifest(item["Layers"], *config, subject);
  if (!layers.ok()) return layers.error();
  std::vector<std::string> paths;
  for (size_t i = 0; i < item["Layers"].size(); ++i) {
    if (!item["Layers"][i].is_string()) return MakeError(subject, "layer path is not a string");
    paths.push_back(item["Layers"][i].get<std::string>());
    (*layers)[i].digest = (*layers)[i].diff_id;  // a legacy layer.tar is the uncompressed tar
    if (auto stored = store->StoredSize(paths.back())) (*layers)[i].stored_bytes = static_cast<int64_t>(*stored);
  }
  ImageMetadata metadata;
  metadata.ref = names[*chosen].empty() ? path : names[*chosen].front();
  metadata.location = path;
  metadata.digest = Sha256Digest(*config_bytes);
  metadata.kind = "docker-archive";
  metadata.platform = PlatformOf(*config);
  metadata.config = std::move(*config);
  metadata.layers = std::move(*layers);
  return std::unique_ptr<ImageSource>(
      std::make_unique<StoreImageSource>(std::move(store), std::move(metadata), std::move(paths), false, options));
}

// Whether a layout's index.json names any image. Docker 25 and later write
// an OCI layout beside manifest.json in `docker save`; some of those saves
// carry `"manifests": null` (or an empty list) while manifest.json is valid,
// and Docker itself loads them from manifest.json.
Result<bool> IndexListsImages(const FileStore& store, uint64_t limit) {
  if (!store.Exists("index.json")) return false;
  auto index = ReadJson(store, "index.json", limit);
  if (!index.ok()) return index.error();
  if (!index->is_object()) return MakeError(store.Describe("index.json"), "not a JSON object");
  auto manifests = index->find("manifests");
  return manifests != index->end() && manifests->is_array() && !manifests->empty();
}

// A docker-save or OCI container, archived or extracted into a directory.
Result<std::unique_ptr<ImageSource>> OpenContainer(std::unique_ptr<FileStore> store, const std::string& path,
                                                   bool directory, const OpenOptions& options) {
  bool has_layout = store->Exists("oci-layout");
  bool has_manifest = store->Exists("manifest.json");
  if (has_layout) {
    auto lists = IndexListsImages(*store, options.max_metadata_bytes);
    if (!lists.ok()) return lists.error();
    if (*lists || !has_manifest) {
      std::string kind = has_manifest ? "docker-archive" : directory ? "oci-layout" : "oci-archive";
      return OpenOci(std::move(store), kind, path, options);
    }
    // index.json lists nothing; manifest.json beside it does (Docker >= 25).
  }
  return OpenDockerLegacy(std::move(store), path, options);
}

}  // namespace

Result<std::unique_ptr<ImageSource>> OpenLocalImage(const std::string& input, const OpenOptions& options) {
  const bool rootfs_asked = StartsWith(input, kRootfsPrefix);
  const std::string path = rootfs_asked ? input.substr(kRootfsPrefix.size()) : input;
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return MakeError(path, "no such file or directory");
  if (rootfs_asked) {
    if (!S_ISDIR(st.st_mode)) return MakeError(path, "rootfs: names a directory (the root file system to read)");
    return OpenRootfs(path, options);
  }
  if (S_ISDIR(st.st_mode)) {
    std::unique_ptr<FileStore> store = OpenDirectoryStore(path);
    if (store->Exists("oci-layout") || store->Exists("manifest.json")) return OpenContainer(std::move(store), path, true, options);
    if (LooksLikeRootFileSystem(path)) return OpenRootfs(path, options);
    return MakeError(path, kNotAnImageDirectory);
  }
  if (!S_ISREG(st.st_mode)) return MakeError(path, "not a regular file or directory");
  auto store = OpenArchiveStore(path, options.max_metadata_bytes);
  if (!store.ok()) return store.error();
  if ((*store)->Exists("oci-layout") || (*store)->Exists("manifest.json")) {
    return OpenContainer(std::move(*store), path, false, options);
  }
  return MakeError(path, "not an image archive: no manifest.json (docker save) and no oci-layout/index.json (OCI)");
}

}  // namespace imagelint
