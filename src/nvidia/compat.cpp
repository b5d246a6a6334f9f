// Driver ↔ runtime compatibility: NVIDIA's CUDA Compatibility guide (minor
// version and forward compatibility, source S2:
// https://docs.nvidia.com/deploy/cuda-compatibility/) over the tables of
// toolkits.yaml, minor-version.yaml, driver-branches.yaml and forward-compat.yaml.
#include "imagelint/nvidia.h"
#include "common/json.h"
#include "internal.h"

namespace imagelint::nvidia {
namespace {

using nlohmann::json;

DriverCompat Fail(int code, const std::string& message, const Knowledge& knowledge, bool certain = true) {
  DriverCompat out;
  out.ok = false;
  out.mode = "none";
  out.error = code;
  out.error_name = ErrorName(code, knowledge);
  out.message = message;
  out.certain = certain;
  return out;
}

}  // namespace

nlohmann::json DriverCompat::ToJson() const {
  return {{"ok", ok},       {"mode", mode},       {"error", error}, {"error_name", error_name},
          {"certain", certain}, {"message", message}};
}

std::optional<bool> ForwardCompatEligible(const Pool& pool, const Knowledge& knowledge) {
  if (pool.datacenter) return *pool.datacenter;
  if (!pool.gpu.empty())
    if (const json* gpu = knowledge.FindGpu(pool.gpu)) {
      if (gpu->at("forward_compat").is_boolean()) return gpu->at("forward_compat").get<bool>();
      return std::nullopt;
    }
  if (pool.brand)
    if (const json* brand = knowledge.FindBrand(*pool.brand))
      if (brand->at("forward_compat").is_boolean() && !brand->at("forward_compat").get<bool>()) return false;
  return std::nullopt;
}

std::optional<bool> CompatSupportsBranch(std::string_view cuda_major_minor, int branch, const Knowledge& knowledge) {
  const json* row = knowledge.FindCompatPackage(cuda_major_minor);
  if (row == nullptr) return std::nullopt;
  for (const auto& b : row->at("compatible_branches"))
    if (b.get<int>() == branch) return true;
  return false;
}

DriverCompat CheckDriverCompat(std::string_view runtime_version, const LibcudaSelection& selection, const Pool& pool,
                               const Knowledge& knowledge) {
  const std::string& kernel = pool.driver;
  auto kernel_branch = DriverBranch(kernel);
  if (selection.kind == "stub")
    return Fail(34,
                "the stub libcuda " + selection.path + " is loaded instead of the driver (" + selection.reason + ")",
                knowledge);
  DriverCompat out;
  out.mode = "native";
  std::string effective = kernel;  // the libcuda version that talks to the kernel driver
  bool forward = false;
  if (selection.kind != "host" && selection.kind != "unknown" && !selection.version.empty() && kernel_branch) {
    auto cmp = CompareVersions(selection.version, kernel);
    if (!cmp) {
      out.certain = false;
    } else if (*cmp < 0) {
      return Fail(803,
                  "the image's libcuda " + selection.version + " (" + selection.path +
                      ") is older than the kernel driver " + kernel + ": user-mode and kernel-mode driver mismatch",
                  knowledge);
    } else if (*cmp > 0) {
      forward = true;
      auto eligible = ForwardCompatEligible(pool, knowledge);
      std::string gpu = pool.gpu.empty() ? "this GPU" : pool.gpu;
      if (eligible.has_value() && !*eligible)
        return Fail(804,
                    "the image's libcuda " + selection.version + " is newer than the kernel driver " + kernel +
                        " (forward compatibility), which " + gpu + " does not support",
                    knowledge);
      if (!eligible.has_value())
        return Fail(804,
                    "the image's libcuda " + selection.version + " is newer than the kernel driver " + kernel +
                        " (forward compatibility); whether " + gpu +
                        " supports forward compatibility is unknown (UNCONFIRMED: only data-center, Jetson and "
                        "select NGC-Server-Ready RTX parts do)",
                    knowledge, false);
      int compat_branch = DriverBranch(selection.version).value_or(0);
      // Which host branches this compat library supports: its ELF note, else the matrix.
      const json& note = selection.note;
      if (note.is_object() && note.contains("Driver") && note["Driver"].is_array()) {
        bool listed = false;
        for (const auto& b : note["Driver"])
          if (b.is_number_integer() && b.get<int>() == *kernel_branch) listed = true;
        if (!listed)
          return Fail(803,
                      "the compat libcuda " + selection.version + " lists host branches " + DumpJson(note["Driver"]) +
                          " in its .note.cuda.fwd_compatibility; R" + std::to_string(*kernel_branch) + " is not one",
                      knowledge);
      } else if (compat_branch != *kernel_branch) {
        std::string package = selection.toolkit_dir;
        if (package.empty() && note.is_object() && note.contains("CUDA Version") && note["CUDA Version"].is_string())
          package = note["CUDA Version"].get<std::string>();
        if (package.empty()) package = internal::DriverCudaVersion(selection.version, knowledge).value_or("");
        auto supported = CompatSupportsBranch(package, *kernel_branch, knowledge);
        const json* row = knowledge.FindCompatPackage(package);
        bool official = row != nullptr && row->at("matrix") == "official";
        if (supported.has_value() && !*supported) {
          const json* branch_row = knowledge.FindBranch(*kernel_branch);
          bool end_of_life = branch_row && branch_row->at("end_of_life").is_boolean() &&
                             branch_row->at("end_of_life").get<bool>();
          // The current matrix drops end-of-life branches that older editions (and the
          // images' requirement clauses) listed: "not a supported target" is certain,
          // that it fails is not.
          if (end_of_life) official = false;
          std::string why = end_of_life
                                ? " (R" + std::to_string(*kernel_branch) + " is end of life)"
                            : branch_row && branch_row->at("designation") == "NFB"
                                ? " (R" + std::to_string(*kernel_branch) + " is a new feature branch)"
                                : "";
          return Fail(803,
                      "cuda-compat-" + package + " (libcuda " + selection.version + ") does not support host branch R" +
                          std::to_string(*kernel_branch) + why + " per the forward-compatibility matrix" +
                          (official ? "" : " (UNCONFIRMED proxy from image requirements)"),
                      knowledge, official);
        }
        if (!supported.has_value()) out.certain = false;
        if (row != nullptr && row->contains("unconfirmed")) out.certain = false;
      } else {
        // Same branch, newer point release: supported only on LTS branches for select GPUs (S2 FAQ).
        out.certain = false;
      }
      effective = selection.version;
      out.mode = "forward-compat";
    }
  }
  if (runtime_version.empty()) {
    out.message = forward ? "forward compatibility through " + selection.path : "cuInit uses " + selection.reason;
    return out;
  }
  auto runtime = MajorMinor(runtime_version);
  auto driver_cuda = internal::DriverCudaVersion(effective, knowledge);
  if (!runtime || !driver_cuda) {
    out.certain = false;
    out.message = "driver or runtime version unknown to the knowledge files";
    return out;
  }
  if (CompareVersions(*runtime, *driver_cuda).value_or(0) <= 0) {
    out.message = "CUDA " + *runtime + " runtime on a driver supporting CUDA " + *driver_cuda +
                  (forward ? " (forward compatibility)" : " (backward compatibility)");
    return out;
  }
  int major = std::stoi(runtime->substr(0, runtime->find('.')));
  const json* floor = knowledge.FindMinorFloor(major);
  if (floor != nullptr && floor->at("minor_compat").get<bool>() && floor->contains("floor_driver") &&
      CompareVersions(effective, floor->at("floor_driver").get<std::string>()).value_or(-1) >= 0) {
    out.mode = "minor-version";
    out.message = "CUDA " + *runtime + " runtime on driver " + effective + " (CUDA " + *driver_cuda +
                  ") runs through minor-version compatibility (CUDA " + std::to_string(major) + ".x needs >= " +
                  floor->at("floor_driver").get<std::string>() +
                  "): PTX newer than the driver fails with 222 and newer-driver APIs return 36";
    return out;
  }
  std::string need;
  if (const json* toolkit = knowledge.FindToolkit(runtime_version); toolkit && toolkit->contains("toolkit_driver"))
    need = toolkit->at("toolkit_driver").get<std::string>();
  else if (const json* toolkit2 = knowledge.FindToolkit(*runtime); toolkit2 && toolkit2->contains("toolkit_driver"))
    need = toolkit2->at("toolkit_driver").get<std::string>();
  std::string floor_text = floor != nullptr && floor->contains("floor_driver")
                               ? " or >= " + floor->at("floor_driver").get<std::string>() + " for minor-version compatibility"
                               : "";
  return Fail(35,
              "CUDA " + *runtime + " runtime needs driver" + (need.empty() ? std::string(" support for it") : " >= " + need) +
                  floor_text + "; the libcuda in use is " + effective + " (CUDA " + *driver_cuda + ")",
              knowledge, out.certain);
}

}  // namespace imagelint::nvidia
