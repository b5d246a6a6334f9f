#include "cache/cache_format.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <cctype>
#include <cstdio>

#include "common/sealed_file.h"
#include "imagelint/digest.h"

namespace imagelint::cache_format {
namespace {

namespace fs = std::filesystem;

// File layout: magic, payload length (u64 LE), sha256 of payload (32 bytes),
// payload (CBOR). Anything else is discarded.
constexpr char kMagic[8] = {'I', 'L', 'C', 'A', 'C', 'H', 'E', '1'};

bool UsableKey(const std::string& digest) { return digest.starts_with("sha256:") && ValidateDigest(digest).ok(); }

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

}  // namespace

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

std::string AnalyzerFile(const FileAnalyzer& analyzer) {
  std::string tag = analyzer.CacheTag();
  return "analyzer-" + SafeName(analyzer.Name()) + "-v" + std::to_string(analyzer.Version()) +
         (tag.empty() ? "" : "-" + SafeName(tag)) + ".cbor";
}

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

void TouchNow(const fs::path& path) { (void)::utimensat(AT_FDCWD, path.c_str(), nullptr, AT_SYMLINK_NOFOLLOW); }

nlohmann::json StampPayload(const std::string& key) { return nlohmann::json{{"format", kFormatVersion}, {"key", key}}; }

bool IsStampPayload(const std::string& key, const nlohmann::json& payload) {
  try {
    return payload.at("format").get<int>() == kFormatVersion && payload.at("key").get<std::string>() == key;
  } catch (const nlohmann::json::exception&) {
    return false;
  }
}

}  // namespace imagelint::cache_format
