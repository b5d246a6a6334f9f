// frameworks[] rows, whoever installs them: a later install of a framework
// replaces the earlier one (pip and conda keep one copy per environment), and
// torch's GPU code is that of its build in pytorch.yaml.
#include "dockerfile/frameworks.h"

#include <cctype>

#include "common/text.h"

namespace imagelint::dockerfile {

std::string NormalizePackageName(std::string_view name) {
  std::string out = ToLower(name);
  for (char& c : out)
    if (c == '_' || c == '.') c = '-';
  return out;
}

void AddArchList(const Context& ctx, facts::Framework& row) {
  if (!row.variant || !row.version) return;
  const nlohmann::json* build = ctx.knowledge.FindTorchBuild(*row.version, *row.variant);
  if (!build || !build->contains("arch_list") || !(*build)["arch_list"].is_string()) return;
  std::string list = (*build)["arch_list"].get<std::string>();
  bool all_ptx = build->contains("ptx") && (*build)["ptx"].is_boolean() && (*build)["ptx"].get<bool>();
  std::string highest;
  std::vector<std::string> sass;
  // TORCH_CUDA_ARCH_LIST: "3.7;5.0;8.6+PTX" (PyTorch's torch/utils/cpp_extension.py
  // grammar): each entry is SASS for that compute capability, +PTX adds PTX.
  for (std::string item : SplitOn(list, ';')) {
    bool plus_ptx = EndsWith(item, "+PTX");
    if (plus_ptx) item = item.substr(0, item.size() - 4);
    std::string digits;
    for (char c : item)
      if (std::isdigit(static_cast<unsigned char>(c))) digits.push_back(c);
    if (digits.empty()) continue;
    sass.push_back("sm_" + digits);
    if (plus_ptx || all_ptx) highest = digits;
  }
  row.sass = std::move(sass);
  row.ptx = std::vector<facts::Ptx>{};
  if (!highest.empty()) row.ptx->push_back({"compute_" + highest, std::nullopt});
  row.arch_list = list;
  row.arch_list_source = build->contains("source") && (*build)["source"].is_string()
                             ? (*build)["source"].get<std::string>()
                             : "pytorch.yaml";
  if (build->contains("unconfirmed")) {
    const nlohmann::json& mark = (*build)["unconfirmed"];
    row.arch_list_unconfirmed = mark.is_string() ? mark.get<std::string>() : "unconfirmed";
  }
}

void ReplaceFramework(ImageModel& image, facts::Framework row) {
  std::vector<facts::Framework> kept;
  for (facts::Framework& existing : image.frameworks)
    if (existing.name != row.name) kept.push_back(std::move(existing));
  kept.push_back(std::move(row));
  image.frameworks = std::move(kept);
}

void RemoveFramework(ImageModel& image, int line, const std::string& name) {
  std::vector<facts::Framework> kept;
  for (facts::Framework& row : image.frameworks) {
    std::string package = NormalizePackageName(row.package.value_or(row.name));
    if (package == name || (name == "torch" && row.name == "torch"))
      image.changes.push_back({line, std::nullopt, row});
    else
      kept.push_back(std::move(row));
  }
  image.frameworks = std::move(kept);
}

}  // namespace imagelint::dockerfile
