// What a layer cache file holds and how it is named: the sealed CBOR payloads
// of an entry list, of one analyzer's facts and of a verified-blob stamp, the
// keys a layer is filed and found under, and the reads and writes of such
// files. The same bytes go to the shared store. Changing anything here changes
// what every existing cache holds: bump kFormatVersion.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "imagelint/analyzer.h"
#include "imagelint/layer.h"
#include "imagelint/result.h"
#include "imagelint/source.h"

namespace imagelint::cache_format {

// Larger files are not read (and so never trusted): an entry list at the
// scanner's limits (1 M entries, 128 MiB of names) stays well below.
inline constexpr uint64_t kMaxFileBytes = 512ull << 20;
inline constexpr int kFormatVersion = 1;

// Where a layer's facts may be filed: the digest its scan checked ("" for none).
std::string StoreKey(const LayerResult& result);
// Where a layer's facts may be found, in order of preference.
std::vector<std::string> LookupKeys(const LayerRef& layer);

// "analyzer-<name>-v<version>[-<cache tag>].cbor", the name escaped to a safe file name.
std::string AnalyzerFile(const FileAnalyzer& analyzer);

enum class ReadOutcome { kMissing, kCorrupt, kOk };
ReadOutcome ReadCacheFile(const std::filesystem::path& root, const std::filesystem::path& path,
                          nlohmann::json* payload);
bool DecodeCacheBytes(std::span<const uint8_t> bytes, const std::string& name, nlohmann::json* payload);
std::vector<uint8_t> EncodeCacheBytes(const nlohmann::json& payload);
Status WriteCacheBytes(const std::filesystem::path& root, const std::filesystem::path& path,
                       const std::vector<uint8_t>& bytes);
Status WriteCacheFile(const std::filesystem::path& root, const std::filesystem::path& path,
                      const nlohmann::json& payload);

// The entry list of a layer, and back (nullopt: another key, format or shape).
nlohmann::json EntriesPayload(const std::string& key, const LayerResult& result);
std::optional<LayerResult> EntriesFromPayload(const std::string& key, const LayerRef& layer,
                                              const nlohmann::json& payload);
// One analyzer's facts of a layer, and back into `result` (false: they do not fit).
nlohmann::json AnalyzerPayload(const std::string& key, const LayerResult& result, const FileAnalyzer& analyzer);
bool ApplyAnalyzerPayload(const std::string& key, const FileAnalyzer& analyzer, const nlohmann::json& payload,
                          LayerResult& result);
// A verified-blob stamp, and whether a payload is the one of `key`.
nlohmann::json StampPayload(const std::string& key);
bool IsStampPayload(const std::string& key, const nlohmann::json& payload);

// Whether two entry lists name the same paths with the same types, in order.
bool SameEntries(const LayerResult& a, const LayerResult& b);

// Marks a cache file as just used (its mtime); failures only cost LRU accuracy.
void TouchNow(const std::filesystem::path& path);

}  // namespace imagelint::cache_format
