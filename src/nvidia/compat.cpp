// Driver ↔ runtime compatibility: NVIDIA's CUDA Compatibility guide (minor
// version and forward compatibility, source S2:
// https://docs.nvidia.com/deploy/cuda-compatibility/) over the tables of
// toolkits.yaml, minor-version.yaml, driver-branches.yaml and forward-compat.yaml.
#include "imagelint/nvidia.h"

#include <algorithm>

#include "common/text.h"
#include "common/version.h"
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

// The host branches a compat library supports by its ELF note: the image's
// own note, else the note recorded for that libcuda version in
// compat-libraries.yaml (elf_note_branches). `where` says which, for messages.
std::optional<std::vector<int>> NoteBranches(const LibcudaSelection& selection, const Knowledge& knowledge,
                                             std::string& where) {
  const json& note = selection.note;
  if (note.is_object() && note.contains("Driver") && note["Driver"].is_array()) {
    std::vector<int> out;
    for (const auto& b : note["Driver"])
      if (b.is_number_integer()) out.push_back(b.get<int>());
    where = "its .note.cuda.fwd_compatibility";
    return out;
  }
  const json* row = knowledge.FindCompatLibrary(selection.version);
  if (row == nullptr || !row->contains("elf_note_branches")) return std::nullopt;
  where = "its .note.cuda.fwd_compatibility as recorded in compat-libraries.yaml (" +
          knowledge.DescribeSource(row->at("source").get<std::string>()) + ")";
  return row->at("elf_note_branches").get<std::vector<int>>();
}

// The term of an NVIDIA_REQUIRE_CUDA value that names a driver range holding
// `driver` ("brand=tesla,driver>=470,driver<471"); "" when none does. Only
// terms with both a lower and an upper driver bound count: those are the
// per-branch clauses NVIDIA writes for the branches the image supports.
std::string RequirementTermAdmitting(std::string_view requirement, const std::string& driver) {
  for (const std::string& term : SplitOn(requirement, ' ')) {
    bool lower = false, upper = false, holds = true;
    for (const std::string& condition : SplitOn(term, ',')) {
      if (StartsWith(condition, "driver>=")) {
        lower = true;
        holds = holds && CompareVersions(driver, condition.substr(8)).value_or(-1) >= 0;
      } else if (StartsWith(condition, "driver<") && !StartsWith(condition, "driver<=")) {
        upper = true;
        holds = holds && CompareVersions(driver, condition.substr(7)).value_or(1) < 0;
      }
    }
    if (lower && upper && holds) return term;
  }
  return "";
}

// cudart's own check, before cuInit: its version against the CUDA version of
// the libcuda it loaded (`loaded`: the host driver, or the image's copy),
// natively or through minor-version compatibility. Fails with 35.
DriverCompat CheckRuntimeAgainst(std::string_view runtime_version, const std::string& loaded, bool image_copy,
                                 const LibcudaSelection& selection, const Knowledge& knowledge) {
  DriverCompat out;
  out.mode = "native";
  if (runtime_version.empty()) {
    out.message = "cuInit uses " + selection.reason;
    return out;
  }
  auto runtime = MajorMinor(runtime_version);
  auto driver_cuda = internal::DriverCudaVersion(loaded, knowledge);
  if (!runtime || !driver_cuda) {
    out.certain = false;
    out.message = "driver or runtime version unknown to the knowledge files";
    return out;
  }
  std::string in_use = image_copy ? "the image's libcuda " + loaded + " (" + selection.path + ")" : "driver " + loaded;
  if (CompareVersions(*runtime, *driver_cuda).value_or(0) <= 0) {
    out.message = "CUDA " + *runtime + " runtime on " + in_use + ", which supports CUDA " + *driver_cuda;
    return out;
  }
  int major = std::stoi(runtime->substr(0, runtime->find('.')));
  const json* floor = knowledge.FindMinorFloor(major);
  if (floor != nullptr && floor->at("minor_compat").get<bool>() && floor->contains("floor_driver") &&
      CompareVersions(loaded, floor->at("floor_driver").get<std::string>()).value_or(-1) >= 0) {
    out.mode = "minor-version";
    out.message = "CUDA " + *runtime + " runtime on " + in_use + " (CUDA " + *driver_cuda +
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
  std::string floor_text;
  if (floor != nullptr && floor->contains("floor_driver")) {
    const std::string floor_driver = floor->at("floor_driver").get<std::string>();
    // CUDA X.0's own driver is usually X.x's minor-version floor too.
    floor_text = floor_driver == need ? " (also the floor of minor-version compatibility for CUDA " +
                                            std::to_string(major) + ".x)"
                                      : " or >= " + floor_driver + " for minor-version compatibility";
  }
  return Fail(35,
              "CUDA " + *runtime + " runtime needs driver" + (need.empty() ? std::string(" support for it") : " >= " + need) +
                  floor_text + "; the libcuda in use is " + in_use + " (CUDA " + *driver_cuda + ")",
              knowledge);
}

}  // namespace

nlohmann::json DriverCompat::ToJson() const {
  return {{"ok", ok},           {"mode", mode},       {"error", error},       {"error_name", error_name},
          {"certain", certain}, {"message", message}, {"disputed", disputed}, {"dispute", dispute}};
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

// Whether a forward_compat row lists `branch` among its compatible branches.
static bool ListsBranch(const json& row, int branch) {
  for (const auto& b : ArrayField(row, "compatible_branches"))
    if (b.is_number_integer() && b.get<int>() == branch) return true;
  return false;
}

std::optional<bool> CompatSupportsBranch(std::string_view cuda_major_minor, int branch, const Knowledge& knowledge) {
  const json* row = knowledge.FindCompatPackage(cuda_major_minor);
  if (row == nullptr) return std::nullopt;
  return ListsBranch(*row, branch);
}

// Whether the cuda-compat package of `row` is known not to support the host
// branch: its matrix (an edition of NVIDIA's guide, which lists only the
// branches supported at the time) leaves the branch out, and the branch had
// reached its end of life by the package's release. A branch dropped later
// (R470 is absent from today's 12.3 column, but was supported when 12.3
// shipped) is not known either way.
static bool KnownUnsupported(const json& row, int branch, const Knowledge& knowledge) {
  if (StringField(row, "matrix") != "official" || ListsBranch(row, branch)) return false;
  const json* branch_row = knowledge.FindBranch(branch);
  const std::string eol = branch_row ? StringField(*branch_row, "eol") : "";
  const json* toolkit = knowledge.FindToolkit(StringField(row, "package") + ".0");
  const std::string released = toolkit ? StringField(*toolkit, "released") : "";
  return !eol.empty() && !released.empty() && eol <= released;  // "YYYY-MM"
}

// Whether some cuda-compat package that can run `runtime_version` (one of
// its release or a later one: a compat libcuda runs every runtime up to its
// own release) may support the host's branch; false only when every such
// package is known not to, nullopt when the tables know no such package.
static std::optional<bool> SomeCompatPackageSupports(std::string_view runtime_version, int branch, const Knowledge& knowledge) {
  auto runtime = MajorMinor(runtime_version);
  if (!runtime) return std::nullopt;
  bool known = false;
  const json* newest = nullptr;  // the newest package of the official matrix
  for (const auto& row : knowledge.Table("forward_compat")) {
    const std::string package = StringField(row, "package");
    if (StringField(row, "matrix") == "official" &&
        (!newest || CompareVersions(package, StringField(*newest, "package")).value_or(0) > 0))
      newest = &row;
    auto cmp = CompareVersions(package, *runtime);
    if (!cmp || *cmp < 0) continue;
    known = true;
    if (!KnownUnsupported(row, branch, knowledge)) return true;
  }
  if (known) return false;
  // A runtime newer than every package the tables know (CUDA 13.5): its
  // packages are newer still, and a branch the newest known matrix has
  // already dropped (older than a branch it lists, and not listed) does not
  // come back in a later one (R450, R470, R550 after 13.4's column).
  if (newest == nullptr || ListsBranch(*newest, branch)) return std::nullopt;
  int highest = 0;
  for (const auto& b : ArrayField(*newest, "compatible_branches"))
    if (b.is_number_integer()) highest = std::max(highest, b.get<int>());
  if (branch < highest) return false;
  return std::nullopt;
}

DriverCompat CheckDriverCompat(std::string_view runtime_version, const LibcudaSelection& selection, const Pool& pool,
                               const Knowledge& knowledge, std::string_view image_requirement) {
  const std::string& kernel = pool.driver;
  auto kernel_branch = DriverBranch(kernel);
  if (selection.kind == "stub")
    return Fail(34,
                "the stub libcuda " + selection.path + " is loaded instead of the driver (" + selection.reason + ")",
                knowledge);
  bool image_copy =
      selection.kind != "host" && selection.kind != "unknown" && !selection.version.empty() && kernel_branch;
  // The order CUDA meets them in (cudart's first call): the loader must load
  // the libcuda it finds first; cudart then compares its own version with
  // that library's (cuDriverGetVersion, before cuInit); only then does cuInit
  // pair the library with the kernel module (803, 100) or try forward
  // compatibility (804, 803). Observed on an H100 with driver 580:
  // cudart 13.0 over an image's libcuda 550 returns 35, not 803.
  if (image_copy && !selection.missing_needed.empty())
    return Fail(35,
                "the loader finds " + selection.path + " first (" + selection.reason + "), but it cannot be loaded: it "
                    "needs " + DumpJson(selection.missing_needed) +
                    ", which is nowhere in the image; with no loadable libcuda the CUDA runtime finds no driver",
                knowledge);
  std::string loaded = image_copy ? selection.version : kernel;  // what cuDriverGetVersion reports
  DriverCompat runtime_check = CheckRuntimeAgainst(runtime_version, loaded, image_copy, selection, knowledge);
  if (!runtime_check.ok && selection.copies_unknown && ForwardCompatEligible(pool, knowledge) != false) {
    // A forward-compat libcuda in the image would lift the host's limit on
    // this GPU; whether the image has one is not known. Unless no compat
    // package able to run this runtime supports the host's branch: then a
    // copy, if any, fails too (803), and the failure stands.
    if (kernel_branch && SomeCompatPackageSupports(runtime_version, *kernel_branch, knowledge) == false) {
      runtime_check.message += " (a forward-compat libcuda, if the image had one, would not help: no cuda-compat "
                               "package of this CUDA release or later supports the R" + std::to_string(*kernel_branch) +
                               " branch, forward-compat.yaml)";
    } else {
      runtime_check.certain = false;
      runtime_check.message += " (unless the image carries a forward-compat libcuda, which this GPU could use: the "
                               "image's libcuda copies are unknown)";
    }
  }
  if (!runtime_check.ok) return runtime_check;
  DriverCompat out = runtime_check;
  bool forward = false;
  if (image_copy) {
    auto cmp = CompareVersions(selection.version, kernel);
    if (!cmp) {
      out.certain = false;
    } else if (*cmp < 0) {
      int branch = DriverBranch(selection.version).value_or(0);
      const json* row = knowledge.FindBranch(knowledge.NearestBranchAtOrBelow(branch));
      int code = row != nullptr && row->contains("stale_usermode_error") ? row->at("stale_usermode_error").get<int>()
                                                                          : 803;
      return Fail(code,
                  "the image's libcuda " + selection.version + " (" + selection.path +
                      ") is older than the kernel driver " + kernel + ": user-mode and kernel-mode driver mismatch" +
                      (code == 803 ? std::string() : ", which cuInit of an R" + std::to_string(branch) +
                                                         " library reports as " + ErrorName(code, knowledge)),
                  knowledge);
    } else if (*cmp > 0) {
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
      // Which host branches this compat library supports: its ELF note (the
      // image's, or the one recorded for its version) decides; else the matrix.
      const json& note = selection.note;
      std::string note_where;
      auto note_branches = NoteBranches(selection, knowledge, note_where);
      if (note_branches) {
        bool listed = std::find(note_branches->begin(), note_branches->end(), *kernel_branch) != note_branches->end();
        if (!listed)
          return Fail(803,
                      "the compat libcuda " + selection.version + " lists host branches " + DumpJson(*note_branches) +
                          " in " + note_where + "; R" + std::to_string(*kernel_branch) + " is not one",
                      knowledge);
      } else if (compat_branch != *kernel_branch) {
        std::string package = selection.toolkit_dir;
        if (package.empty() && note.is_object() && note.contains("CUDA Version") && note["CUDA Version"].is_string())
          package = note["CUDA Version"].get<std::string>();
        if (package.empty()) package = internal::DriverCudaVersion(selection.version, knowledge).value_or("");
        auto supported = CompatSupportsBranch(package, *kernel_branch, knowledge);
        const json* row = knowledge.FindCompatPackage(package);
        bool official = row != nullptr && row->at("matrix") == "official";
        std::string admitting = supported.has_value() && !*supported
                                    ? RequirementTermAdmitting(image_requirement, kernel)
                                    : std::string();
        if (!admitting.empty()) {
          // Two sources disagree and no ELF note settles it: a warning, not a
          // predicted failure (docs/rules/IL015.md).
          out.disputed = true;
          out.certain = false;
          out.dispute = "NVIDIA's forward-compatibility matrix (" +
                        knowledge.DescribeSource(row->at("source").get<std::string>()) +
                        ") does not list host branch R" + std::to_string(*kernel_branch) + " for cuda-compat-" +
                        package + ", but the image's NVIDIA_REQUIRE_CUDA admits it (" + admitting +
                        "); no ELF note of libcuda " + selection.version + " is known to settle it";
        } else if (supported.has_value() && !*supported) {
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
      forward = true;
      if (out.mode == "native") out.mode = "forward-compat";
    }
  }
  if (forward) out.message = runtime_version.empty() ? "forward compatibility through " + selection.path
                                                     : out.message + " (forward compatibility)";
  return out;
}

}  // namespace imagelint::nvidia
