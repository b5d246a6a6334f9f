// Loader and validator of rules/knowledge/*.yaml (docs/knowledge.md).
#include "imagelint/knowledge.h"
#include "imagelint/knowledge_bundle.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "common/json.h"
#include "common/text.h"
#include "common/version.h"
#include "knowledge/tables.h"

namespace imagelint {
namespace {

using nlohmann::json;
using knowledge_tables::kMaxFileBytes;
using knowledge_tables::Schemas;
using knowledge_tables::TableSchema;

std::string Canonical(std::string_view name) {
  std::string out;
  bool space = false;
  for (char c : name) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

// Versions of a table (digits and dots, checked at load time) against a
// caller's; anything that is not a version matches nothing.
bool SameVersion(std::string_view a, std::string_view b) { return CompareVersions(a, b) == 0; }

}  // namespace

const std::vector<KnowledgeTableInfo>& KnowledgeTables() {
  static const std::vector<KnowledgeTableInfo> infos = [] {
    std::vector<KnowledgeTableInfo> out;
    for (const auto& schema : Schemas()) out.push_back(schema.info);
    return out;
  }();
  return infos;
}

std::filesystem::path Knowledge::DefaultDirectory(const std::filesystem::path& data_dir) {
  return data_dir / "rules" / "knowledge";
}

Result<json> Knowledge::ParseTable(std::string_view kind, std::string_view text, const std::string& file_name,
                                   const std::vector<std::string>& source_ids) {
  const TableSchema* schema = knowledge_tables::FindSchema(kind);
  if (schema == nullptr) return MakeError(file_name, "unknown knowledge table kind '" + std::string(kind) + "'");
  try {
    return knowledge_tables::ParseTableText(*schema, file_name, source_ids, text);
  } catch (const YAML::Exception& e) {
    return MakeErrorAtLine(file_name, e.mark.line + 1, e.mark.column + 1, "invalid knowledge file: " + e.msg);
  }
}

Result<Knowledge> Knowledge::Load(const std::filesystem::path& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    return MakeError(dir.string(), "knowledge directory does not exist (set IMAGELINT_KNOWLEDGE_DIR?)");
  auto tables = ParseTables(dir);
  if (!tables.ok()) return tables.error();
  return FromTables(dir, std::move(*tables));
}

Result<Knowledge::Tables> Knowledge::ParseTables(const std::filesystem::path& dir) {
  // A bundle of another schema version is named as such, not as the first
  // field its tables spell differently.
  auto header = ReadKnowledgeBundleHeader(dir);
  if (!header.ok()) return header.error();
  Tables tables;
  std::vector<std::string> source_ids;
  std::map<std::string, std::vector<YAML::Node>> documents;  // by file: a file of several tables is read once
  for (const auto& schema : Schemas()) {
    auto path = dir / schema.info.file;
    auto cached = documents.find(schema.info.file);
    if (cached == documents.end()) {
      auto text = knowledge_tables::ReadTableFile(path);
      if (!text.ok()) return text.error();
      auto loaded = knowledge_tables::LoadDocuments(*text, path.string());
      if (!loaded.ok()) return loaded.error();
      cached = documents.emplace(schema.info.file, std::move(*loaded)).first;
    }
    Result<json> rows = MakeError(path.string(), "not parsed");
    try {
      rows = knowledge_tables::ParseDocuments(schema, path.string(), source_ids, cached->second);
    } catch (const YAML::Exception& e) {
      return MakeErrorAtLine(path.string(), e.mark.line + 1, e.mark.column + 1, "invalid knowledge file: " + e.msg);
    }
    if (!rows.ok()) return rows.error();
    if (schema.info.kind == "sources")
      for (const auto& row : *rows) source_ids.push_back(row["id"].get<std::string>());
    tables[schema.info.kind] = std::move(*rows);
  }
  return tables;
}

Result<Knowledge> Knowledge::FromTables(const std::filesystem::path& dir, Tables tables) {
  Knowledge knowledge;
  knowledge.directory_ = dir;
  knowledge.tables_ = std::move(tables);
  // The bundle's identity: its one bundle.yaml row (BundleOf), as_of no
  // earlier than any source it says it consulted.
  const json& bundle_rows = knowledge.Table("bundle");
  if (bundle_rows.size() != 1) return MakeError((dir / "bundle.yaml").string(), "must have exactly one row");
  const json& identity = bundle_rows[0];
  if (identity["schema_version"] != kKnowledgeSchemaVersion)
    return MakeErrorAtLine(identity["_file"], identity["_line"], 1,
                           "schema_version " + DumpJson(identity["schema_version"]) +
                               " is not the one this imagelint reads (" + std::to_string(kKnowledgeSchemaVersion) + ")");
  const std::string as_of = identity["as_of"];
  for (const auto& source : knowledge.Table("sources"))
    if (source.contains("consulted") && source["consulted"].is_string() && source["consulted"].get<std::string>() > as_of)
      return MakeErrorAtLine(source["_file"], source["_line"], 1,
                             "source " + source["id"].get<std::string>() + " was consulted on " +
                                 source["consulted"].get<std::string>() + ", after the bundle's as_of " + as_of +
                                 " (bundle.yaml)");
  // Cross-table checks: every GPU's CC has a sass row, branches' PTX ISAs exist.
  const json& sass = knowledge.Table("sass");
  for (const auto& gpu : knowledge.Table("gpus")) {
    std::string cc = gpu["compute_capability"];
    bool found = std::any_of(sass.begin(), sass.end(), [&](const json& row) { return row["cc"] == cc; });
    if (!found)
      return MakeErrorAtLine(gpu["_file"], gpu["_line"], 1,
                             "GPU '" + gpu["name"].get<std::string>() + "' has compute capability " + cc +
                                 " which sass.yaml does not list");
  }
  for (const auto& branch : knowledge.Table("driver_branches")) {
    if (!knowledge.FindPtxIsa(branch["ptx_isa"].get<std::string>()))
      return MakeErrorAtLine(branch["_file"], branch["_line"], 1,
                             "branch " + DumpJson(branch["branch"]) + " names PTX ISA " +
                                 branch["ptx_isa"].get<std::string>() + " which ptx-isa.yaml does not list");
  }
  const json& toolkits = knowledge.Table("container_toolkit");
  for (size_t row = 0; row < toolkits.size(); ++row) knowledge.toolkit_rows_by_version_.push_back(row);
  std::stable_sort(knowledge.toolkit_rows_by_version_.begin(), knowledge.toolkit_rows_by_version_.end(),
                   [&toolkits](size_t a, size_t b) {
                     return CompareNaturalVersions(toolkits[a]["version"].get<std::string>(),
                                                   toolkits[b]["version"].get<std::string>()) < 0;
                   });
  for (size_t row = 0; row < sass.size(); ++row)
    if (sass[row]["cc"].is_string()) knowledge.sass_rows_.try_emplace(sass[row]["cc"].get<std::string>(), row);
  const json& gpus = knowledge.Table("gpus");
  for (size_t row = 0; row < gpus.size(); ++row) {
    knowledge.gpu_rows_.try_emplace(Canonical(gpus[row]["name"].get<std::string>()), row);
    if (auto aliases = gpus[row].find("aliases"); aliases != gpus[row].end() && aliases->is_array())
      for (const auto& alias : *aliases) knowledge.gpu_rows_.try_emplace(Canonical(alias.get<std::string>()), row);
  }
  const json& branches = knowledge.Table("driver_branches");
  for (size_t row = 0; row < branches.size(); ++row)
    if (branches[row]["branch"].is_number_integer()) knowledge.branch_rows_.emplace_back(branches[row]["branch"].get<int>(), row);
  std::stable_sort(knowledge.branch_rows_.begin(), knowledge.branch_rows_.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  const json& brands = knowledge.Table("nvml_brands");
  for (size_t row = 0; row < brands.size(); ++row) {
    if (brands[row].contains("name") && brands[row]["name"].is_string())
      knowledge.brand_rows_.try_emplace(ToLower(brands[row]["name"].get<std::string>()), row);
    if (brands[row].contains("requirement") && brands[row]["requirement"].is_string())
      knowledge.brand_rows_.try_emplace(brands[row]["requirement"].get<std::string>(), row);
  }
  IMAGELINT_TRY(LoadImageTables(knowledge));  // typed base-images.yaml / packages.yaml (image_tables.cpp)
  return knowledge;
}

const json& Knowledge::Table(std::string_view kind) const {
  static const json empty = json::array();
  auto it = tables_.find(kind);
  return it == tables_.end() ? empty : it->second;
}

const json* Knowledge::FindGpu(std::string_view product) const {
  std::string wanted = Canonical(product);
  if (wanted.empty()) return nullptr;
  auto match = [&](const std::string& candidate) -> const json* {
    auto it = gpu_rows_.find(candidate);
    return it == gpu_rows_.end() ? nullptr : &Table("gpus")[it->second];
  };
  if (const json* row = match(wanted)) return row;
  if (StartsWith(wanted, "nvidia ")) return match(wanted.substr(7));
  return match("nvidia " + wanted);
}

std::vector<std::string> Knowledge::ClosestGpuNames(std::string_view product, size_t max) const {
  // Compared without the "nvidia " prefix, so that short names do not win
  // only by being short.
  // Words in common come first, a model number ("5090", "h200") counting
  // twice ("RTX 5090 Ti" is closer to "RTX 5090" than to "RTX 5070 Ti"), then
  // the edit distance of the whole name.
  auto strip = [](std::string s) { return StartsWith(s, "nvidia ") ? s.substr(7) : s; };
  std::string wanted = strip(Canonical(product));
  std::vector<std::string> wanted_words = SplitOn(wanted, ' ');
  auto score = [&](const std::string& candidate) {
    size_t shared = 0;
    for (const std::string& word : SplitOn(candidate, ' '))
      if (!word.empty() && std::find(wanted_words.begin(), wanted_words.end(), word) != wanted_words.end())
        shared += std::any_of(word.begin(), word.end(), [](char c) { return c >= '0' && c <= '9'; }) ? 2 : 1;
    return std::make_pair(-static_cast<long>(shared), EditDistance(wanted, candidate));
  };
  std::vector<std::pair<std::pair<long, size_t>, std::string>> scored;
  for (const auto& row : Table("gpus")) {
    std::string name = row["name"];
    auto best = score(strip(Canonical(name)));
    for (const auto& alias : row.value("aliases", json::array()))
      best = std::min(best, score(strip(Canonical(alias.get<std::string>()))));
    scored.emplace_back(best, name);
  }
  std::stable_sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (const auto& [score, name] : scored) {
    if (out.size() >= max) break;
    out.push_back(name);
  }
  return out;
}

const json* Knowledge::FindToolkit(std::string_view version) const {
  const json& rows = Table("toolkits");
  for (const auto& row : rows)
    if (row["version"] == version) return &row;
  // "11.3" → the first (GA) release of 11.3; "11.3.109" (a cudart version) → no exact row.
  std::string prefix = std::string(version) + ".";
  for (const auto& row : rows)
    if (row["version"].get<std::string>().rfind(prefix, 0) == 0) return &row;
  return nullptr;
}

const json* Knowledge::FindBranch(int branch) const {
  auto it = std::lower_bound(branch_rows_.begin(), branch_rows_.end(), branch,
                             [](const std::pair<int, size_t>& row, int wanted) { return row.first < wanted; });
  if (it == branch_rows_.end() || it->first != branch) return nullptr;
  return &Table("driver_branches")[it->second];
}

int Knowledge::NearestBranchAtOrBelow(int branch) const {
  auto after = std::upper_bound(branch_rows_.begin(), branch_rows_.end(), branch,
                                [](int wanted, const std::pair<int, size_t>& row) { return wanted < row.first; });
  return after == branch_rows_.begin() ? -1 : std::prev(after)->first;
}

std::optional<std::string> Knowledge::BranchCudaVersion(int branch) const {
  if (const json* row = FindBranch(branch)) return row->at("cuda").get<std::string>();
  return std::nullopt;
}

const json* Knowledge::FindMinorFloor(int cuda_major) const {
  for (const auto& row : Table("minor_version"))
    if (row["cuda_major"] == cuda_major) return &row;
  return nullptr;
}

const json* Knowledge::FindPtxIsa(std::string_view isa) const {
  for (const auto& row : Table("ptx_isa"))
    if (SameVersion(row["isa"].get<std::string>(), isa)) return &row;
  return nullptr;
}

const json* Knowledge::FindCompatPackage(std::string_view cuda_major_minor) const {
  for (const auto& row : Table("forward_compat"))
    if (SameVersion(row["package"].get<std::string>(), cuda_major_minor)) return &row;
  return nullptr;
}

const json* Knowledge::FindCompatLibrary(std::string_view libcuda) const {
  for (const auto& row : Table("compat_libraries"))
    if (row["libcuda"] == libcuda) return &row;
  return nullptr;
}

const json* Knowledge::FindArchitecture(std::string_view compute_capability) const {
  for (const auto& row : Table("architectures"))
    for (const auto& cc : row["compute_capabilities"])
      if (SameVersion(cc.get<std::string>(), compute_capability)) return &row;
  return nullptr;
}

// The newest row whose version is <= `version`; of equal versions, the first
// in table order. Pre-releases sort before their release: "1.18.0-rc.1" <
// "1.18.0".
const json* Knowledge::ToolkitBehaviour(std::string_view version) const {
  const json& rows = Table("container_toolkit");
  auto version_of = [&rows](size_t row) -> const std::string& { return rows[row]["version"].get_ref<const std::string&>(); };
  auto after = std::upper_bound(toolkit_rows_by_version_.begin(), toolkit_rows_by_version_.end(), version,
                                [&](std::string_view v, size_t row) { return CompareNaturalVersions(v, version_of(row)) < 0; });
  if (after == toolkit_rows_by_version_.begin()) return nullptr;
  auto best = std::prev(after);
  while (best != toolkit_rows_by_version_.begin() && CompareNaturalVersions(version_of(*std::prev(best)), version_of(*best)) == 0)
    --best;
  return &rows[*best];
}

std::string Knowledge::NewestContainerToolkit() const {
  if (toolkit_rows_by_version_.empty()) return "";
  // The row ToolkitBehaviour gives the highest version: the first of its ties.
  const json& highest = Table("container_toolkit")[toolkit_rows_by_version_.back()];
  return ToolkitBehaviour(highest["version"].get<std::string>())->at("version").get<std::string>();
}

const json* Knowledge::FindSass(std::string_view compute_capability) const {
  auto it = sass_rows_.find(compute_capability);
  return it == sass_rows_.end() ? nullptr : &Table("sass")[it->second];
}

const json* Knowledge::FindError(int code) const {
  for (const auto& row : Table("cuda_errors"))
    if (row["code"] == code) return &row;
  return nullptr;
}

const json* Knowledge::FindTorchBuild(std::string_view torch_version, std::string_view variant) const {
  // "2.1.2" matches the row for "2.1".
  std::string version(torch_version);
  size_t plus = version.find('+');
  if (plus != std::string::npos) version = version.substr(0, plus);
  int dots = static_cast<int>(std::count(version.begin(), version.end(), '.'));
  if (dots >= 2) version = version.substr(0, version.rfind('.'));
  for (const auto& row : Table("pytorch"))
    if (row["variant"] == variant && SameVersion(row["torch"].get<std::string>(), version)) return &row;
  return nullptr;
}

const json* Knowledge::FindBrand(std::string_view name) const {
  // A lower-case name or a requirement name; of two rows, the first.
  auto it = brand_rows_.find(ToLower(name));
  return it == brand_rows_.end() ? nullptr : &Table("nvml_brands")[it->second];
}

const json* Knowledge::FindBrandId(int id) const {
  for (const auto& row : Table("nvml_brands"))
    if (row["id"] == id) return &row;
  return nullptr;
}

}  // namespace imagelint
