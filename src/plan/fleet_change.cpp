// --change values: parsed, then applied to a copy of the fleet. Values are
// checked by the fleet loader itself (a one-pool fleet file is written for
// each change and read back), so a change accepts exactly what a fleet file
// accepts, and a changed GPU brings the knowledge facts of the new one.
#include <algorithm>

#include <yaml-cpp/yaml.h>

#include "common/text.h"
#include "imagelint/knowledge.h"
#include "imagelint/plan.h"

namespace imagelint::plan {
namespace {

// What each changeable field of a pool carries over from the pool the
// loader built: a GPU change replaces every hardware fact of the old GPU.
struct FieldCopy {
  const char* field;
  void (*copy)(Pool& to, const Pool& from);
  const char* defaulted;  // the Pool::defaulted entry a given value clears, or null
};

void CopyComputeCapability(Pool& to, const Pool& from) {
  to.compute_capability = from.compute_capability;
  to.architecture = from.architecture;
  to.integrated = from.integrated;
}
// Another GPU brings its compute capability (with what follows from it),
// its brand and its class.
void CopyGpu(Pool& to, const Pool& from) {
  to.gpu = from.gpu;
  CopyComputeCapability(to, from);
  to.brand = from.brand;
  to.datacenter = from.datacenter;
}

// The launch paths a pool without a named runtime is judged on follow its
// toolkit (Pool::runtime_alternatives); a named runtime has none.
void CopyContainerToolkit(Pool& to, const Pool& from) {
  to.container_toolkit = from.container_toolkit;
  if (std::find(to.defaulted.begin(), to.defaulted.end(), "runtime") != to.defaulted.end())
    to.runtime_alternatives = from.runtime_alternatives;
}
void CopyRuntime(Pool& to, const Pool& from) {
  to.runtime = from.runtime;
  to.runtime_alternatives = from.runtime_alternatives;
}

const FieldCopy kFieldCopies[] = {
    {"driver", [](Pool& to, const Pool& from) { to.driver = from.driver; }, nullptr},
    {"gpu", CopyGpu, nullptr},
    {"compute_capability", CopyComputeCapability, nullptr},
    {"architecture", [](Pool& to, const Pool& from) { to.architecture = from.architecture; }, nullptr},
    {"brand", [](Pool& to, const Pool& from) { to.brand = from.brand; }, nullptr},
    {"datacenter", [](Pool& to, const Pool& from) { to.datacenter = from.datacenter; }, nullptr},
    {"integrated", [](Pool& to, const Pool& from) { to.integrated = from.integrated; }, nullptr},
    {"container_toolkit", CopyContainerToolkit, "container_toolkit"},
    {"runtime", CopyRuntime, "runtime"},
    {"platform", [](Pool& to, const Pool& from) { to.platform = from.platform; }, "platform"},
    {"cuda_compat_mode", [](Pool& to, const Pool& from) { to.cuda_compat_mode = from.cuda_compat_mode; }, nullptr},
    {"disable_require", [](Pool& to, const Pool& from) { to.disable_require = from.disable_require; }, nullptr},
    {"count", [](Pool& to, const Pool& from) { to.count = from.count; }, nullptr},
};

const FieldCopy* FindFieldCopy(const std::string& field) {
  for (const FieldCopy& copy : kFieldCopies)
    if (field == copy.field) return &copy;
  return nullptr;
}

std::string KnownFields() {
  std::string out;
  for (const FieldCopy& copy : kFieldCopies) out += (out.empty() ? "" : ", ") + std::string(copy.field);
  return out;
}

// A one-pool fleet file: `fields`, plus what the loader requires of a pool
// (driver, gpu or compute_capability) taken from `base` when not given.
std::string OnePoolYaml(const std::string& name, const std::vector<std::pair<std::string, std::string>>& fields,
                        const Pool* base) {
  YAML::Emitter out;
  out << YAML::BeginMap << YAML::Key << "pools" << YAML::Value << YAML::BeginSeq << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << YAML::DoubleQuoted << name;
  auto given = [&](const char* field) {
    return std::any_of(fields.begin(), fields.end(), [&](const auto& one) { return one.first == field; });
  };
  for (const auto& [field, value] : fields) out << YAML::Key << field << YAML::Value << YAML::DoubleQuoted << value;
  if (base != nullptr) {
    if (!given("driver")) out << YAML::Key << "driver" << YAML::Value << YAML::DoubleQuoted << base->driver;
    if (!given("gpu") && !given("compute_capability")) {
      if (!base->gpu.empty())
        out << YAML::Key << "gpu" << YAML::Value << YAML::DoubleQuoted << base->gpu;
      else
        out << YAML::Key << "compute_capability" << YAML::Value << YAML::DoubleQuoted
            << base->compute_capability.value_or("0.0");
    }
  }
  out << YAML::EndMap << YAML::EndSeq << YAML::EndMap;
  return out.c_str();
}

// The pool as the loader reads `fields` (on top of `base` when it exists).
Result<Pool> LoadChangedPool(const FleetChange& change, const std::string& name, const Pool* base,
                             const Knowledge& knowledge) {
  // Quoted scalars: the loader reads "true" and "8" as it reads true and 8.
  auto loaded = ParseFleet(OnePoolYaml(name, change.fields, base), "--change '" + change.text + "'", knowledge);
  if (!loaded.ok()) return MakeError("--change '" + change.text + "'", loaded.error().message);
  return loaded->pools.front();
}

}  // namespace

Result<FleetChange> ParseFleetChange(const std::string& text) {
  FleetChange change;
  change.text = text;
  size_t colon = text.find(':');
  auto bad = [&](const std::string& why) { return MakeError("--change '" + text + "'", why); };
  if (colon == std::string::npos) return bad("expected 'POOL: field=value, ...' or 'POOL: remove'");
  change.pool = Trim(text.substr(0, colon));
  if (change.pool.empty()) return bad("names no pool before ':'");
  std::string rest = Trim(text.substr(colon + 1));
  if (rest == "remove") {
    if (change.pool == "*") return bad("'*: remove' would retire the whole fleet");
    change.remove = true;
    return change;
  }
  for (const std::string& raw : SplitOn(rest, ',')) {
    std::string item = Trim(raw);
    if (item.empty()) continue;
    size_t equals = item.find('=');
    if (equals == std::string::npos) return bad("'" + item + "' is not field=value");
    std::string field = Trim(item.substr(0, equals));
    std::string value = Trim(item.substr(equals + 1));
    if (FindFieldCopy(field) == nullptr) return bad("unknown field '" + field + "' (known: " + KnownFields() + ")");
    if (value.empty()) return bad("field '" + field + "' has no value");
    for (const auto& earlier : change.fields)
      if (earlier.first == field) return bad("field '" + field + "' given twice");
    change.fields.emplace_back(field, value);
  }
  if (change.fields.empty()) return bad("changes no field");
  return change;
}

Result<Fleet> ApplyFleetChanges(const Fleet& fleet, const std::vector<FleetChange>& changes,
                                const Knowledge& knowledge) {
  Fleet out = fleet;
  for (const FleetChange& change : changes) {
    auto found = std::find_if(out.pools.begin(), out.pools.end(), [&](const Pool& p) { return p.name == change.pool; });
    if (change.remove) {
      if (found == out.pools.end())
        return MakeError("--change '" + change.text + "'", "no pool named '" + change.pool + "' to remove");
      out.pools.erase(found);
      continue;
    }
    if (change.pool == "*" || found != out.pools.end()) {
      for (Pool& pool : out.pools) {
        if (change.pool != "*" && pool.name != change.pool) continue;
        auto changed = LoadChangedPool(change, pool.name, &pool, knowledge);
        if (!changed.ok()) return changed.error();
        for (const auto& [field, value] : change.fields) {
          const FieldCopy* copy = FindFieldCopy(field);
          copy->copy(pool, *changed);
          if (copy->defaulted != nullptr)
            pool.defaulted.erase(std::remove(pool.defaulted.begin(), pool.defaulted.end(), copy->defaulted),
                                 pool.defaulted.end());
        }
        // What was observed on the old hosts no longer says what these do.
        pool.observed.clear();
        pool.source = "--change '" + change.text + "'";
      }
      continue;
    }
    // A new pool: the change is its whole definition.
    auto added = LoadChangedPool(change, change.pool, nullptr, knowledge);
    if (!added.ok()) return added.error();
    added->source = "--change '" + change.text + "'";
    added->line = 0;
    out.pools.push_back(std::move(*added));
  }
  if (out.pools.empty()) return MakeError("--change", "the changes leave no pool in the fleet");
  return out;
}

}  // namespace imagelint::plan
