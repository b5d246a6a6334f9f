// facts.gpu from the rows both producers fill: is this a GPU image at all?
//
// A plain web service (Node, FastAPI, Go) has no CUDA user space, no NVIDIA_*
// variable and no CUDA build of a GPU framework; checking it against GPU
// pools only yields "cannot tell" about facts that do not exist. The evidence
// read here is the same for a built image (src/cuda) and a Dockerfile
// (src/dockerfile adds what only its text shows: the base image family, the
// commands of RUN), so the two agree on the same image.
#include "imagelint/facts.h"

#include <algorithm>

#include "common/text.h"

namespace imagelint::facts {
namespace {

// Evidence kept per kind: enough to say why, bounded for huge images.
constexpr size_t kMaxSignalsPerKind = 3;

// NVIDIA_VISIBLE_DEVICES=void (or empty) tells the runtime to leave the
// container alone (the container toolkit's semantics, not a word list).
bool IsGpuVariable(const std::string& name, const std::string& value, const GpuSignalWords& words) {
  if (name == "NVIDIA_VISIBLE_DEVICES") return !value.empty() && value != "void";
  return StartsWithAny(name, words.variable_prefixes) ||
         std::find(words.variables.begin(), words.variables.end(), name) != words.variables.end();
}

}  // namespace

void AddGpuSignal(Gpu& gpu, GpuSignal signal) {
  size_t same = std::count_if(gpu.signals.begin(), gpu.signals.end(),
                              [&](const GpuSignal& s) { return s.signal == signal.signal; });
  if (same >= kMaxSignalsPerKind) return;
  for (const GpuSignal& existing : gpu.signals)
    if (existing == signal) return;
  gpu.signals.push_back(std::move(signal));
}

Gpu GpuFromFacts(const Facts& facts, const GpuSignalWords& words) {
  Gpu gpu;
  auto add = [&](const char* kind, std::string detail, std::optional<std::string> path,
                 std::optional<int64_t> line) { AddGpuSignal(gpu, {kind, std::move(detail), std::move(path), line}); };
  for (const auto& [name, value] : facts.image.env)
    if (IsGpuVariable(name, value, words)) {
      std::optional<int64_t> line;
      if (facts.image.env_provenance)
        if (auto it = facts.image.env_provenance->find(name); it != facts.image.env_provenance->end())
          line = it->second.dockerfile_line;
      add("env", name + "=" + value.substr(0, 200), std::nullopt, line);
    }
  for (const auto& [name, value] : facts.image.labels)
    if (StartsWithAny(name, words.label_prefixes)) add("label", name + "=" + value.substr(0, 200), std::nullopt, std::nullopt);
  if (facts.cuda) {
    const Cuda& cuda = *facts.cuda;
    for (const Runtime& row : cuda.runtimes.value_or(std::vector<Runtime>{}))
      add("cuda-runtime", "libcudart " + row.version.value_or("(version unknown)"), row.path,
          row.provenance.dockerfile_line);
    for (const Driver& row : cuda.drivers.value_or(std::vector<Driver>{}))
      add("driver", row.kind + " libcuda " + row.version.value_or("(version unknown)"), row.path,
          row.provenance.dockerfile_line);
    for (const DriverLibrary& row : cuda.driver_libraries.value_or(std::vector<DriverLibrary>{}))
      add("driver", row.kind + " " + row.name, row.path, row.provenance.dockerfile_line);
    for (const Toolkit& row : cuda.toolkits.value_or(std::vector<Toolkit>{}))
      add("cuda-runtime", "CUDA toolkit " + row.version, row.path, std::nullopt);
    for (const Package& row : cuda.packages.value_or(std::vector<Package>{}))
      if (ContainsAnyWord(row.name, words.package_words)) add("package", row.name, std::nullopt, row.provenance.dockerfile_line);
    if (cuda.loader) {
      for (const std::string& dir : cuda.loader->ld_library_path.value_or(std::vector<std::string>{}))
        if (ContainsAnyWord(dir, words.directory_words)) add("loader", "LD_LIBRARY_PATH " + dir, std::nullopt, std::nullopt);
      for (const LdSoConfEntry& entry : cuda.loader->ld_so_conf.value_or(std::vector<LdSoConfEntry>{}))
        if (ContainsAnyWord(entry.dir, words.directory_words))
          add("loader", entry.file + ": " + entry.dir, std::nullopt, entry.provenance.dockerfile_line);
    }
  }
  for (const Framework& row : facts.frameworks.value_or(std::vector<Framework>{})) {
    std::string variant = row.variant.value_or("");
    std::string described = row.name + " " + row.version.value_or("") + (variant.empty() ? "" : " (" + variant + ")");
    if (ContainsAnyWord(variant, words.rocm_words) || ContainsAnyWord(row.version.value_or(""), words.rocm_words)) {
      add("rocm", described, row.path, row.provenance.dockerfile_line);
      continue;
    }
    // A CUDA build, or a build whose variant is not known (PyPI's Linux torch is a CUDA build).
    bool cpu = variant == "cpu" || row.version.value_or("").find("+cpu") != std::string::npos;
    if (!cpu && (row.cuda || row.cuda_unknown.value_or(false)))
      add("framework", described, row.path, row.provenance.dockerfile_line);
  }
  for (const Binary& row : facts.binaries.value_or(std::vector<Binary>{})) {
    bool gpu_code = (row.sass && !row.sass->empty()) || (row.ptx && !row.ptx->empty());
    bool links_cuda = false;
    for (const std::string& needed : row.needed.value_or(std::vector<std::string>{}))
      links_cuda = links_cuda || StartsWithAny(needed, words.needed_prefixes);
    if (gpu_code || links_cuda)
      add("binary", gpu_code ? "GPU code" : "links the CUDA runtime", row.path, row.provenance.dockerfile_line);
  }
  gpu.workload = GpuWorkload(gpu);
  return gpu;
}

std::string GpuWorkload(const Gpu& gpu) {
  bool rocm = false;
  for (const GpuSignal& signal : gpu.signals) {
    if (signal.signal != "rocm") return "nvidia";
    rocm = true;
  }
  return rocm ? "rocm" : "none";
}

}  // namespace imagelint::facts
