// One layer blob -> entries: digest of the blob as it arrives, decompression by
// magic bytes, digest of the tar, tar parsing by libarchive (format tar only,
// no filters: decompression is ours), path hygiene on every name.
#include <archive.h>
#include <archive_entry.h>

#include <vector>

#include "imagelint/digest.h"
#include "scan/scanner.h"
#include "scan/streams.h"

namespace imagelint {
namespace {

constexpr size_t kTarChunk = 512 * 1024;
constexpr size_t kMaxPathBytes = 64 * 1024;

// Hashes and counts the bytes that pass through.
class HashingStream final : public ByteStream {
 public:
  explicit HashingStream(std::unique_ptr<ByteStream> input) : input_(std::move(input)) {}
  Result<size_t> Read(std::span<uint8_t> buffer) override {
    auto n = input_->Read(buffer);
    if (n.ok() && *n > 0) {
      if (hashing_) hasher_.Update(buffer.first(*n));
      count_ += *n;
    }
    return n;
  }
  // Off when nothing needs the digest (no verification, or a plain tar whose
  // blob digest is the diff ID: hashed once, on the tar side).
  void SetHashing(bool on) { hashing_ = on; }
  std::string Name() const override { return input_->Name(); }
  uint64_t Count() const { return count_; }
  std::string Digest() { return hasher_.FinishDigest(); }

 private:
  std::unique_ptr<ByteStream> input_;
  Sha256 hasher_;
  uint64_t count_ = 0;
  bool hashing_ = true;
};

// Forwards reads to a stream owned elsewhere (so the owner keeps its counters).
class BorrowedStream final : public ByteStream {
 public:
  explicit BorrowedStream(ByteStream* input) : input_(input) {}
  Result<size_t> Read(std::span<uint8_t> buffer) override { return input_->Read(buffer); }
  std::string Name() const override { return input_->Name(); }

 private:
  ByteStream* input_;
};

std::string ShortDigest(const std::string& digest) { return digest; }

class LayerEntryReader final : public EntryReader {
 public:
  LayerEntryReader(std::unique_ptr<HashingStream> blob, std::unique_ptr<ByteStream> tar, LayerRef layer,
                   LayerReadOptions options, bool plain)
      : blob_(std::move(blob)), tar_(std::move(tar)), layer_(std::move(layer)), options_(options),
        buffer_(kTarChunk), name_(blob_->Name()), plain_(plain) {
    blob_->SetHashing(options_.verify && !plain_);
  }
  ~LayerEntryReader() override {
    if (archive_) archive_read_free(archive_);
  }

  Status Start() {
    archive_ = archive_read_new();
    if (!archive_) return MakeError(name_, "out of memory");
    archive_read_support_format_tar(archive_);
    archive_read_support_format_gnutar(archive_);
    if (archive_read_open(archive_, this, nullptr, &LayerEntryReader::ReadCallback, nullptr) != ARCHIVE_OK) {
      return ArchiveError("not a tar archive");
    }
    return OkStatus();
  }

  Result<std::optional<EntryInfo>> Next() override {
    if (finished_) return std::optional<EntryInfo>();
    for (;;) {
      archive_entry* entry = nullptr;
      int rc = archive_read_next_header(archive_, &entry);
      if (rc == ARCHIVE_EOF) {
        IMAGELINT_TRY(Finish());
        return std::optional<EntryInfo>();
      }
      if (rc < ARCHIVE_WARN) return ArchiveError("malformed tar");
      const char* raw = archive_entry_pathname(entry);
      if (!raw) raw = archive_entry_pathname_utf8(entry);
      if (!raw) return MakeErrorAt(name_, header_offset(), "tar entry without a readable name");
      auto path = CleanEntryPath(raw);
      if (!path.ok()) return MakeErrorAt(name_, header_offset(), path.error().message);
      if (path->empty()) continue;  // the root directory itself ("./")
      EntryInfo info;
      info.path = std::move(*path);
      info.mode = archive_entry_perm(entry);
      const char* hardlink = archive_entry_hardlink(entry);
      mode_t type = archive_entry_filetype(entry);
      if (hardlink) {
        info.type = EntryType::kHardlink;
        auto target = CleanEntryPath(hardlink);
        if (!target.ok() || target->empty()) {
          return MakeErrorAt(name_, header_offset(),
                             "hard link " + info.path + " -> " + hardlink + ": " +
                                 (target.ok() ? "empty target" : target.error().message));
        }
        info.link_target = *target;
      } else if (type == AE_IFDIR) {
        info.type = EntryType::kDirectory;
      } else if (type == AE_IFLNK) {
        info.type = EntryType::kSymlink;
        const char* target = archive_entry_symlink(entry);
        if (!target) target = archive_entry_symlink_utf8(entry);
        info.link_target = target ? target : "";
      } else if (type == AE_IFREG) {
        info.type = EntryType::kRegular;
        info.size = archive_entry_size_is_set(entry) ? static_cast<uint64_t>(archive_entry_size(entry)) : 0;
      } else {
        info.type = EntryType::kOther;
      }
      return std::optional<EntryInfo>(std::move(info));
    }
  }

  Result<size_t> ReadContent(std::span<uint8_t> buffer) override {
    if (finished_) return size_t{0};
    la_ssize_t n = archive_read_data(archive_, buffer.data(), buffer.size());
    if (n < 0) return ArchiveError("cannot read file content");
    return static_cast<size_t>(n);
  }

  uint64_t BlobBytesRead() const override { return blob_->Count(); }
  uint64_t TarBytesRead() const override { return tar_bytes_; }

 private:
  uint64_t header_offset() const {
    la_int64_t position = archive_read_header_position(archive_);
    return position < 0 ? 0 : static_cast<uint64_t>(position);
  }

  Error ArchiveError(const std::string& what) {
    if (callback_error_) return *callback_error_;
    const char* detail = archive_error_string(archive_);
    return MakeErrorAt(name_, tar_bytes_, what + (detail ? std::string(": ") + detail : std::string()));
  }

  static la_ssize_t ReadCallback(struct archive* archive, void* client, const void** out) {
    auto* self = static_cast<LayerEntryReader*>(client);
    auto n = self->tar_->Read(self->buffer_);
    if (!n.ok()) {
      self->callback_error_ = n.error();
      archive_set_error(archive, EIO, "%s", n.error().message.c_str());
      return ARCHIVE_FATAL;
    }
    if (self->options_.verify) self->tar_hasher_.Update(std::span<const uint8_t>(self->buffer_).first(*n));
    self->tar_bytes_ += *n;
    *out = self->buffer_.data();
    return static_cast<la_ssize_t>(*n);
  }

  // End of the tar: read what follows the end-of-archive blocks so that both
  // digests cover every byte, then compare.
  Status Finish() {
    for (;;) {
      auto n = tar_->Read(buffer_);
      if (!n.ok()) return n.error();
      if (*n == 0) break;
      tar_hasher_.Update(std::span<const uint8_t>(buffer_).first(*n));
      tar_bytes_ += *n;
    }
    finished_ = true;
    if (!options_.verify) return OkStatus();
    std::string diff_id = tar_hasher_.FinishDigest();
    std::string blob_digest = plain_ ? diff_id : blob_->Digest();
    if (layer_.size >= 0 && static_cast<uint64_t>(layer_.size) != blob_->Count()) {
      return MakeError(name_, "blob has " + std::to_string(blob_->Count()) + " bytes, the manifest says " +
                                  std::to_string(layer_.size));
    }
    if (!layer_.digest.empty() && layer_.digest.rfind("sha256:", 0) == 0 && layer_.digest != blob_digest) {
      return MakeError(name_, "blob digest mismatch: expected " + ShortDigest(layer_.digest) + ", got " +
                                  ShortDigest(blob_digest));
    }
    if (!layer_.diff_id.empty() && layer_.diff_id.rfind("sha256:", 0) == 0 && layer_.diff_id != diff_id) {
      return MakeError(name_, "diff ID mismatch: the config says " + ShortDigest(layer_.diff_id) +
                                  ", the uncompressed layer is " + ShortDigest(diff_id));
    }
    return OkStatus();
  }

  std::unique_ptr<HashingStream> blob_;
  std::unique_ptr<ByteStream> tar_;
  LayerRef layer_;
  LayerReadOptions options_;
  std::vector<uint8_t> buffer_;
  std::string name_;
  struct archive* archive_ = nullptr;
  Sha256 tar_hasher_;
  uint64_t tar_bytes_ = 0;
  std::optional<Error> callback_error_;
  bool finished_ = false;
  bool plain_;
};

}  // namespace

Result<std::string> CleanEntryPath(std::string_view raw) {
  if (raw.size() > kMaxPathBytes) return MakeError("", "entry name longer than " + std::to_string(kMaxPathBytes) + " bytes");
  if (!raw.empty() && raw.front() == '/') {
    return MakeError("", "absolute entry name \"" + std::string(raw) + "\" (layer entries must be relative)");
  }
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (start <= raw.size()) {
    size_t slash = raw.find('/', start);
    if (slash == std::string_view::npos) slash = raw.size();
    std::string_view part = raw.substr(start, slash - start);
    if (part == "..") {
      if (parts.empty()) {
        return MakeError("", "entry name \"" + std::string(raw) + "\" escapes the image root");
      }
      parts.pop_back();
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
    start = slash + 1;
  }
  std::string clean;
  for (auto part : parts) {
    if (!clean.empty()) clean += '/';
    clean += part;
  }
  return clean;
}

Result<std::unique_ptr<EntryReader>> OpenLayerStream(std::unique_ptr<ByteStream> blob, const LayerRef& layer,
                                                     const LayerReadOptions& options) {
  auto hashing = std::make_unique<HashingStream>(std::move(blob));
  auto peek = PeekStream::Open(std::make_unique<BorrowedStream>(hashing.get()), 4);
  if (!peek.ok()) return peek.error();
  Codec codec = SniffCodec((*peek)->Head());
  if ((*peek)->Head().empty()) return MakeError(hashing->Name(), "empty layer blob (not a tar archive)");
  auto tar = Decompressor(std::move(*peek), codec, options.max_uncompressed_bytes);
  auto reader =
      std::make_unique<LayerEntryReader>(std::move(hashing), std::move(tar), layer, options, codec == Codec::kNone);
  IMAGELINT_TRY(reader->Start());
  return std::unique_ptr<EntryReader>(std::move(reader));
}

}  // namespace imagelint
