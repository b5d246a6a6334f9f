// frameworks[] rows, whoever installs them: a later install of a framework
// replaces the earlier one (pip and conda keep one copy per environment), and
// torch's GPU code is that of its build in pytorch.yaml.
#include "dockerfile/frameworks.h"

#include <cctype>

#include "common/text.h"
#include "dockerfile/util.h"

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

void AddFrameworkRuntime(const Context& ctx, ImageModel& image, const facts::Framework& row, const std::string& manager,
                         const std::vector<std::string>& extras) {
  // "12.4", or "12" where only the major is pinned (conda's pytorch-cuda=12):
  // the driver floor of minor-version compatibility is the major's.
  if (!row.cuda || !IsDottedNumber(*row.cuda)) return;
  const std::string& cuda = *row.cuda;
  const FrameworkRuntime* layout = ctx.packages.FindFrameworkRuntime(manager, row.name, cuda, extras);
  std::optional<std::string> soname = ctx.knowledge.CudartSoname(cuda);
  if (!layout || !soname) return;
  facts::Runtime runtime;
  runtime.provenance = row.provenance;
  runtime.provenance.knowledge = ctx.knowledge.DescribeSource(layout->source);
  if (!layout->unconfirmed.empty()) runtime.provenance.unconfirmed = "where " + row.name + "'s CUDA runtime lands";
  std::string root = manager == "conda" ? "<conda-prefix>/" : "<site-packages>/";
  runtime.path = root + FillTemplate(layout->library, {{"soname", soname->substr(soname->rfind(".so.") + 4)}});
  runtime.soname = soname;
  runtime.version = cuda;
  runtime.version_precision = cuda.find('.') == std::string::npos ? "major" : "major.minor";
  runtime.version_source = row.name + " " + row.variant.value_or("") + " build (" + row.cuda_source.value_or(manager) + ")";
  runtime.source = "framework";  // the version is the build's CUDA release, not read from a file
  runtime.package = row.package;
  runtime.installer = row.installer;
  runtime.version_unknown_reason = row.version_unknown_reason;
  if (runtime.path->find("<hash>") != std::string::npos) runtime.hashed_copy = true;
  image.PutRuntime(std::move(runtime));
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
