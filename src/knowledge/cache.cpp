// Knowledge::Load through a cache of the parsed tables. yaml-cpp takes about
// 100 ms for the ~200 KB of tables (it parses twice: once for the alias and
// depth limits, once to build nodes), which is nearly all of a Dockerfile
// check; the parsed, validated rows read back from CBOR in about a
// millisecond. The key covers everything the rows depend on, so a changed
// file, schema or directory simply misses.
#include <filesystem>
#include <optional>
#include <set>

#include "common/sealed_file.h"
#include "imagelint/digest.h"
#include "imagelint/knowledge.h"
#include "imagelint/knowledge_bundle.h"
#include "knowledge/tables.h"

namespace imagelint {

namespace {

// Read on every run: checked by CRC-64, not SHA-256 (common/sealed_file.h).
constexpr char kMagic[8] = {'I', 'L', 'K', 'N', 'O', 'W', 'L', '2'};
constexpr SealCheck kCheck = SealCheck::kCrc64;
constexpr uint64_t kMaxCacheFileBytes = 64ull << 20;

void Add(Sha256& hash, std::string_view text) {
  const std::string length = std::to_string(text.size()) + ":";
  hash.Update({reinterpret_cast<const uint8_t*>(length.data()), length.size()});
  hash.Update({reinterpret_cast<const uint8_t*>(text.data()), text.size()});
}

// The cache key; nullopt when a file cannot be read (Load then reports it).
std::optional<std::string> CacheKey(const std::filesystem::path& dir) {
  Sha256 hash;
  Add(hash, "imagelint knowledge cache, format 3");  // 3: the CRC-64 seal and the bundle digest
  Add(hash, std::filesystem::absolute(dir).lexically_normal().string());
  std::set<std::string> files;
  for (const auto& schema : knowledge_tables::Schemas()) {
    Add(hash, schema.info.kind);
    Add(hash, schema.info.file);
    Add(hash, schema.info.key);
    Add(hash, schema.needs_source ? "sourced" : "unsourced");
    for (const auto& field : schema.fields) {
      Add(hash, field.name);
      Add(hash, std::to_string(static_cast<int>(field.type)) + (field.required ? "!" : "?") + field.enum_values);
    }
    if (!files.insert(schema.info.file).second) continue;
    auto text = knowledge_tables::ReadTableFile(dir / schema.info.file);
    if (!text.ok()) return std::nullopt;
    Add(hash, schema.info.file);
    Add(hash, *text);
  }
  return hash.FinishDigest().substr(7);
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
