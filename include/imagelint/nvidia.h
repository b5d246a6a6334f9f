// NVIDIA semantics as plain functions: requirement strings, which libcuda a
// process loads, driver/runtime compatibility, SASS/PTX vs GPU, versions.
//
// Everything here is deterministic and GPU-free; facts come from the image
// (the `imagelint.facts/v1` JSON), the pool (fleet.h) and the knowledge
// files (knowledge.h). The rule engine exposes these as functions of the
// rule language; each struct has ToJson() for that purpose.
//
// Sources: the NVIDIA code whose behaviour this predicts -
// libnvidia-container (https://github.com/NVIDIA/libnvidia-container, src/cli)
// and nvidia-container-toolkit (https://github.com/NVIDIA/nvidia-container-toolkit)
// - and NVIDIA's CUDA Compatibility guide
// (https://docs.nvidia.com/deploy/cuda-compatibility/); the tables they need
// are rules/knowledge/*.yaml, each row citing rules/knowledge/sources.yaml.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "imagelint/fleet.h"
#include "imagelint/knowledge.h"

namespace imagelint::nvidia {

// ------------------------------------------------------------- versions (e)

// Numeric dotted-version comparison: "470.57.02" vs "470", "11.8.89" vs
// "11.8". Components are decimal numbers; missing trailing components count
// as 0; leading zeros do not matter ("535.104.05" == "535.104.5").
// Returns -1/0/1, or nullopt if either side is not digits-and-dots.
std::optional<int> CompareVersions(std::string_view a, std::string_view b);
// (Both are the comparators of common/version.h: CompareVersions itself, and
// CompareNaturalVersions for versions whose core is dotted.)
// Container-toolkit versions ("1.17.4", "v1.18.0-rc.1"): a leading "v" is
// ignored; a pre-release sorts before its release (1.18.0-rc.1 < 1.18.0);
// nullopt when the part before "-" is not a dotted version.
std::optional<int> CompareToolkitVersions(std::string_view a, std::string_view b);
// The branch (first component) of a driver version: 460 for "460.67".
std::optional<int> DriverBranch(std::string_view driver);
// "11.8.89" → "11.8", "12" → "12.0"; nullopt when not a version.
std::optional<std::string> MajorMinor(std::string_view version);

// ------------------------------------------------------- requirements (a)

// A GPU as the requirement check sees it: compute capability ("8.6") and the
// brand string LNC renders ("GeForce", "Tesla", "Unknown"... any case).
struct RequirementDevice {
  std::string arch;
  std::string brand;
};

// Host facts for the C evaluator (LNC src/driver.c). Empty cuda/driver = fact missing
// (the factor then passes, as in LNC). No devices = `NVIDIA_VISIBLE_DEVICES=none`.
struct RequirementHost {
  std::string cuda;    // "11.2": the driver's own CUDA version
  std::string driver;  // "460.67"
  std::vector<RequirementDevice> devices;
};

struct RequirementResult {
  bool satisfied = true;
  bool invalid = false;        // syntax error / unknown key → container fails too
  std::string message;         // the runtime's own text when !satisfied, e.g.
                               // "nvidia-container-cli: requirement error: unsatisfied condition: cuda>=11.3, please update ..."
  std::string requirement;     // the failing requirement string (one NVIDIA_REQUIRE_* value)
  nlohmann::json ToJson() const;
};

// Evaluates one requirement value exactly as LNC's dsl_evaluate (src/cli/dsl.c):
// space-separated OR terms of comma-separated AND factors, short-circuit,
// dsl_compare_version, case-insensitive keys, brand only = / !=, checked once
// per device (or once with no device). `message_style` is the runtime's
// error text: "factor" (the failing factor, spaced), "token" (the first
// token), "token-suffix" (first token, plus the driver hint after cuda>=);
// empty = "token-suffix", the current one.
RequirementResult EvaluateRequirement(std::string_view requirement, const RequirementHost& host,
                                      std::string_view message_style = "");
// The message style of a libnvidia-container version: container-toolkit.yaml's
// lnc_message_style of the row that applies (the oldest row's for older
// versions); empty version = the newest.
std::string RequirementMessageStyle(std::string_view lnc_version, const Knowledge& knowledge);

// NVIDIA_DISABLE_REQUIRE and the legacy CUDA_VERSION rule are read by the
// functions of imagelint/image_env.h (DisableRequireIsTrue, IsLegacyCudaImage,
// LegacyCudaRequirementVersion), the ones both facts producers use.

// Requirement strings the runtime passes to nvidia-container-cli for an image
// env (JSON object of strings): every NVIDIA_REQUIRE_* except
// NVIDIA_REQUIRE_JETPACK*, plus the legacy "cuda>=M.m"; none when
// NVIDIA_DISABLE_REQUIRE is true. Sorted by variable name (the runtime's
// order is random). Error when CUDA_VERSION is invalid for a legacy image.
Result<std::vector<std::string>> CollectRequirements(const nlohmann::json& env);

// The host facts of a pool for the C evaluator: cuda = the driver branch's
// native CUDA (knowledge), driver, and one device (arch = pool compute
// capability, brand = LNC's rendering of pool.brand for the pool's toolkit:
// brands beyond GeForce/TITAN read "Unknown" before LNC 1.9.0).
RequirementHost HostFactsForPool(const Pool& pool, const Knowledge& knowledge);

// The Go evaluator of nvidia-container-toolkit (internal/requirements), used only in CSV/Tegra
// mode: same split, but properties are case-sensitive and unknown ones are
// skipped, the operator is the first of != <= >= = < > found, versions are
// semver, and `driver`/`brand` facts are never set (driver factors are false,
// brand compares ""). ParseRequirementGo returns the structure it builds:
// "" (nil), "cuda>=11.6", "AND(a, b)", "OR(a, AND(b, c))"; errors for
// factors without an operator or with an invalid version value.
Result<std::string> ParseRequirementGo(std::string_view requirement);
struct GoRequirementHost {
  std::string cuda;  // cuDriverGetVersion major.minor
  std::string arch;  // compute capability of device 0
};
RequirementResult EvaluateRequirementGo(std::string_view requirement, const GoRequirementHost& host);

// NVIDIA_VISIBLE_DEVICES as the runtime reads it with default config (NCT
// cuda_image.go): nullopt = not a GPU container (unset, empty or "void"; unset on
// a legacy CUDA_VERSION-only image gives ["all"]); "none" gives [""].
std::optional<std::vector<std::string>> VisibleDevices(const nlohmann::json& env);
// NVIDIA_DRIVER_CAPABILITIES resolution (NCT container_config.go): "all" → `supported`;
// unset on a legacy image → `supported`; unset/empty otherwise →
// compute,utility (those of them in `supported`); an explicit value outside
// `supported` is an error (the hook panics). Sorted.
Result<std::vector<std::string>> DriverCapabilities(const nlohmann::json& env,
                                                    const std::vector<std::string>& supported);

// Launch path resolution (container-toolkit.yaml).
struct LaunchPath {
  std::string runtime;           // pool.runtime or the default ("docker-gpus")
  std::string toolkit;           // pool.container_toolkit or the newest known
  std::string mode;              // "legacy" | "jit-cdi" | "cdi"
  bool checks_requirements = true;
  std::string compat_mechanism;  // see SelectLibcuda: "mount" | "ldconfig" | "hook" | "none"
  std::string note;              // why (source row)
  nlohmann::json ToJson() const;
};
LaunchPath ResolveLaunchPath(const Pool& pool, const Knowledge& knowledge);

// Full start check of an image (facts JSON with image.env) on a pool:
// the launch path, the visible devices (docker --gpus/k8s inject them;
// nvidia-runtime uses the image's NVIDIA_VISIBLE_DEVICES: unset/void = not a
// GPU container), then every requirement.
struct StartCheck {
  bool checked = false;          // false: this path does not evaluate requirements
  bool gpu_container = true;     // false: runtime leaves the container alone
  bool disabled = false;         // NVIDIA_DISABLE_REQUIRE true
  bool satisfied = true;
  std::string message;           // runtime's text when refused
  std::string requirement;       // failing requirement value
  std::vector<std::string> requirements;
  LaunchPath path;
  nlohmann::json ToJson() const;
};
StartCheck CheckStart(const nlohmann::json& facts, const Pool& pool, const Knowledge& knowledge);

// --------------------------------------------------- libcuda selection (b)

// Compat-library decision of the enable-cuda-compat hook / LNC for one compat
// libcuda version against the host driver, by mechanism:
//   "mount"    (LNC ≤1.17.3 default, cuda-compat-mode=mount): mounted when
//              major differs; wins when newer (ldconfig picks the highest)
//   "ldconfig" (≥1.17.7 legacy default): used iff major(compat) > major(host)
//   "hook"     (enable-cuda-compat ≤1.19.x): iff major(compat) > major(host)
//   "hook-elf" (≥1.20.0): with a note: host branch ∈ note.Driver and compat >
//              host; without: major compare
//   "none":    never
// Returns whether the compat library ends up as libcuda.so.1 (for "mount":
// majors differ AND compat is newer). `note` is the compat library's .note.cuda.fwd_compatibility JSON (or null).
bool CompatWouldBeUsed(std::string_view mechanism, std::string_view compat_version,
                       std::string_view host_driver, const nlohmann::json& note = nullptr);
// Tegra/Orin rule of the hook (NCT ≥ 1.19): compat used iff the note's
// "CUDA Version" is newer than the host's CUDA version (NCT cudacompat.go useCompatLibraries).
bool TegraCompatWouldBeUsed(std::string_view note_cuda_version, std::string_view host_cuda);

struct LibcudaSelection {
  std::string kind = "host";   // "host" | "compat" | "bundled" | "stub" | "unknown"
  std::string path;            // image path of the chosen library ("" for host)
  std::string version;         // its driver version (host driver for "host")
  std::string via;             // "toolkit" | "LD_LIBRARY_PATH" | "ld.so.conf" | "ldconfig-highest" | ""
  std::string reason;          // one sentence for messages
  nlohmann::json note;         // ELF fwd-compat note of the chosen library (or null)
  std::string toolkit_dir;     // "11.3" when the library sits under /usr/local/cuda-11.3
  // NEEDED libraries of the chosen copy found nowhere in the image: it cannot load.
  std::vector<std::string> missing_needed;
  // The host's library was chosen, but the image's libcuda copies are not
  // known (facts without cuda.drivers: a base image only partly in the
  // tables): a forward-compat copy the facts do not show could win instead.
  bool copies_unknown = false;
  LaunchPath path_info;
  nlohmann::json ToJson() const;
};
// Which libcuda.so.1 a CUDA process in this image loads on this pool. Reads
// facts.cuda.drivers, facts.cuda.loader and facts.image.env:
// LD_LIBRARY_PATH entries holding libcuda.so.1 win first, then image
// ld.so.conf directories (ahead of the toolkit's system/CDI dirs), then the
// toolkit's compat decision for the pool's version, launch path and mode,
// then a bundled library newer than the host's in a system dir.
LibcudaSelection SelectLibcuda(const nlohmann::json& facts, const Pool& pool, const Knowledge& knowledge);

// ------------------------------- the image's part and the pool's part, apart

// What CheckStart and SelectLibcuda read of an image's facts and of nothing
// else: the same for every pool. A plan over a fleet reads it once per image
// (analysis/pool_memo.h) instead of once per pool and launch path. It points
// into the facts, which must outlive it.
struct ImageInputs {
  std::map<std::string, std::string> env;  // facts.image.env (or facts.env), string values
  // CheckStart
  bool env_disables_require = false;  // the image's NVIDIA_DISABLE_REQUIRE is true
  bool legacy_image = false;          // IsLegacyCudaImage(CUDA_VERSION, NVIDIA_REQUIRE_CUDA)
  std::optional<std::string> visible_devices;  // NVIDIA_VISIBLE_DEVICES
  std::string cuda_version;                    // CUDA_VERSION ("" when unset)
  // CollectRequirements of the env, and of the env with NVIDIA_DISABLE_REQUIRE=true
  // (a pool with disable_require).
  Result<std::vector<std::string>> requirements = std::vector<std::string>();
  Result<std::vector<std::string>> requirements_pool_disabled = std::vector<std::string>();
  // SelectLibcuda
  const nlohmann::json* loader = nullptr;  // cuda.loader when an object, else an empty object
  bool drivers_known = false;              // cuda.drivers is a list
  std::vector<const nlohmann::json*> libcuda;  // rows of cuda.drivers named libcuda.so*
  // Step 1 of SelectLibcuda (LD_LIBRARY_PATH), which reads no pool; its
  // path_info is left empty.
  std::optional<LibcudaSelection> via_ld_library_path;
  std::vector<const nlohmann::json*> compat;   // compat rows in a .../compat directory, with a version
  size_t compat_versions = 0;                  // distinct versions among them
  bool capabilities_include_compute = true;    // NVIDIA_DRIVER_CAPABILITIES
  bool no_ld_so_cache = false;                 // cuda.loader.ld_so_cache is false
  std::vector<const nlohmann::json*> bundled;  // bundled rows in a system directory, with a version
};
ImageInputs ReadImageInputs(const nlohmann::json& facts, const Knowledge& knowledge);

// What CheckStart reads of a pool beyond its fields: the same for every image.
struct PoolInputs {
  RequirementHost host;       // HostFactsForPool
  std::string message_style;  // RequirementMessageStyle of the launch path's toolkit
};
PoolInputs ReadPoolInputs(const Pool& pool, const LaunchPath& path, const Knowledge& knowledge);

// CheckStart and SelectLibcuda from those parts: `path` is
// ResolveLaunchPath(pool), and `pool_inputs` (made on demand by the
// callback, only when the start check evaluates requirements)
// ReadPoolInputs(pool, path). The same results as the functions above.
StartCheck CheckStart(const ImageInputs& image, const Pool& pool, const LaunchPath& path,
                      const std::function<const PoolInputs&()>& pool_inputs);
LibcudaSelection SelectLibcuda(const ImageInputs& image, const Pool& pool, const LaunchPath& path,
                               const Knowledge& knowledge);

// -------------------------------------- driver ↔ runtime compatibility (c)

struct DriverCompat {
  bool ok = true;
  std::string mode;            // "native" | "minor-version" | "forward-compat" | "none"
  int error = 0;               // 0, 34, 35, 803, 804
  std::string error_name;      // "cudaErrorCompatNotSupportedOnDevice"
  bool certain = true;         // false when it rests on UNCONFIRMED/unknown facts
  std::string message;         // explanation
  // Forward compat that the matrix excludes but the image's requirement admits,
  // with no ELF note to settle it: not a failure, a disputed fact (IL015).
  bool disputed = false;
  std::string dispute;         // names both sources
  nlohmann::json ToJson() const;
};
// Whether a CUDA runtime `runtime_version` ("11.3.109"; empty = no runtime
// known, only cuInit is judged) initialises with `selection` on `pool`:
// stub → 34; a non-host libcuda older than the kernel driver → 803; newer
// (forward compat) on an ineligible GPU → 804, on a branch its note/matrix
// does not list (or end-of-life/feature branch) → 803; then the effective
// libcuda's CUDA version vs the runtime: native, minor-version (≥ floor of
// the major, CUDA 11+), else 35. The compat library's ELF note (the image's,
// or the one compat-libraries.yaml records for its version) decides which host
// branches it supports; without one, the matrix does, and where the matrix
// excludes the host branch but `image_requirement` (the image's
// NVIDIA_REQUIRE_CUDA) has a branch clause admitting the host driver, the
// result is `disputed` instead of 803.
DriverCompat CheckDriverCompat(std::string_view runtime_version, const LibcudaSelection& selection,
                               const Pool& pool, const Knowledge& knowledge, std::string_view image_requirement = {});

// Forward-compat eligibility of the pool's GPU: true/false, nullopt unknown.
std::optional<bool> ForwardCompatEligible(const Pool& pool, const Knowledge& knowledge);
// Whether a compat package for CUDA "M.m" supports host `branch` per the
// matrix (forward-compat.yaml); nullopt when the matrix has no row for it.
std::optional<bool> CompatSupportsBranch(std::string_view cuda_major_minor, int branch,
                                         const Knowledge& knowledge);

// -------------------------------------------------- SASS / PTX vs GPU (d)

// Whether SASS for `sass` ("sm_86", "sm_90a", "sm_100f", "86") runs on
// compute capability `cc` ("8.6"): same major and minor ≤ the GPU's; "a"
// only on exactly that CC; "f" on the family (same major, later minors);
// integrated parts (sass.yaml) only run their own code; renamed CCs
// (10.1 → 11.0) are the same.
bool SassRunsOn(std::string_view sass, std::string_view cc, const Knowledge& knowledge);
// Whether PTX for `arch` ("compute_80", "compute_90a") can be JIT-compiled
// for `cc` (PTX runs on equal-or-newer CC; "a" only on exactly that CC).
bool PtxTargetsCc(std::string_view arch, std::string_view cc);
// Newest PTX ISA a driver can JIT ("7.2" for 460.x); nullopt if unknown.
std::optional<std::string> MaxPtxIsaForDriver(std::string_view driver, const Knowledge& knowledge);
// CUDA version that introduced a PTX ISA ("8.4" → "12.4").
std::optional<std::string> PtxIsaCudaVersion(std::string_view isa, const Knowledge& knowledge);

struct KernelCoverage {
  bool runs = false;
  std::string via;             // "sm_86" or "compute_80" (what the driver would use)
  bool ptx_only = false;       // no SASS matched; PTX JIT needed
  int error = 0;               // 0, 209 (no kernel image), 222 (PTX too new)
  std::string error_name;
  std::string message;
  nlohmann::json ToJson() const;
};
// One binary (`binaries[]` fact: {sass: [...], ptx: [{arch, isa}]}) on a GPU
// of compute capability `cc`, JIT done by the libcuda of version
// `jit_driver` (the selected one: host or compat). A binary with neither
// SASS nor PTX is "runs" (it has no GPU code).
KernelCoverage CheckKernels(const nlohmann::json& binary, std::string_view cc, std::string_view jit_driver,
                            const Knowledge& knowledge);

// Whether the driver branch still supports the architecture of `cc`
// (architectures.yaml last_branch): true/false, nullopt if cc unknown.
std::optional<bool> ArchitectureSupportedByDriver(std::string_view cc, std::string_view driver,
                                                  const Knowledge& knowledge);

// CUDA error name for a code (errors.yaml): 804 → "cudaErrorCompatNotSupportedOnDevice".
std::string ErrorName(int code, const Knowledge& knowledge);

}  // namespace imagelint::nvidia
