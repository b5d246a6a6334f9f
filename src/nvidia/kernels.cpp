// SASS / PTX vs compute capability: the binary compatibility rules of the CUDA
// C++ Programming Guide
// (https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#binary-compatibility)
// with the exceptions of sass.yaml, and the PTX ISA limits of ptx-isa.yaml and
// driver-branches.yaml.
#include <cctype>
#include <set>

#include "common/text.h"
#include "imagelint/nvidia.h"
#include "internal.h"

namespace imagelint::nvidia {
namespace {

using nlohmann::json;

struct Target {
  int major = 0;
  int minor = 0;
  char variant = 0;  // 0, 'a' or 'f'
};

// "sm_86", "sm_90a", "compute_100f", "86", "8.6" → Target.
std::optional<Target> ParseTarget(std::string_view text) {
  for (std::string_view prefix : {"sm_", "compute_", "lto_"})
    if (StartsWith(text, prefix)) {
      text.remove_prefix(prefix.size());
      break;
    }
  Target t;
  if (!text.empty() && (text.back() == 'a' || text.back() == 'f')) {
    t.variant = text.back();
    text.remove_suffix(1);
  }
  if (text.empty()) return std::nullopt;
  size_t dot = text.find('.');
  auto number = [](std::string_view s, int& out) {
    if (s.empty() || s.size() > 4) return false;
    out = 0;
    for (char c : s) {
      if (!std::isdigit(static_cast<unsigned char>(c))) return false;
      out = out * 10 + (c - '0');
    }
    return true;
  };
  if (dot != std::string_view::npos) {
    if (!number(text.substr(0, dot), t.major) || !number(text.substr(dot + 1), t.minor)) return std::nullopt;
    return t;
  }
  int n = 0;
  if (!number(text, n) || n < 10) return std::nullopt;
  t.major = n / 10;
  t.minor = n % 10;
  return t;
}

std::string CcText(const Target& t) { return std::to_string(t.major) + "." + std::to_string(t.minor); }

const json* SassRow(const Target& t, const Knowledge& knowledge) { return knowledge.FindSass(CcText(t)); }

bool Integrated(const Target& t, const Knowledge& knowledge) {
  const json* row = SassRow(t, knowledge);
  return row != nullptr && row->at("integrated").get<bool>();
}

bool SameTarget(const Target& a, const Target& b, const Knowledge& knowledge) {
  if (a.major == b.major && a.minor == b.minor) return true;
  const json* row = SassRow(a, knowledge);
  if (row == nullptr || !row->contains("same_as")) return false;
  for (const auto& other : row->at("same_as"))
    if (other == CcText(b)) return true;
  return false;
}

// Facts without kernel counts: a library of kernel-less-modules.yaml in
// exactly the shape those rows describe (one container, one cubin, no PTX).
bool KnownKernelLess(const json& binary, const json& fatbin, const Knowledge& knowledge) {
  if (fatbin.value("containers", 0) != 1 || fatbin.value("entries", 0) != 1) return false;
  if (fatbin.contains("ptx") && fatbin["ptx"].is_array() && !fatbin["ptx"].empty()) return false;
  std::string path = binary.contains("path") && binary["path"].is_string() ? binary["path"].get<std::string>() : "";
  std::string soname =
      binary.contains("soname") && binary["soname"].is_string() ? binary["soname"].get<std::string>() : "";
  std::string base = path.substr(path.rfind('/') + 1);
  for (const auto& row : knowledge.Table("kernel_less_modules")) {
    std::string library = row["library"].get<std::string>();
    if (StartsWith(base, library) || (!soname.empty() && StartsWith(soname, library))) return true;
  }
  return false;
}

// SASS architectures whose cubins hold no kernel: the fatbin summary's
// per-architecture `kernels` is 0 (every cubin read whole), or, without
// counts, a known kernel-less NVIDIA library.
std::set<std::string> KernelLessSass(const json& binary, const Knowledge& knowledge) {
  std::set<std::string> out;
  if (!binary.is_object() || !binary.contains("fatbin") || !binary["fatbin"].is_object()) return out;
  const json& fatbin = binary["fatbin"];
  const json& rows = fatbin.contains("sass") ? fatbin["sass"] : json();
  if (!rows.is_array()) return out;
  bool counted = false;
  for (const auto& row : rows) {
    if (!row.is_object() || !row.contains("arch") || !row["arch"].is_string() || !row.contains("kernels")) continue;
    counted = true;
    if (row["kernels"].is_number_unsigned() && row["kernels"].get<uint64_t>() == 0)
      out.insert(row["arch"].get<std::string>());
  }
  if (!counted && rows.size() == 1 && rows[0].is_object() && rows[0].contains("arch") &&
      rows[0]["arch"].is_string() && KnownKernelLess(binary, fatbin, knowledge))
    out.insert(rows[0]["arch"].get<std::string>());
  return out;
}

}  // namespace

bool SassRunsOn(std::string_view sass, std::string_view cc, const Knowledge& knowledge) {
  auto code = ParseTarget(sass);
  auto gpu = ParseTarget(cc);
  if (!code || !gpu) return false;
  if (SameTarget(*code, *gpu, knowledge)) return true;
  if (code->variant == 'a') return false;
  if (Integrated(*code, knowledge) || Integrated(*gpu, knowledge)) return false;
  return code->major == gpu->major && code->minor <= gpu->minor;
}

bool PtxTargetsCc(std::string_view arch, std::string_view cc) {
  auto code = ParseTarget(arch);
  auto gpu = ParseTarget(cc);
  if (!code || !gpu) return false;
  if (code->variant == 'a') return code->major == gpu->major && code->minor == gpu->minor;
  if (code->variant == 'f') return code->major == gpu->major && code->minor <= gpu->minor;
  return code->major < gpu->major || (code->major == gpu->major && code->minor <= gpu->minor);
}

std::optional<std::string> MaxPtxIsaForDriver(std::string_view driver, const Knowledge& knowledge) {
  auto branch = DriverBranch(driver);
  if (!branch) return std::nullopt;
  int nearest = knowledge.NearestBranchAtOrBelow(*branch);
  if (nearest < 0) return std::nullopt;
  const json* row = knowledge.FindBranch(nearest);
  return row->at("ptx_isa").get<std::string>();
}

std::optional<std::string> PtxIsaCudaVersion(std::string_view isa, const Knowledge& knowledge) {
  if (const json* row = knowledge.FindPtxIsa(isa)) return row->at("cuda").get<std::string>();
  return std::nullopt;
}

nlohmann::json KernelCoverage::ToJson() const {
  return {{"runs", runs},   {"via", via},           {"ptx_only", ptx_only},
          {"error", error}, {"error_name", error_name}, {"message", message}};
}

KernelCoverage CheckKernels(const nlohmann::json& binary, std::string_view cc, std::string_view jit_driver,
                            const Knowledge& knowledge) {
  KernelCoverage out;
  json sass = binary.is_object() && binary.contains("sass") ? binary["sass"] : json::array();
  json ptx = binary.is_object() && binary.contains("ptx") ? binary["ptx"] : json::array();
  if (!sass.is_array()) sass = json::array();
  if (!ptx.is_array()) ptx = json::array();
  if (sass.empty() && ptx.empty()) {
    out.runs = true;
    out.message = "no GPU code";
    return out;
  }
  // Cubins that define no kernel cannot fail a launch (cubin_kernels.h):
  // their architectures neither cover the GPU nor need to.
  std::set<std::string> kernel_less = KernelLessSass(binary, knowledge);
  if (!kernel_less.empty()) {
    json kept = json::array();
    for (const auto& s : sass)
      if (!s.is_string() || !kernel_less.count(s.get<std::string>())) kept.push_back(s);
    sass = std::move(kept);
    if (sass.empty() && ptx.empty()) {
      out.runs = true;
      out.message = "its cubins define no kernel: nothing in it is ever launched";
      return out;
    }
  }
  std::string list;
  std::optional<Target> best_sass;
  for (const auto& s : sass) {
    if (!s.is_string()) continue;
    list += (list.empty() ? "" : " ") + s.get<std::string>();
    if (!SassRunsOn(s.get<std::string>(), cc, knowledge)) continue;
    auto t = ParseTarget(s.get<std::string>());
    // The driver picks the closest cubin: the highest compute capability that runs.
    if (!best_sass || t->major > best_sass->major || (t->major == best_sass->major && t->minor > best_sass->minor)) {
      best_sass = t;
      out.via = s.get<std::string>();
    }
  }
  if (best_sass) {
    out.runs = true;
    out.message = "SASS " + out.via + " runs on compute capability " + std::string(cc);
    return out;
  }
  // PTX that targets this CC; the driver JIT-compiles the newest suitable one.
  std::optional<std::string> max_isa = MaxPtxIsaForDriver(jit_driver, knowledge);
  std::string best_arch, best_isa, too_new_arch, too_new_isa;
  for (const auto& p : ptx) {
    std::string arch, isa;
    if (p.is_string()) arch = p.get<std::string>();
    else if (p.is_object()) {
      if (p.contains("arch") && p["arch"].is_string()) arch = p["arch"].get<std::string>();
      if (p.contains("isa") && p["isa"].is_string()) isa = p["isa"].get<std::string>();
    }
    list += (list.empty() ? "" : " ") + arch;
    if (arch.empty() || !PtxTargetsCc(arch, cc)) continue;
    bool jit_ok = isa.empty() || !max_isa || CompareVersions(isa, *max_isa).value_or(0) <= 0;
    if (jit_ok) {
      best_arch = arch;
      best_isa = isa;
    } else if (too_new_arch.empty()) {
      too_new_arch = arch;
      too_new_isa = isa;
    }
  }
  if (!best_arch.empty()) {
    out.runs = true;
    out.ptx_only = true;
    out.via = best_arch;
    out.message = "only PTX " + best_arch + (best_isa.empty() ? "" : " (ISA " + best_isa + ")") +
                  " covers compute capability " + std::string(cc) + ": JIT-compiled at load time";
    return out;
  }
  if (!too_new_arch.empty()) {
    out.error = 222;
    out.error_name = ErrorName(222, knowledge);
    auto needs = PtxIsaCudaVersion(too_new_isa, knowledge);
    out.via = too_new_arch;
    out.ptx_only = true;
    out.message = "only PTX " + too_new_arch + " (ISA " + too_new_isa + (needs ? ", CUDA " + *needs : "") +
                  ") covers compute capability " + std::string(cc) + ", but driver " + std::string(jit_driver) +
                  " JIT-compiles PTX ISA up to " + max_isa.value_or("?");
    return out;
  }
  out.error = 209;
  out.error_name = ErrorName(209, knowledge);
  out.message = "no SASS runs on compute capability " + std::string(cc) + " and no PTX can be JIT-compiled for it (has: " +
                list + ")";
  return out;
}

std::optional<bool> ArchitectureSupportedByDriver(std::string_view cc, std::string_view driver,
                                                  const Knowledge& knowledge) {
  const json* arch = knowledge.FindArchitecture(cc);
  auto branch = DriverBranch(driver);
  if (arch == nullptr || !branch) return std::nullopt;
  if (!arch->contains("last_branch") || arch->at("last_branch").is_null()) return true;
  return *branch <= arch->at("last_branch").get<int>();
}

}  // namespace imagelint::nvidia
