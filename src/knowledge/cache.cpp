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
#include "knowledge/tables.h"

namespace imagelint {

namespace {

constexpr char kMagic[8] = {'I', 'L', 'K', 'N', 'O', 'W', 'L', '1'};
constexpr uint64_t kMaxCacheFileBytes = 64ull << 20;

void Add(Sha256& hash, std::string_view text) {
  const std::string length = std::to_string(text.size()) + ":";
  hash.Update({reinterpret_cast<const uint8_t*>(length.data()), length.size()});
  hash.Update({reinterpret_cast<const uint8_t*>(text.data()), text.size()});
}

// The cache key; nullopt when a file cannot be read (Load then reports it).
std::optional<std::string> CacheKey(const std::filesystem::path& dir) {
  Sha256 hash;
  Add(hash, "imagelint knowledge cache, format 1");
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

std::optional<Knowledge> FromCache(const std::filesystem::path& dir, const std::filesystem::path& cache_dir,
                                   const std::filesystem::path& file) {
  nlohmann::json payload;
  if (ReadSealedFile(cache_dir, file, kMagic, kMaxCacheFileBytes, &payload) != SealedRead::kOk) return std::nullopt;
  if (!payload.is_object() || !payload.contains("tables") || !payload["tables"].is_object()) return std::nullopt;
  Knowledge::Tables tables;
  for (auto& [kind, rows] : payload["tables"].items()) {
    if (!rows.is_array()) return std::nullopt;
    tables[kind] = std::move(rows);
  }
  // Sealed by its SHA-256, so it is what a parse produced; a file from a
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
  if (auto cached = FromCache(dir, cache_dir, file)) return std::move(*cached);
  auto tables = ParseTables(dir);
  if (!tables.ok()) return tables.error();
  (void)WriteSealedFile(cache_dir, file, kMagic, nlohmann::json{{"tables", *tables}});  // a failed write costs the next run a parse
  return FromTables(dir, std::move(*tables));
}

}  // namespace imagelint
