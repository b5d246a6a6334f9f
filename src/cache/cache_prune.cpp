// Usage and pruning of a cache directory: what `imagelint cache info` counts
// and `imagelint cache prune` evicts. Only imagelint's own names under
// layers/ and verified/ are touched, and no symlink is followed.
#include "imagelint/cache.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <filesystem>

namespace imagelint {
namespace {

namespace fs = std::filesystem;

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

}  // namespace imagelint
