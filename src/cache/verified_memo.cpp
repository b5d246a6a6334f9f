// The memo of verified local blobs (VerifiedBlobMemo): one sealed stamp file
// per blob whose bytes a full scan hashed, so that a later hit need not hash
// them again while the blob's stamp (size, times) is unchanged.
#include "imagelint/cache.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>

#include "cache/cache_format.h"
#include "imagelint/digest.h"

namespace imagelint {

using cache_format::IsStampPayload;
using cache_format::ReadCacheFile;
using cache_format::ReadOutcome;
using cache_format::StampPayload;
using cache_format::TouchNow;
using cache_format::WriteCacheFile;

std::string LayerCache::MemoPath(const std::string& key) const {
  std::string hex = Sha256Digest(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(key.data()), key.size()))
                        .substr(7);
  return (std::filesystem::path(directory_) / "verified" / hex.substr(0, 2) / (hex + ".cbor")).string();
}

bool LayerCache::Contains(const StoredBlobStamp& stamp) {
  nlohmann::json payload;
  const std::filesystem::path path = MemoPath(stamp.key);
  ReadOutcome outcome = ReadCacheFile(directory_, path, &payload);
  if (outcome == ReadOutcome::kMissing) return false;
  if (outcome != ReadOutcome::kOk || !IsStampPayload(stamp.key, payload)) {
    ::unlink(path.c_str());
    counters_.discarded++;
    return false;
  }
  counters_.blobs_vouched++;
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
  Status written = WriteCacheFile(directory_, MemoPath(before.key), StampPayload(before.key));
  if (!written.ok()) counters_.write_errors++;
}

}  // namespace imagelint
