// The knowledge bundle's identity: bundle.yaml, the digest of the table
// files and the bundle's age (docs/knowledge.md "Bundle").
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <set>

#include "common/version.h"
#include "imagelint/digest.h"
#include "imagelint/knowledge_bundle.h"
#include "knowledge/tables.h"

namespace imagelint {

namespace {

std::string Hex(const std::string& digest) { return digest.substr(digest.find(':') + 1); }

std::optional<std::chrono::sys_days> ParseDay(std::string_view text) {
  if (text.size() != 10 || text[4] != '-' || text[7] != '-') return std::nullopt;
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9})
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
  auto number = [&](size_t at, size_t n) {
    int v = 0;
    for (size_t i = at; i < at + n; ++i) v = v * 10 + (text[i] - '0');
    return v;
  };
  std::chrono::year_month_day day{std::chrono::year{number(0, 4)}, std::chrono::month{static_cast<unsigned>(number(5, 2))},
                                  std::chrono::day{static_cast<unsigned>(number(8, 2))}};
  if (!day.ok()) return std::nullopt;
  return std::chrono::sys_days{day};
}

}  // namespace

Result<KnowledgeBundle> ReadKnowledgeBundleHeader(const std::filesystem::path& dir) {
  const std::filesystem::path path = dir / "bundle.yaml";
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    return MakeError(dir.string(), "not a knowledge bundle: it has no bundle.yaml (schema version, revision, as_of)");
  auto text = knowledge_tables::ReadTableFile(path);
  if (!text.ok()) return text.error();
  auto documents = knowledge_tables::LoadDocuments(*text, path.string());
  if (!documents.ok()) return documents.error();
  KnowledgeBundle bundle;
  bundle.directory = dir;
  try {
    if (documents->size() != 1 || !(*documents)[0].IsMap())
      return MakeError(path.string(), "bundle.yaml must be one YAML document with kind, schema and rows");
    const YAML::Node rows = (*documents)[0]["rows"];
    if (!rows || !rows.IsSequence() || rows.size() != 1 || !rows[0].IsMap())
      return MakeError(path.string(), "bundle.yaml must have exactly one row");
    const YAML::Node row = rows[0];
    auto scalar = [&](const char* name) -> std::string {
      const YAML::Node node = row[name];
      return node && node.IsScalar() ? node.Scalar() : std::string();
    };
    const std::string version = scalar("schema_version");
    if (version.empty() || version.size() > 6 ||
        !std::all_of(version.begin(), version.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return MakeError(path.string(), "bundle.yaml: schema_version must be an integer, got '" + version + "'");
    bundle.schema_version = std::stoi(version);
    bundle.revision = scalar("revision");
    bundle.as_of = scalar("as_of");
  } catch (const YAML::Exception& e) {
    return MakeErrorAtLine(path.string(), e.mark.line + 1, e.mark.column + 1, "invalid bundle.yaml: " + e.msg);
  }
  if (bundle.schema_version != kKnowledgeSchemaVersion)
    return MakeError(dir.string(), "knowledge bundle has schema version " + std::to_string(bundle.schema_version) +
                                       "; this imagelint reads schema version " +
                                       std::to_string(kKnowledgeSchemaVersion) +
                                       (bundle.schema_version > kKnowledgeSchemaVersion
                                            ? " (a newer imagelint is needed for it)"
                                            : " (the bundle was made for an older imagelint)"));
  if (!IsDottedVersion(bundle.revision))
    return MakeError(path.string(), "bundle.yaml: revision must be digits and dots, got '" + bundle.revision + "'");
  if (!ParseDay(bundle.as_of))
    return MakeError(path.string(), "bundle.yaml: as_of must be a date YYYY-MM-DD, got '" + bundle.as_of + "'");
  return bundle;
}

Result<std::string> KnowledgeDigest(const std::filesystem::path& dir) {
  std::set<std::string> files;
  for (const auto& info : KnowledgeTables()) files.insert(info.file);  // std::string order = byte order
  std::string listing;
  for (const std::string& file : files) {
    auto text = knowledge_tables::ReadTableFile(dir / file);
    if (!text.ok()) return text.error();
    listing += Hex(Sha256Digest({reinterpret_cast<const uint8_t*>(text->data()), text->size()})) + "  " + file + "\n";
  }
  return Sha256Digest({reinterpret_cast<const uint8_t*>(listing.data()), listing.size()});
}

std::optional<int> KnowledgeAgeDays(std::string_view as_of, std::string_view today) {
  auto from = ParseDay(as_of);
  auto to = ParseDay(today);
  if (!from || !to) return std::nullopt;
  return static_cast<int>((*to - *from).count());
}

bool KnowledgeBundleNewer(const KnowledgeBundle& a, const KnowledgeBundle& b) {
  if (a.as_of != b.as_of) return a.as_of > b.as_of;  // YYYY-MM-DD sorts as text
  return CompareVersions(a.revision, b.revision) > 0;
}

Result<KnowledgeBundle> BundleOf(const Knowledge& knowledge) {
  const nlohmann::json& rows = knowledge.Table("bundle");
  if (rows.size() != 1) return MakeError((knowledge.directory() / "bundle.yaml").string(), "must have exactly one row");
  KnowledgeBundle bundle;
  bundle.schema_version = rows[0]["schema_version"].get<int>();
  bundle.revision = rows[0]["revision"].get<std::string>();
  bundle.as_of = rows[0]["as_of"].get<std::string>();
  bundle.directory = knowledge.directory();
  if (knowledge.known_digest()) {
    bundle.digest = *knowledge.known_digest();
    return bundle;
  }
  auto digest = KnowledgeDigest(knowledge.directory());
  if (!digest.ok()) return digest.error();
  bundle.digest = *digest;
  return bundle;
}

std::string TablesBehind(const Knowledge& knowledge, std::string_view what, std::string_view newest) {
  std::string bundle = "knowledge tables";
  const nlohmann::json& rows = knowledge.Table("bundle");
  if (rows.size() == 1)
    bundle += " " + rows[0]["revision"].get<std::string>() + " of " + rows[0]["as_of"].get<std::string>();
  return std::string(what) + " is newer than the " + bundle + " know (newest: " + std::string(newest) +
         "): run `imagelint knowledge update` for newer tables";
}

std::string NewestVersion(const std::vector<std::string>& versions) {
  std::string newest;
  for (const auto& v : versions)
    if (newest.empty() || CompareNaturalVersions(v, newest) > 0) newest = v;
  return newest;
}

nlohmann::json KnowledgeTableSummary(const Knowledge& knowledge) {
  std::map<std::string, std::string> consulted;  // source id -> date
  for (const auto& source : knowledge.Table("sources"))
    if (source.contains("consulted") && source["consulted"].is_string())
      consulted[source["id"].get<std::string>()] = source["consulted"].get<std::string>();
  auto key_text = [](const nlohmann::json& value) {
    return value.is_string() ? value.get<std::string>() : value.is_null() ? std::string() : value.dump();
  };
  nlohmann::json out = nlohmann::json::object();
  for (const auto& info : KnowledgeTables()) {
    const nlohmann::json& rows = knowledge.Table(info.kind);
    nlohmann::json entry = {{"file", info.file}, {"rows", rows.size()}, {"key", info.key}};
    const nlohmann::json* newest = nullptr;
    std::string newest_key;
    for (const auto& row : rows) {
      std::string key = info.key.empty() || !row.contains(info.key) ? std::string() : key_text(row[info.key]);
      // The row's version: its key, or the part of it before '+' ("2.14+cu130").
      std::string version = key.substr(0, key.find('+'));
      bool versioned = IsDottedVersion(version);
      if (newest == nullptr || (versioned && IsDottedVersion(newest_key.substr(0, newest_key.find('+'))) &&
                                CompareNaturalVersions(version, newest_key.substr(0, newest_key.find('+'))) >= 0) ||
          !versioned) {
        newest = &row;
        newest_key = key;
      }
    }
    if (newest != nullptr) {
      entry["newest"] = newest_key;
      for (const char* field : {"released", "as_of", "eol"})
        if (newest->contains(field) && (*newest)[field].is_string()) {
          entry["released"] = (*newest)[field];
          break;
        }
      std::string source = newest->value("source", std::string());
      entry["source"] = source;
      std::string date;
      for (size_t at = 0; at < source.size();) {
        size_t end = source.find(' ', at);
        std::string id = source.substr(at, end == std::string::npos ? std::string::npos : end - at);
        if (auto it = consulted.find(id); it != consulted.end() && it->second > date) date = it->second;
        at = end == std::string::npos ? source.size() : end + 1;
      }
      entry["consulted"] = date;
    }
    out[info.kind] = entry;
  }
  return out;
}

KnowledgeStamp KnowledgeStampOf(const KnowledgeBundle& bundle, std::string_view today) {
  KnowledgeStamp out{bundle.schema_version, bundle.revision, bundle.as_of, bundle.digest, {}, {}, {}};
  if (auto age = KnowledgeAgeDays(bundle.as_of, today)) {
    out.age_days = *age;
    out.stale = *age > kKnowledgeStaleDays;
    if (*age > kKnowledgeStaleDays)
      out.note = "The knowledge tables are " + std::to_string(*age) + " days old (as of " + bundle.as_of +
                 ", revision " + bundle.revision + "): releases since then are unknown to them; run `imagelint knowledge update`.";
  }
  return out;
}

}  // namespace imagelint
