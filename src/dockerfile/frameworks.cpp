#include "dockerfile/frameworks.h"

#include <cctype>

#include "common/text.h"

namespace imagelint::dockerfile {

std::string NormalizePackageName(std::string_view name) {
  // The original reader mapped each of `_` and `.` to `-` without collapsing
  // runs; names from the requirement scanner never hold runs, so both agree.
  std::string out = ToLower(name);
  for (char& c : out)
    if (c == '_' || c == '.') c = '-';
  return out;
}

void AddArchList(const Context& ctx, FrameworkRow& row) {
  if (row.variant.empty() || !row.version) return;
  const nlohmann::json* build = ctx.knowledge.FindTorchBuild(*row.version, row.variant);
  if (!build || !build->contains("arch_list") || !(*build)["arch_list"].is_string()) return;
  std::string list = (*build)["arch_list"].get<std::string>();
  bool all_ptx = build->contains("ptx") && (*build)["ptx"].is_boolean() && (*build)["ptx"].get<bool>();
  std::string highest;
  row.sass.clear();
  row.ptx.clear();
  // TORCH_CUDA_ARCH_LIST: "3.7;5.0;8.6+PTX" (PyTorch's torch/utils/cpp_extension.py
  // grammar): each entry is SASS for that compute capability, +PTX adds PTX.
  for (std::string item : SplitOn(list, ';')) {
    bool plus_ptx = EndsWith(item, "+PTX");
    if (plus_ptx) item = item.substr(0, item.size() - 4);
    std::string digits;
    for (char c : item)
      if (std::isdigit(static_cast<unsigned char>(c))) digits.push_back(c);
    if (digits.empty()) continue;
    row.sass.push_back("sm_" + digits);
    if (plus_ptx || all_ptx) highest = digits;
  }
  if (!highest.empty()) row.ptx.push_back({"compute_" + highest});
  row.has_arch_list = true;
  row.arch_list = list;
  row.arch_list_source = build->contains("source") && (*build)["source"].is_string()
                             ? (*build)["source"].get<std::string>()
                             : "pytorch.yaml";
  if (build->contains("unconfirmed")) {
    const nlohmann::json& mark = (*build)["unconfirmed"];
    row.arch_list_unconfirmed = mark.is_string() ? mark.get<std::string>() : "unconfirmed";
  }
}

void ReplaceFramework(ImageModel& image, FrameworkRow row) {
  std::vector<FrameworkRow> kept;
  for (FrameworkRow& existing : image.frameworks)
    if (existing.name != row.name) kept.push_back(std::move(existing));
  kept.push_back(std::move(row));
  image.frameworks = std::move(kept);
}

void RemoveFramework(ImageModel& image, int line, const std::string& name) {
  std::vector<FrameworkRow> kept;
  for (FrameworkRow& row : image.frameworks) {
    std::string package = NormalizePackageName(row.package.empty() ? row.name : row.package);
    if (package == name || (name == "torch" && row.name == "torch"))
      image.changes.push_back({line, row, ""});
    else
      kept.push_back(std::move(row));
  }
  image.frameworks = std::move(kept);
}

}  // namespace imagelint::dockerfile
