// rules/knowledge/base-images.yaml and packages.yaml, as the Dockerfile facts
// builder needs them. Loaded once per directory and cached (many Dockerfiles in
// one run share it).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "imagelint/result.h"

namespace imagelint::dockerfile {

struct CudaRelease {
  std::string cuda;     // "11.3.0"
  std::string cudart;   // "11.3.58"
  std::string require;  // the NVIDIA_REQUIRE_CUDA value, expanded
  bool require_unconfirmed = false;
  std::string require_source;
  std::string compat_libcuda;  // "" = no compat package
  bool compat_unconfirmed = false;
  std::string compat_source;
  std::string source;
};

struct LdPathRow {
  std::string from, to, value, source, note;
};

struct PytorchTag {
  std::string tag;
  std::string cuda_version;
  std::string torch;
  std::optional<bool> compat;
  std::string source;
};

struct DefaultRow {
  std::string key;    // torch "1.12", tensorflow "2.15"...
  std::string value;  // CUDA "10.2"
  bool unconfirmed = false;
  std::string source;
};

struct AptPattern {
  std::string pattern;  // "cuda-compat-{M}-{m}"
  std::string kind;     // compat | cudart | bundled
  std::string path;     // template
  std::string source;
};

struct NvidiaWheel {
  std::string name;  // "nvidia-cuda-runtime-cu{cu}"
  std::string component;
  std::string library;
  bool unconfirmed = false;
  std::string source;
};

struct DockerfileKnowledge {
  // base-images.yaml
  std::vector<std::string> cuda_repositories;
  std::vector<std::string> cuda_flavors;
  std::vector<std::pair<std::string, std::string>> cuda_env;        // in file order
  std::vector<std::pair<std::string, std::string>> cuda_devel_env;
  std::string cuda_env_source;
  std::vector<LdPathRow> ld_library_path;
  std::string compat_ubuntu_amd64_only_through;
  std::string compat_arch_source;
  std::string arm64_from;
  std::string arm64_source;
  std::string compat_from;
  std::vector<CudaRelease> releases;  // in file order (ascending)
  std::vector<std::string> pytorch_repositories;
  std::string pytorch_source;
  std::vector<PytorchTag> pytorch_tags;
  std::string ngc_prefix;
  std::string ngc_source;
  std::string base_images_file;
  // packages.yaml
  std::vector<DefaultRow> torch_pypi_default;
  std::map<std::string, std::map<std::string, std::string>> torch_companions;  // torchvision -> {0.13 -> 1.12}
  bool companions_unconfirmed = false;
  std::string companions_source;
  std::map<std::string, std::string> tensorflow_cuda;
  bool tensorflow_unconfirmed = false;
  std::string tensorflow_source;
  std::vector<std::string> torch_index_hosts;
  std::vector<NvidiaWheel> nvidia_wheels;
  std::vector<std::string> conda_cuda_selectors;
  std::map<std::string, std::string> conda_frameworks;
  std::vector<AptPattern> apt;
  std::string packages_file;
  std::map<std::string, std::string> sources;  // S7 -> text (both files)

  // Lookups.
  const CudaRelease* FindRelease(const std::string& version) const;  // exact, or newest X.Y.* for "X.Y"
  std::string SourceText(const std::string& key) const;  // "S7" -> "S7: <text>", other text as is
};

std::string DefaultKnowledgeDir();
// Cached per directory; thread-safe.
Result<std::shared_ptr<const DockerfileKnowledge>> LoadKnowledge(const std::string& dir);

}  // namespace imagelint::dockerfile
