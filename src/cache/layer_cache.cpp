// Lookup and store of a layer's scan results: the local files first, then the
// shared store behind them (whose values pass the same checks and are then
// kept locally).
#include "imagelint/cache.h"

#include <unistd.h>

#include <filesystem>

#include "cache/cache_format.h"
#include "common/sealed_file.h"

namespace imagelint {
namespace {

namespace fs = std::filesystem;
using cache_format::LookupKeys;
using cache_format::StoreKey;
using cache_format::AnalyzerFile;
using cache_format::ReadOutcome;
using cache_format::ReadCacheFile;
using cache_format::DecodeCacheBytes;
using cache_format::EncodeCacheBytes;
using cache_format::WriteCacheBytes;
using cache_format::EntriesPayload;
using cache_format::EntriesFromPayload;
using cache_format::AnalyzerPayload;
using cache_format::ApplyAnalyzerPayload;
using cache_format::TouchNow;
using cache_format::kMaxFileBytes;

// "imagelint:layer:<hex>:<file>": the local file's name under the layer's key.
std::string SharedKey(const std::string& key, const std::string& file) {
  return "imagelint:layer:" + key.substr(7) + ":" + file;
}

}  // namespace

std::string DefaultCacheDirectory(const std::string& xdg_cache_home, const std::string& home) {
  if (!xdg_cache_home.empty() && xdg_cache_home[0] == '/') return xdg_cache_home + "/imagelint";
  if (!home.empty()) return home + "/.cache/imagelint";
  return {};
}

bool LayerCache::Cacheable(const LayerRef& layer) { return !LookupKeys(layer).empty(); }

Result<std::unique_ptr<LayerCache>> LayerCache::Open(const std::string& directory, SharedCache shared) {
  if (directory.empty()) return MakeError("layer cache", "no cache directory (set XDG_CACHE_HOME or --cache-dir)");
  IMAGELINT_TRY(MakeCacheDirectory(directory));
  // Someone else's or an open directory: its entries could stand for any
  // result and its links could send writes anywhere (sealed_file.h).
  if (std::string problem = UntrustedCacheDirectory(directory); !problem.empty())
    return MakeError(directory, problem + "; use a directory of your own (--cache-dir)");
  IMAGELINT_TRY(MakeCacheDirectory(fs::path(directory) / "layers"));
  if (::access((fs::path(directory) / "layers").c_str(), W_OK) != 0) {
    return MakeError(directory, "the cache directory is not writable");
  }
  return std::unique_ptr<LayerCache>(new LayerCache(directory, std::move(shared)));
}

std::string LayerCache::LayerDirectory(const std::string& key) const {
  std::string hex = key.substr(7);
  return (fs::path(directory_) / "layers" / hex.substr(0, 2) / hex).string();
}

bool LayerCache::SharedGet(const std::string& key, const std::string& file, std::vector<uint8_t>* bytes,
                           nlohmann::json* payload) {
  if (!shared_.store) return false;
  auto value = shared_.store->Get(SharedKey(key, file), kMaxFileBytes);
  if (!value.ok() || !*value) return false;  // a failing store warns through FailSoft
  if ((*value)->size() > kMaxFileBytes) {
    SharedDiscard(key, file, "larger than " + std::to_string(kMaxFileBytes) + " bytes");
    return false;
  }
  if (!DecodeCacheBytes(**value, SharedKey(key, file), payload)) {
    SharedDiscard(key, file, "not an imagelint cache value (bad header, checksum or encoding)");
    return false;
  }
  *bytes = std::move(**value);
  return true;
}

void LayerCache::SharedDiscard(const std::string& key, const std::string& file, const std::string& why) {
  counters_.shared_discarded++;
  if (shared_.note)
    shared_.note("shared cache (" + shared_.store->Name() + "): ignored the value of " + SharedKey(key, file) +
                 ": " + why + "; the layer is read locally");
}

std::optional<LayerResult> LayerCache::Lookup(const LayerRef& layer, const std::vector<FileAnalyzer*>& analyzers,
                                              std::vector<FileAnalyzer*>* missing, bool* from_shared) {
  // A whole entry under either key wins over a partial one: a partial hit
  // is rescanned and stored under the digest the rescan checked, which may
  // be the other key, and must then be found there next time.
  std::optional<LayerResult> partial;
  std::vector<FileAnalyzer*> partial_missing;
  bool partial_shared = false;
  for (const std::string& key : LookupKeys(layer)) {
    std::vector<FileAnalyzer*> missing_here;
    bool shared_here = false;
    auto found = LookupAt(key, layer, analyzers, &missing_here, &shared_here);
    if (!found) continue;
    if (missing_here.empty()) {
      if (from_shared) *from_shared = shared_here;
      return found;
    }
    if (!partial) {
      partial = std::move(found);
      partial_missing = std::move(missing_here);
      partial_shared = shared_here;
    }
  }
  if (from_shared) *from_shared = partial_shared;
  if (partial && missing) missing->insert(missing->end(), partial_missing.begin(), partial_missing.end());
  return partial;
}

std::optional<LayerResult> LayerCache::LookupAt(const std::string& key, const LayerRef& layer,
                                                const std::vector<FileAnalyzer*>& analyzers,
                                                std::vector<FileAnalyzer*>* missing, bool* from_shared) {
  if (from_shared) *from_shared = false;
  const fs::path dir = LayerDirectory(key);
  auto discard = [&](const fs::path& path) {
    ::unlink(path.c_str());
    counters_.discarded++;
  };
  // A value from the shared store passed the same checks as a local file;
  // it is kept locally so that the next scan on this runner stays local.
  auto keep_locally = [&](const fs::path& path, const std::vector<uint8_t>& bytes) {
    if (from_shared) *from_shared = true;
    if (!WriteCacheBytes(directory_, path, bytes).ok()) counters_.write_errors++;
  };
  nlohmann::json payload;
  const fs::path entries_path = dir / "entries.cbor";
  ReadOutcome outcome = ReadCacheFile(directory_, entries_path, &payload);
  std::optional<LayerResult> result;
  if (outcome == ReadOutcome::kOk) result = EntriesFromPayload(key, layer, payload);
  if (outcome != ReadOutcome::kMissing && !result) discard(entries_path);
  if (result) {
    TouchNow(entries_path);  // last use, for PruneCache's least-recently-used order
  } else {
    std::vector<uint8_t> bytes;
    if (!SharedGet(key, "entries.cbor", &bytes, &payload)) return std::nullopt;
    result = EntriesFromPayload(key, layer, payload);
    if (!result) {
      SharedDiscard(key, "entries.cbor", "another layer's, or another format version");
      return std::nullopt;
    }
    keep_locally(entries_path, bytes);
  }
  for (FileAnalyzer* analyzer : analyzers) {
    const std::string file = AnalyzerFile(*analyzer);
    const fs::path path = dir / file;
    outcome = ReadCacheFile(directory_, path, &payload);
    bool applied = outcome == ReadOutcome::kOk && ApplyAnalyzerPayload(key, *analyzer, payload, *result);
    if (!applied && outcome != ReadOutcome::kMissing) discard(path);
    if (!applied) {
      // Facts applied before a failure stay; the next try or the rescan replaces them.
      for (auto& entry : result->entries) entry.analysis.erase(std::string(analyzer->Name()));
      std::vector<uint8_t> bytes;
      if (SharedGet(key, file, &bytes, &payload)) {
        applied = ApplyAnalyzerPayload(key, *analyzer, payload, *result);
        if (applied) {
          keep_locally(path, bytes);
        } else {
          SharedDiscard(key, file, "another layer's or analyzer's, or facts that do not fit the entry list");
          for (auto& entry : result->entries) entry.analysis.erase(std::string(analyzer->Name()));
        }
      }
    }
    if (!applied && missing) missing->push_back(analyzer);
  }
  return result;
}

Status LayerCache::Store(const LayerRef& layer, const LayerResult& result,
                         const std::vector<FileAnalyzer*>& analyzers) {
  // Building the payloads copies the whole entry list; running out of
  // memory there costs the cache entry, never the scan.
  try {
    return StoreOrThrow(layer, result, analyzers);
  } catch (const std::exception& e) {
    counters_.write_errors++;
    return MakeError(directory_, std::string("cannot store a cache entry: ") + e.what());
  }
}

Status LayerCache::StoreOrThrow(const LayerRef& layer, const LayerResult& result,
                                const std::vector<FileAnalyzer*>& analyzers) {
  const std::string key = StoreKey(result);
  if (key.empty()) return OkStatus();  // nothing checked these bytes: filed nowhere
  const fs::path dir = LayerDirectory(key);
  // Analyzer files first: a reader that finds the entry list then finds the
  // analyzers' files too (or treats them as missing, never as wrong).
  // The shared store gets the same bytes in the same order.
  Status status = OkStatus();
  uint64_t shared_stored = 0;
  auto write = [&](const std::string& file, const nlohmann::json& payload) {
    std::vector<uint8_t> bytes = EncodeCacheBytes(payload);
    Status written = WriteCacheBytes(directory_, dir / file, bytes);
    if (!written.ok() && status.ok()) status = written;
    // A failing store turns itself off with one warning (FailSoft).
    if (shared_.store && shared_.store->Put(SharedKey(key, file), bytes).ok()) shared_stored++;
  };
  for (FileAnalyzer* analyzer : analyzers) write(AnalyzerFile(*analyzer), AnalyzerPayload(key, result, *analyzer));
  write("entries.cbor", EntriesPayload(key, result));
  counters_.shared_stored += shared_stored;
  if (!status.ok()) counters_.write_errors++;
  return status;
}

CacheStats LayerCache::Stats() const {
  // A hit counts in `hits` first, then in `shared_hits`: read in the other
  // order, no snapshot shows more shared hits than hits.
  const uint64_t shared_hits = counters_.shared_hits;
  return CacheStats{.hits = counters_.hits, .partial = counters_.partial, .misses = counters_.misses,
                    .bypassed = counters_.bypassed, .discarded = counters_.discarded,
                    .write_errors = counters_.write_errors, .blobs_vouched = counters_.blobs_vouched,
                    .shared_hits = shared_hits, .shared_discarded = counters_.shared_discarded,
                    .shared_stored = counters_.shared_stored};
}

}  // namespace imagelint
