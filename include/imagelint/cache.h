// The layer cache: per-layer scan results stored on disk, keyed by the layer
// digest (+ diff ID), one file for the entry list and one file per analyzer
// name and version, so that a new analyzer version invalidates only its own
// results. Shared safely by concurrent processes: every file is written to a
// temporary name and renamed into place, and carries a checksum; a file that
// fails to read back (torn, truncated, corrupt, from another format) is
// discarded and the layer scanned again.
//
//   auto cache = LayerCache::Open(DefaultCacheDirectory(xdg_cache_home, home));
//   ScanOptions scan;
//   scan.layer_scanner = (*cache)->Scanner();     // wraps ScanLayer
//   auto image = ScanImage(source, analyzers, scan);
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "imagelint/analyzer.h"
#include "imagelint/layer.h"
#include "imagelint/layer_store.h"
#include "imagelint/result.h"
#include "imagelint/source.h"

namespace imagelint {

struct ScanOptions;  // imagelint/scan.h
// Same alias as imagelint/scan.h (a repeated alias of the same type is allowed).
using LayerScanFunction = std::function<Result<LayerResult>(
    ImageSource& source, size_t index, const std::vector<FileAnalyzer*>& analyzers, const ScanOptions& options)>;

// <xdg_cache_home>/imagelint when that is an absolute path, else
// <home>/.cache/imagelint ("" when neither is usable). The command line passes
// $XDG_CACHE_HOME and $HOME; the library reads no environment.
std::string DefaultCacheDirectory(const std::string& xdg_cache_home, const std::string& home);

struct CacheStats {
  uint64_t hits = 0;        // layers served entirely from the cache
  uint64_t partial = 0;     // layers re-read for some analyzers only
  uint64_t misses = 0;      // layers scanned and stored
  uint64_t bypassed = 0;    // layers without a usable digest (rootfs), never cached
  uint64_t discarded = 0;   // corrupt or mismatching files removed
  uint64_t write_errors = 0;  // files that could not be written (the scan still succeeds)
  uint64_t blobs_vouched = 0;  // local blobs not re-hashed on a hit: unchanged since last hashed
  // The shared store behind the local cache (--cache-backend):
  uint64_t shared_hits = 0;       // hits (counted in `hits` too) with a file fetched from the shared store
  uint64_t shared_discarded = 0;  // shared values ignored: too large, corrupt, foreign, another key or version
  uint64_t shared_stored = 0;     // values put into the shared store
};

// A shared store behind the local cache: what the local cache lacks is looked
// up there (and kept locally once it passes the local checks); what is
// scanned is stored in both.
struct SharedCache {
  std::shared_ptr<LayerStore> store;             // null = none; wrap it with FailSoft
  std::function<void(const std::string&)> note;  // told of each value ignored; null = counted only
};

// Also the memo of verified local blobs (verified/<xx>/<sha256 of key>.cbor).
// What a cache directory holds (imagelint cache info).
struct CacheUsage {
  uint64_t layers = 0;           // layer directories (entry list + analyzer files)
  uint64_t layer_bytes = 0;
  uint64_t memo_entries = 0;     // verified-blob stamps
  uint64_t memo_bytes = 0;
  uint64_t stale_temporaries = 0;  // leftovers of interrupted writes, older than an hour
  uint64_t TotalBytes() const { return layer_bytes + memo_bytes; }
};

struct PruneOptions {
  std::optional<uint64_t> max_bytes;   // evict least recently used items until the rest fits
  std::optional<int64_t> unused_for_seconds;  // evict items not used for this long
};

struct PruneResult {
  CacheUsage before;
  CacheUsage after;
  uint64_t layers_removed = 0;
  uint64_t memo_entries_removed = 0;
  uint64_t temporaries_removed = 0;
};

// Reads the usage of a cache directory. Errors: it does not exist or is not
// a directory. Only imagelint's own names are counted.
Result<CacheUsage> MeasureCache(const std::string& directory);
// Evicts layers and memo entries, least recently used first (a hit refreshes
// an item's time), and removes stale temporaries. Safe beside running scans:
// a layer directory is renamed away before it is deleted, so a reader finds
// it whole or not at all (then scans the layer again). Touches only
// imagelint's own names under layers/ and verified/, never follows symlinks.
Result<PruneResult> PruneCache(const std::string& directory, const PruneOptions& options);

class LayerCache final : public VerifiedBlobMemo {
 public:
  // Creates `directory` when needed. Errors: it cannot be created or written.
  static Result<std::unique_ptr<LayerCache>> Open(const std::string& directory, SharedCache shared = {});

  // The cached result of `layer` with every analyzer of `analyzers`; analyzers
  // whose results are not cached are added to `missing` (then the result
  // holds the entries and the cached analyzers' facts only). nullopt when the
  // entry list itself is not cached.
  // `from_shared` (optional) tells whether any file came from the shared store.
  std::optional<LayerResult> Lookup(const LayerRef& layer, const std::vector<FileAnalyzer*>& analyzers,
                                    std::vector<FileAnalyzer*>* missing, bool* from_shared = nullptr);
  // Stores the entry list and each analyzer's facts of `result`, filed under
  // the digest its scan checked (result.verified_digest; a result without
  // one is not stored). Failures are counted (write_errors) and returned,
  // never fatal to a scan.
  Status Store(const LayerRef& layer, const LayerResult& result, const std::vector<FileAnalyzer*>& analyzers);

  // A layer scanner for ScanOptions::layer_scanner: serves layers from the
  // cache, scans (with `inner`, default ScanLayer) what is missing, stores it.
  LayerScanFunction Scanner(LayerScanFunction inner = {});

  // VerifiedBlobMemo: a checked file per remembered blob stamp.
  bool Contains(const StoredBlobStamp& stamp) override;
  void Remember(const StoredBlobStamp& before, const StoredBlobStamp& after) override;

  CacheStats Stats() const;
  const std::string& directory() const { return directory_; }

  // Whether a layer can be looked up: a valid sha256 diff ID or blob digest.
  static bool Cacheable(const LayerRef& layer);

 private:
  LayerCache(std::string directory, SharedCache shared)
      : directory_(std::move(directory)), shared_(std::move(shared)) {}
  // A checked shared value of `file` of `layer` (its bytes and payload); false when none.
  // `key`: the digest the entry is filed under (see StoreKey/LookupKeys).
  bool SharedGet(const std::string& key, const std::string& file, std::vector<uint8_t>* bytes,
                 nlohmann::json* payload);
  void SharedDiscard(const std::string& key, const std::string& file, const std::string& why);
  std::string LayerDirectory(const std::string& key) const;
  std::optional<LayerResult> LookupAt(const std::string& key, const LayerRef& layer,
                                      const std::vector<FileAnalyzer*>& analyzers, std::vector<FileAnalyzer*>* missing,
                                      bool* from_shared);
  std::string MemoPath(const std::string& key) const;
  Status StoreOrThrow(const LayerRef& layer, const LayerResult& result, const std::vector<FileAnalyzer*>& analyzers);

  std::string directory_;
  SharedCache shared_;
  // Plain counts, bumped from the scan's worker threads (CacheStats tells each one's meaning).
  struct Counters {
    std::atomic<uint64_t> hits{0}, partial{0}, misses{0}, bypassed{0}, discarded{0}, write_errors{0},
        blobs_vouched{0}, shared_hits{0}, shared_discarded{0}, shared_stored{0};
  };
  Counters counters_;
};

}  // namespace imagelint
