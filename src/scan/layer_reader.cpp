// One layer blob -> entries: digest of the blob as it arrives, decompression by
// magic bytes, digest of the tar, tar parsing by libarchive (format tar only,
// no filters: decompression is ours), path hygiene on every name.
#include <archive.h>
#include <archive_entry.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "imagelint/digest.h"
#include "imagelint/scan.h"
#include "scan/streams.h"

namespace imagelint {
namespace {

constexpr size_t kTarChunk = 512 * 1024;

// The two digests of a layer: the blob as stored and the tar inside it.
enum HashedStream { kBlobBytes = 0, kTarBytes = 1 };

// A helper hashing thread only pays off while cores outnumber the layer
// scans running at once (otherwise every core is already busy inflating, and
// the copies into the queue would be pure overhead).
bool CoreToSpare() {
  unsigned cores = std::thread::hardware_concurrency();
  return cores > 1 && std::max(RunningLayerScans().load(), 1) < static_cast<int>(cores);
}

// SHA-256 of the blob and tar streams, either inline or on a helper thread
// fed through a bounded queue of copied chunks (so hashing overlaps
// decompression and tar parsing on another core). Order is kept per stream
// because one thread consumes the single FIFO queue.
//
// kAuto decides again as the layer goes: the big layer of an image usually
// starts beside the small ones (every core busy, so inline) and outlives
// them; once a core is free, its remaining bytes are hashed there. The
// switch happens between two Updates on the reader's thread, so the digests
// see every byte once and in order.
class LayerHasher {
 public:
  explicit LayerHasher(HashThreading mode) : mode_(mode) {
    if (mode_ == HashThreading::kHelperThread || (mode_ == HashThreading::kAuto && CoreToSpare())) StartWorker();
  }
  ~LayerHasher() {
    if (!worker_.joinable()) return;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      abandon_ = true;
    }
    changed_.notify_all();
    worker_.join();
  }
  LayerHasher(const LayerHasher&) = delete;
  LayerHasher& operator=(const LayerHasher&) = delete;

  // Each stream has one caller at a time, but the two streams may be fed
  // from two threads (the blob by a read-ahead thread that decompresses, the
  // tar by the reader): hence the atomic switch.
  void Update(HashedStream stream, std::span<const uint8_t> data) {
    if (!started_.load(std::memory_order_acquire) && mode_ == HashThreading::kAuto &&
        inline_updates_.fetch_add(1, std::memory_order_relaxed) % kRecheckEvery == kRecheckEvery - 1 &&
        CoreToSpare()) {
      StartWorker();
    }
    if (!started_.load(std::memory_order_acquire)) {
      hashers_[stream].Update(data);
      return;
    }
    while (!data.empty()) {
      size_t take = std::min(data.size(), kChunkBytes);
      std::unique_ptr<Chunk> chunk;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [&] { return !free_.empty(); });
        chunk = std::move(free_.back());
        free_.pop_back();
      }
      std::memcpy(chunk->bytes.data(), data.data(), take);
      chunk->size = take;
      chunk->stream = stream;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        queue_.push_back(std::move(chunk));
      }
      changed_.notify_all();
      data = data.subspan(take);
    }
  }

  // Both digests; no Update may follow.
  std::pair<std::string, std::string> Finish() {
    if (worker_.joinable()) {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        closing_ = true;
      }
      changed_.notify_all();
      worker_.join();
    }
    std::string blob = hashers_[kBlobBytes].FinishDigest();
    std::string tar = hashers_[kTarBytes].FinishDigest();
    return {blob, tar};
  }

 private:
  static constexpr size_t kChunkBytes = 512 * 1024;
  static constexpr size_t kSlots = 8;  // at most 4 MiB queued per layer
  static constexpr uint64_t kRecheckEvery = 16;  // inline updates (~8 MiB) between looks at the cores

  void StartWorker() {
    std::lock_guard<std::mutex> once(start_mutex_);
    if (started_.load(std::memory_order_relaxed)) return;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (size_t i = 0; i < kSlots; ++i) free_.push_back(std::make_unique<Chunk>());
    }
    worker_ = std::thread([this] { Work(); });
    started_.store(true, std::memory_order_release);
  }
  struct Chunk {
    std::vector<uint8_t> bytes = std::vector<uint8_t>(kChunkBytes);
    size_t size = 0;
    HashedStream stream = kBlobBytes;
  };

  void Work() {
    for (;;) {
      std::unique_ptr<Chunk> chunk;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [&] { return abandon_ || closing_ || !queue_.empty(); });
        if (abandon_ || (queue_.empty() && closing_)) return;
        chunk = std::move(queue_.front());
        queue_.pop_front();
      }
      hashers_[chunk->stream].Update(std::span<const uint8_t>(chunk->bytes).first(chunk->size));
      {
        std::lock_guard<std::mutex> lock(mutex_);
        free_.push_back(std::move(chunk));
      }
      changed_.notify_all();
    }
  }

  Sha256 hashers_[2];
  HashThreading mode_;
  std::atomic<uint64_t> inline_updates_{0};
  std::atomic<bool> started_{false};
  std::mutex start_mutex_;
  std::thread worker_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::unique_ptr<Chunk>> queue_;
  std::vector<std::unique_ptr<Chunk>> free_;
  bool closing_ = false;
  bool abandon_ = false;
};

// Hashes (through the layer's hasher) and counts the bytes that pass through.
class HashingStream final : public ByteStream {
 public:
  explicit HashingStream(std::unique_ptr<ByteStream> input) : input_(std::move(input)) {}
  Result<size_t> Read(std::span<uint8_t> buffer) override {
    auto n = input_->Read(buffer);
    if (n.ok() && *n > 0) {
      if (hasher_) hasher_->Update(kBlobBytes, buffer.first(*n));
      count_ += *n;
    }
    return n;
  }
  // Null when nothing needs the digest (no verification, or a plain tar whose
  // blob digest is the diff ID: hashed once, on the tar side).
  void SetHasher(LayerHasher* hasher) { hasher_ = hasher; }
  std::string Name() const override { return input_->Name(); }
  uint64_t Count() const { return count_; }

 private:
  std::unique_ptr<ByteStream> input_;
  LayerHasher* hasher_ = nullptr;
  uint64_t count_ = 0;
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

bool IsSha256(const std::string& digest) { return digest.rfind("sha256:", 0) == 0; }

// Declared blob size from which a layer counts as big (see OpenLayerStream).
constexpr uint64_t kBigLayerBytes = 64ull << 20;

class LayerEntryReader final : public EntryReader {
 public:
  LayerEntryReader(std::unique_ptr<LayerHasher> hasher, std::unique_ptr<HashingStream> blob,
                   std::unique_ptr<ByteStream> tar, LayerRef layer, LayerReadOptions options, bool plain)
      : blob_(std::move(blob)), tar_(std::move(tar)), layer_(std::move(layer)), options_(options),
        buffer_(kTarChunk), name_(blob_->Name()), plain_(plain), hasher_(std::move(hasher)) {
    // Each byte is hashed once, against the digest that covers it: a plain
    // tar is its own blob (hashed on the tar side, checked against both
    // digests); a compressed blob with a digest fixes the tar inside it, so
    // the tar is hashed only where no blob digest is known or when asked.
    hash_blob_ = options_.verify && !plain_ && IsSha256(layer_.digest);
    hash_tar_ = options_.verify &&
                (plain_ || (IsSha256(layer_.diff_id) && (!hash_blob_ || options_.verify_diff_ids)));
    if (!hash_blob_) blob_->SetHasher(nullptr);
  }
  ~LayerEntryReader() override {
    if (archive_) archive_read_free(archive_);
    // A read-ahead thread inside tar_ feeds blob_ and hasher_: stop it first.
    tar_.reset();
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
        if (info.link_target.size() > kMaxEntryPathBytes) {
          return MakeErrorAt(name_, header_offset(),
                             "symlink " + info.path + " has a target longer than " +
                                 std::to_string(kMaxEntryPathBytes) + " bytes (Linux's PATH_MAX)");
        }
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
  std::string VerifiedDigest() const override { return verified_digest_; }

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
    if (self->hash_tar_) self->hasher_->Update(kTarBytes, std::span<const uint8_t>(self->buffer_).first(*n));
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
      if (hash_tar_) hasher_->Update(kTarBytes, std::span<const uint8_t>(buffer_).first(*n));
      tar_bytes_ += *n;
    }
    finished_ = true;
    if (!options_.verify) return OkStatus();
    auto [blob_hash, diff_id] = hasher_->Finish();
    if (layer_.size >= 0 && static_cast<uint64_t>(layer_.size) != blob_->Count()) {
      return MakeError(name_, "blob has " + std::to_string(blob_->Count()) + " bytes, the manifest says " +
                                  std::to_string(layer_.size));
    }
    // Here verification is on, so a plain tar was hashed (on the tar side).
    std::string blob_digest = plain_ ? diff_id : blob_hash;
    if ((hash_blob_ || plain_) && IsSha256(layer_.digest)) {
      if (layer_.digest != blob_digest) {
        return MakeError(name_, "blob digest mismatch: expected " + ShortDigest(layer_.digest) + ", got " +
                                    ShortDigest(blob_digest));
      }
      verified_digest_ = layer_.digest;
    }
    if (hash_tar_ && IsSha256(layer_.diff_id)) {
      if (layer_.diff_id != diff_id) {
        return MakeError(name_, "diff ID mismatch: the config says " + ShortDigest(layer_.diff_id) +
                                    ", the uncompressed layer is " + ShortDigest(diff_id));
      }
      verified_digest_ = layer_.diff_id;
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
  uint64_t tar_bytes_ = 0;
  std::optional<Error> callback_error_;
  bool finished_ = false;
  bool plain_;
  bool hash_blob_ = false;
  bool hash_tar_ = false;
  std::string verified_digest_;
  // Last member: destroyed first, so its thread stops before the streams go.
  std::unique_ptr<LayerHasher> hasher_;
};

}  // namespace

Result<std::string> CleanEntryPath(std::string_view raw) {
  if (raw.size() > kMaxEntryPathBytes) {
    return MakeError("", "entry name longer than " + std::to_string(kMaxEntryPathBytes) +
                             " bytes (Linux's PATH_MAX: no container runtime could create it)");
  }
  // An absolute name is rooted at the image root, as Docker and containerd
  // apply it (kaniko writes a "/" entry for the root directory in every
  // layer, and absolute hard-link targets): "/" is the root itself, "/etc/x"
  // is etc/x, and ".." stops at the root as filepath.Clean does for a rooted
  // path. A relative name that climbs out of the root stays an error.
  const bool rooted = !raw.empty() && raw.front() == '/';
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (start <= raw.size()) {
    size_t slash = raw.find('/', start);
    if (slash == std::string_view::npos) slash = raw.size();
    std::string_view part = raw.substr(start, slash - start);
    if (part == "..") {
      if (parts.empty() && !rooted) {
        return MakeError("", "entry name \"" + std::string(raw) + "\" escapes the image root");
      }
      if (!parts.empty()) parts.pop_back();
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
  // A big layer (the framework layer of most images) is the scan's critical
  // path: its inflating gets a core from the start and its hashing and
  // parsing go beside it. A small one stays on one thread (no copies)
  // unless a core is free.
  const bool big = OnCriticalPath() && layer.size >= static_cast<int64_t>(kBigLayerBytes) &&
                   std::thread::hardware_concurrency() > 1;
  HashThreading hashing_mode = options.verify ? options.hash_threading : HashThreading::kInline;
  if (big && hashing_mode == HashThreading::kAuto) hashing_mode = HashThreading::kHelperThread;
  auto hasher = std::make_unique<LayerHasher>(hashing_mode);
  auto hashing = std::make_unique<HashingStream>(std::move(blob));
  // From the first byte on: the codec sniffing below already reads some
  // (the reader drops the hasher again when the blob is a plain tar).
  if (options.verify && IsSha256(layer.digest)) hashing->SetHasher(hasher.get());
  auto peek = PeekStream::Open(std::make_unique<BorrowedStream>(hashing.get()), 4);
  if (!peek.ok()) return peek.error();
  Codec codec = SniffCodec((*peek)->Head());
  if ((*peek)->Head().empty()) return MakeError(hashing->Name(), "empty layer blob (not a tar archive)");
  auto tar = Decompressor(std::move(*peek), codec, options.max_uncompressed_bytes);
  // Inflating beside parsing: what lets the one big layer use two cores.
  // For a big layer from the start, even while every core runs a layer (the
  // parsing side is light: most content is skipped or scanned in passing, so
  // the inflating thread keeps its core nearly to itself); for a small one
  // once a core is free.
  if (codec != Codec::kNone && options.decompress_threading != HashThreading::kInline) {
    const bool now = options.decompress_threading == HashThreading::kHelperThread || big;
    tar = ReadAhead(std::move(tar), now ? +[] { return true; } : &CoreToSpare);
  }
  auto reader =
      std::make_unique<LayerEntryReader>(std::move(hasher), std::move(hashing), std::move(tar), layer, options,
                                         codec == Codec::kNone);
  IMAGELINT_TRY(reader->Start());
  return std::unique_ptr<EntryReader>(std::move(reader));
}

}  // namespace imagelint
