// Knowledge::Load through a cache of the parsed tables. yaml-cpp takes about
// 100 ms for the ~200 KB of tables (it parses twice: once for the alias and
// depth limits, once to build nodes), which is nearly all of a Dockerfile
// check; the parsed, validated rows read back from CBOR in about a
// millisecond. The key covers everything the rows depend on, so a changed
// file, schema or directory simply misses.
#include <filesystem>
#include <optional>
#include <set>

#include <cinttypes>
#include <cstdio>

#include <isa-l/crc64.h>

#include "common/sealed_file.h"
#include "imagelint/knowledge.h"
#include "imagelint/knowledge_bundle.h"
#include "knowledge/tables.h"

namespace imagelint {

namespace {

// Read on every run: checked by CRC-64, not SHA-256 (common/sealed_file.h).
constexpr char kMagic[8] = {'I', 'L', 'K', 'N', 'O', 'W', 'L', '2'};
constexpr SealCheck kCheck = SealCheck::kCrc64;
// The bundle digest alone (`imagelint --version`), beside the tables' file.
constexpr char kDigestMagic[8] = {'I', 'L', 'K', 'D', 'I', 'G', 'S', '1'};
constexpr uint64_t kMaxCacheFileBytes = 64ull << 20;

// The key's hash: two CRC-64s (ECMA-182 and ISO) over the length-prefixed
// texts, 128 bits. The key only tells a changed table file from the one the
// cache was made from (whoever can write the tables chooses the rows anyway),
// so it need not resist a crafted collision, and ISA-L's CRC runs an order of
// magnitude faster than SHA-256 over the ~330 KB read on every run.
class KeyHash {
 public:
  void Add(std::string_view text) {
    const std::string length = std::to_string(text.size()) + ":";
    Update(length);
    Update(text);
  }
  std::string Finish() const {
    char out[33];
    std::snprintf(out, sizeof out, "%016" PRIx64 "%016" PRIx64, ecma_, iso_);
    return out;
  }

 private:
  void Update(std::string_view bytes) {
    const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
    ecma_ = crc64_ecma_refl(ecma_, data, bytes.size());
    iso_ = crc64_iso_refl(iso_, data, bytes.size());
  }
  uint64_t ecma_ = 0, iso_ = 0;
};

// The cache key; nullopt when a file cannot be read (Load then reports it).
std::optional<std::string> CacheKey(const std::filesystem::path& dir) {
  KeyHash hash;
  hash.Add("imagelint knowledge cache, format 4");  // 4: a CRC-64 key
  hash.Add(std::filesystem::absolute(dir).lexically_normal().string());
  std::set<std::string> files;
  for (const auto& schema : knowledge_tables::Schemas()) {
    hash.Add(schema.info.kind);
    hash.Add(schema.info.file);
    hash.Add(schema.info.key);
    hash.Add(schema.needs_source ? "sourced" : "unsourced");
    for (const auto& field : schema.fields) {
      hash.Add(field.name);
      hash.Add(std::to_string(static_cast<int>(field.type)) + (field.required ? "!" : "?") + field.enum_values);
    }
    if (!files.insert(schema.info.file).second) continue;
    auto text = knowledge_tables::ReadTableFile(dir / schema.info.file);
    if (!text.ok()) return std::nullopt;
    hash.Add(schema.info.file);
    hash.Add(*text);
  }
  return hash.Finish();
}

// The bundle digest a cache file keeps (written with the tables it was made
// from), or nullopt.
std::optional<std::string> CachedDigest(const nlohmann::json& payload) {
  if (payload.is_object() && payload.contains("digest") && payload["digest"].is_string())
    return payload["digest"].get<std::string>();
  return std::nullopt;
}

std::optional<Knowledge> FromCache(const std::filesystem::path& dir, const std::filesystem::path& cache_dir,
                                   const std::filesystem::path& file, std::optional<std::string>& digest) {
  nlohmann::json payload;
  if (ReadSealedFile(cache_dir, file, kMagic, kMaxCacheFileBytes, &payload, kCheck) != SealedRead::kOk) return std::nullopt;
  if (!payload.is_object() || !payload.contains("tables") || !payload["tables"].is_object()) return std::nullopt;
  digest = CachedDigest(payload);
  Knowledge::Tables tables;
  for (auto& [kind, rows] : payload["tables"].items()) {
    if (!rows.is_array()) return std::nullopt;
    tables[kind] = std::move(rows);
  }
  // Sealed by its CRC-64, so it is what a parse produced; a file from a
  // different build that still passes is held to the same checks.
  try {
    auto knowledge = Knowledge::FromTables(dir, std::move(tables));
    if (knowledge.ok()) return std::move(*knowledge);
  } catch (const nlohmann::json::exception&) {
  }
  return std::nullopt;
}

}  // namespace

Result<std::string> KnowledgeDigest(const std::filesystem::path& dir, const std::string& cache_dir) {
  std::error_code ec;
  if (cache_dir.empty() || !std::filesystem::is_directory(dir, ec)) return KnowledgeDigest(dir);
  const auto key = CacheKey(dir);
  if (!key) return KnowledgeDigest(dir);
  const std::filesystem::path file = std::filesystem::path(cache_dir) / "knowledge" / (*key + ".digest");
  nlohmann::json payload;
  if (ReadSealedFile(cache_dir, file, kDigestMagic, 4096, &payload, kCheck) == SealedRead::kOk)
    if (auto digest = CachedDigest(payload)) return *digest;
  auto digest = KnowledgeDigest(dir);
  if (digest.ok()) (void)WriteSealedFile(cache_dir, file, kDigestMagic, nlohmann::json{{"digest", *digest}}, kCheck);
  return digest;
}

Result<Knowledge> Knowledge::Load(const std::filesystem::path& dir, const std::string& cache_dir) {
  std::error_code ec;
  if (cache_dir.empty() || !std::filesystem::is_directory(dir, ec)) return Load(dir);
  const auto key = CacheKey(dir);
  if (!key) return Load(dir);
  const std::filesystem::path file = std::filesystem::path(cache_dir) / "knowledge" / (*key + ".cbor");
  std::optional<std::string> digest;
  if (auto cached = FromCache(dir, cache_dir, file, digest)) {
    cached->digest_ = std::move(digest);
    return std::move(*cached);
  }
  auto tables = ParseTables(dir);
  if (!tables.ok()) return tables.error();
  // The bundle's digest reads the same files as the key: kept with the
  // tables, a run that finds them need not hash the files twice.
  nlohmann::json payload{{"tables", *tables}};
  auto bundle_digest = KnowledgeDigest(dir);
  if (bundle_digest.ok()) payload["digest"] = *bundle_digest;
  (void)WriteSealedFile(cache_dir, file, kMagic, payload, kCheck);  // a failed write costs the next run a parse
  auto knowledge = FromTables(dir, std::move(*tables));
  if (knowledge.ok() && bundle_digest.ok()) knowledge->digest_ = *bundle_digest;
  return knowledge;
}

}  // namespace imagelint
