// One layer blob -> entries: digest of the blob as it arrives, decompression by
// magic bytes, digest of the tar, tar parsing by libarchive (format tar only,
// no filters: decompression is ours), path hygiene on every name.
#include "common/archive_library.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "common/io_buffer.h"
#include "imagelint/digest.h"
#include "imagelint/scan.h"
#include "scan/helper_thread.h"
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
  static const unsigned cores = std::thread::hardware_concurrency();  // glibc reads /sys each call
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
  // `blob_by_caller`: the blob is read and hashed on a read-ahead thread of
  // its own, which then has the blob digest to itself (no copies, no queue).
  LayerHasher(HashThreading mode, bool blob_by_caller) : mode_(mode), blob_by_caller_(blob_by_caller) {
    if (mode_ == HashThreading::kHelperThread || (mode_ == HashThreading::kAuto && CoreToSpare())) StartWorker();
  }
  ~LayerHasher() { AbandonAndJoin(worker_, mutex_, changed_, abandon_); }
  LayerHasher(const LayerHasher&) = delete;
  LayerHasher& operator=(const LayerHasher&) = delete;

  // Each stream has one caller at a time, but the two streams may be fed
  // from two threads (the blob by a read-ahead thread that decompresses, the
  // tar by the reader): hence the atomic switch.
  void Update(HashedStream stream, std::span<const uint8_t> data) {
    if (stream == kBlobBytes && blob_by_caller_) {
      hashers_[kBlobBytes].Update(data);
      return;
    }
    if (!started_.load(std::memory_order_acquire) && mode_ == HashThreading::kAuto &&
        inline_updates_.fetch_add(1, std::memory_order_relaxed) % kRecheckEvery == kRecheckEvery - 1 &&
        CoreToSpare()) {
      StartWorker();
    }
    if (!started_.load(std::memory_order_acquire)) {
      hashers_[stream].Update(data);
      return;
    }
    // Bytes gather in a chunk per stream (reads may be much smaller than a
    // chunk), which goes to the worker once full.
    std::unique_ptr<Chunk>& pending = pending_[stream];
    while (!data.empty()) {
      if (!pending) pending = TakeFreeChunk(stream);
      size_t take = std::min(data.size(), kChunkBytes - pending->size);
      std::memcpy(pending->bytes.data() + pending->size, data.data(), take);
      pending->size += take;
      data = data.subspan(take);
      if (pending->size == kChunkBytes) Queue(std::move(pending));
    }
  }

  // Both digests; no Update may follow.
  std::pair<std::string, std::string> Finish() {
    if (worker_.joinable()) {
      for (auto& pending : pending_)
        if (pending) Queue(std::move(pending));
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
    IoBuffer bytes{kChunkBytes};
    size_t size = 0;
    HashedStream stream = kBlobBytes;
  };

  std::unique_ptr<Chunk> TakeFreeChunk(HashedStream stream) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return !free_.empty(); });
    std::unique_ptr<Chunk> chunk = std::move(free_.back());
    free_.pop_back();
    chunk->size = 0;
    chunk->stream = stream;
    return chunk;
  }

  void Queue(std::unique_ptr<Chunk> chunk) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      queue_.push_back(std::move(chunk));
    }
    changed_.notify_all();
  }

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
      hashers_[chunk->stream].Update(chunk->bytes.first(chunk->size));
      {
        std::lock_guard<std::mutex> lock(mutex_);
        free_.push_back(std::move(chunk));
      }
      changed_.notify_all();
    }
  }

  Sha256 hashers_[2];
  HashThreading mode_;
  bool blob_by_caller_;
  std::atomic<uint64_t> inline_updates_{0};
  std::atomic<bool> started_{false};
  std::mutex start_mutex_;
  std::thread worker_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::unique_ptr<Chunk>> queue_;
  std::vector<std::unique_ptr<Chunk>> free_;
  std::unique_ptr<Chunk> pending_[2];  // filling, per stream; touched by that stream's caller only
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
  // Set once the codec is known and the blob is to be hashed (HashPlan::blob);
  // null otherwise.
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

// Which digests a read checks. Each byte is hashed once, against the digest
// that covers it: a plain tar is its own blob (hashed as it is read, checked
// against both digests); a compressed blob with a digest fixes the tar inside
// it, so the tar is hashed only where no blob digest is known or when asked
// (--verify-diff-ids).
struct HashPlan {
  bool plain = false;  // the blob is the tar (no compression)
  bool blob = false;   // hash the blob's bytes as they are read
  bool tar = false;    // hash the decompressed tar (compressed layers only)
};

HashPlan PlanHashes(const LayerRef& layer, const LayerReadOptions& options, bool plain) {
  HashPlan plan;
  plan.plain = plain;
  plan.blob = options.verify && (plain || IsSha256(layer.digest));
  plan.tar = options.verify && !plain && IsSha256(layer.diff_id) &&
             (!IsSha256(layer.digest) || options.verify_diff_ids);
  return plan;
}

class LayerEntryReader final : public EntryReader {
 public:
  LayerEntryReader(std::unique_ptr<LayerHasher> hasher, std::unique_ptr<HashingStream> blob,
                   std::unique_ptr<ByteStream> tar, LayerRef layer, LayerReadOptions options, HashPlan plan)
      : blob_(std::move(blob)), tar_(std::move(tar)), layer_(std::move(layer)), options_(options),
        buffer_(kTarChunk), name_(blob_->Name()), plan_(plan), hasher_(std::move(hasher)) {}
  ~LayerEntryReader() override {
    if (archive_) Archive().archive_read_free(archive_);
    // A read-ahead thread inside tar_ feeds blob_ and hasher_: stop it first.
    tar_.reset();
  }

  Status Start() {
    if (auto library = LoadArchive(); !library.ok()) return library.error();
    archive_ = Archive().archive_read_new();
    if (!archive_) return MakeError(name_, "out of memory");
    Archive().archive_read_support_format_tar(archive_);
    Archive().archive_read_support_format_gnutar(archive_);
    if (Archive().archive_read_open(archive_, this, nullptr, &LayerEntryReader::ReadCallback, nullptr) != ARCHIVE_OK) {
      return ArchiveError("not a tar archive");
    }
    return OkStatus();
  }

  Result<std::optional<EntryInfo>> Next() override {
    if (finished_) return std::optional<EntryInfo>();
    for (;;) {
      archive_entry* entry = nullptr;
      int rc = Archive().archive_read_next_header(archive_, &entry);
      if (rc == ARCHIVE_EOF) {
        IMAGELINT_TRY(Finish());
        return std::optional<EntryInfo>();
      }
      if (rc < ARCHIVE_WARN) return ArchiveError("malformed tar");
      const char* raw = Archive().archive_entry_pathname(entry);
      if (!raw) raw = Archive().archive_entry_pathname_utf8(entry);
      if (!raw) return MakeErrorAt(name_, header_offset(), "tar entry without a readable name");
      auto path = CleanEntryPath(raw);
      if (!path.ok()) return MakeErrorAt(name_, header_offset(), path.error().message);
      if (path->empty()) continue;  // the root directory itself ("./")
      block_ = {};
      block_eof_ = false;
      block_offset_ = content_at_ = hole_bytes_ = 0;
      EntryInfo info;
      info.path = std::move(*path);
      info.mode = Archive().archive_entry_perm(entry);
      const char* hardlink = Archive().archive_entry_hardlink(entry);
      mode_t type = Archive().archive_entry_filetype(entry);
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
        const char* target = Archive().archive_entry_symlink(entry);
        if (!target) target = Archive().archive_entry_symlink_utf8(entry);
        info.link_target = target ? target : "";
        if (info.link_target.size() > kMaxEntryPathBytes) {
          return MakeErrorAt(name_, header_offset(),
                             "symlink " + info.path + " has a target longer than " +
                                 std::to_string(kMaxEntryPathBytes) + " bytes (Linux's PATH_MAX)");
        }
      } else if (type == AE_IFREG) {
        info.type = EntryType::kRegular;
        info.size = Archive().archive_entry_size_is_set(entry) ? static_cast<uint64_t>(Archive().archive_entry_size(entry)) : 0;
        entry_path_ = info.path;
        entry_size_ = info.size;
      } else {
        info.type = EntryType::kOther;
      }
      return std::optional<EntryInfo>(std::move(info));
    }
  }

  // Content by libarchive's data blocks: a sparse entry (GNU or pax sparse)
  // carries only its data; the holes between are zeros that the archive does
  // not hold. archive_read_data would make up every hole byte, so a few KB
  // declaring 1 TiB took hours; holes are served here up to a limit per file,
  // past which the entry is refused (extracting it would write that much too).
  Result<size_t> ReadContent(std::span<uint8_t> buffer) override {
    if (finished_ || buffer.empty()) return size_t{0};
    if (block_.empty() && !block_eof_) {
      const void* data = nullptr;
      size_t size = 0;
      la_int64_t offset = 0;
      int rc = Archive().archive_read_data_block(archive_, &data, &size, &offset);
      if (rc == ARCHIVE_EOF) {  // its offset is the file's end: a trailing hole may be left
        block_eof_ = true;
        block_offset_ = offset > 0 ? std::max(static_cast<uint64_t>(offset), content_at_) : content_at_;
      } else if (rc < ARCHIVE_WARN) {
        return ArchiveError("cannot read file content");
      } else {
        block_ = std::span<const uint8_t>(static_cast<const uint8_t*>(data), size);
        block_offset_ = offset < 0 ? content_at_ : static_cast<uint64_t>(offset);
      }
    }
    if (block_offset_ > content_at_) {  // a hole before the block (or the end)
      const uint64_t hole = block_offset_ - content_at_;
      if (hole_bytes_ + hole > options_.max_sparse_hole_bytes) {
        return MakeErrorAt(name_, header_offset(),
                           entry_path_ + ": a sparse file whose holes pass " +
                               std::to_string(options_.max_sparse_hole_bytes) +
                               " bytes (imagelint's limit of unstored bytes per file, max_sparse_hole_bytes); "
                               "it holds data up to offset " + std::to_string(content_at_) + " of " +
                               std::to_string(entry_size_) + " declared bytes");
      }
      const size_t n = static_cast<size_t>(std::min<uint64_t>(hole, buffer.size()));
      std::memset(buffer.data(), 0, n);
      content_at_ += n;
      hole_bytes_ += n;
      return n;
    }
    if (block_eof_) return size_t{0};
    const size_t n = std::min(block_.size(), buffer.size());
    std::memcpy(buffer.data(), block_.data(), n);
    block_ = block_.subspan(n);
    block_offset_ += n;
    content_at_ += n;
    return n;
  }

  uint64_t BlobBytesRead() const override { return blob_->Count(); }
  uint64_t TarBytesRead() const override { return tar_bytes_; }
  std::string VerifiedDigest() const override { return verified_digest_; }

 private:
  uint64_t header_offset() const {
    la_int64_t position = Archive().archive_read_header_position(archive_);
    return position < 0 ? 0 : static_cast<uint64_t>(position);
  }

  Error ArchiveError(const std::string& what) {
    if (callback_error_) return *callback_error_;
    const char* detail = Archive().archive_error_string(archive_);
    return MakeErrorAt(name_, tar_bytes_, what + (detail ? std::string(": ") + detail : std::string()));
  }

  static la_ssize_t ReadCallback(struct archive* archive, void* client, const void** out) {
    auto* self = static_cast<LayerEntryReader*>(client);
    // libarchive keeps the block only until its next call here, which is as
    // long as a read-ahead chunk's view lives: it parses the chunk in place.
    auto view = self->tar_->ReadView(self->buffer_.span());
    if (!view.ok()) {
      self->callback_error_ = view.error();
      Archive().archive_set_error(archive, EIO, "%s", view.error().message.c_str());
      return ARCHIVE_FATAL;
    }
    if (self->plan_.tar) self->hasher_->Update(kTarBytes, *view);
    self->tar_bytes_ += view->size();
    *out = view->data();
    return static_cast<la_ssize_t>(view->size());
  }

  // End of the tar: read what follows the end-of-archive blocks so that both
  // digests cover every byte, then compare.
  Status Finish() {
    for (;;) {
      auto view = tar_->ReadView(buffer_.span());
      if (!view.ok()) return view.error();
      if (view->empty()) break;
      if (plan_.tar) hasher_->Update(kTarBytes, *view);
      tar_bytes_ += view->size();
    }
    finished_ = true;
    if (!options_.verify) return OkStatus();
    auto [blob_hash, diff_id] = hasher_->Finish();
    if (layer_.size >= 0 && static_cast<uint64_t>(layer_.size) != blob_->Count()) {
      return MakeError(name_, "blob has " + std::to_string(blob_->Count()) + " bytes, the manifest says " +
                                  std::to_string(layer_.size));
    }
    // A plain tar is its own blob: hashed once, on the blob side.
    std::string tar_digest = plan_.plain ? blob_hash : diff_id;
    if (plan_.blob && IsSha256(layer_.digest)) {
      if (layer_.digest != blob_hash) {
        return MakeError(name_, "blob digest mismatch: expected " + ShortDigest(layer_.digest) + ", got " +
                                    ShortDigest(blob_hash));
      }
      verified_digest_ = layer_.digest;
    }
    if ((plan_.tar || (plan_.plain && plan_.blob)) && IsSha256(layer_.diff_id)) {
      if (layer_.diff_id != tar_digest) {
        return MakeError(name_, "diff ID mismatch: the config says " + ShortDigest(layer_.diff_id) +
                                    ", the uncompressed layer is " + ShortDigest(tar_digest));
      }
      verified_digest_ = layer_.diff_id;
    }
    return OkStatus();
  }

  std::unique_ptr<HashingStream> blob_;
  std::unique_ptr<ByteStream> tar_;
  LayerRef layer_;
  LayerReadOptions options_;
  IoBuffer buffer_;
  std::string name_;
  struct archive* archive_ = nullptr;
  uint64_t tar_bytes_ = 0;
  std::optional<Error> callback_error_;
  bool finished_ = false;
  // The current regular file's content: the data block being handed out, the
  // logical offset reached, and the hole bytes served as zeros so far.
  std::span<const uint8_t> block_;
  bool block_eof_ = false;
  uint64_t block_offset_ = 0;
  uint64_t content_at_ = 0;
  uint64_t hole_bytes_ = 0;
  std::string entry_path_;
  uint64_t entry_size_ = 0;
  HashPlan plan_;
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
  const bool big = OnCriticalPath() && layer.ScheduleBytes() >= static_cast<int64_t>(kBigLayerBytes) &&
                   std::thread::hardware_concurrency() > 1;
  auto hashing = std::make_unique<HashingStream>(std::move(blob));
  auto peek = PeekStream::Open(std::make_unique<BorrowedStream>(hashing.get()), 4);
  if (!peek.ok()) return peek.error();
  if ((*peek)->Head().empty()) return MakeError(hashing->Name(), "empty layer blob (not a tar archive)");
  Codec codec = SniffCodec((*peek)->Head());
  HashPlan plan = PlanHashes(layer, options, codec == Codec::kNone);

  // The big layer's blob is read (and hashed, when it is checked) on a
  // read-ahead thread of its own: the thread that inflates it, or parses it
  // when it is a plain tar, then does nothing else, and the blob digest needs
  // no copies. For a plain tar that thread is the critical path (the floor is
  // the SHA-256 of this layer); the other layers' workers yield to it
  // (ScanImage), so the parsing and the small layers share the other core.
  // Without verification it still takes the page-cache copies off the
  // inflating thread.
  const bool blob_ahead = options.blob_threading != HashThreading::kInline &&
                          (big || (plan.blob && options.blob_threading == HashThreading::kHelperThread));
  HashThreading hashing_mode = options.verify ? options.hash_threading : HashThreading::kInline;
  if (big && hashing_mode == HashThreading::kAuto) hashing_mode = HashThreading::kHelperThread;
  if (blob_ahead && !plan.tar) hashing_mode = HashThreading::kInline;  // nothing left for a helper
  auto hasher = std::make_unique<LayerHasher>(hashing_mode, blob_ahead);
  if (plan.blob) {
    // The sniffed head was read before the hasher existed.
    hasher->Update(kBlobBytes, (*peek)->Head());
    hashing->SetHasher(hasher.get());
  }
  std::unique_ptr<ByteStream> blob_bytes = std::move(*peek);
  // Read and hashed here in 1 MiB chunks, 8 chunks (8 MiB) ahead of the inflating.
  // For a plain tar this thread is the critical path: its hashing is the floor.
  if (blob_ahead) blob_bytes = ReadAhead(std::move(blob_bytes), +[] { return true; }, big && codec == Codec::kNone);
  auto tar = Decompressor(std::move(blob_bytes), codec, options.max_uncompressed_bytes);
  // Inflating beside parsing: what lets the one big layer use two cores.
  // For a big layer from the start, even while every core runs a layer (the
  // parsing side is light: most content is skipped or scanned in passing, so
  // the inflating thread keeps its core nearly to itself); for a small one
  // once a core is free.
  if (codec != Codec::kNone && options.decompress_threading != HashThreading::kInline) {
    const bool now = options.decompress_threading == HashThreading::kHelperThread || big;
    tar = ReadAhead(std::move(tar), now ? +[] { return true; } : &CoreToSpare, /*critical=*/big);
  }
  auto reader = std::make_unique<LayerEntryReader>(std::move(hasher), std::move(hashing), std::move(tar), layer,
                                                   options, plan);
  IMAGELINT_TRY(reader->Start());
  return std::unique_ptr<EntryReader>(std::move(reader));
}

}  // namespace imagelint
