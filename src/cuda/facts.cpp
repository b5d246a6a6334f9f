// Builds the `cuda`, `binaries` and `frameworks` parts of the facts model from
// the image's files (docs/cuda-facts.md says how each value is chosen). The
// parts are built in facts_*.cpp; this file holds the file index, the small
// parts (requirements, toolkits, packages) and the order they are built in.
#include <algorithm>
#include <cstring>
#include <deque>

#include "common/json.h"
#include "common/text.h"
#include "cuda/facts_builder.h"
#include "cuda/scan_text.h"
#include "imagelint/image_env.h"

namespace imagelint::cuda {
namespace detail {

using nlohmann::json;

namespace {

// The image config's Env ("K=V" strings; the inner `config` object of an
// image config, or the object itself). A later entry wins.
std::map<std::string, std::string> ParseEnv(const json& config) {
  std::map<std::string, std::string> env;
  const json* list = nullptr;
  if (config.is_object() && config.contains("config") && config["config"].is_object() &&
      config["config"].contains("Env"))
    list = &config["config"]["Env"];
  else if (config.is_object() && config.contains("Env"))
    list = &config["Env"];
  if (list == nullptr || !list->is_array()) return env;
  for (const auto& item : *list) {
    if (!item.is_string()) continue;
    const std::string& text = item.get_ref<const std::string&>();
    size_t eq = text.find('=');
    env[text.substr(0, eq)] = eq == std::string::npos ? "" : text.substr(eq + 1);
  }
  return env;
}

const std::vector<const CudaFile*> kNoFiles;

}  // namespace

ImageFiles::ImageFiles(const CudaFactsInput& input) : input_(input), env_(ParseEnv(input.config)) {
  for (const CudaFile& file : input_.files) by_path_[file.path] = &file;
  for (const CudaFile& file : input_.files)
    if (file.text != nullptr) texts_[StringField(*file.text, "kind")].push_back(&file);
}

const CudaFile* ImageFiles::Find(const std::string& path) const {
  auto it = by_path_.find(path);
  return it == by_path_.end() ? nullptr : it->second;
}

std::optional<std::string> ImageFiles::Resolve(const std::string& path) const {
  if (input_.resolve) return input_.resolve(path);
  // Inside the file list only: every component, absolute targets from the
  // root, ".." clamped at the root, at most 40 links.
  std::deque<std::string> pending;
  auto push_front = [&](const std::string& text) {
    std::vector<std::string> parts = SplitOn(text, '/');
    pending.insert(pending.begin(), parts.begin(), parts.end());
  };
  push_front(path);
  std::vector<std::string> done;
  int hops = 0;
  while (!pending.empty()) {
    std::string part = pending.front();
    pending.pop_front();
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (!done.empty()) done.pop_back();
      continue;
    }
    std::string candidate;
    for (const auto& d : done) candidate += d + "/";
    candidate += part;
    const CudaFile* file = Find(candidate);
    if (file != nullptr && file->type == EntryType::kSymlink) {
      if (++hops > 40) return std::nullopt;
      if (StartsWith(file->link_target, "/")) done.clear();
      push_front(file->link_target);
      continue;
    }
    done.push_back(part);
  }
  std::string out;
  for (const auto& d : done) out += (out.empty() ? "" : "/") + d;
  return out;
}

std::vector<std::string> ImageFiles::AliasesOf(const std::string& path) const {
  // Every lib* link resolved once, on the first call: asked per library, the
  // scan of all links made an image of 20,000 aliases quadratic (minutes).
  std::call_once(aliases_once_, [&] {
    for (const CudaFile& file : input_.files) {
      if (file.type != EntryType::kSymlink || !StartsWith(BaseName(file.path), "lib")) continue;
      if (auto resolved = Resolve(file.path)) aliases_[*resolved].push_back(Shown(file.path));
    }
  });
  auto it = aliases_.find(path);
  return it == aliases_.end() ? std::vector<std::string>() : it->second;
}

const std::vector<const CudaFile*>& ImageFiles::Texts(const std::string& kind) const {
  auto it = texts_.find(kind);
  return it == texts_.end() ? kNoFiles : it->second;
}

facts::Provenance ImageFiles::Where(const CudaFile& file) const {
  facts::Provenance where;
  where.layer = file.layer;
  if (file.layer < input_.layer_digests.size()) where.layer_digest = input_.layer_digests[file.layer];
  return where;
}

std::string Shown(const std::string& path) { return "/" + path; }

const json& Array(const json& object, const char* key) {
  static const json kEmpty = json::array();
  if (!object.is_object()) return kEmpty;
  auto it = object.find(key);
  return it != object.end() && it->is_array() ? *it : kEmpty;
}

std::vector<std::string> Strings(const json& object, const char* key) {
  std::vector<std::string> out;
  for (const auto& item : Array(object, key))
    if (item.is_string()) out.push_back(item.get<std::string>());
  return out;
}

int Components(const std::string& version) {
  if (version.empty()) return 0;
  return static_cast<int>(std::count(version.begin(), version.end(), '.')) + 1;
}

std::string Major(const std::string& version) { return version.substr(0, version.find('.')); }

std::string NormalizeDistribution(std::string name) {
  name = ToLower(name);
  for (char& c : name)
    if (c == '_' || c == '.') c = '-';
  return name;
}

std::string SitePackages(const std::string& path) {
  for (const char* marker : {"/site-packages/", "/dist-packages/"}) {
    size_t at = path.find(marker);
    if (at != std::string::npos) return path.substr(0, at + std::strlen(marker) - 1);
  }
  return "";
}

std::string DriverKind(const std::string& path) {
  return path.find("/stubs/") != std::string::npos    ? "stub"
         : path.find("/compat/") != std::string::npos ? "compat"
                                                      : "bundled";
}

namespace {

// version.json / version.txt of the toolkit directories.
std::vector<facts::Toolkit> BuildToolkits(const ImageFiles& files) {
  std::vector<facts::Toolkit> out;
  for (const CudaFile* file : files.Texts("cuda_version_json")) {
    facts::Toolkit row;
    row.provenance.layer = file->layer;
    row.path = Shown(file->path);
    std::map<std::string, std::string> components;
    const json& versions = file->text->contains("versions") ? (*file->text)["versions"] : json::object();
    if (versions.is_object())
      for (auto it = versions.begin(); it != versions.end(); ++it)
        if (it->is_string()) components[it.key()] = it->get<std::string>();
    auto cuda = components.find("cuda");
    row.version = cuda == components.end() ? "" : cuda->second;
    row.components = std::move(components);
    out.push_back(std::move(row));
  }
  for (const CudaFile* file : files.Texts("cuda_version_txt")) {
    facts::Toolkit row;
    row.provenance.layer = file->layer;
    row.path = Shown(file->path);
    row.version = NumberAfter(StringField(*file->text, "text"), "CUDA Version ");
    out.push_back(std::move(row));
  }
  return out;
}

// The CUDA-related packages of the dpkg status files.
std::vector<facts::Package> BuildPackages(const ImageFiles& files) {
  std::vector<facts::Package> out;
  for (const CudaFile* file : files.Texts("dpkg_status"))
    for (const auto& package : Array(*file->text, "packages")) {
      facts::Package row;
      row.name = StringField(package, "name");
      row.version = StringField(package, "version");
      if (package.contains("status")) row.status = StringField(package, "status");
      if (package.contains("architecture")) row.architecture = StringField(package, "architecture");
      row.evidence = Shown(file->path);
      out.push_back(std::move(row));
    }
  return out;
}

}  // namespace
}  // namespace detail

void AddCudaFacts(const CudaFactsInput& input, const Knowledge& knowledge, facts::Facts& facts) {
  detail::ImageFiles files(input);
  facts::Cuda cuda;
  facts::Loader loader = detail::BuildLoader(files, knowledge);  // binaries' libcudart lookups use it
  detail::BinaryFacts binaries = detail::BuildBinaries(files, loader, knowledge);
  detail::DriverFacts drivers = detail::BuildDrivers(files, loader, knowledge);
  cuda.runtimes = detail::BuildRuntimes(files);
  cuda.static_runtimes = std::move(binaries.static_runtimes);
  cuda.drivers = std::move(drivers.drivers);
  cuda.driver_libraries = std::move(drivers.libraries);
  cuda.requirements = nvidia::RequirementsFromEnv(files.Env());
  cuda.loader = std::move(loader);
  cuda.toolkits = detail::BuildToolkits(files);
  cuda.packages = detail::BuildPackages(files);
  facts.cuda = std::move(cuda);
  facts.binaries = std::move(binaries.binaries);
  facts.frameworks = detail::BuildFrameworks(files);
  facts.gpu = facts::GpuFromFacts(facts, knowledge.GpuSignals());  // after image.env (BuildImageFacts) and every row above
}

}  // namespace imagelint::cuda
