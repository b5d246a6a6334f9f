// The import's link to the knowledge files and to the fleet YAML loader.

#include "common/file_text.h"
#include "fleet_import/hosts.h"
#include "imagelint/knowledge.h"

namespace imagelint::fleet_import {
namespace {

// GFD label values lost their spaces ("NVIDIA-A100-SXM4-80GB"); older drivers
// named products without the "NVIDIA " prefix ("A100-SXM4-40GB"). Compare
// both sides sanitised, lowercase, prefix removed.
std::string LabelKey(std::string_view name) {
  std::string key = ToLower(SanitiseLabelValue(name));
  if (StartsWith(key, "nvidia-")) key = key.substr(7);
  return key;
}

std::optional<std::string> OptionalString(const nlohmann::json& row, const char* field) {
  auto it = row.find(field);
  if (it == row.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

GpuFacts FactsOf(const nlohmann::json& row) {
  GpuFacts facts;
  facts.name = row.value("name", std::string());
  facts.compute_capability = OptionalString(row, "compute_capability");
  facts.brand = OptionalString(row, "brand");
  // The fleet loader's `datacenter` is forward-compat eligibility (docs/fleet.md).
  if (auto it = row.find("forward_compat"); it != row.end() && it->is_boolean()) facts.datacenter = it->get<bool>();
  return facts;
}

}  // namespace

std::vector<BrandNames> BrandNamesFromKnowledge(const Knowledge& knowledge) {
  auto strings = [](const nlohmann::json& row, const char* field) {
    std::vector<std::string> out;
    for (const auto& item : row.value(field, nlohmann::json::array()))
      if (item.is_string()) out.push_back(item.get<std::string>());
    return out;
  };
  std::vector<BrandNames> brands;
  for (const auto& row : knowledge.Table("nvml_brands")) {
    BrandNames brand;
    brand.requirement = row.value("requirement", std::string());
    brand.spellings.push_back(row.value("name", std::string()));
    for (auto& spelling : strings(row, "spellings")) brand.spellings.push_back(std::move(spelling));
    brand.product_words = strings(row, "product_words");
    brand.since_lnc = row.value("since_lnc", std::string());
    brands.push_back(std::move(brand));
  }
  return brands;
}

GpuResolver ResolverFromKnowledge(const Knowledge& knowledge) {
  auto find = [&knowledge](std::string_view product) -> std::optional<GpuFacts> {
    if (const nlohmann::json* row = knowledge.FindGpu(product)) return FactsOf(*row);
    std::string wanted = LabelKey(product);
    if (wanted.empty()) return std::nullopt;
    for (const auto& row : knowledge.Table("gpus")) {
      if (LabelKey(row.value("name", std::string())) == wanted) return FactsOf(row);
      for (const auto& alias : row.value("aliases", nlohmann::json::array()))
        if (alias.is_string() && LabelKey(alias.get<std::string>()) == wanted) return FactsOf(row);
    }
    return std::nullopt;
  };
  return GpuResolver{find, BrandNamesFromKnowledge(knowledge)};
}

Result<Fleet> LoadFleetAnyFormat(const std::string& path, const Knowledge& knowledge,
                                 const std::filesystem::path& yaml_memo_dir) {
  // Only the first bytes decide the kind; the importers read the file again
  // with their own bound (and name what is wrong with it).
  InputKind kind = DetectInputKind(ReadFileHead(path, 4096));
  if (kind == InputKind::kFleetYaml) return LoadFleetFile(path, knowledge, yaml_memo_dir);
  auto imported = ImportFile(path, ResolverFromKnowledge(knowledge), kind);
  if (!imported.ok()) return imported.error();
  for (const auto& p : imported->pools) {
    if (p.in_knowledge || p.pool.compute_capability) continue;
    std::string hosts;
    for (size_t i = 0; i < p.hosts.size() && i < 5; ++i) hosts += (i ? ", " : "") + p.hosts[i];
    return MakeError(path, "GPU \"" + p.product_label + "\" (" + hosts +
                               ") is not in the GPU knowledge file and the input gives no compute capability; "
                               "add it to rules/knowledge/gpus.yaml, or write the fleet with `imagelint fleet "
                               "import` and give compute_capability");
  }
  // Through the fleet loader, so that an imported fleet means exactly what
  // the same fleet written as YAML means (defaults, architecture, checks).
  std::string yaml = RenderFleetYaml(*imported);
  auto fleet = ParseFleet(yaml, path + " (imported as " + std::string(InputKindName(kind)) + ")", knowledge);
  if (!fleet.ok()) return fleet.error();
  fleet->source = path;
  for (size_t i = 0; i < fleet->pools.size() && i < imported->pools.size(); ++i) {
    fleet->pools[i].source = imported->pools[i].pool.source;
    fleet->pools[i].line = 0;
  }
  return fleet;
}

}  // namespace imagelint::fleet_import
