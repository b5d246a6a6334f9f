#include "imagelint/cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <thread>

#include <nlohmann/json.hpp>

#include "common/json.h"
#include "common/sealed_file.h"
#include "imagelint/bytes.h"
#include "imagelint/digest.h"
#include "imagelint/scan.h"

namespace imagelint {
namespace {

namespace fs = std::filesystem;

// File layout: magic, payload length (u64 LE), sha256 of payload (32 bytes),
// payload (CBOR). Anything else is discarded.
constexpr char kMagic[8] = {'I', 'L', 'C', 'A', 'C', 'H', 'E', '1'};
// Larger files are not read (and so never trusted): an entry list at the
// scanner's limits (1 M entries, 128 MiB of names) stays well below.
constexpr uint64_t kMaxFileBytes = 512ull << 20;
constexpr int kFormatVersion = 1;

bool UsableKey(const std::string& digest) { return digest.starts_with("sha256:") && ValidateDigest(digest).ok(); }

// Where a layer's facts may be filed: the digest its scan checked the bytes
// against (LayerResult::verified_digest) — the diff ID when the tar was
// hashed, else the blob digest. Never a digest that only a config claimed,
// so no image can file facts under another layer's diff ID. Both kinds share
// one name space: a plain tar's blob digest is its diff ID, and bytes that
// hash to a digest have one scan whatever they are.
std::string StoreKey(const LayerResult& result) {
  return UsableKey(result.verified_digest) ? result.verified_digest : std::string();
}

// Where a layer's facts may be found, in order: the diff ID (the same tar
// scans the same whether it came gzip'd from a registry or plain in a docker
// save), then the blob digest. The source vouches for the bytes before a hit
// is used (ImageSource::VerifyLayerForCache).
std::vector<std::string> LookupKeys(const LayerRef& layer) {
  std::vector<std::string> keys;
  if (UsableKey(layer.diff_id)) keys.push_back(layer.diff_id);
  if (UsableKey(layer.digest) && layer.digest != layer.diff_id) keys.push_back(layer.digest);
  return keys;
}


std::string SafeName(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.') {
      out += c;
    } else {
      char buffer[4];
      std::snprintf(buffer, sizeof buffer, "%%%02x", static_cast<unsigned char>(c));
      out += buffer;
    }
  }
  return out.empty() ? "_" : out;
}

std::string AnalyzerFile(const FileAnalyzer& analyzer) {
  return "analyzer-" + SafeName(analyzer.Name()) + "-v" + std::to_string(analyzer.Version()) + ".cbor";
}

enum class ReadOutcome { kMissing, kCorrupt, kOk };

// Cache files and shared-store values are sealed payloads
// (common/sealed_file.h): magic, length, checksum, CBOR.
bool DecodeCacheBytes(std::span<const uint8_t> bytes, const std::string& name, nlohmann::json* payload) {
  return UnsealPayload(bytes, kMagic, kMaxFileBytes, name, payload);
}

ReadOutcome ReadCacheFile(const fs::path& root, const fs::path& path, nlohmann::json* payload) {
  switch (ReadSealedFile(root, path, kMagic, kMaxFileBytes, payload)) {
    case SealedRead::kMissing: return ReadOutcome::kMissing;
    case SealedRead::kOk: return ReadOutcome::kOk;
    case SealedRead::kCorrupt: break;
  }
  return ReadOutcome::kCorrupt;
}

std::vector<uint8_t> EncodeCacheBytes(const nlohmann::json& payload) { return SealPayload(kMagic, payload); }

Status WriteCacheBytes(const fs::path& root, const fs::path& path, const std::vector<uint8_t>& bytes) {
  return WriteFileAtomically(root, path, bytes);
}

Status WriteCacheFile(const fs::path& root, const fs::path& path, const nlohmann::json& payload) {
  return WriteCacheBytes(root, path, EncodeCacheBytes(payload));
}

nlohmann::json EntriesPayload(const std::string& key, const LayerResult& result) {
  nlohmann::json entries = nlohmann::json::array();
  for (const auto& entry : result.entries) {
    entries.push_back({entry.info.path, static_cast<int>(entry.info.type), entry.info.size, entry.info.mode,
                       entry.info.link_target});
  }
  nlohmann::json problems = nlohmann::json::array();
  for (const auto& problem : result.problems) problems.push_back({problem.path, problem.message});
  return {{"format", kFormatVersion},        {"key", key},                      {"blob_bytes", result.blob_bytes},
          {"tar_bytes", result.tar_bytes},   {"entries", std::move(entries)}, {"problems", std::move(problems)}};
}

std::optional<LayerResult> EntriesFromPayload(const std::string& key, const LayerRef& layer,
                                              const nlohmann::json& payload) {
  try {
    if (payload.at("format").get<int>() != kFormatVersion) return std::nullopt;
    if (payload.at("key").get<std::string>() != key) return std::nullopt;
    LayerResult result;
    result.digest = layer.digest;
    result.diff_id = layer.diff_id;
    // The blob of this source may be compressed differently from the one
    // that filled the cache.
    result.blob_bytes = layer.size >= 0 ? static_cast<uint64_t>(layer.size) : payload.at("blob_bytes").get<uint64_t>();
    result.tar_bytes = payload.at("tar_bytes").get<uint64_t>();
    const auto& entries = payload.at("entries");
    result.entries.reserve(entries.size());
    for (const auto& item : entries) {
      LayerEntry entry;
      entry.info.path = item.at(0).get<std::string>();
      int type = item.at(1).get<int>();
      if (type < 0 || type > static_cast<int>(EntryType::kOther)) return std::nullopt;
      entry.info.type = static_cast<EntryType>(type);
      entry.info.size = item.at(2).get<uint64_t>();
      entry.info.mode = item.at(3).get<uint32_t>();
      entry.info.link_target = item.at(4).get<std::string>();
      result.entries.push_back(std::move(entry));
    }
    for (const auto& item : payload.at("problems")) {
      result.problems.push_back({item.at(0).get<std::string>(), item.at(1).get<std::string>()});
    }
    return result;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

nlohmann::json AnalyzerPayload(const std::string& key, const LayerResult& result, const FileAnalyzer& analyzer) {
  const std::string name(analyzer.Name());
  nlohmann::json facts = nlohmann::json::array();
  for (size_t i = 0; i < result.entries.size(); ++i) {
    auto it = result.entries[i].analysis.find(name);
    if (it != result.entries[i].analysis.end()) facts.push_back({i, it->second});
  }
  return {{"format", kFormatVersion},
          {"key", key},
          {"analyzer", name},
          {"version", analyzer.Version()},
          {"entries", result.entries.size()},
          {"facts", std::move(facts)}};
}

// Adds an analyzer's cached facts to `result`; false when they do not fit.
bool ApplyAnalyzerPayload(const std::string& key, const FileAnalyzer& analyzer, const nlohmann::json& payload,
                          LayerResult& result) {
  try {
    const std::string name(analyzer.Name());
    if (payload.at("format").get<int>() != kFormatVersion || payload.at("key").get<std::string>() != key ||
        payload.at("analyzer").get<std::string>() != name || payload.at("version").get<int>() != analyzer.Version() ||
        payload.at("entries").get<size_t>() != result.entries.size()) {
      return false;
    }
    for (const auto& item : payload.at("facts")) {
      size_t index = item.at(0).get<size_t>();
      if (index >= result.entries.size()) return false;
      result.entries[index].analysis[name] = item.at(1);
    }
    return true;
  } catch (const nlohmann::json::exception&) {
    return false;
  }
}

bool SameEntries(const LayerResult& a, const LayerResult& b) {
  if (a.entries.size() != b.entries.size()) return false;
  for (size_t i = 0; i < a.entries.size(); ++i) {
    if (a.entries[i].info.path != b.entries[i].info.path || a.entries[i].info.type != b.entries[i].info.type) {
      return false;
    }
  }
  return true;
}

// Marks a cache file as just used (its mtime); failures only cost LRU accuracy.
void TouchNow(const fs::path& path) { (void)::utimensat(AT_FDCWD, path.c_str(), nullptr, AT_SYMLINK_NOFOLLOW); }

// --- usage and pruning -------------------------------------------------------

constexpr int64_t kStaleTemporarySeconds = 3600;

bool IsHexName(const std::string& name, size_t length) {
  return name.size() == length &&
         std::all_of(name.begin(), name.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
}

int64_t NowSeconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

struct CacheItem {
  fs::path path;
  bool is_layer = false;  // a layer directory; else a memo file
  uint64_t bytes = 0;
  int64_t last_used = 0;  // seconds since the epoch
};

struct CacheInventory {
  std::vector<CacheItem> items;
  std::vector<fs::path> stale_temporaries;
};

// lstat: never follows a symlink planted in the cache.
bool LStat(const fs::path& path, struct stat* st) { return ::lstat(path.c_str(), st) == 0; }

bool IsTemporaryName(const std::string& name) { return name.find(".tmp.") != std::string::npos; }

// Directories named <2 hex> under `root`, each holding entries named <64 hex>[suffix].
template <typename Visit>
void ForEachShard(const fs::path& root, Visit visit) {
  struct stat top;
  if (!LStat(root, &top) || !S_ISDIR(top.st_mode)) return;  // "layers" made a link by someone else
  std::error_code ec;
  for (fs::directory_iterator shard(root, ec), end; !ec && shard != end; shard.increment(ec)) {
    struct stat st;
    std::string name = shard->path().filename().string();
    if (!IsHexName(name, 2) || !LStat(shard->path(), &st) || !S_ISDIR(st.st_mode)) continue;
    std::error_code inner;
    for (fs::directory_iterator item(shard->path(), inner), stop; !inner && item != stop; item.increment(inner)) {
      visit(item->path());
    }
  }
}

CacheInventory TakeInventory(const fs::path& directory) {
  CacheInventory inventory;
  const int64_t now = NowSeconds();
  auto note_temporary = [&](const fs::path& path, const struct stat& st) {
    if (now - st.st_mtim.tv_sec > kStaleTemporarySeconds) inventory.stale_temporaries.push_back(path);
  };
  ForEachShard(directory / "layers", [&](const fs::path& path) {
    struct stat st;
    if (!IsHexName(path.filename().string(), 64) || !LStat(path, &st) || !S_ISDIR(st.st_mode)) return;
    CacheItem item{path, true, 0, st.st_mtim.tv_sec};
    bool has_entries = false;
    std::error_code ec;
    for (fs::directory_iterator file(path, ec), end; !ec && file != end; file.increment(ec)) {
      struct stat fst;
      if (!LStat(file->path(), &fst) || !S_ISREG(fst.st_mode)) continue;
      if (IsTemporaryName(file->path().filename().string())) {
        note_temporary(file->path(), fst);
        continue;
      }
      item.bytes += static_cast<uint64_t>(fst.st_size);
      if (file->path().filename() == "entries.cbor") {
        item.last_used = fst.st_mtim.tv_sec;
        has_entries = true;
      } else if (!has_entries) {
        item.last_used = std::max<int64_t>(item.last_used, fst.st_mtim.tv_sec);
      }
    }
    inventory.items.push_back(std::move(item));
  });
  ForEachShard(directory / "verified", [&](const fs::path& path) {
    struct stat st;
    if (!LStat(path, &st) || !S_ISREG(st.st_mode)) return;
    std::string name = path.filename().string();
    if (IsTemporaryName(name)) {
      note_temporary(path, st);
      return;
    }
    if (name.size() != 64 + 5 || !IsHexName(name.substr(0, 64), 64) || !name.ends_with(".cbor")) return;
    inventory.items.push_back({path, false, static_cast<uint64_t>(st.st_size), st.st_mtim.tv_sec});
  });
  return inventory;
}

CacheUsage UsageOf(const CacheInventory& inventory) {
  CacheUsage usage;
  for (const auto& item : inventory.items) {
    if (item.is_layer) {
      usage.layers++;
      usage.layer_bytes += item.bytes;
    } else {
      usage.memo_entries++;
      usage.memo_bytes += item.bytes;
    }
  }
  usage.stale_temporaries = inventory.stale_temporaries.size();
  return usage;
}

Status CheckCacheDirectory(const std::string& directory) {
  struct stat st;
  if (directory.empty()) return MakeError("layer cache", "no cache directory (set XDG_CACHE_HOME or --cache-dir)");
  if (::stat(directory.c_str(), &st) != 0) return MakeError(directory, "no such cache directory");
  if (!S_ISDIR(st.st_mode)) return MakeError(directory, "not a directory");
  return OkStatus();
}

// Renames a layer directory out of its place first, so that a concurrent
// reader sees it whole or not at all, then deletes it.
bool RemoveLayerDirectory(const fs::path& directory, const fs::path& layer) {
  static std::atomic<uint64_t> counter{0};
  fs::path doomed = directory / "layers" /
                    (".prune-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + "-" +
                     layer.filename().string().substr(0, 12));
  if (::rename(layer.c_str(), doomed.c_str()) != 0) return false;
  std::error_code ec;
  fs::remove_all(doomed, ec);
  return true;
}

}  // namespace

Result<CacheUsage> MeasureCache(const std::string& directory) {
  IMAGELINT_TRY(CheckCacheDirectory(directory));
  return UsageOf(TakeInventory(directory));
}

Result<PruneResult> PruneCache(const std::string& directory, const PruneOptions& options) {
  IMAGELINT_TRY(CheckCacheDirectory(directory));
  const fs::path root(directory);
  CacheInventory inventory = TakeInventory(root);
  PruneResult result;
  result.before = UsageOf(inventory);
  for (const auto& path : inventory.stale_temporaries) {
    if (::unlink(path.c_str()) == 0) result.temporaries_removed++;
  }
  auto remove = [&](const CacheItem& item) {
    bool removed = item.is_layer ? RemoveLayerDirectory(root, item.path) : ::unlink(item.path.c_str()) == 0;
    if (removed) (item.is_layer ? result.layers_removed : result.memo_entries_removed)++;
  };
  std::vector<CacheItem> kept;
  const int64_t now = NowSeconds();
  for (auto& item : inventory.items) {
    if (options.unused_for_seconds && now - item.last_used > *options.unused_for_seconds) {
      remove(item);
    } else {
      kept.push_back(std::move(item));
    }
  }
  if (options.max_bytes) {
    std::sort(kept.begin(), kept.end(), [](const CacheItem& a, const CacheItem& b) {
      return a.last_used != b.last_used ? a.last_used < b.last_used : a.path < b.path;
    });
    uint64_t total = 0;
    for (const auto& item : kept) total += item.bytes;
    for (const auto& item : kept) {
      if (total <= *options.max_bytes) break;
      remove(item);
      total -= item.bytes;
    }
  }
  result.after = UsageOf(TakeInventory(root));
  return result;
}

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

// "imagelint:layer:<hex>:<file>": the local file's name under the layer's key.
std::string SharedKey(const std::string& key, const std::string& file) {
  return "imagelint:layer:" + key.substr(7) + ":" + file;
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
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stats_.shared_discarded++;
  }
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
    std::lock_guard<std::mutex> lock(mutex_);
    stats_.discarded++;
  };
  // A value from the shared store passed the same checks as a local file;
  // it is kept locally so that the next scan on this runner stays local.
  auto keep_locally = [&](const fs::path& path, const std::vector<uint8_t>& bytes) {
    if (from_shared) *from_shared = true;
    if (!WriteCacheBytes(directory_, path, bytes).ok()) {
      std::lock_guard<std::mutex> lock(mutex_);
      stats_.write_errors++;
    }
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
    std::lock_guard<std::mutex> lock(mutex_);
    stats_.write_errors++;
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
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.shared_stored += shared_stored;
  if (!status.ok()) stats_.write_errors++;
  return status;
}

LayerScanFunction LayerCache::Scanner(LayerScanFunction inner) {
  if (!inner) {
    inner = [](ImageSource& source, size_t index, const std::vector<FileAnalyzer*>& analyzers,
               const ScanOptions& options) { return ScanLayer(source, index, analyzers, options); };
  }
  return [this, inner](ImageSource& source, size_t index, const std::vector<FileAnalyzer*>& analyzers,
                       const ScanOptions& options) -> Result<LayerResult> {
    const auto& layers = source.Metadata().layers;
    if (index >= layers.size() || !Cacheable(layers[index])) {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        stats_.bypassed++;
      }
      return inner(source, index, analyzers, options);
    }
    const LayerRef& layer = layers[index];
    std::vector<FileAnalyzer*> missing;
    bool from_shared = false;
    std::optional<LayerResult> cached = Lookup(layer, analyzers, &missing, &from_shared);
    if (cached && missing.empty()) {
      auto verified = source.VerifyLayerForCache(index, this);
      if (!verified.ok()) return verified.error();
      if (*verified) {
        std::lock_guard<std::mutex> lock(mutex_);
        stats_.hits++;
        if (from_shared) stats_.shared_hits++;
        return std::move(*cached);
      }
      cached.reset();  // the source cannot vouch for its bytes cheaply: scan them
    }
    // A full scan verifies the stored bytes too: remember them for next time
    // (only when it did: an unverified scan, --no-verify, vouches for nothing).
    std::optional<StoredBlobStamp> before = source.StoredLayerStamp(index);
    auto remember_scanned = [&](const LayerResult& scanned) {
      if (!before || scanned.verified_digest.empty()) return;
      if (auto after = source.StoredLayerStamp(index)) Remember(*before, *after);
    };
    if (cached) {
      // Only some analyzers are new (or changed version): read the layer
      // again for them alone and keep the others' cached facts.
      auto fresh = inner(source, index, missing, options);
      if (!fresh.ok()) return fresh.error();
      remember_scanned(*fresh);
      if (SameEntries(*cached, *fresh)) {
        for (size_t i = 0; i < fresh->entries.size(); ++i) {
          for (auto& [name, facts] : cached->entries[i].analysis) fresh->entries[i].analysis[name] = std::move(facts);
        }
        // All analyzers: the rescan may have checked another digest than
        // the one the cached part is filed under (StoreKey).
        (void)Store(layer, *fresh, analyzers);
        std::lock_guard<std::mutex> lock(mutex_);
        stats_.partial++;
        return std::move(*fresh);
      }
      // The cached entry list disagrees with the blob: trust nothing cached.
    }
    auto fresh = inner(source, index, analyzers, options);
    if (!fresh.ok()) return fresh.error();
    remember_scanned(*fresh);
    (void)Store(layer, *fresh, analyzers);
    std::lock_guard<std::mutex> lock(mutex_);
    stats_.misses++;
    return std::move(*fresh);
  };
}

std::string LayerCache::MemoPath(const std::string& key) const {
  std::string hex = Sha256Digest(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(key.data()), key.size()))
                        .substr(7);
  return (fs::path(directory_) / "verified" / hex.substr(0, 2) / (hex + ".cbor")).string();
}

bool LayerCache::Contains(const StoredBlobStamp& stamp) {
  nlohmann::json payload;
  const fs::path path = MemoPath(stamp.key);
  ReadOutcome outcome = ReadCacheFile(directory_, path, &payload);
  if (outcome == ReadOutcome::kMissing) return false;
  bool matches = false;
  if (outcome == ReadOutcome::kOk) {
    try {
      matches = payload.at("format").get<int>() == kFormatVersion && payload.at("key").get<std::string>() == stamp.key;
    } catch (const nlohmann::json::exception&) {
    }
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (!matches) {
    ::unlink(path.c_str());
    stats_.discarded++;
    return false;
  }
  stats_.blobs_vouched++;
  TouchNow(path);
  return true;
}

void LayerCache::Remember(const StoredBlobStamp& before, const StoredBlobStamp& after) {
  // Timestamps move in clock ticks (milliseconds on many file systems); a
  // file changed within the last second might change again unseen.
  constexpr int64_t kRacyWindowNs = 1000000000;
  const int64_t now_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  if (before != after || now_ns - before.newest_change_ns <= kRacyWindowNs) return;
  Status written =
      WriteCacheFile(directory_, MemoPath(before.key), nlohmann::json{{"format", kFormatVersion}, {"key", before.key}});
  if (!written.ok()) {
    std::lock_guard<std::mutex> lock(mutex_);
    stats_.write_errors++;
  }
}

CacheStats LayerCache::Stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

}  // namespace imagelint
