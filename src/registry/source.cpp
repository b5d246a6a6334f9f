// The registry ImageSource: resolves reference -> (index ->) manifest ->
// config with every digest checked, then streams layer blobs straight into
// the scanner's tar reader, resuming dropped downloads with Range requests.
#include <atomic>
#include <cstring>
#include <optional>

#include <nlohmann/json.hpp>

#include "imagelint/digest.h"
#include "imagelint/registry.h"
#include "registry/client.h"
#include "registry/documents.h"
#include "imagelint/scan.h"
#include "imagelint/open_image.h"

namespace imagelint::registry {
namespace {

constexpr int kMaxIndexDepth = 4;
constexpr int kMaxStalledResumes = 5;
constexpr int kMaxResumes = 50;

const std::string& AcceptHeader() {
  static const std::string header = std::string("Accept: ") + kOciIndex + ", " + kOciManifest + ", " + kDockerList +
                                    ", " + kDockerManifest;
  return header;
}

// A blob download that survives dropped connections: it remembers how many
// bytes it handed out and asks for the rest with a Range request (or skips
// them when the registry answers 200 with the whole blob).
class BlobStream final : public ByteStream {
 public:
  BlobStream(std::shared_ptr<Client> client, std::string digest, int64_t size)
      : client_(std::move(client)), digest_(std::move(digest)), size_(size) {}

  std::string Name() const override { return "blob " + digest_ + " of " + client_->ref().ToString(); }

  // Not hashed here: the layer reader hashes the blob as it passes (each
  // byte once), and only a failure needs a digest of its own (below).
  Result<size_t> Read(std::span<uint8_t> buffer) override {
    auto n = ReadRaw(buffer);
    if (!n.ok()) failed_->store(true);
    return n;
  }

  // Whether a read of this blob failed below HTTP or HTTP failed (then
  // that is the cause of a decoding failure, not the bytes). Shared, since
  // the stream may be gone by the time the failure is explained.
  std::shared_ptr<const std::atomic<bool>> NetworkFailed() const { return failed_; }

 private:
  Result<size_t> ReadRaw(std::span<uint8_t> buffer) {
    for (;;) {
      if (!current_) {
        auto stream = client_->Get("blobs/" + digest_, {}, offset_, "blob " + digest_);
        if (!stream.ok()) return stream.error();
        current_ = std::move(*stream);
        skip_ = 0;
        if (offset_ > 0) {
          long status = current_->head().status;
          std::string range = current_->head().Header("content-range");
          if (status == 206) {
            std::string expected = "bytes " + std::to_string(offset_) + "-";
            if (!range.starts_with(expected)) {
              return MakeError(Name(), "registry answered a resumed download with the wrong range");
            }
          } else {
            skip_ = offset_;  // a 200: the whole blob again
          }
        }
      }
      auto n = current_->Read(buffer);
      if (!n.ok()) {
        if (current_->last_failure_retryable() && Retry()) continue;
        return MakeError(Name(), n.error().message + " after " + std::to_string(offset_) + " bytes" +
                                     (resumes_ ? " and " + std::to_string(resumes_) + " resumed downloads" : ""));
      }
      if (*n == 0) {
        if (size_ >= 0 && offset_ < static_cast<uint64_t>(size_)) {
          // The body ended early without curl noticing (no Content-Length).
          if (Retry()) continue;
          return MakeError(Name(), "download ended after " + std::to_string(offset_) + " of " +
                                       std::to_string(size_) + " bytes");
        }
        return size_t{0};
      }
      size_t got = *n;
      if (skip_ > 0) {
        size_t drop = static_cast<size_t>(std::min<uint64_t>(skip_, got));
        skip_ -= drop;
        if (drop == got) continue;
        std::memmove(buffer.data(), buffer.data() + drop, got - drop);
        got -= drop;
      }
      offset_ += got;
      stalled_ = 0;
      if (size_ >= 0 && offset_ > static_cast<uint64_t>(size_)) {
        return MakeError(Name(), "blob is larger than the " + std::to_string(size_) + " bytes the manifest says");
      }
      return got;
    }
  }

  bool Retry() {
    if (++stalled_ > kMaxStalledResumes || ++resumes_ > kMaxResumes) return false;
    current_.reset();
    client_->Backoff(stalled_, "");
    return true;
  }

  std::shared_ptr<Client> client_;
  std::string digest_;
  int64_t size_;
  std::unique_ptr<HttpStream> current_;
  uint64_t offset_ = 0;  // bytes handed out
  uint64_t skip_ = 0;    // bytes of a restarted download still to drop
  int stalled_ = 0;      // failures since the last byte
  int resumes_ = 0;
  std::shared_ptr<std::atomic<bool>> failed_ = std::make_shared<std::atomic<bool>>(false);
};

// After the layer reader failed on a blob whose bytes arrived: downloads it
// again (at most its declared size) and returns its digest when that differs
// from `digest` — then the real cause (a corrupted download reads as corrupt
// gzip first). A failure path only, so a second download is cheaper than
// hashing every good download twice.
std::optional<std::string> DigestIfCorrupt(const std::shared_ptr<Client>& client, const std::string& digest,
                                           int64_t size) {
  if (size < 0) return std::nullopt;
  BlobStream again(client, digest, size);
  Sha256 hasher;
  std::vector<uint8_t> buffer(256 * 1024);
  for (;;) {
    auto n = again.Read(buffer);
    if (!n.ok()) return std::nullopt;
    if (*n == 0) break;
    hasher.Update(std::span<const uint8_t>(buffer).first(*n));
  }
  std::string actual = hasher.FinishDigest();
  if (actual == digest) return std::nullopt;
  return actual;
}

class RegistrySource final : public ImageSource {
 public:
  RegistrySource(std::shared_ptr<Client> client, ImageMetadata metadata, OpenOptions options)
      : client_(std::move(client)), metadata_(std::move(metadata)), options_(options) {}

  const ImageMetadata& Metadata() const override { return metadata_; }

  Result<std::unique_ptr<EntryReader>> OpenLayer(size_t index) override {
    if (index >= metadata_.layers.size()) return MakeError(metadata_.ref, "no layer " + std::to_string(index));
    const LayerRef& layer = metadata_.layers[index];
    auto blob = std::make_unique<BlobStream>(client_, layer.digest, layer.size);
    auto network_failed = blob->NetworkFailed();
    const std::string name = blob->Name();
    LayerReadOptions read_options;
    read_options.max_uncompressed_bytes = options_.max_uncompressed_layer_bytes;
    read_options.verify = true;  // a registry blob is always checked against its digest
    read_options.verify_diff_ids = options_.verify_diff_ids;
    // A decoding failure (while opening, with read-ahead often) whose bytes
    // arrived fine: is the blob itself corrupt?
    auto explain = [client = client_, layer, network_failed, name](const Error& symptom) -> std::optional<Error> {
      if (network_failed->load()) return std::nullopt;
      auto actual = DigestIfCorrupt(client, layer.digest, layer.size);
      if (!actual) return std::nullopt;
      return MakeError(name, "blob digest mismatch: received " + *actual +
                                 " (corrupted in transfer or by the registry; first symptom: " + symptom.message +
                                 ")");
    };
    return ExplainReadFailures(OpenLayerStream(std::move(blob), layer, read_options), explain);
  }

  // The manifest was checked against its digest and the config against the
  // manifest, so the layer's blob digest (and the diff ID the config gives
  // it) name what this image is made of; the registry's blob need not be
  // fetched again. Unless the user asked for diff IDs to be checked: a
  // compressed layer must then be read to hash its tar.
  Result<bool> VerifyLayerForCache(size_t index, VerifiedBlobMemo*) override {
    if (!options_.verify_diff_ids || index >= metadata_.layers.size()) return true;
    return metadata_.layers[index].digest == metadata_.layers[index].diff_id;
  }

 private:
  std::shared_ptr<Client> client_;
  ImageMetadata metadata_;
  OpenOptions options_;
};

// Checks a fetched document against the digest (and size) that named it.
Status VerifyDocument(const Client::Document& document, const std::string& expected, int64_t expected_size,
                      const std::string& subject, const std::string& what) {
  std::string actual = Sha256Digest(document.bytes);
  if (!expected.empty()) {
    if (!expected.starts_with("sha256:")) {
      return MakeError(subject, what + ": digest algorithm of " + expected + " is not supported (sha256 only)");
    }
    if (expected != actual) {
      return MakeError(subject, what + " digest mismatch: expected " + expected + ", received " + actual);
    }
  }
  if (expected_size >= 0 && static_cast<uint64_t>(expected_size) != document.bytes.size()) {
    return MakeError(subject, what + " has " + std::to_string(document.bytes.size()) + " bytes, the descriptor says " +
                                  std::to_string(expected_size));
  }
  if (document.docker_digest.starts_with("sha256:") && document.docker_digest != actual) {
    return MakeError(subject, what + " digest mismatch: the registry says " + document.docker_digest +
                                  ", the content is " + actual);
  }
  return OkStatus();
}

}  // namespace

Result<std::unique_ptr<ImageSource>> OpenRegistryImage(const Reference& ref, const OpenOptions& open,
                                                       const RegistryOptions& options) {
  auto client = std::make_shared<Client>(ref, options);
  const std::string subject = ref.ToString();
  std::string identifier = ref.ManifestIdentifier();
  std::string expected = ref.digest;
  int64_t expected_size = -1;
  nlohmann::json manifest;
  std::string manifest_digest;
  for (int depth = 0;; ++depth) {
    if (depth > kMaxIndexDepth) return MakeError(subject, "image indexes nested too deeply");
    const std::string what = "manifest " + identifier;
    auto document = client->GetDocument("manifests/" + identifier, {AcceptHeader()}, open.max_metadata_bytes, what);
    if (!document.ok()) return document.error();
    IMAGELINT_TRY(VerifyDocument(*document, expected, expected_size, subject, what));
    auto step = ReadManifestDocument(document->bytes, document->content_type, open, subject, what);
    if (!step.ok()) return step.error();
    if (step->is_index) {
      expected = step->next_digest;
      expected_size = step->next_size;
      identifier = expected;
      continue;
    }
    manifest = std::move(step->manifest);
    manifest_digest = Sha256Digest(document->bytes);
    break;
  }
  auto config_descriptor = ReadConfigDescriptor(manifest, subject);
  if (!config_descriptor.ok()) return config_descriptor.error();
  const std::string config_what = "config " + config_descriptor->digest;
  auto config_document =
      client->GetDocument("blobs/" + config_descriptor->digest, {}, open.max_metadata_bytes, config_what);
  if (!config_document.ok()) return config_document.error();
  IMAGELINT_TRY(
      VerifyDocument(*config_document, config_descriptor->digest, config_descriptor->size, subject, config_what));
  auto documents = ReadConfigDocument(config_document->bytes, manifest, subject, config_what, manifest_digest);
  if (!documents.ok()) return documents.error();

  ImageMetadata metadata;
  metadata.ref = ref.ToString();
  metadata.location = metadata.ref;
  metadata.digest = manifest_digest;
  metadata.kind = "registry";
  metadata.platform = documents->platform;
  metadata.config = std::move(documents->config);
  metadata.layers = std::move(documents->layers);
  return std::unique_ptr<ImageSource>(std::make_unique<RegistrySource>(client, std::move(metadata), open));
}

}  // namespace imagelint::registry
