// The layer cache as a layer scanner (ScanOptions::layer_scanner): a layer is
// served from the cache when its source vouches for the bytes, re-read for
// the analyzers the cache lacks, or scanned and stored.
#include "imagelint/cache.h"

#include "cache/cache_format.h"
#include "imagelint/scan.h"

namespace imagelint {

LayerScanFunction LayerCache::Scanner(LayerScanFunction inner) {
  if (!inner) {
    inner = [](ImageSource& source, size_t index, const std::vector<FileAnalyzer*>& analyzers,
               const ScanOptions& options) { return ScanLayer(source, index, analyzers, options); };
  }
  return [this, inner](ImageSource& source, size_t index, const std::vector<FileAnalyzer*>& analyzers,
                       const ScanOptions& options) -> Result<LayerResult> {
    const auto& layers = source.Metadata().layers;
    if (index >= layers.size() || !Cacheable(layers[index])) {
      counters_.bypassed++;
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
        counters_.hits++;
        if (from_shared) counters_.shared_hits++;
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
      if (cache_format::SameEntries(*cached, *fresh)) {
        for (size_t i = 0; i < fresh->entries.size(); ++i) {
          for (auto& [name, facts] : cached->entries[i].analysis) fresh->entries[i].analysis[name] = std::move(facts);
        }
        // All analyzers: the rescan may have checked another digest than
        // the one the cached part is filed under (StoreKey).
        (void)Store(layer, *fresh, analyzers);
        counters_.partial++;
        return std::move(*fresh);
      }
      // The cached entry list disagrees with the blob: trust nothing cached.
    }
    auto fresh = inner(source, index, analyzers, options);
    if (!fresh.ok()) return fresh.error();
    remember_scanned(*fresh);
    (void)Store(layer, *fresh, analyzers);
    counters_.misses++;
    return std::move(*fresh);
  };
}

}  // namespace imagelint
