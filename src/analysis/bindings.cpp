// Knowledge functions of the rule language: thin bindings of the NVIDIA
// semantics in include/imagelint/nvidia.h (written by the knowledge module)
// and of knowledge-table lookups. Nothing here decides anything itself; the
// JSON shapes returned are documented in docs/rule-language.md.
#include <array>
#include <functional>
#include <tuple>

#include "analysis/pool_memo.h"
#include "common/field_names.h"
#include "imagelint/analysis.h"
#include "imagelint/knowledge.h"
#include "imagelint/nvidia.h"

namespace imagelint::analysis {

using nlohmann::json;
using rules::Arguments;
using rules::FunctionRegistry;
using rules::FunctionSpec;
using rules::Value;

namespace {

Error ArgError(const std::string& message) { return MakeError("", message); }

std::optional<std::string> OptString(const json& j, const char* key) {
  if (j.contains(key) && j[key].is_string()) return j[key].get<std::string>();
  return std::nullopt;
}

std::optional<bool> OptBool(const json& j, const char* key) {
  if (j.contains(key) && j[key].is_boolean()) return j[key].get<bool>();
  return std::nullopt;
}

// The inverse of PoolToJson.
Result<Pool> PoolFromJson(const json& j) {
  if (!j.is_object()) return ArgError("a pool must be an object (the `pool` variable)");
  Pool pool;
  pool.name = j.value("name", "");
  pool.gpu = j.value("gpu", "");
  pool.compute_capability = OptString(j, "compute_capability");
  pool.brand = OptString(j, "brand");
  pool.datacenter = OptBool(j, "datacenter");
  pool.driver = j.value("driver", "");
  pool.container_toolkit = OptString(j, "container_toolkit");
  pool.runtime = OptString(j, "runtime");
  if (auto platform = Platform::Parse(j.value("platform", "linux/amd64")); platform.ok()) pool.platform = *platform;
  pool.count = j.contains("count") && j["count"].is_number_integer() ? j["count"].get<int>() : 0;
  pool.source = j.value("source", "");
  pool.line = j.contains("line") && j["line"].is_number_integer() ? j["line"].get<int>() : 0;
  pool.architecture = OptString(j, "architecture");
  pool.integrated = OptBool(j, "integrated");
  pool.cuda_compat_mode = OptString(j, "cuda_compat_mode");
  pool.disable_require = OptBool(j, "disable_require");
  if (j.contains("selector_labels") && j["selector_labels"].is_object()) {
    for (auto& [key, value] : j["selector_labels"].items()) {
      if (value.is_string()) pool.selector_labels[key] = value.get<std::string>();
    }
  }
  return pool;
}

// The pool argument typed: kept by the open PoolMemoScope for a pool bound
// for the whole image (converted once, not on every call), else converted
// into `slot`.
Result<const Pool*> PoolArgument(const json& j, Pool& slot) {
  if (PoolMemoScope* memo = PoolMemoScope::Active())
    if (const Pool* kept = memo->TypedPool(&j, PoolFromJson)) return kept;
  auto pool = PoolFromJson(j);
  if (!pool.ok()) return pool.error();
  slot = std::move(*pool);
  return &slot;
}

Value OptionalValue(const std::optional<bool>& value) {
  return value ? Value::Of(*value) : Value::Unknown();
}
Value OptionalValue(const std::optional<std::string>& value) {
  return value ? Value::Of(*value) : Value::Unknown();
}
Value Row(const json* row) { return row ? Value::Of(*row) : Value::Of(nullptr); }

// A JSON object set field by field. Built from an initializer list instead,
// nlohmann makes a temporary array of every key/value pair and copies each
// value out of it: the per-pool results below (driver_compat carries its
// libcuda selection) spent 8 % of a plan's instructions there. It is called
// as a record visitor is, (key, value), so IMAGELINT_VISIT_FIELDS fills it
// from a result struct whose members have the keys' names.
class ResultObject {
 public:
  template <class T>
  ResultObject& operator()(const char* key, T&& value) {
    object_[key] = std::forward<T>(value);
    return *this;
  }
  json Take() { return std::move(object_); }

 private:
  json object_ = json::object();
};

json LaunchPathJson(const nvidia::LaunchPath& path) {
  ResultObject out;
  IMAGELINT_VISIT_FIELDS(out, path, runtime, toolkit, mode, checks_requirements, compat_mechanism, note);
  return out.Take();
}

json SelectionJson(const nvidia::LibcudaSelection& selection) {
  ResultObject out;
  IMAGELINT_VISIT_FIELDS(out, selection, kind, path, version, via, reason, note, toolkit_dir);
  out("launch_path", LaunchPathJson(selection.path_info));
  return out.Take();
}

// facts.cuda.requirements says its list is partial (complete: false).
bool RequirementsPartial(const json& facts) {
  const json* cuda = facts.is_object() && facts.contains("cuda") ? &facts["cuda"] : nullptr;
  if (!cuda || !cuda->is_object() || !cuda->contains("requirements")) return false;
  const json& requirements = (*cuda)["requirements"];
  return requirements.is_object() && requirements.contains("complete") && requirements["complete"] == false;
}

bool HasEnv(const json& facts, const char* name) {
  const json* image = facts.is_object() && facts.contains("image") ? &facts["image"] : nullptr;
  return image && image->is_object() && image->contains("env") && (*image)["env"].is_object() &&
         (*image)["env"].contains(name);
}

void Add(FunctionRegistry& registry, std::string name, int min_args, int max_args, std::string summary,
         rules::FunctionImpl impl) {
  registry.Register(FunctionSpec{std::move(name), min_args, max_args, false, std::move(summary), std::move(impl), false, {}});
}

// A function of `N` string arguments: `impl` gets them as strings; a call
// with another type fails with StringArgument's error for the first such one.
template <size_t N, class Impl>
void AddOfStrings(FunctionRegistry& registry, std::string name, std::string summary, Impl impl) {
  Add(registry, std::move(name), N, N, std::move(summary), [impl](const Arguments& a) -> Result<Value> {
    std::array<std::string, N> strings;
    for (size_t i = 0; i < N; ++i) {
      auto text = rules::StringArgument(a, i);
      if (!text.ok()) return text.error();
      strings[i] = std::move(*text);
    }
    return std::apply(impl, strings);
  });
}

// A function that hands out its results where they are kept (rules::KeptImpl).
void AddKept(FunctionRegistry& registry, std::string name, int min_args, int max_args, std::string summary,
             rules::KeptImpl kept) {
  auto copied = [kept](const Arguments& a) -> Result<Value> {
    Value slot;
    auto at = kept(a, slot);
    if (!at.ok()) return at.error();
    return *at == &slot ? std::move(slot) : **at;
  };
  FunctionSpec spec{std::move(name), min_args, max_args, false, std::move(summary), std::move(copied), false, {}};
  spec.kept = std::move(kept);
  registry.Register(std::move(spec));
}

// A function whose calls the open PoolMemoScope remembers under the key
// `key_of` makes of them (nullopt: this call is not remembered).
using MemoKey = std::function<std::optional<std::string>(const PoolMemoScope&, const Arguments&)>;
void AddRemembered(FunctionRegistry& registry, std::string name, int min_args, int max_args, MemoKey key_of,
                   std::string summary, rules::FunctionImpl impl) {
  // The result as the memo keeps it, or in `slot` when it is not kept.
  auto kept = [key_of, impl](const Arguments& a, Value& slot) -> Result<const Value*> {
    PoolMemoScope* memo = PoolMemoScope::Active();
    std::optional<std::string> key = memo ? key_of(*memo, a) : std::nullopt;
    if (key)
      if (const Value* known = memo->Find(*key)) return known;
    auto result = impl(a);
    if (!result.ok()) return result.error();
    if (key)
      if (const Value* stored = memo->Put(std::move(*key), std::move(*result))) return stored;
    slot = std::move(*result);
    return &slot;
  };
  AddKept(registry, std::move(name), min_args, max_args, std::move(summary), std::move(kept));
}

// A function of the facts (argument `facts_arg`, if any) and a pool (argument
// `pool_arg`) only, remembered per image while Analyze has a PoolMemoScope
// open (analysis/pool_memo.h).
void AddPerPool(FunctionRegistry& registry, std::string name, int min_args, int max_args,
                std::optional<size_t> facts_arg, size_t pool_arg, std::string summary, rules::FunctionImpl impl) {
  MemoKey key_of = [name, facts_arg, pool_arg](const PoolMemoScope& memo, const Arguments& a) {
    return memo.Key(name, a, facts_arg, pool_arg);
  };
  AddRemembered(registry, name, min_args, max_args, std::move(key_of), std::move(summary), std::move(impl));
}

// The pool as SelectLibcuda reads it: the host driver and what decides the
// launch path (nvidia::ResolveLaunchPath). Pools that differ only in their
// GPU share one selection; since the selection is made from this projection
// and nothing else, it cannot depend on a field the key leaves out.
Pool LibcudaInputs(const Pool& pool) {
  Pool inputs;
  IMAGELINT_COPY_FIELDS(inputs, pool, driver, container_toolkit, runtime, cuda_compat_mode);
  return inputs;
}

std::string LibcudaInputsKey(const Pool& inputs) {
  std::string key = inputs.driver;
  for (const auto* field : {&inputs.container_toolkit, &inputs.runtime, &inputs.cuda_compat_mode}) {
    key += '\x1f';
    if (*field) key += "=" + **field;
  }
  return key;
}

// SelectLibcuda(facts, pool) and its JSON, remembered per facts and
// LibcudaInputs while a PoolMemoScope is open and `facts` is bound there.
// The pool value the rule passed is `pool_value`: a pool bound for the whole
// scope finds its selection again by address, without making the key.
const PoolMemoScope::KeptSelection& SelectedLibcuda(const rules::Argument& facts, const json* pool_value,
                                                    const Pool& pool, const Knowledge& knowledge,
                                                    PoolMemoScope::KeptSelection& slot) {
  PoolMemoScope* memo = PoolMemoScope::Active();
  if (memo)
    if (const PoolMemoScope::KeptSelection* known = memo->PoolSelection(&facts.json, pool_value)) return *known;
  const Pool inputs = LibcudaInputs(pool);
  std::optional<std::string> key;
  if (memo) key = memo->SelectionKey(facts.json, LibcudaInputsKey(inputs));
  if (key)
    if (const PoolMemoScope::KeptSelection* known = memo->FindSelection(*key))
      return memo->RememberPoolSelection(&facts.json, pool_value, known);
  // The image's part is read once per image (PoolMemoScope::ImageInputs).
  if (const nvidia::ImageInputs* image = memo ? memo->ImageInputs(facts.json, knowledge) : nullptr)
    slot.selection = nvidia::SelectLibcuda(*image, inputs, nvidia::ResolveLaunchPath(inputs, knowledge), knowledge);
  else
    slot.selection = nvidia::SelectLibcuda(facts.json, inputs, knowledge);
  slot.value = Value::Of(SelectionJson(slot.selection));
  if (key)
    if (const PoolMemoScope::KeptSelection* kept = memo->PutSelection(std::move(*key), std::move(slot)))
      return memo->RememberPoolSelection(&facts.json, pool_value, kept);
  return slot;
}

}  // namespace

FunctionRegistry KnowledgeFunctions(const Knowledge& knowledge) {
  const Knowledge* k = &knowledge;
  FunctionRegistry r;

  // ---- requirement check and launch path (container start)
  AddPerPool(r, "start_check", 2, 2, 0, 1,
      "start_check(facts, pool): the NVIDIA runtime's start check (requirements, launch path)",
      [k](const Arguments& a) -> Result<Value> {
        Pool slot;
        auto pool = PoolArgument(a[1].json, slot);
        if (!pool.ok()) return pool.error();
        // The image's part once per image, the pool's once per run (pool_memo.h).
        PoolMemoScope* memo = PoolMemoScope::Active();
        const nvidia::ImageInputs* image = memo ? memo->ImageInputs(a[0].json, *k) : nullptr;
        const nvidia::LaunchPath* path = memo ? memo->PoolLaunchPath(&a[1].json, **pool, *k) : nullptr;
        nvidia::StartCheck check =
            image && path ? nvidia::CheckStart(*image, **pool, *path,
                                               [&]() -> const nvidia::PoolInputs& {
                                                 return *memo->PoolInputs(&a[1].json, **pool, *k);
                                               })
                          : nvidia::CheckStart(a[0].json, **pool, *k);
        // Requirements read from a partial environment: one that fails is a
        // refusal whatever else the image sets, but "all satisfied" cannot be
        // told, nor can the legacy CUDA_VERSION rule (it applies only where
        // NVIDIA_REQUIRE_CUDA is absent, and the base may set it).
        if (check.checked && !check.disabled && RequirementsPartial(a[0].json) &&
            (check.satisfied || !HasEnv(a[0].json, "NVIDIA_REQUIRE_CUDA")))
          return Value::Unknown();
        ResultObject out;
        IMAGELINT_VISIT_FIELDS(out, check, checked, gpu_container, disabled, satisfied, message, requirement,
                               requirements);
        out("launch_path", LaunchPathJson(check.path));
        return Value::Of(out.Take());
      });
  AddPerPool(r, "launch_path", 1, 1, std::nullopt, 0, "launch_path(pool): how the pool's runtime starts GPU containers",
      [k](const Arguments& a) -> Result<Value> {
        Pool slot;
        auto pool = PoolArgument(a[0].json, slot);
        if (!pool.ok()) return pool.error();
        PoolMemoScope* memo = PoolMemoScope::Active();
        if (const nvidia::LaunchPath* path = memo ? memo->PoolLaunchPath(&a[0].json, **pool, *k) : nullptr)
          return Value::Of(LaunchPathJson(*path));
        return Value::Of(LaunchPathJson(nvidia::ResolveLaunchPath(**pool, *k)));
      });
  Add(r, "evaluate_requirement", 5, 5,
      "evaluate_requirement(text, cuda, driver, arch, brand): libnvidia-container's C evaluator on one device",
      [](const Arguments& a) -> Result<Value> {
        for (size_t i = 0; i < 5; ++i) {
          if (!a[i].json.is_string()) return ArgError("arguments must be strings");
        }
        nvidia::RequirementHost host;
        host.cuda = a[1].json.get<std::string>();
        host.driver = a[2].json.get<std::string>();
        host.devices.push_back({a[3].json.get<std::string>(), a[4].json.get<std::string>()});
        auto result = nvidia::EvaluateRequirement(a[0].json.get<std::string>(), host);
        ResultObject out;
        IMAGELINT_VISIT_FIELDS(out, result, satisfied, invalid, message, requirement);
        return Value::Of(out.Take());
      });

  // ---- which libcuda a process loads, and whether cuInit succeeds
  // Handed out where SelectedLibcuda keeps it: no copy per pool.
  AddKept(r, "libcuda", 2, 2, "libcuda(facts, pool): the libcuda.so.1 a CUDA process loads on this pool",
      [k](const Arguments& a, Value& slot) -> Result<const Value*> {
        Pool pool_slot;
        auto pool = PoolArgument(a[1].json, pool_slot);
        if (!pool.ok()) return pool.error();
        PoolMemoScope::KeptSelection selection;
        const PoolMemoScope::KeptSelection& chosen = SelectedLibcuda(a[0], &a[1].json, **pool, *k, selection);
        if (&chosen != &selection) return &chosen.value;
        slot = std::move(selection.value);
        return &slot;
      });
  AddPerPool(r, "driver_compat", 3, 3, 0, 2,
      "driver_compat(facts, runtime_version, pool): cuInit and runtime/driver compatibility ('' = cuInit only)",
      [k](const Arguments& a) -> Result<Value> {
        auto version = a[1].json.is_null() ? Result<std::string>(std::string()) : rules::StringArgument(a, 1);
        if (!version.ok()) return version.error();
        Pool slot;
        auto pool = PoolArgument(a[2].json, slot);
        if (!pool.ok()) return pool.error();
        PoolMemoScope::KeptSelection kept;
        const PoolMemoScope::KeptSelection& selection = SelectedLibcuda(a[0], &a[2].json, **pool, *k, kept);
        std::string requirement;
        const json& facts = a[0].json;
        if (facts.is_object() && facts.contains("image") && facts["image"].is_object() &&
            facts["image"].contains("env") && facts["image"]["env"].is_object()) {
          const json& env = facts["image"]["env"];
          if (auto it = env.find("NVIDIA_REQUIRE_CUDA"); it != env.end() && it->is_string())
            requirement = it->get<std::string>();
        }
        nvidia::DriverCompat compat = nvidia::CheckDriverCompat(*version, selection.selection, **pool, *k, requirement);
        ResultObject out;
        IMAGELINT_VISIT_FIELDS(out, compat, ok, mode, error, error_name, certain, message, disputed, dispute);
        out("libcuda", selection.value.json);
        return Value::Of(out.Take());
      });
  Add(r, "forward_compat_eligible", 1, 1,
      "forward_compat_eligible(pool): whether the pool's GPU supports forward compatibility (unknown if not known)",
      [k](const Arguments& a) -> Result<Value> {
        Pool slot;
        auto pool = PoolArgument(a[0].json, slot);
        if (!pool.ok()) return pool.error();
        return OptionalValue(nvidia::ForwardCompatEligible(**pool, *k));
      });
  Add(r, "compat_supports_branch", 2, 2,
      "compat_supports_branch(cuda_major_minor, branch): the forward-compat matrix (unknown without a row)",
      [k](const Arguments& a) -> Result<Value> {
        auto cuda = rules::StringArgument(a, 0);
        if (!cuda.ok()) return cuda.error();
        if (!a[1].json.is_number_integer()) return ArgError("the branch must be a number (460)");
        return OptionalValue(nvidia::CompatSupportsBranch(*cuda, a[1].json.get<int>(), *k));
      });
  Add(r, "compat_would_be_used", 3, 4,
      "compat_would_be_used(mechanism, compat_version, host_driver[, note]): the toolkit's compat decision",
      [](const Arguments& a) -> Result<Value> {
        auto mechanism = rules::StringArgument(a, 0), compat = rules::StringArgument(a, 1),
             host = rules::StringArgument(a, 2);
        if (!mechanism.ok()) return mechanism.error();
        if (!compat.ok()) return compat.error();
        if (!host.ok()) return host.error();
        json note = a.size() > 3 ? a[3].json : json(nullptr);
        return Value::Of(nvidia::CompatWouldBeUsed(*mechanism, *compat, *host, note));
      });

  // ---- kernels vs GPU
  // Remembered per binary of the image's facts, compute capability and
  // driver: every pool (and launch path) with that GPU and driver shares it.
  MemoKey kernels_key = [](const PoolMemoScope& memo, const Arguments& a) -> std::optional<std::string> {
    if (a.size() != 3 || a[0].unknown || a[1].unknown || a[2].unknown || !a[1].json.is_string() ||
        !a[2].json.is_string() || !memo.IsTrustedBinary(&a[0].json))
      return std::nullopt;
    return "kernels\x1f" + std::to_string(reinterpret_cast<uintptr_t>(&a[0].json)) + '\x1f' +
           a[1].json.get_ref<const std::string&>() + '\x1f' + a[2].json.get_ref<const std::string&>();
  };
  AddRemembered(r, "kernels", 3, 3, std::move(kernels_key),
      "kernels(binary, compute_capability, jit_driver): whether a binary has a kernel image for the GPU",
      [k](const Arguments& a) -> Result<Value> {
        auto cc = rules::StringArgument(a, 1), driver = rules::StringArgument(a, 2);
        if (!cc.ok()) return cc.error();
        if (!driver.ok()) return driver.error();
        if (!a[0].json.is_object()) return ArgError("the binary must be a binaries[] entry");
        nvidia::KernelCoverage coverage = nvidia::CheckKernels(a[0].json, *cc, *driver, *k);
        ResultObject out;
        IMAGELINT_VISIT_FIELDS(out, coverage, runs, via, ptx_only, error, error_name, message);
        return Value::Of(out.Take());
      });
  AddOfStrings<2>(r, "sass_runs_on", "sass_runs_on(sass, compute_capability)",
                  [k](const std::string& sass, const std::string& cc) {
                    return Value::Of(nvidia::SassRunsOn(sass, cc, *k));
                  });
  AddOfStrings<2>(r, "ptx_targets_cc", "ptx_targets_cc(arch, compute_capability)",
                  [](const std::string& arch, const std::string& cc) {
                    return Value::Of(nvidia::PtxTargetsCc(arch, cc));
                  });
  AddOfStrings<1>(r, "max_ptx_isa", "max_ptx_isa(driver): newest PTX ISA the driver JIT-compiles (unknown if not known)",
                  [k](const std::string& driver) { return OptionalValue(nvidia::MaxPtxIsaForDriver(driver, *k)); });
  AddOfStrings<1>(r, "ptx_isa_cuda", "ptx_isa_cuda(isa): CUDA release that introduced a PTX ISA",
                  [k](const std::string& isa) { return OptionalValue(nvidia::PtxIsaCudaVersion(isa, *k)); });
  AddOfStrings<2>(
      r, "arch_supported",
      "arch_supported(compute_capability, driver): whether the driver branch still supports the GPU architecture",
      [k](const std::string& cc, const std::string& driver) {
        return OptionalValue(nvidia::ArchitectureSupportedByDriver(cc, driver, *k));
      });

  // ---- versions and table lookups
  AddOfStrings<1>(r, "driver_branch", "driver_branch(driver): 460 for \"460.67\"", [](const std::string& driver) {
    auto branch = nvidia::DriverBranch(driver);
    return branch ? Value::Of(*branch) : Value::Of(nullptr);
  });
  AddOfStrings<1>(r, "host_cuda", "host_cuda(driver): the CUDA version a driver supports natively (nvidia-smi's)",
                  [k](const std::string& driver) {
                    auto branch = nvidia::DriverBranch(driver);
                    return branch ? OptionalValue(k->BranchCudaVersion(*branch)) : Value::Unknown();
                  });
  AddOfStrings<2>(
      r, "nvidia_version_compare",
      "nvidia_version_compare(a, b): libnvidia-container's numeric comparison (-1/0/1; unknown if not versions)",
      [](const std::string& x, const std::string& y) {
        auto order = nvidia::CompareVersions(x, y);
        return order ? Value::Of(*order) : Value::Unknown();
      });
  Add(r, "error_name", 1, 1, "error_name(code): CUDA error name", [k](const Arguments& a) -> Result<Value> {
    if (!a[0].json.is_number_integer()) return ArgError("the code must be a number");
    return Value::Of(nvidia::ErrorName(a[0].json.get<int>(), *k));
  });
  AddOfStrings<1>(r, "toolkit_release", "toolkit_release(version): the CUDA toolkit row (null if unknown)",
                  [k](const std::string& version) { return Row(k->FindToolkit(version)); });
  Add(r, "minor_floor", 1, 1, "minor_floor(cuda_major): minor-version compatibility row (null if none)",
      [k](const Arguments& a) -> Result<Value> {
        if (!a[0].json.is_number_integer()) return ArgError("the CUDA major must be a number");
        return Row(k->FindMinorFloor(a[0].json.get<int>()));
      });
  AddOfStrings<1>(r, "architecture", "architecture(compute_capability): architecture row (null if unknown)",
                  [k](const std::string& cc) { return Row(k->FindArchitecture(cc)); });
  AddOfStrings<1>(r, "gpu", "gpu(product): GPU row by nvidia-smi name (null if unknown)",
                  [k](const std::string& product) { return Row(k->FindGpu(product)); });
  AddOfStrings<1>(r, "closest_gpus", "closest_gpus(product): up to three known GPU names closest to it",
                  [k](const std::string& product) { return Value::Of(json(k->ClosestGpuNames(product, 3))); });
  Add(r, "newest_driver_branch", 0, 0, "newest_driver_branch(): the highest branch of driver-branches.yaml",
      [k](const Arguments&) -> Result<Value> {
        int newest = 0;
        for (const auto& row : k->Table("driver_branches")) newest = std::max(newest, row["branch"].get<int>());
        return Value::Of(newest);
      });
  Add(r, "knowledge_bundle", 0, 0, "knowledge_bundle(): {revision, date} of the knowledge bundle in use",
      [k](const Arguments&) -> Result<Value> {
        const json& rows = k->Table("bundle");
        if (rows.size() != 1) return Value::Unknown();
        return Value::Of(json{{"revision", rows[0]["revision"]}, {"date", rows[0]["as_of"]}});
      });
  Add(r, "driver_branch_info", 1, 1, "driver_branch_info(branch): driver branch row (null if unknown)",
      [k](const Arguments& a) -> Result<Value> {
        if (!a[0].json.is_number_integer()) return ArgError("the branch must be a number");
        return Row(k->FindBranch(a[0].json.get<int>()));
      });
  return r;
}

FunctionRegistry DefaultFunctions(const Knowledge& knowledge) {
  FunctionRegistry registry = rules::BuiltinFunctions();
  registry.Merge(KnowledgeFunctions(knowledge));
  return registry;
}

}  // namespace imagelint::analysis
