// `kubectl get nodes -o json` with GPU Feature Discovery labels (NVIDIA
// k8s-device-plugin docs/gpu-feature-discovery/README.md and internal/lm/:
// https://github.com/NVIDIA/k8s-device-plugin).
#include <string>

#include <nlohmann/json.hpp>

#include "common/json.h"
#include "fleet_import/hosts.h"

namespace imagelint::fleet_import {
namespace {

constexpr const char* kProduct = "nvidia.com/gpu.product";
constexpr const char* kCount = "nvidia.com/gpu.count";
constexpr const char* kDriverFull = "nvidia.com/cuda.driver-version.full";
constexpr const char* kDriverMajor = "nvidia.com/cuda.driver-version.major";
constexpr const char* kDriverMinor = "nvidia.com/cuda.driver-version.minor";
constexpr const char* kDriverRevision = "nvidia.com/cuda.driver-version.revision";
constexpr const char* kRuntimeFull = "nvidia.com/cuda.runtime-version.full";
constexpr const char* kRuntimeMajorNew = "nvidia.com/cuda.runtime-version.major";
constexpr const char* kRuntimeMinorNew = "nvidia.com/cuda.runtime-version.minor";
// Deprecated names: the only ones before GFD v0.8.2 / device-plugin v0.15.0.
constexpr const char* kOldDriverMajor = "nvidia.com/cuda.driver.major";
constexpr const char* kOldDriverMinor = "nvidia.com/cuda.driver.minor";
constexpr const char* kOldDriverRev = "nvidia.com/cuda.driver.rev";
constexpr const char* kOldRuntimeMajor = "nvidia.com/cuda.runtime.major";
constexpr const char* kOldRuntimeMinor = "nvidia.com/cuda.runtime.minor";
constexpr const char* kComputeMajor = "nvidia.com/gpu.compute.major";
constexpr const char* kComputeMinor = "nvidia.com/gpu.compute.minor";
constexpr const char* kReplicas = "nvidia.com/gpu.replicas";
constexpr const char* kSharingStrategy = "nvidia.com/gpu.sharing-strategy";
constexpr const char* kMigStrategy = "nvidia.com/mig.strategy";
constexpr const char* kVgpuPresent = "nvidia.com/vgpu.present";
constexpr const char* kVgpuHostDriver = "nvidia.com/vgpu.host-driver-version";
constexpr const char* kArch = "kubernetes.io/arch";
constexpr const char* kArchBeta = "beta.kubernetes.io/arch";
constexpr const char* kOs = "kubernetes.io/os";
constexpr const char* kSharedSuffix = "-SHARED";
constexpr const char* kMigInfix = "-MIG-";

using Labels = std::map<std::string, std::string>;

std::optional<std::string> Get(const Labels& labels, const char* key) {
  auto it = labels.find(key);
  if (it == labels.end()) return std::nullopt;
  return it->second;
}

bool IsSmallNumber(const std::string& text) {
  if (text.empty() || text.size() > 6) return false;
  for (char c : text)
    if (c < '0' || c > '9') return false;
  return true;
}


class NodeReader {
 public:
  NodeReader(const std::string& source, const ImportLimits& limits) : source_(source), limits_(limits) {}

  // Fills `out` for a GPU node; returns false (no error) for a node without
  // GPU labels.
  Result<bool> Read(const nlohmann::json& node, size_t index, HostGpus* out) {
    if (!node.is_object()) return Fail("item " + std::to_string(index), "is not an object");
    std::string name = "item " + std::to_string(index);
    const nlohmann::json* metadata = Find(node, "metadata");
    if (metadata && metadata->is_object()) {
      const nlohmann::json* json_name = Find(*metadata, "name");
      if (json_name && json_name->is_string()) name = json_name->get<std::string>();
    }
    if (const nlohmann::json* kind = Find(node, "kind"); kind && kind->is_string() && *kind != "Node")
      return Fail(name, "kind is " + kind->get<std::string>() + ", expected Node");
    Labels labels;
    if (metadata && metadata->is_object()) {
      if (const nlohmann::json* json_labels = Find(*metadata, "labels")) {
        if (!json_labels->is_object() && !json_labels->is_null())
          return Fail(name, "metadata.labels is not an object");
        if (json_labels->is_object()) {
          if (json_labels->size() > static_cast<size_t>(limits_.max_labels_per_node))
            return Fail(name, "more than " + std::to_string(limits_.max_labels_per_node) + " labels");
          for (const auto& [key, value] : json_labels->items()) {
            if (!value.is_string()) return Fail(name, "label " + key + " is not a string");
            labels[key] = value.get<std::string>();
          }
        }
      }
    }
    out->host = name;

    auto product = Get(labels, kProduct);
    bool new_generation = labels.count(kDriverFull) || labels.count(kDriverMajor);
    bool old_generation = labels.count(kOldDriverMajor) > 0;
    if (!product && !new_generation && !old_generation) return false;  // not a GPU node (for GFD)
    if (!product || product->empty())
      return Fail(name, "has GPU Feature Discovery driver labels but no " + std::string(kProduct) + " label");
    if (!new_generation && !old_generation)
      return Fail(name, "has " + std::string(kProduct) + " but no driver version label (" + kDriverFull + " or " +
                            kOldDriverMajor + ")");

    // Driver: the current names win; the deprecated ones are duplicates on
    // newer nodes and the only ones on nodes labelled before v0.15.0.
    if (new_generation) {
      if (auto full = Get(labels, kDriverFull)) {
        out->driver = *full;
        out->selector_labels[kDriverFull] = *full;
      } else {
        auto driver = DriverFromParts(name, labels, kDriverMajor, kDriverMinor, kDriverRevision, out);
        if (!driver.ok()) return driver.error();
      }
      if (auto runtime = Get(labels, kRuntimeFull)) {
        out->cuda_version = *runtime;
      } else if (auto major = Get(labels, kRuntimeMajorNew), minor = Get(labels, kRuntimeMinorNew); major && minor) {
        out->cuda_version = *major + "." + *minor;
      }
    } else {
      auto driver = DriverFromParts(name, labels, kOldDriverMajor, kOldDriverMinor, kOldDriverRev, out);
      if (!driver.ok()) return driver.error();
      if (auto rmajor = Get(labels, kOldRuntimeMajor), rminor = Get(labels, kOldRuntimeMinor); rmajor && rminor)
        out->cuda_version = *rmajor + "." + *rminor;
      out->notes.push_back("labelled by an older GPU Feature Discovery (only the deprecated "
                           "nvidia.com/cuda.driver.* labels)");
    }
    if (!IsDriverVersion(out->driver))
      return Fail(name, "driver version \"" + out->driver + "\" from its labels is not a driver version");
    if (out->cuda_version && !IsComputeCapability(*out->cuda_version))  // same "M.m" shape
      return Fail(name, "CUDA version \"" + *out->cuda_version + "\" from its labels is not a version");

    // Product: "<model>[-MIG-<profile>][-SHARED]".
    out->product = *product;
    out->product_sanitised = true;
    out->selector_labels[kProduct] = *product;
    std::string model = *product;
    if (model.size() > 7 && model.ends_with(kSharedSuffix)) {
      model.resize(model.size() - 7);
      std::string strategy = Get(labels, kSharingStrategy).value_or("shared");
      std::string replicas = Get(labels, kReplicas).value_or("?");
      out->sharing = strategy;
      out->notes.push_back("GPUs shared (" + strategy + ", " + replicas + " replicas per GPU)");
    } else if (auto strategy = Get(labels, kSharingStrategy); strategy && *strategy != "none") {
      out->sharing = *strategy;
      out->notes.push_back("GPUs shared (" + *strategy + ", renamed resource)");
    }
    if (size_t mig = model.find(kMigInfix); mig != std::string::npos) {
      out->mig_profile = model.substr(mig + 5);
      model.resize(mig);
      out->notes.push_back("MIG devices of profile " + *out->mig_profile + " (mig.strategy " +
                           Get(labels, kMigStrategy).value_or("single") + "); compute capability is the parent GPU's");
    } else if (auto strategy = Get(labels, kMigStrategy); strategy && *strategy == "mixed") {
      std::string profiles;
      for (const auto& [key, value] : labels) {
        // nvidia.com/mig-<profile>.count
        if (StartsWith(key, "nvidia.com/mig-") && key.ends_with(".count")) {
          if (!profiles.empty()) profiles += ", ";
          profiles += key.substr(15, key.size() - 15 - 6) + " x" + value;
        }
      }
      out->notes.push_back("MIG mixed strategy" + (profiles.empty() ? std::string() : ": " + profiles));
    }
    out->lookup_name = model;

    // GPUs per node: the label, else the allocatable resource.
    if (auto count = Get(labels, kCount)) {
      if (!IsSmallNumber(*count)) return Fail(name, "label " + std::string(kCount) + "=\"" + *count + "\" is not a count");
      out->gpu_count = std::stoi(*count);
      out->selector_labels[kCount] = *count;
    } else if (const nlohmann::json* status = Find(node, "status"); status && status->is_object()) {
      const nlohmann::json* capacity = Find(*status, "capacity");
      const nlohmann::json* gpus = capacity && capacity->is_object() ? Find(*capacity, "nvidia.com/gpu") : nullptr;
      if (gpus && gpus->is_string() && IsSmallNumber(gpus->get<std::string>()))
        out->gpu_count = std::stoi(gpus->get<std::string>());
    }
    if (out->gpu_count > limits_.max_gpus_per_host)
      return Fail(name, "more than " + std::to_string(limits_.max_gpus_per_host) + " GPUs");

    auto cc_major = Get(labels, kComputeMajor), cc_minor = Get(labels, kComputeMinor);
    if (cc_major || cc_minor) {
      std::string cc = cc_major.value_or("") + "." + cc_minor.value_or("");
      if (!IsComputeCapability(cc))
        return Fail(name, "compute capability \"" + cc + "\" from its labels is not major.minor");
      out->compute_capability = cc;
    }

    if (Get(labels, kVgpuPresent).value_or("") == "true")
      out->notes.push_back("vGPU guest (host driver " + Get(labels, kVgpuHostDriver).value_or("unknown") + ")");

    // Platform: node labels, else status.nodeInfo.
    std::string os = Get(labels, kOs).value_or("");
    std::string arch = Get(labels, kArch).value_or(Get(labels, kArchBeta).value_or(""));
    if (const nlohmann::json* status = Find(node, "status"); status && status->is_object()) {
      if (const nlohmann::json* info = Find(*status, "nodeInfo"); info && info->is_object()) {
        const nlohmann::json* json_os = Find(*info, "operatingSystem");
        const nlohmann::json* json_arch = Find(*info, "architecture");
        if (os.empty() && json_os && json_os->is_string()) os = json_os->get<std::string>();
        if (arch.empty() && json_arch && json_arch->is_string()) arch = json_arch->get<std::string>();
      }
    }
    if (!arch.empty()) out->platform = Platform{os.empty() ? std::string("linux") : os, arch, ""}.Normalized();
    if (auto label_arch = Get(labels, kArch)) out->selector_labels[kArch] = *label_arch;
    out->runtime = "k8s-device-plugin";
    return true;
  }

 private:
  // The driver version from one label generation's major/minor/revision
  // labels (the major is present: it chose the generation); the labels found
  // become selector labels.
  Status DriverFromParts(const std::string& name, const Labels& labels, const char* major_key,
                         const char* minor_key, const char* revision_key, HostGpus* out) {
    auto major = Get(labels, major_key), minor = Get(labels, minor_key), revision = Get(labels, revision_key);
    if (!minor) return Fail(name, "has " + std::string(major_key) + " but no " + minor_key);
    out->driver = *major + "." + *minor + (revision && !revision->empty() ? "." + *revision : "");
    out->selector_labels[major_key] = *major;
    out->selector_labels[minor_key] = *minor;
    if (revision) out->selector_labels[revision_key] = *revision;
    return OkStatus();
  }

  static const nlohmann::json* Find(const nlohmann::json& object, const char* key) {
    auto it = object.find(key);
    return it == object.end() ? nullptr : &*it;
  }
  Error Fail(const std::string& node, const std::string& message) const {
    return MakeError(source_, "node \"" + node + "\": " + message);
  }

  const std::string& source_;
  const ImportLimits& limits_;
};

}  // namespace

Result<ImportResult> ImportKubernetesNodes(std::string_view json_text, const std::string& source,
                                           const GpuResolver& gpus, const ImportLimits& limits) {
  if (json_text.size() > limits.max_input_bytes)
    return MakeError(source, "larger than " + std::to_string(limits.max_input_bytes) + " bytes");
  // A node list is a few levels deep; numbers like 1E400 and bad UTF-8 are
  // errors at line:column, as syntax errors are.
  auto parsed = ParseJson(json_text, source, 64);
  if (!parsed.ok()) {
    Error error = parsed.error();
    error.message = "(kubectl get nodes -o json) " + error.message;
    return error;
  }
  nlohmann::json doc = std::move(*parsed);
  std::vector<const nlohmann::json*> items;
  if (doc.is_object() && doc.contains("items")) {
    const auto& list = doc["items"];
    if (!list.is_array()) return MakeError(source, "\"items\" is not an array");
    for (const auto& item : list) items.push_back(&item);
  } else if (doc.is_object() && doc.contains("metadata")) {
    items.push_back(&doc);  // `kubectl get node NAME -o json`
  } else if (doc.is_array()) {
    for (const auto& item : doc) items.push_back(&item);
  } else {
    return MakeError(source, "not a Kubernetes node list (no \"items\" array)");
  }
  if (items.size() > static_cast<size_t>(limits.max_hosts))
    return MakeError(source, "more than " + std::to_string(limits.max_hosts) + " nodes");

  ImportResult result;
  result.source = source;
  result.kind = InputKind::kKubernetesNodes;
  NodeReader reader(source, limits);
  std::vector<HostGpus> hosts;
  for (size_t i = 0; i < items.size(); ++i) {
    HostGpus host;
    auto gpu_node = reader.Read(*items[i], i, &host);
    if (!gpu_node.ok()) return gpu_node.error();
    ++result.hosts_seen;
    if (*gpu_node) {
      hosts.push_back(std::move(host));
    } else {
      result.skipped.push_back(host.host);
    }
  }
  result.pools = GroupHosts(hosts, source, gpus, &result.warnings);
  return result;
}

}  // namespace imagelint::fleet_import
