#include "dockerfile/knowledge.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <mutex>

#include <yaml-cpp/yaml.h>

#include "dockerfile/util.h"

namespace imagelint::dockerfile {
namespace {

std::string Str(const YAML::Node& node, const char* key, const std::string& fallback = "") {
  const YAML::Node value = node[key];
  if (!value || !value.IsScalar()) return fallback;
  return value.as<std::string>();
}
bool Bool(const YAML::Node& node, const char* key) {
  const YAML::Node value = node[key];
  return value && value.IsScalar() && value.as<std::string>() == "true";
}
std::vector<std::string> List(const YAML::Node& node) {
  std::vector<std::string> out;
  if (node && node.IsSequence())
    for (const auto& item : node)
      if (item.IsScalar()) out.push_back(item.as<std::string>());
  return out;
}
std::vector<std::pair<std::string, std::string>> Pairs(const YAML::Node& node) {
  std::vector<std::pair<std::string, std::string>> out;
  if (node && node.IsMap())
    for (const auto& item : node)
      if (item.second.IsScalar()) out.emplace_back(item.first.as<std::string>(), item.second.as<std::string>());
  return out;
}
void Sources(const YAML::Node& node, std::map<std::string, std::string>& out) {
  for (auto& [k, v] : Pairs(node)) out[k] = v;
}

Status LoadBaseImages(const std::string& file, DockerfileKnowledge& k) {
  YAML::Node root = YAML::LoadFile(file);
  Sources(root["sources"], k.sources);
  std::map<std::string, std::vector<std::string>> brand_sets;
  for (const auto& item : root["brand_sets"]) brand_sets[item.first.as<std::string>()] = List(item.second);
  const YAML::Node cuda = root["nvidia_cuda"];
  if (!cuda || !cuda.IsMap()) return MakeError(file, "missing nvidia_cuda");
  k.cuda_repositories = List(cuda["repositories"]);
  k.cuda_flavors = List(cuda["flavors"]);
  k.cuda_env = Pairs(cuda["env"]);
  k.cuda_devel_env = Pairs(cuda["devel_env"]);
  k.cuda_env_source = Str(cuda, "env_source");
  for (const auto& row : cuda["ld_library_path"])
    k.ld_library_path.push_back(
        {Str(row, "from"), Str(row, "to"), Str(row, "value"), Str(row, "source"), Str(row, "note")});
  k.compat_ubuntu_amd64_only_through = Str(cuda, "compat_ubuntu_amd64_only_through");
  k.compat_arch_source = Str(cuda, "compat_arch_source");
  k.arm64_from = Str(cuda, "arm64_from");
  k.arm64_source = Str(cuda, "arm64_source");
  k.compat_from = Str(cuda, "compat_from", "10.0");
  for (const auto& row : cuda["releases"]) {
    CudaRelease r;
    r.cuda = Str(row, "cuda");
    r.cudart = Str(row, "cudart");
    if (r.cuda.empty()) return MakeError(file, "release row without cuda");
    r.source = Str(row, "source");
    const YAML::Node require = row["require"];
    std::string req = "cuda>=" + Str(require, "cuda");
    std::string set = Str(require, "brands");
    if (!set.empty() && !brand_sets.count(set)) return MakeError(file, "release " + r.cuda + ": unknown brand set " + set);
    for (const std::string& branch : List(require["branches"])) {
      int b = std::stoi(branch);
      for (const std::string& brand : brand_sets[set])
        req += " brand=" + brand + ",driver>=" + std::to_string(b) + ",driver<" + std::to_string(b + 1);
    }
    for (const std::string& extra : List(require["extra"])) req += " " + extra;
    r.require = req;
    r.require_unconfirmed = Bool(row, "require_unconfirmed");
    r.require_source = Str(row, "require_source", r.source);
    r.compat_libcuda = Str(row, "compat_libcuda");
    r.compat_unconfirmed = Bool(row, "compat_unconfirmed");
    r.compat_source = Str(row, "compat_source");
    k.releases.push_back(std::move(r));
  }
  const YAML::Node torch = root["pytorch_pytorch"];
  k.pytorch_repositories = List(torch["repositories"]);
  k.pytorch_source = Str(torch, "source");
  for (const auto& row : torch["tags"]) {
    PytorchTag t{Str(row, "tag"), Str(row, "cuda_version"), Str(row, "torch"), std::nullopt, Str(row, "source")};
    if (row["compat"]) t.compat = Bool(row, "compat");
    k.pytorch_tags.push_back(t);
  }
  k.ngc_prefix = Str(root["ngc"], "registry_prefix", "nvcr.io/nvidia/");
  k.ngc_source = Str(root["ngc"], "source");
  return OkStatus();
}

Status LoadPackages(const std::string& file, DockerfileKnowledge& k) {
  YAML::Node root = YAML::LoadFile(file);
  Sources(root["sources"], k.sources);
  const YAML::Node pip = root["pip"];
  for (const auto& row : pip["torch_pypi_default"])
    k.torch_pypi_default.push_back({Str(row, "torch"), Str(row, "cuda"), Bool(row, "unconfirmed"), Str(row, "source")});
  const YAML::Node companions = pip["torch_companions"];
  k.companions_unconfirmed = Bool(companions, "unconfirmed");
  k.companions_source = Str(companions, "source");
  for (const char* name : {"torchvision", "torchaudio"})
    for (auto& [from, to] : Pairs(companions[name])) k.torch_companions[name][from] = to;
  const YAML::Node tf = pip["tensorflow_cuda"];
  k.tensorflow_unconfirmed = Bool(tf, "unconfirmed");
  k.tensorflow_source = Str(tf, "source");
  for (auto& [from, to] : Pairs(tf["versions"])) k.tensorflow_cuda[from] = to;
  k.torch_index_hosts = List(pip["torch_index_hosts"]);
  for (const auto& row : pip["nvidia_wheels"])
    k.nvidia_wheels.push_back({Str(row, "name"), Str(row, "component"), Str(row, "library"), Bool(row, "unconfirmed"),
                               Str(row, "source")});
  const YAML::Node conda = root["conda"];
  k.conda_cuda_selectors = List(conda["cuda_selectors"]);
  for (auto& [from, to] : Pairs(conda["frameworks"])) k.conda_frameworks[from] = to;
  for (const auto& row : root["apt"])
    k.apt.push_back({Str(row, "pattern"), Str(row, "kind"), Str(row, "path"), Str(row, "source")});
  return OkStatus();
}

}  // namespace

const CudaRelease* DockerfileKnowledge::FindRelease(const std::string& version) const {
  for (const CudaRelease& r : releases)
    if (r.cuda == version) return &r;
  // "X.Y" tags point at the newest X.Y.Z; "X.Y.Z" not in the table: none.
  if (std::count(version.begin(), version.end(), '.') != 1) return nullptr;
  const CudaRelease* best = nullptr;
  for (const CudaRelease& r : releases)
    if (StartsWith(r.cuda, version + ".") && (!best || CompareVersions(r.cuda, best->cuda) > 0)) best = &r;
  return best;
}

std::string DockerfileKnowledge::SourceText(const std::string& key) const {
  auto it = sources.find(key);
  return it == sources.end() ? key : key + ": " + it->second;
}

std::string DefaultKnowledgeDir() {
  if (const char* env = std::getenv("IMAGELINT_KNOWLEDGE_DIR"); env && *env) return env;
  return std::string(IMAGELINT_DATA_DIR) + "/rules/knowledge";
}

Result<std::shared_ptr<const DockerfileKnowledge>> LoadKnowledge(const std::string& dir) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const DockerfileKnowledge>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(dir);
  if (it != cache.end()) return it->second;
  auto knowledge = std::make_shared<DockerfileKnowledge>();
  knowledge->base_images_file = dir + "/base-images.yaml";
  knowledge->packages_file = dir + "/packages.yaml";
  for (const std::string* file : {&knowledge->base_images_file, &knowledge->packages_file}) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(*file, ec)) return MakeError(*file, "knowledge file not found");
    try {
      Status status = file == &knowledge->base_images_file ? LoadBaseImages(*file, *knowledge)
                                                           : LoadPackages(*file, *knowledge);
      if (!status.ok()) return status.error();
    } catch (const YAML::Exception& e) {
      return MakeErrorAtLine(*file, e.mark.line + 1, e.mark.column + 1, e.msg);
    } catch (const std::exception& e) {
      return MakeError(*file, e.what());
    }
  }
  cache[dir] = knowledge;
  return std::shared_ptr<const DockerfileKnowledge>(knowledge);
}

}  // namespace imagelint::dockerfile
