// frameworks[]: torch, tensorflow, jax, cupy, onnxruntime, tensorrt from their
// own version files and package metadata (docs/cuda-facts.md, "Frameworks").
#include <map>
#include <set>

#include "common/text.h"
#include "cuda/facts_builder.h"
#include "cuda/scan_text.h"
#include "imagelint/image_env.h"

namespace imagelint::cuda::detail {
namespace {

using nlohmann::json;

facts::Framework Row(const ImageFiles& files, const std::string& name, const std::string& version,
                     const std::string& cuda, const CudaFile& evidence) {
  facts::Framework row;
  row.provenance = files.Where(evidence);
  row.name = name;
  row.version = version;
  if (!cuda.empty()) row.cuda = cuda;
  row.path = Shown(evidence.path);
  return row;
}

// PyTorch from torch/version.py, with the architectures of its CUDA libraries.
void Torch(const ImageFiles& files, std::vector<facts::Framework>& out) {
  for (const CudaFile* file : files.Texts("torch_version")) {
    std::string text = StringField(*file->text, "text");
    std::string torch_lib = DirName(file->path) + "/lib/";
    std::set<std::string> sass;
    std::map<std::string, facts::Ptx> ptx;  // by "arch isa", sorted
    std::vector<std::string> libraries;
    for (const CudaFile& lib : files.All()) {
      if (!lib.elf || !StartsWith(lib.path, torch_lib) || !lib.elf->contains("fatbin")) continue;
      libraries.push_back(Shown(lib.path));
      for (const std::string& arch : Strings(*lib.elf, "sass")) sass.insert(arch);
      for (const auto& entry : Array(*lib.elf, "ptx")) {
        facts::Ptx row{StringField(entry, "arch"), StringField(entry, "isa")};
        if (!entry.contains("isa")) row.isa.reset();
        ptx[entry.dump()] = row;
      }
    }
    facts::Framework row =
        Row(files, "torch", PythonAssignment(text, "__version__"), PythonAssignment(text, "cuda"), *file);
    row.sass = std::vector<std::string>(sass.begin(), sass.end());
    row.ptx.emplace();
    for (auto& [key, entry] : ptx) row.ptx->push_back(entry);
    row.cuda_libraries = std::move(libraries);
    row.git_version = PythonAssignment(text, "git_version");
    out.push_back(std::move(row));
  }
}

void Tensorflow(const ImageFiles& files, std::vector<facts::Framework>& out) {
  for (const CudaFile* file : files.Texts("tensorflow_build_info")) {
    std::string text = StringField(*file->text, "text");
    std::string cuda = PythonDictValue(text, "cuda_version");
    if (cuda.empty()) cuda = PythonAssignment(text, "cuda_version_number");
    std::string version;
    std::string site = SitePackages(file->path);
    for (const CudaFile* meta : files.Texts("pip_metadata")) {
      std::string name = NormalizeDistribution(StringField(*meta->text, "name"));
      if (SitePackages(meta->path) == site &&
          (name == "tensorflow" || name == "tensorflow-gpu" || name == "tf-nightly" || name == "tensorflow-cpu"))
        version = StringField(*meta->text, "version");
    }
    facts::Framework row = Row(files, "tensorflow", version, cuda, *file);
    row.cudnn = PythonDictValue(text, "cudnn_version");
    out.push_back(std::move(row));
  }
}

// "2.3.0+cu121" -> "12.1", "0.4.20+cuda11.cudnn86" -> "11": the CUDA of a
// PEP 440 local version.
std::string CudaFromLocalVersion(const std::string& version) {
  size_t plus = version.find("+cu");
  if (plus == std::string::npos) return "";
  std::string local = version.substr(plus + 3);
  if (StartsWith(local, "da")) local = local.substr(2);
  std::string digits;
  for (char c : local) {
    if (c < '0' || c > '9' || digits.size() >= 8) break;
    digits += c;
  }
  if (digits.size() >= 3) return digits.substr(0, digits.size() - 1) + "." + digits.substr(digits.size() - 1);
  return digits;
}

// Wheels: cupy-cudaXXX, jax-cudaNN-*/jaxlib, onnxruntime(-gpu), tensorrt-cuNN.
void Wheels(const ImageFiles& files, std::vector<facts::Framework>& out) {
  std::map<std::string, std::string> onnx_cuda;  // site-packages -> cuda_version
  for (const CudaFile* file : files.Texts("onnxruntime_version_info"))
    onnx_cuda[SitePackages(file->path)] = PythonAssignment(StringField(*file->text, "text"), "cuda_version");
  for (const CudaFile* meta : files.Texts("pip_metadata")) {
    std::string name = NormalizeDistribution(StringField(*meta->text, "name"));
    std::string version = StringField(*meta->text, "version");
    std::string cuda = CudaFromDistributionName(name).value_or("");
    if (cuda.empty()) cuda = CudaFromLocalVersion(version);
    std::string framework;
    if (StartsWith(name, "cupy")) framework = "cupy";
    else if (StartsWith(name, "jax-cuda") || name == "jaxlib" || StartsWith(name, "jax-plugins")) framework = "jax";
    else if (StartsWith(name, "onnxruntime-gpu") || name == "onnxruntime") framework = "onnxruntime";
    else if (StartsWith(name, "tensorrt")) framework = "tensorrt";
    else continue;  // torch: torch/version.py is the better witness
    if (framework == "onnxruntime") {
      auto it = onnx_cuda.find(SitePackages(meta->path));
      if (it != onnx_cuda.end() && !it->second.empty()) cuda = it->second;
      if (name == "onnxruntime" && cuda.empty()) continue;  // CPU build
    }
    facts::Framework row = Row(files, framework, version, cuda, *meta);
    row.package = StringField(*meta->text, "name");
    out.push_back(std::move(row));
  }
}

void Conda(const ImageFiles& files, std::vector<facts::Framework>& out) {
  static const std::map<std::string, std::string> kFrameworks = {
      {"pytorch", "torch"}, {"tensorflow", "tensorflow"}, {"tensorflow-base", "tensorflow"},
      {"jaxlib", "jax"},    {"cupy", "cupy"},             {"cupy-core", "cupy"},
      {"onnxruntime", "onnxruntime"}, {"tensorrt", "tensorrt"}, {"libnvinfer", "tensorrt"}};
  for (const CudaFile* meta : files.Texts("conda_meta")) {
    std::string name = StringField(*meta->text, "name");
    std::string build = StringField(*meta->text, "build");
    auto it = kFrameworks.find(name);
    if (it == kFrameworks.end()) continue;
    const std::string& framework = it->second;
    std::string cuda = CudaFromCondaBuild(build).value_or("");
    if (framework != "torch" && framework != "tensorflow" && cuda.empty() && build.find("cuda") == std::string::npos)
      continue;
    facts::Framework row = Row(files, framework, StringField(*meta->text, "version"), cuda, *meta);
    row.package = name;
    row.build = build;
    out.push_back(std::move(row));
  }
}

// TensorRT from dpkg: libnvinfer* (not -dev, plugins, lean, dispatch, headers, bin)
// with the CUDA in its version ("10.3.0.26-1+cuda12.5").
void TensorrtPackages(const ImageFiles& files, std::vector<facts::Framework>& out) {
  for (const CudaFile* status : files.Texts("dpkg_status")) {
    for (const auto& package : Array(*status->text, "packages")) {
      std::string name = StringField(package, "name");
      std::string version = StringField(package, "version");
      if (!(name == "tensorrt" || StartsWith(name, "libnvinfer"))) continue;
      if (EndsWith(name, "-dev") || name.find("plugin") != std::string::npos ||
          name.find("lean") != std::string::npos || name.find("dispatch") != std::string::npos ||
          name.find("headers") != std::string::npos || name.find("bin") != std::string::npos)
        continue;
      size_t at = version.find("+cuda");
      facts::Framework row = Row(files, "tensorrt", nvidia::PackageUpstreamVersion(version),
                                 at == std::string::npos ? "" : version.substr(at + 5), *status);
      row.package = name;
      out.push_back(std::move(row));
    }
  }
}

}  // namespace

std::vector<facts::Framework> BuildFrameworks(const ImageFiles& files) {
  std::vector<facts::Framework> out;
  Torch(files, out);
  Tensorflow(files, out);
  Wheels(files, out);
  Conda(files, out);
  TensorrtPackages(files, out);
  return out;
}

}  // namespace imagelint::cuda::detail
