// Facts that two knowledge tables both state, compared (KnowledgeDisagreements):
// each fact should live in one place, and where a second table repeats or
// depends on it, the two must say the same.
#include <set>

#include "common/version.h"
#include "imagelint/image_knowledge.h"
#include "imagelint/knowledge_bundle.h"

namespace imagelint {

namespace {

using nlohmann::json;

std::string At(const json& row) {
  return row.value("_file", std::string("?")) + ":" + std::to_string(row.value("_line", 0));
}

// "12.8" -> "cu128".
std::string Variant(const std::string& cuda) {
  std::string digits;
  for (char c : cuda)
    if (c != '.') digits += c;
  return "cu" + digits;
}

std::string MajorMinorOf(const std::string& version) {
  size_t first = version.find('.');
  if (first == std::string::npos) return version;
  size_t second = version.find('.', first + 1);
  return second == std::string::npos ? version : version.substr(0, second);
}

}  // namespace

std::vector<std::string> KnowledgeDisagreements(const Knowledge& knowledge) {
  std::vector<std::string> out;
  const json& builds = knowledge.Table("pytorch");
  auto torch_releases = [&] {
    std::set<std::string> releases;
    for (const auto& row : builds) releases.insert(row["torch"].get<std::string>());
    return releases;
  }();
  auto find_build = [&](const std::string& torch, const std::string& variant) -> const json* {
    for (const auto& row : builds)
      if (CompareVersions(row["torch"].get<std::string>(), torch) == 0 && row["variant"] == variant) return &row;
    return nullptr;
  };

  // PyPI's default CUDA of a torch release is one of that release's builds.
  std::set<std::string> pypi_torch;
  for (const auto& row : knowledge.packages().pypi_releases) {
    if (row.package != "torch") continue;
    pypi_torch.insert(row.release);
    if (row.cuda.empty() || !torch_releases.count(row.release)) continue;
    if (!find_build(row.release, Variant(row.cuda)))
      out.push_back("packages.yaml pypi_releases says PyPI's torch " + row.release + " is built for CUDA " + row.cuda +
                    ", but pytorch.yaml has no " + row.release + "+" + Variant(row.cuda) + " build");
  }
  // Companions pair with a torch release the tables list.
  for (const auto& row : knowledge.packages().pypi_releases)
    if (!row.torch.empty() && !pypi_torch.count(MajorMinorOf(row.torch)))
      out.push_back("packages.yaml pypi_releases pairs " + row.package + " " + row.release + " with torch " + row.torch +
                    ", which pypi_releases does not list");
  // A pytorch/pytorch image's CUDA is a build of its torch release.
  for (const auto& tag : knowledge.base_images().pytorch_tags) {
    std::string torch = tag.torch.empty() ? tag.tag.substr(0, tag.tag.find('-')) : tag.torch;
    torch = MajorMinorOf(torch);
    if (tag.cuda.empty() || !torch_releases.count(torch)) continue;
    if (!find_build(torch, Variant(tag.cuda)))
      out.push_back("base-images.yaml pytorch_images says pytorch/pytorch:" + tag.tag + " has CUDA " + tag.cuda +
                    ", but pytorch.yaml has no " + torch + "+" + Variant(tag.cuda) + " build");
  }
  // A GPU's architecture is the one of its compute capability.
  for (const auto& gpu : knowledge.Table("gpus")) {
    const json* arch = knowledge.FindArchitecture(gpu["compute_capability"].get<std::string>());
    if (arch && gpu.contains("architecture") && gpu["architecture"] != (*arch)["name"])
      out.push_back(At(gpu) + ": " + gpu["name"].get<std::string>() + " is " + gpu["architecture"].get<std::string>() +
                    " in gpus.yaml, but compute capability " + gpu["compute_capability"].get<std::string>() + " is " +
                    (*arch)["name"].get<std::string>() + " in architectures.yaml (" + At(*arch) + ")");
  }
  // Every architecture's compute capability has a sass.yaml row.
  const json& sass = knowledge.Table("sass");
  for (const auto& arch : knowledge.Table("architectures"))
    for (const auto& cc : arch["compute_capabilities"]) {
      bool found = false;
      for (const auto& row : sass) found = found || CompareVersions(row["cc"].get<std::string>(), cc.get<std::string>()) == 0;
      if (!found)
        out.push_back(At(arch) + ": architecture " + arch["name"].get<std::string>() + " lists compute capability " +
                      cc.get<std::string>() + ", which sass.yaml does not");
    }
  // An nvidia/cuda image's cudart is its toolkit's.
  for (const auto& release : knowledge.base_images().cuda_releases) {
    const json* toolkit = nullptr;
    for (const auto& row : knowledge.Table("toolkits"))
      if (row["version"] == release.cuda) toolkit = &row;
    if (toolkit && toolkit->contains("cudart") && !release.cudart.empty() && (*toolkit)["cudart"] != release.cudart)
      out.push_back("base-images.yaml cuda_images says the nvidia/cuda " + release.cuda + " images have cudart " +
                    release.cudart + ", but toolkits.yaml (" + At(*toolkit) + ") says " +
                    (*toolkit)["cudart"].get<std::string>());
  }
  return out;
}

}  // namespace imagelint
