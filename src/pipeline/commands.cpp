// The library side of `imagelint rules`, `explain` and `fleet import`.
#include <cctype>
#include <filesystem>

#include "common/file_text.h"
#include "common/text.h"
#include "imagelint/fleet.h"
#include "imagelint/knowledge.h"
#include "imagelint/pipeline.h"

namespace imagelint {
namespace {

namespace fs = std::filesystem;

constexpr size_t kMaxDocsPageBytes = 4u << 20;

// The docs page: the docs directory first, then the rule's `docs` path
// relative to its rule file's directory and its parent (user rule files keep
// their pages beside them).
std::optional<std::string> FindDocsPage(const rules::RuleInfo& info, const Context& context) {
  std::vector<fs::path> candidates;
  if (!context.docs_dir.empty()) candidates.push_back(context.docs_dir / "rules" / (info.id + ".md"));
  if (!info.docs.empty()) {
    fs::path docs(info.docs);
    if (docs.is_absolute()) {
      candidates.push_back(docs);
    } else if (!info.file.empty()) {
      fs::path dir = fs::path(info.file).parent_path();
      candidates.push_back(dir / docs);
      candidates.push_back(dir.parent_path() / docs);
    }
  }
  std::error_code ec;
  for (const auto& candidate : candidates) {
    if (fs::is_regular_file(candidate, ec)) return candidate.string();
  }
  return std::nullopt;
}

Result<FleetImport> Finish(Result<fleet_import::ImportResult> imported, const std::string& fleet_name,
                           const Knowledge& knowledge) {
  if (!imported.ok()) return imported.error();
  FleetImport out;
  out.yaml = fleet_import::RenderFleetYaml(*imported);
  out.imported = std::move(*imported);
  // The written file must mean to the fleet loader what the import meant.
  auto check = ParseFleet(out.yaml, fleet_name, knowledge);
  if (!check.ok()) out.load_problem = check.error();
  return out;
}

}  // namespace

Result<std::vector<rules::RuleInfo>> ListRules(const std::vector<std::string>& rule_files,
                                               const std::vector<rules::RuleOverride>& overrides,
                                               const Context& context) {
  auto rule_set = rules::LoadRuleSet(context.rules_dir, rule_files, context.cache_dir);
  if (!rule_set.ok()) return rule_set.error();
  IMAGELINT_TRY(rule_set->ApplyOverrides(overrides));
  return rule_set->List();
}

Result<RuleDocs> ExplainRule(const std::string& id_or_name, const std::vector<std::string>& rule_files,
                             const Context& context) {
  auto rule_set = rules::LoadRuleSet(context.rules_dir, rule_files, context.cache_dir);
  if (!rule_set.ok()) return rule_set.error();
  std::string upper = id_or_name;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::optional<rules::RuleInfo> found;
  for (const auto& info : rule_set->List()) {
    if (info.id == id_or_name || info.id == upper || info.name == id_or_name) found = info;
  }
  if (!found) {
    std::vector<std::string> known;
    for (const auto& info : rule_set->List()) {
      known.push_back(info.id);
      known.push_back(info.name);
    }
    std::string hint = ClosestMatch(id_or_name, known);
    return MakeError(id_or_name, "no such rule" + (hint.empty() ? "" : " (did you mean " + hint + "?)") +
                                     "; `imagelint rules` lists them");
  }
  auto page = FindDocsPage(*found, context);
  if (!page) return MakeError(found->id, "no documentation page (expected docs/rules/" + found->id + ".md)");
  auto text = ReadBoundedFile(*page, kMaxDocsPageBytes, "documentation page", FileKinds::kRegularOnly);
  if (!text.ok()) return text.error();
  return RuleDocs{std::move(*found), *page, std::move(*text)};
}

Result<FleetImport> ImportFleet(fleet_import::InputKind kind, const std::string& text, const std::string& source,
                                const std::string& fleet_name, const Context& context) {
  auto knowledge = Knowledge::Load(context.knowledge_dir, context.cache_dir);
  if (!knowledge.ok()) return knowledge.error();
  auto gpus = fleet_import::ResolverFromKnowledge(*knowledge);
  return Finish(fleet_import::ImportText(kind, text, source, gpus), fleet_name, *knowledge);
}

Result<FleetImport> ImportFleetFile(fleet_import::InputKind kind, const std::string& path,
                                    const std::string& fleet_name, const Context& context) {
  auto knowledge = Knowledge::Load(context.knowledge_dir, context.cache_dir);
  if (!knowledge.ok()) return knowledge.error();
  auto gpus = fleet_import::ResolverFromKnowledge(*knowledge);
  return Finish(fleet_import::ImportFile(path, gpus, kind), fleet_name, *knowledge);
}

}  // namespace imagelint
