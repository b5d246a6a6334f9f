// NVIDIA_REQUIRE_* evaluation as libnvidia-container's C evaluator does it
// (src/cli/dsl.c and src/cli/configure.c of
// https://github.com/NVIDIA/libnvidia-container), the collection of
// requirement strings from an image env (nvidia-container-toolkit
// internal/config/image/cuda_image.go, read through include/imagelint/image_env.h)
// and the launch paths that check them (container-toolkit.yaml).
#include <algorithm>
#include <cctype>
#include <cstdint>

#include "common/text.h"
#include "imagelint/image_env.h"
#include "imagelint/nvidia.h"
#include "internal.h"

namespace imagelint::nvidia {
namespace {

using nlohmann::json;

enum class Cmp { kEqual, kNotEqual, kLess, kLessEqual, kGreater, kGreaterEqual };

struct Operator {
  const char* text;
  Cmp cmp;
};
// Same order as dsl.c's table: the first entry whose first n characters match
// the operator run (n = run length) wins, which makes a lone "!" mean "!=".
constexpr Operator kOperators[] = {{"=", Cmp::kEqual},     {"!=", Cmp::kNotEqual},    {"<", Cmp::kLess},
                                   {"<=", Cmp::kLessEqual}, {">", Cmp::kGreater}, {">=", Cmp::kGreaterEqual}};

bool CaseEqual(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

// strtoumax on a digit run: false on no digits or overflow (UINTMAX_MAX).
bool ReadNumber(std::string_view s, size_t& pos, uintmax_t& out) {
  size_t start = pos;
  uintmax_t value = 0;
  while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos]))) {
    unsigned digit = static_cast<unsigned>(s[pos] - '0');
    if (value > (UINTMAX_MAX - digit) / 10) return false;  // strtoumax saturates at UINTMAX_MAX
    value = value * 10 + digit;
    ++pos;
  }
  if (pos == start) return false;
  if (value == UINTMAX_MAX) return false;
  out = value;
  return true;
}

// dsl_compare_version: 1 true, 0 false, -1 invalid. Deliberately not
// common/version.h: this copies LNC's C comparison (strtoumax per component,
// runs of dots skipped, trailing zeros ignored), including what it rejects.
int CompareVersionDsl(std::string_view v1, Cmp cmp, std::string_view v2) {
  auto only_digits_dots = [](std::string_view s) {
    return std::all_of(s.begin(), s.end(), [](char c) { return c == '.' || std::isdigit(static_cast<unsigned char>(c)); });
  };
  if (!only_digits_dots(v1) || !only_digits_dots(v2)) return -1;
  size_t p1 = 0, p2 = 0;
  while (p1 < v1.size() && p2 < v2.size()) {
    uintmax_t n1 = 0, n2 = 0;
    if (!ReadNumber(v1, p1, n1)) return -1;
    if (!ReadNumber(v2, p2, n2)) return -1;
    if (n1 != n2) {
      switch (cmp) {
        case Cmp::kEqual: return 0;
        case Cmp::kNotEqual: return 1;
        case Cmp::kLess:
        case Cmp::kLessEqual: return n1 < n2;
        default: return n1 > n2;
      }
    }
    while (p1 < v1.size() && v1[p1] == '.') ++p1;
    while (p2 < v2.size() && v2[p2] == '.') ++p2;
  }
  while (p1 < v1.size() && (v1[p1] == '.' || v1[p1] == '0')) ++p1;
  while (p2 < v2.size() && (v2[p2] == '.' || v2[p2] == '0')) ++p2;
  bool end1 = p1 == v1.size(), end2 = p2 == v2.size();
  if (cmp == Cmp::kNotEqual) return !end1 || !end2;
  if (cmp == Cmp::kEqual || cmp == Cmp::kLessEqual || cmp == Cmp::kGreaterEqual) {
    if (end1 && end2) return 1;
    if (cmp == Cmp::kEqual) return 0;
  }
  if (cmp == Cmp::kLess || cmp == Cmp::kLessEqual) return end1 && !end2;
  return !end1 && end2;
}

int CompareStringDsl(std::string_view s1, Cmp cmp, std::string_view s2) {
  if (cmp == Cmp::kEqual) return CaseEqual(s1, s2);
  if (cmp == Cmp::kNotEqual) return !CaseEqual(s1, s2);
  return -1;
}

struct FactorContext {
  const RequirementHost* host;
  const RequirementDevice* device;  // nullptr: no device selected
};

// evaluate_rule: 1 true, 0 false (with `failed` = "prop op val"), -1 invalid.
int EvaluateFactor(std::string_view factor, const FactorContext& ctx, std::string& failed) {
  size_t n = factor.find_first_of("<>=!");
  if (n == 0) return -1;
  if (n == std::string_view::npos) return -1;  // strcspn = whole string; then no operator run
  std::string_view property = factor.substr(0, n);
  std::string_view rest = factor.substr(n);
  size_t run = 0;
  while (run < rest.size() && std::string_view("<>=!").find(rest[run]) != std::string_view::npos) ++run;
  const Operator* op = nullptr;
  for (const Operator& candidate : kOperators) {
    if (rest.substr(0, run).compare(0, run, std::string_view(candidate.text).substr(0, run)) == 0 &&
        std::string_view(candidate.text).size() >= run) {
      op = &candidate;
      break;
    }
  }
  if (op == nullptr) return -1;
  std::string_view value = rest.substr(run);
  if (value.empty()) return -1;
  int result;
  if (CaseEqual(property, "cuda")) {
    result = ctx.host->cuda.empty() ? 1 : CompareVersionDsl(ctx.host->cuda, op->cmp, value);
  } else if (CaseEqual(property, "driver")) {
    result = ctx.host->driver.empty() ? 1 : CompareVersionDsl(ctx.host->driver, op->cmp, value);
  } else if (CaseEqual(property, "arch")) {
    result = ctx.device == nullptr ? 1 : CompareVersionDsl(ctx.device->arch, op->cmp, value);
  } else if (CaseEqual(property, "brand")) {
    result = ctx.device == nullptr ? 1 : CompareStringDsl(ctx.device->brand, op->cmp, value);
  } else {
    return -1;
  }
  if (result == 0) failed = std::string(property) + " " + op->text + " " + std::string(value);
  return result;
}

// dsl_evaluate for one device: 1 satisfied, 0 unsatisfied, -1 invalid.
int EvaluateOnce(std::string_view requirement, const FactorContext& ctx, std::string& last_failed) {
  int ret = 1;
  for (const std::string& term : SplitOn(requirement, ' ')) {
    if (term.empty()) continue;
    bool all_true = true;
    for (const std::string& factor : SplitOn(term, ',')) {
      if (factor.empty()) continue;
      ret = EvaluateFactor(factor, ctx, last_failed);
      if (ret < 0) return -1;
      if (ret == 0) {
        all_true = false;
        break;
      }
    }
    if (all_true) break;  // `ret` keeps the value of the last factor evaluated (dsl.c)
  }
  return ret ? 1 : 0;
}

const char* kPrefix = "nvidia-container-cli: requirement error: ";

}  // namespace

nlohmann::json RequirementResult::ToJson() const {
  return {{"satisfied", satisfied}, {"invalid", invalid}, {"message", message}, {"requirement", requirement}};
}

std::string RequirementMessageStyle(std::string_view lnc_version, const Knowledge& knowledge) {
  const json& rows = knowledge.Table("container_toolkit");
  const json* row = lnc_version.empty() ? knowledge.ToolkitBehaviour(knowledge.NewestContainerToolkit())
                                        : knowledge.ToolkitBehaviour(lnc_version);
  if (row == nullptr && !rows.empty()) row = &rows[0];  // older than every row: the oldest style
  if (row == nullptr || !row->contains("lnc_message_style")) return "token-suffix";
  return row->at("lnc_message_style").get<std::string>();
}

RequirementResult EvaluateRequirement(std::string_view requirement, const RequirementHost& host,
                                      std::string_view message_style) {
  RequirementResult result;
  std::vector<const RequirementDevice*> devices;
  for (const auto& device : host.devices) devices.push_back(&device);
  if (devices.empty()) devices.push_back(nullptr);
  for (const RequirementDevice* device : devices) {
    std::string last_failed;
    int ret = EvaluateOnce(requirement, FactorContext{&host, device}, last_failed);
    if (ret == 1) continue;
    result.satisfied = false;
    result.requirement = std::string(requirement);
    if (ret < 0) {
      result.invalid = true;
      result.message = std::string(kPrefix) + "invalid expression";
      return result;
    }
    std::string_view style = message_style.empty() ? std::string_view("token-suffix") : message_style;
    if (style == "factor") {
      result.message = std::string(kPrefix) + "unsatisfied condition: " + last_failed;
    } else {
      std::string_view token = requirement.substr(0, requirement.find(' '));
      result.message = std::string(kPrefix) + "unsatisfied condition: " + std::string(token);
      if (style == "token-suffix" && StartsWith(token, "cuda>="))
        result.message += ", please update your driver to a newer version, or use an earlier cuda container";
    }
    return result;
  }
  return result;
}

namespace {
// Env as a map, from the facts' `image.env` object (or a ["K=V"] array).
std::map<std::string, std::string> EnvMap(const json& env) {
  std::map<std::string, std::string> out;
  if (env.is_object()) {
    for (auto it = env.begin(); it != env.end(); ++it)
      if (it.value().is_string()) out[it.key()] = it.value().get<std::string>();
  } else if (env.is_array()) {
    for (const auto& item : env) {
      if (!item.is_string()) continue;
      std::string text = item.get<std::string>();
      size_t eq = text.find('=');
      if (eq != std::string::npos) out[text.substr(0, eq)] = text.substr(eq + 1);
    }
  }
  return out;
}
}  // namespace

std::map<std::string, std::string> internal::ImageEnv(const json& facts) {
  if (facts.contains("image") && facts["image"].is_object() && facts["image"].contains("env"))
    return EnvMap(facts["image"]["env"]);
  if (facts.contains("env")) return EnvMap(facts["env"]);
  return {};
}

Result<std::vector<std::string>> CollectRequirements(const nlohmann::json& env_json) {
  auto env = EnvMap(env_json);
  std::vector<std::string> out;
  auto get = [&](const std::string& key) {
    auto it = env.find(key);
    return it == env.end() ? std::string() : it->second;
  };
  auto disable = env.find("NVIDIA_DISABLE_REQUIRE");
  if (disable != env.end() && DisableRequireIsTrue(disable->second)) return out;
  for (const auto& [key, value] : env) {
    if (!StartsWith(key, "NVIDIA_REQUIRE_")) continue;
    if (StartsWith(key, "NVIDIA_REQUIRE_JETPACK")) continue;
    out.push_back(value);
  }
  std::string cuda_version = get("CUDA_VERSION");
  if (IsLegacyCudaImage(cuda_version, get("NVIDIA_REQUIRE_CUDA"))) {
    auto major_minor = LegacyCudaRequirementVersion(cuda_version);
    if (!major_minor)
      return MakeError("CUDA_VERSION", "failed to get requirements: invalid CUDA_VERSION '" + cuda_version +
                                           "' (the runtime hook fails the container)");
    out.push_back("cuda>=" + *major_minor);
  }
  return out;
}

std::optional<std::string> internal::DriverCudaVersion(std::string_view driver, const Knowledge& knowledge) {
  auto branch = DriverBranch(driver);
  if (!branch) return std::nullopt;
  int nearest = knowledge.NearestBranchAtOrBelow(*branch);
  if (nearest < 0) return std::nullopt;
  return knowledge.BranchCudaVersion(nearest);
}

RequirementHost HostFactsForPool(const Pool& pool, const Knowledge& knowledge) {
  RequirementHost host;
  host.driver = pool.driver;
  host.cuda = internal::DriverCudaVersion(pool.driver, knowledge).value_or("");
  RequirementDevice device;
  device.arch = pool.compute_capability.value_or("");
  std::string brand = pool.brand.value_or("unknown");
  const json* brand_row = knowledge.FindBrand(brand);
  std::string rendered = brand_row ? brand_row->at("name").get<std::string>() : "Unknown";
  // Before LNC 1.9.0 only brands 1-6 were mapped; the rest read "Unknown".
  if (brand_row && brand_row->contains("since_lnc") && pool.container_toolkit) {
    const json* behaviour = knowledge.ToolkitBehaviour(*pool.container_toolkit);
    if (behaviour && behaviour->at("brand_names") == "basic") rendered = "Unknown";
  }
  device.brand = rendered;
  host.devices.push_back(device);
  return host;
}

nlohmann::json LaunchPath::ToJson() const {
  return {{"runtime", runtime},   {"toolkit", toolkit},
          {"mode", mode},         {"checks_requirements", checks_requirements},
          {"compat_mechanism", compat_mechanism}, {"note", note}};
}

LaunchPath ResolveLaunchPath(const Pool& pool, const Knowledge& knowledge) {
  LaunchPath path;
  path.runtime = pool.runtime.value_or("docker-gpus");
  path.toolkit = pool.container_toolkit.value_or(knowledge.NewestContainerToolkit());
  const json* row = knowledge.ToolkitBehaviour(path.toolkit);
  if (row == nullptr && !knowledge.Table("container_toolkit").empty()) row = &knowledge.Table("container_toolkit")[0];
  if (row == nullptr) {
    path.mode = "legacy";
    path.compat_mechanism = "none";
    path.note = "no container-toolkit knowledge";
    return path;
  }
  bool has_mode_config = row->contains("compat_modes");  // the toolkit has a cuda-compat-mode setting (>= 1.17.7)
  std::string version_row = row->at("version").get<std::string>();
  if (path.runtime == "cdi") {
    path.mode = "cdi";
    path.checks_requirements = false;
    path.compat_mechanism = row->at("cdi_compat").get<std::string>();
    path.note = "engine-side CDI: no requirement check; compat per toolkit " + version_row + " CDI hook";
    return path;
  }
  if (path.runtime == "docker-gpus") {
    path.mode = "legacy";
    path.checks_requirements = true;
    path.compat_mechanism = row->at("docker_gpus_compat").get<std::string>();
    if (has_mode_config && pool.cuda_compat_mode) {
      const std::string& m = *pool.cuda_compat_mode;
      path.compat_mechanism = m == "mount" ? "mount" : m == "ldconfig" ? "ldconfig" : "none";  // hook: runtime only
    }
    path.note = "docker --gpus prestart hook (legacy): requirements checked; compat per toolkit " + version_row;
    return path;
  }
  // nvidia-runtime and k8s-device-plugin (containerd/cri-o with the nvidia runtime)
  path.mode = row->at("nvidia_runtime_mode").get<std::string>();
  path.checks_requirements = path.mode == "legacy";
  path.compat_mechanism = row->at("nvidia_runtime_compat").get<std::string>();
  if (path.mode == "legacy" && has_mode_config && pool.cuda_compat_mode) {
    const std::string& m = *pool.cuda_compat_mode;
    path.compat_mechanism = m == "disabled" ? "none" : m;
  }
  path.note = path.mode == "legacy"
                  ? "nvidia runtime in legacy mode (toolkit " + version_row + "): requirements checked"
                  : "nvidia runtime auto mode resolves to jit-cdi (toolkit " + version_row + "): requirements not checked";
  return path;
}

nlohmann::json StartCheck::ToJson() const {
  return {{"checked", checked},         {"gpu_container", gpu_container}, {"disabled", disabled},
          {"satisfied", satisfied},     {"message", message},             {"requirement", requirement},
          {"requirements", requirements}, {"path", path.ToJson()}};
}

PoolInputs ReadPoolInputs(const Pool& pool, const LaunchPath& path, const Knowledge& knowledge) {
  PoolInputs inputs;
  inputs.host = HostFactsForPool(pool, knowledge);
  inputs.message_style = RequirementMessageStyle(path.toolkit, knowledge);
  return inputs;
}

StartCheck CheckStart(const nlohmann::json& facts, const Pool& pool, const Knowledge& knowledge) {
  const ImageInputs image = ReadImageInputs(facts, knowledge);
  const LaunchPath path = ResolveLaunchPath(pool, knowledge);
  std::optional<PoolInputs> pool_inputs;
  return CheckStart(image, pool, path, [&]() -> const PoolInputs& {
    if (!pool_inputs) pool_inputs = ReadPoolInputs(pool, path, knowledge);
    return *pool_inputs;
  });
}

StartCheck CheckStart(const ImageInputs& image, const Pool& pool, const LaunchPath& path,
                      const std::function<const PoolInputs&()>& pool_inputs) {
  StartCheck check;
  check.path = path;
  check.disabled = image.env_disables_require || pool.disable_require.value_or(false);
  // Devices: docker --gpus and the device plugin inject NVIDIA_VISIBLE_DEVICES;
  // with --runtime=nvidia the image's own value decides.
  bool no_device = false;
  if (check.path.runtime == "nvidia-runtime" && check.path.mode == "legacy") {
    const std::optional<std::string>& visible = image.visible_devices;
    if (!visible) {
      check.gpu_container = image.legacy_image;
    } else if (visible->empty() || *visible == "void") {
      check.gpu_container = false;
    } else if (*visible == "none") {
      no_device = true;
    }
  }
  if (!check.path.checks_requirements || !check.gpu_container) return check;
  check.checked = true;
  const auto& requirements =
      pool.disable_require.value_or(false) ? image.requirements_pool_disabled : image.requirements;
  if (!requirements.ok()) {
    check.satisfied = false;
    check.message = "nvidia-container-runtime-hook: " + requirements.error().message;
    check.requirement = "CUDA_VERSION=" + image.cuda_version;
    return check;
  }
  check.requirements = *requirements;
  if (check.requirements.size() > 32) {
    check.satisfied = false;
    check.message = "nvidia-container-cli: input error: too many requirements";
    return check;
  }
  const PoolInputs& inputs = pool_inputs();
  RequirementHost no_devices;
  const RequirementHost* host = &inputs.host;
  if (no_device) {
    no_devices = inputs.host;
    no_devices.devices.clear();
    host = &no_devices;
  }
  for (const std::string& requirement : check.requirements) {
    RequirementResult result = EvaluateRequirement(requirement, *host, inputs.message_style);
    if (!result.satisfied) {
      check.satisfied = false;
      check.message = result.message;
      check.requirement = requirement;
      return check;
    }
  }
  return check;
}

}  // namespace imagelint::nvidia
