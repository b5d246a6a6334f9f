// An engine image as an ImageSource. The metadata comes from inspect (config,
// platform, rootfs diff IDs) and history (each layer's created_by); the
// layers from the export stream (GET /images/{name}/get), a docker-save
// tarball whose layer members are blobs/sha256/<diff ID hex> (uncompressed
// tars, as Docker 25+ writes them, OCI image layout inside). The stream is
// read once, front to back: its members come in the order of their names,
// so SequentialLayerOrder asks for the layers in that order, and a layer the
// cursor has already passed starts a new export rather than a buffer.
// Engines before Docker 25 (Debian's 20.10) export <id>/layer.tar members
// named by manifest.json, which comes after them: the first pass learns the
// names, and the layers are then read from further exports (at most one
// more per layer; a warm layer cache needs none, see VerifyLayerForCache).
#include <algorithm>
#include <map>
#include <mutex>
#include <set>

#include "common/json.h"
#include "imagelint/engine.h"
#include "imagelint/open_image.h"
#include "imagelint/scan.h"

namespace imagelint::engine {
namespace {

// The export read as a tar, member after member.
struct ExportCursor {
  std::unique_ptr<EntryReader> outer;
  std::set<std::string> passed;  // member paths already behind the cursor
};

// One member of the export as a byte stream (the layer blob).
class MemberStream final : public ByteStream {
 public:
  MemberStream(std::shared_ptr<ExportCursor> cursor, std::string name)
      : cursor_(std::move(cursor)), name_(std::move(name)) {}
  Result<size_t> Read(std::span<uint8_t> buffer) override { return cursor_->outer->ReadContent(buffer); }
  std::string Name() const override { return name_; }

 private:
  std::shared_ptr<ExportCursor> cursor_;
  std::string name_;
};

class EngineImageSource final : public ImageSource {
 public:
  EngineImageSource(EngineClient client, std::string name, ImageMetadata metadata, const OpenOptions& options)
      : client_(client), name_(std::move(name)), metadata_(std::move(metadata)), options_(options) {}

  const ImageMetadata& Metadata() const override { return metadata_; }

  Result<std::unique_ptr<EntryReader>> OpenLayer(size_t index) override {
    if (index >= metadata_.layers.size()) return MakeError(Where(), "no layer " + std::to_string(index));
    std::lock_guard<std::mutex> lock(mutex_);
    const LayerRef& layer = metadata_.layers[index];
    bool fresh = false;  // the cursor started in this call: reaching its end means the member is not there
    for (;;) {
      std::string member = MemberOf(index);
      if (!cursor_ || cursor_->passed.count(member)) {
        IMAGELINT_TRY(Restart());
        fresh = true;
      }
      auto entry = cursor_->outer->Next();
      if (!entry.ok()) return WithSubject(entry.error(), Where());
      if (!entry->has_value()) {
        cursor_.reset();
        if (fresh) return MakeError(Where(), "layer " + layer.diff_id + " is not in the engine's export of the image");
        continue;  // it was before where this cursor started
      }
      const EntryInfo& info = **entry;
      cursor_->passed.insert(info.path);
      if (info.type != EntryType::kRegular) continue;
      if (info.path == "manifest.json" && !legacy_members_) {
        IMAGELINT_TRY(LearnLegacyMembers());
        continue;
      }
      if (info.path != member) continue;
      auto blob = std::make_unique<MemberStream>(cursor_, Where() + ":" + member);
      LayerRef ref = layer;
      ref.digest.clear();  // the blob is the uncompressed tar: its digest is the diff ID, checked once
      LayerReadOptions read;
      read.max_uncompressed_bytes = options_.max_uncompressed_layer_bytes;
      read.verify = options_.verify_digests;
      return OpenLayerStream(std::move(blob), ref, read);
    }
  }

  // The engine's layer store is keyed by these diff IDs and checked them when
  // the layers were pulled or built, as a registry's verified manifest chain
  // vouches for its blobs: a cached scan of the same diff ID answers for it.
  Result<bool> VerifyLayerForCache(size_t index, VerifiedBlobMemo* memo) override {
    return index < metadata_.layers.size();
  }

  std::optional<std::vector<size_t>> SequentialLayerOrder() override {
    std::vector<size_t> order(metadata_.layers.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return metadata_.layers[a].diff_id < metadata_.layers[b].diff_id; });
    return order;
  }

 private:
  std::string Where() const { return "docker engine image " + name_.substr(0, 200); }

  // Where layer `index` is in the export: blobs/sha256/<diff ID hex> (Docker
  // 25 and later), or the <id>/layer.tar that manifest.json names (older
  // engines, whose manifest.json comes after the layers: learnt on the way).
  std::string MemberOf(size_t index) const {
    if (legacy_members_) return (*legacy_members_)[index];
    return "blobs/sha256/" + metadata_.layers[index].diff_id.substr(7);
  }

  // The cursor is at manifest.json: its Layers, when they are <id>/layer.tar paths.
  Status LearnLegacyMembers() {
    std::vector<uint8_t> bytes;
    std::vector<uint8_t> chunk(64 * 1024);
    for (;;) {
      auto n = cursor_->outer->ReadContent(chunk);
      if (!n.ok()) return WithSubject(n.error(), Where() + ":manifest.json");
      if (*n == 0) break;
      if (bytes.size() + *n > options_.max_metadata_bytes) return MakeError(Where() + ":manifest.json", "too large");
      bytes.insert(bytes.end(), chunk.begin(), chunk.begin() + static_cast<std::ptrdiff_t>(*n));
    }
    auto read = ParseJson(std::span<const uint8_t>(bytes), Where() + ":manifest.json");
    if (!read.ok()) return read.error();
    const nlohmann::json& manifest = *read;
    if (!manifest.is_array() || manifest.size() != 1 || !manifest[0].is_object())
      return MakeError(Where() + ":manifest.json", "expected one image");
    auto layers = manifest[0].find("Layers");
    if (layers == manifest[0].end() || !layers->is_array() || layers->size() != metadata_.layers.size())
      return MakeError(Where() + ":manifest.json", "Layers does not list the image's " +
                                                        std::to_string(metadata_.layers.size()) + " layers");
    std::vector<std::string> members;
    for (const auto& path : *layers) {
      if (!path.is_string()) return MakeError(Where() + ":manifest.json", "a layer path is not a string");
      members.push_back(path.get<std::string>());
    }
    if (members.empty() || members[0].rfind("blobs/", 0) == 0) return OkStatus();  // Docker 25+: as assumed
    legacy_members_ = std::move(members);
    return OkStatus();
  }

  Status Restart() {
    auto stream = client_.ExportImage(name_);
    if (!stream.ok()) return stream.error();
    LayerReadOptions outer;
    outer.max_uncompressed_bytes = UINT64_MAX;  // each layer inside has its own limit
    outer.verify = false;                       // the export as a whole has no digest; its layers do
    outer.hash_threading = HashThreading::kInline;
    auto reader = OpenLayerStream(std::move(*stream), LayerRef{}, outer);
    if (!reader.ok()) return WithSubject(reader.error(), Where());
    cursor_ = std::make_shared<ExportCursor>();
    cursor_->outer = std::move(*reader);
    return OkStatus();
  }

  EngineClient client_;
  std::string name_;
  ImageMetadata metadata_;
  OpenOptions options_;
  std::mutex mutex_;
  std::shared_ptr<ExportCursor> cursor_;
  std::optional<std::vector<std::string>> legacy_members_;
};

// The image config as the export holds it, rebuilt from inspect and history:
// platform, the runtime config, rootfs diff IDs, and history entries whose
// empty_layer marks follow the history's sizes (an entry of size 0 made no
// layer). When those do not add up to the layer count, no history is given
// rather than a wrong pairing of layers and instructions.
nlohmann::json ConfigFromInspect(const nlohmann::json& inspect, const nlohmann::json& history) {
  nlohmann::json config = nlohmann::json::object();
  config["architecture"] = StringField(inspect, "Architecture");
  config["os"] = StringField(inspect, "Os");
  if (std::string variant = StringField(inspect, "Variant"); !variant.empty()) config["variant"] = variant;
  if (auto it = inspect.find("Config"); it != inspect.end() && it->is_object()) config["config"] = *it;
  nlohmann::json diff_ids = nlohmann::json::array();
  if (auto rootfs = inspect.find("RootFS"); rootfs != inspect.end() && rootfs->is_object())
    if (auto layers = rootfs->find("Layers"); layers != rootfs->end() && layers->is_array()) diff_ids = *layers;
  config["rootfs"] = {{"type", "layers"}, {"diff_ids", diff_ids}};
  nlohmann::json entries = nlohmann::json::array();
  size_t made_layers = 0;
  for (auto it = history.rbegin(); it != history.rend(); ++it) {
    if (!it->is_object()) continue;
    bool empty = !it->contains("Size") || !(*it)["Size"].is_number() || (*it)["Size"].get<double>() <= 0;
    if (!empty) ++made_layers;
    entries.push_back({{"created_by", StringField(*it, "CreatedBy")}, {"empty_layer", empty}});
  }
  if (made_layers == diff_ids.size()) config["history"] = std::move(entries);
  return config;
}

}  // namespace

Result<std::optional<std::unique_ptr<ImageSource>>> OpenEngineImage(const EngineClient& client, const std::string& name,
                                                                    const OpenOptions& options) {
  auto inspect = client.InspectImage(name);
  if (!inspect.ok()) return inspect.error();
  if (!inspect->has_value()) return std::optional<std::unique_ptr<ImageSource>>();
  const nlohmann::json& document = **inspect;
  std::string subject = "docker engine image " + name.substr(0, 200);
  auto history = client.ImageHistory(name);
  if (!history.ok()) return history.error();
  nlohmann::json config = ConfigFromInspect(document, *history);

  ImageMetadata metadata;
  metadata.ref = name;
  metadata.kind = "docker-engine";
  metadata.location = "docker://" + name + " (" + client.socket_path() + ")";
  metadata.platform.os = config["os"].get<std::string>();
  metadata.platform.architecture = config["architecture"].get<std::string>();
  metadata.platform.variant = StringField(config, "variant");
  if (metadata.platform.os.empty() || metadata.platform.architecture.empty())
    return MakeError(subject, "inspect names no platform");
  metadata.platform = metadata.platform.Normalized();
  if (options.platform_explicit && !(metadata.platform == options.platform))
    return MakeError(subject, "the engine holds it for " + metadata.platform.ToString() + ", not " +
                                  options.platform.ToString() + " (--platform)");
  // The digest a registry knows it by when it was pulled or pushed, else its ID (the config digest).
  metadata.digest = StringField(document, "Id");
  if (auto digests = document.find("RepoDigests"); digests != document.end() && digests->is_array())
    for (const auto& item : *digests)
      if (item.is_string())
        if (size_t at = item.get<std::string>().find('@'); at != std::string::npos) {
          metadata.digest = item.get<std::string>().substr(at + 1);
          break;
        }
  nlohmann::json descriptors = nlohmann::json::array();
  for (const auto& diff_id : config["rootfs"]["diff_ids"])
    descriptors.push_back({{"mediaType", "application/vnd.oci.image.layer.v1.tar"},
                           {"digest", diff_id.is_string() ? diff_id : nlohmann::json("")}});
  auto layers = LayersFromManifest(descriptors, config, subject);
  if (!layers.ok()) return layers.error();
  metadata.layers = std::move(*layers);
  metadata.config = std::move(config);
  std::unique_ptr<ImageSource> source =
      std::make_unique<EngineImageSource>(client, name, std::move(metadata), options);
  return std::optional<std::unique_ptr<ImageSource>>(std::move(source));
}

}  // namespace imagelint::engine
