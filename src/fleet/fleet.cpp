// The fleet YAML of DESIGN.md (docs/fleet.md).
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>
#include <type_traits>

#include "common/file_text.h"
#include "common/text.h"
#include "common/yaml.h"
#include "common/version.h"
#include "imagelint/fleet.h"
#include "imagelint/knowledge.h"

namespace imagelint {
namespace {

using nlohmann::json;

constexpr size_t kMaxFleetBytes = 16u << 20;
constexpr size_t kMaxPools = 100000;

// The launch paths and platforms imagelint models (docs/fleet.md): each runtime is
// a branch of nvidia::ResolveLaunchPath, so a new one needs code, not data. The
// values NVIDIA's own settings take (brands, cuda-compat-mode) come from the
// knowledge files.
const std::set<std::string> kRuntimes = {"docker-gpus", "nvidia-runtime", "cdi", "k8s-device-plugin"};
// The launch paths a pool that names no runtime may use besides the assumed
// docker-gpus: those its toolkit offers (container-toolkit.yaml `runtimes`),
// k8s-device-plugin left out because it resolves to the same launch path as
// nvidia-runtime (nvidia::ResolveLaunchPath).
std::vector<std::string> UnnamedRuntimeAlternatives(const Knowledge& knowledge, const std::string& toolkit) {
  std::vector<std::string> out;
  const nlohmann::json* row = knowledge.ToolkitBehaviour(toolkit);
  if (row == nullptr || !row->contains("runtimes") || !(*row)["runtimes"].is_array()) return out;
  for (const auto& runtime : (*row)["runtimes"]) {
    const std::string name = runtime.get<std::string>();
    if (name != "docker-gpus" && name != "k8s-device-plugin") out.push_back(name);
  }
  return out;
}

const std::set<std::string> kPoolKeys = {"name",     "gpu",      "compute_capability", "brand",
                                         "datacenter", "driver", "container_toolkit", "runtime",
                                         "platform", "count",    "cuda_compat_mode",   "disable_require",
                                         "integrated", "selector_labels", "source", "architecture",
                                         "observed"};
const std::set<std::string> kObservationKeys = {"image", "fact", "code", "name", "api", "host", "date"};
constexpr size_t kMaxObservations = 10000;
// "a, b, c" of one field of every row of a knowledge table (first-seen order,
// no repeats): the values a fleet field may take.
std::vector<std::string> KnownValues(const Knowledge& knowledge, std::string_view table, const char* field) {
  std::vector<std::string> out;
  auto add = [&](const nlohmann::json& value) {
    if (value.is_string() && std::find(out.begin(), out.end(), value.get<std::string>()) == out.end())
      out.push_back(value.get<std::string>());
  };
  for (const auto& row : knowledge.Table(table)) {
    if (!row.contains(field)) continue;
    if (row[field].is_array()) {
      for (const auto& value : row[field]) add(value);
    } else {
      add(row[field]);
    }
  }
  return out;
}

std::string JoinComma(const std::vector<std::string>& values) {
  std::string out;
  for (const auto& value : values) out += (out.empty() ? "" : ", ") + value;
  return out;
}

bool IsVersion(const std::string& s, int min_parts) {
  return IsDottedVersion(s) && static_cast<int>(std::count(s.begin(), s.end(), '.')) + 1 >= min_parts;
}

bool IsToolkitVersion(std::string s) {
  if (!s.empty() && s[0] == 'v') s = s.substr(1);
  size_t dash = s.find('-');
  std::string core = s.substr(0, dash);
  if (!IsVersion(core, 2)) return false;
  if (dash != std::string::npos) {
    std::string pre = s.substr(dash + 1);
    if (pre.empty()) return false;
    for (char c : pre)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.') return false;
  }
  return true;
}

class FleetParser {
 public:
  FleetParser(std::string source, const Knowledge& knowledge, std::filesystem::path memo_dir)
      : source_(std::move(source)), knowledge_(knowledge), memo_dir_(std::move(memo_dir)) {}

  Result<Fleet> Parse(std::string_view text) {
    if (text.size() > kMaxFleetBytes) return MakeError(source_, "fleet file too large");
    auto loaded = LoadYaml(text, source_, {}, YamlCheckMemo{memo_dir_});
    if (!loaded.ok()) return loaded.error();
    YAML::Node root = std::move(*loaded);
    if (!root.IsMap()) return At(root, "a fleet file is a mapping with a 'pools' list");
    for (const auto& entry : root) {
      std::string key = entry.first.Scalar();
      if (key != "pools" && key != "defaults")
        return At(entry.first, "unknown top-level key '" + key + "' (expected pools, defaults)");
    }
    YAML::Node defaults = root["defaults"];
    if (defaults && !defaults.IsMap()) return At(defaults, "'defaults' must be a mapping");
    if (defaults) {
      for (const auto& entry : defaults) {
        std::string key = entry.first.Scalar();
        if (key != "container_toolkit" && key != "runtime" && key != "platform" && key != "cuda_compat_mode")
          return At(entry.first, "unknown key in 'defaults': '" + key +
                                     "' (allowed: container_toolkit, runtime, platform, cuda_compat_mode)");
      }
    }
    YAML::Node pools = root["pools"];
    if (!pools) return At(root, "missing 'pools'");
    if (!pools.IsSequence()) return At(pools, "'pools' must be a list");
    if (pools.size() > kMaxPools) return At(pools, "too many pools");
    Fleet fleet;
    fleet.source = source_;
    std::set<std::string> names;
    size_t index = 0;
    for (const auto& node : pools) {
      ++index;
      auto pool = ParsePool(node, index, defaults);
      if (!pool.ok()) return pool.error();
      if (!names.insert(pool->name).second)
        return At(node["name"], "pool '" + pool->name + "': name used by an earlier pool (names must be unique)");
      fleet.pools.push_back(std::move(*pool));
    }
    return fleet;
  }

 private:
  Error At(const YAML::Node& node, const std::string& message) const { return ErrorAtNode(source_, node, message); }

  Result<std::string> ScalarField(const YAML::Node& node, const std::string& pool, const std::string& field) {
    if (!node.IsScalar() || node.Scalar().empty())
      return At(node, "pool '" + pool + "': field '" + field + "' must be a non-empty string");
    return node.Scalar();
  }

  Result<bool> BoolField(const YAML::Node& node, const std::string& pool, const std::string& field) {
    if (node.IsScalar()) {
      const std::string& s = node.Scalar();
      if (s == "true" || s == "yes") return true;
      if (s == "false" || s == "no") return false;
    }
    return At(node, "pool '" + pool + "': field '" + field + "' must be true or false");
  }

  // An optional field of the pool read into `out`; absent leaves `out` as the
  // GPU tables filled it.
  template <class T>
  Status ReadIfGiven(const YAML::Node& node, const std::string& pool, const char* field, T& out) {
    if (!node[field]) return OkStatus();
    if constexpr (std::is_same_v<T, std::optional<bool>>) {
      auto value = BoolField(node[field], pool, field);
      if (!value.ok()) return value.error();
      out = *value;
    } else {
      auto value = ScalarField(node[field], pool, field);
      if (!value.ok()) return value.error();
      out = *value;
    }
    return OkStatus();
  }

  Result<Pool> ParsePool(const YAML::Node& node, size_t index, const YAML::Node& defaults) {
    std::string label = "#" + std::to_string(index);
    if (!node.IsMap()) return At(node, "pool " + label + ": must be a mapping");
    Pool pool;
    pool.source = source_;
    pool.line = node.Mark().line + 1;
    if (!node["name"]) return At(node, "pool " + label + ": missing required field 'name'");
    auto name = ScalarField(node["name"], label, "name");
    if (!name.ok()) return name.error();
    pool.name = *name;
    const std::string& p = pool.name;
    for (const auto& entry : node) {
      std::string key = entry.first.Scalar();
      if (!kPoolKeys.count(key)) {
        std::string allowed;
        for (const auto& k : kPoolKeys) allowed += (allowed.empty() ? "" : ", ") + k;
        return At(entry.first, "pool '" + p + "': unknown field '" + key + "' (allowed: " + allowed + ")");
      }
    }
    // driver (required)
    if (!node["driver"]) return At(node, "pool '" + p + "': missing required field 'driver'");
    {
      auto driver = ScalarField(node["driver"], p, "driver");
      if (!driver.ok()) return driver.error();
      if (!IsVersion(*driver, 2))
        return At(node["driver"], "pool '" + p + "': field 'driver' must be a driver version like 535.104.05, got '" +
                                      *driver + "'");
      pool.driver = *driver;
    }
    // gpu by name, or explicit facts
    if (node["gpu"]) {
      auto gpu = ScalarField(node["gpu"], p, "gpu");
      if (!gpu.ok()) return gpu.error();
      pool.gpu = *gpu;
      // A product the tables do not know (newer than them, or a variant
      // they lack) keeps its name: the pool is judged without its GPU facts
      // (undecided where they matter) unless the file gives them, and the
      // rule IL020 says so with the closest known names.
      const json* row = knowledge_.FindGpu(*gpu);
      if (row != nullptr) {
        pool.gpu = row->at("name").get<std::string>();
        pool.compute_capability = row->at("compute_capability").get<std::string>();
        pool.brand = row->at("brand").get<std::string>();
        if (!row->at("forward_compat").is_null()) pool.datacenter = row->at("forward_compat").get<bool>();
        pool.architecture = row->at("architecture").get<std::string>();
        pool.integrated = row->value("integrated", false);
      }
    }
    if (node["compute_capability"]) {
      auto cc = ScalarField(node["compute_capability"], p, "compute_capability");
      if (!cc.ok()) return cc.error();
      if (!IsVersion(*cc, 2))
        return At(node["compute_capability"],
                  "pool '" + p + "': field 'compute_capability' must look like \"8.6\", got '" + *cc + "'");
      pool.compute_capability = *cc;
      if (const json* arch = knowledge_.FindArchitecture(*cc)) pool.architecture = arch->at("name").get<std::string>();
      for (const auto& row : knowledge_.Table("sass"))
        if (row["cc"] == *cc) pool.integrated = row["integrated"].get<bool>();
    }
    IMAGELINT_TRY(ReadIfGiven(node, p, "architecture", pool.architecture));
    if (node["brand"]) {
      auto brand = ScalarField(node["brand"], p, "brand");
      if (!brand.ok()) return brand.error();
      // NVML brands as requirements spell them (nvml-brands.yaml).
      const nlohmann::json* row = knowledge_.FindBrand(*brand);
      if (row == nullptr)
        return At(node["brand"], "pool '" + p + "': field 'brand': unknown brand '" + *brand + "' (known: " +
                                     JoinComma(KnownValues(knowledge_, "nvml_brands", "requirement")) + ")");
      pool.brand = row->at("requirement").get<std::string>();
    }
    IMAGELINT_TRY(ReadIfGiven(node, p, "datacenter", pool.datacenter));
    IMAGELINT_TRY(ReadIfGiven(node, p, "integrated", pool.integrated));
    if (!node["gpu"] && !node["compute_capability"])
      return At(node, "pool '" + p + "': give 'gpu' (a product name) or 'compute_capability'");
    // optional fields with defaults
    // The pool's own value, else the file's `defaults:` value (nodes are
    // built fresh: assigning to a yaml-cpp node would write through it).
    auto value_node = [&](const char* field) -> YAML::Node {
      if (node[field]) return YAML::Node(node[field]);
      if (defaults && defaults[field]) return YAML::Node(defaults[field]);
      return YAML::Node(YAML::NodeType::Undefined);
    };
    auto optional_string = [&](const char* field) -> Result<std::optional<std::string>> {
      YAML::Node value = value_node(field);
      if (!value.IsDefined()) return std::optional<std::string>();
      auto s = ScalarField(value, p, field);
      if (!s.ok()) return s.error();
      return std::optional<std::string>(*s);
    };
    {
      auto toolkit = optional_string("container_toolkit");
      if (!toolkit.ok()) return toolkit.error();
      if (*toolkit) {
        if (!IsToolkitVersion(**toolkit))
          return At(value_node("container_toolkit"), "pool '" + p +
                                                         "': field 'container_toolkit' must be a version like 1.17.4, got '" +
                                                         **toolkit + "'");
        pool.container_toolkit = **toolkit;
      } else {
        pool.container_toolkit = knowledge_.NewestContainerToolkit();
        pool.defaulted.push_back("container_toolkit");
      }
    }
    {
      auto runtime = optional_string("runtime");
      if (!runtime.ok()) return runtime.error();
      if (*runtime) {
        if (!kRuntimes.count(**runtime))
          return At(value_node("runtime"), "pool '" + p + "': field 'runtime' must be one of docker-gpus, nvidia-runtime, "
                                                         "cdi, k8s-device-plugin, got '" + **runtime + "'");
        pool.runtime = **runtime;
      } else {
        pool.runtime = "docker-gpus";
        pool.defaulted.push_back("runtime");
        pool.runtime_alternatives = UnnamedRuntimeAlternatives(knowledge_, *pool.container_toolkit);
      }
    }
    {
      auto mode = optional_string("cuda_compat_mode");
      if (!mode.ok()) return mode.error();
      if (*mode) {
        // The container toolkit's cuda-compat-mode values (container-toolkit.yaml).
        std::vector<std::string> modes = KnownValues(knowledge_, "container_toolkit", "compat_modes");
        if (std::find(modes.begin(), modes.end(), **mode) == modes.end())
          return At(value_node("cuda_compat_mode"), "pool '" + p + "': field 'cuda_compat_mode' must be one of " +
                                                        JoinComma(modes) + ", got '" + **mode + "'");
        pool.cuda_compat_mode = **mode;
      }
    }
    {
      auto platform = optional_string("platform");
      if (!platform.ok()) return platform.error();
      if (*platform) {
        // Parsed once, normalised (aarch64 and linux/arm64/v8 are linux/arm64):
        // every later step compares Platforms.
        auto parsed = Platform::Parse(**platform);
        if (!parsed.ok() || parsed->os != "linux")
          return At(value_node("platform"), "pool '" + p + "': field 'platform' must be a Linux os/arch[/variant] "
                                                "such as linux/amd64 or linux/arm64, got '" + **platform + "'");
        pool.platform = *parsed;
      } else {
        pool.defaulted.push_back("platform");
      }
    }
    IMAGELINT_TRY(ReadIfGiven(node, p, "disable_require", pool.disable_require));
    if (node["count"]) {
      const YAML::Node& count = node["count"];
      bool ok = count.IsScalar() && !count.Scalar().empty() && count.Scalar().size() <= 9;
      if (ok)
        for (char c : count.Scalar()) ok &= std::isdigit(static_cast<unsigned char>(c)) != 0;
      if (!ok) return At(count, "pool '" + p + "': field 'count' must be a non-negative integer");
      pool.count = std::stoi(count.Scalar());
    }
    IMAGELINT_TRY(ReadIfGiven(node, p, "source", pool.source));
    if (node["selector_labels"]) {
      const YAML::Node& labels = node["selector_labels"];
      if (!labels.IsMap()) return At(labels, "pool '" + p + "': field 'selector_labels' must be a mapping");
      for (const auto& entry : labels) {
        if (!entry.second.IsScalar())
          return At(entry.second, "pool '" + p + "': selector label values must be strings");
        pool.selector_labels[entry.first.Scalar()] = entry.second.Scalar();
      }
    }
    if (node["observed"]) {
      auto observed = ParseObserved(node["observed"], p);
      if (!observed.ok()) return observed.error();
      pool.observed = std::move(*observed);
    }
    return pool;
  }

  // `observed: [{image, fact, code, name, api, host, date}]` (docs/probe.md).
  Result<std::vector<Observation>> ParseObserved(const YAML::Node& list, const std::string& p) {
    if (!list.IsSequence()) return At(list, "pool '" + p + "': field 'observed' must be a list");
    if (list.size() > kMaxObservations) return At(list, "pool '" + p + "': more than 10000 observations");
    std::vector<Observation> out;
    for (const auto& item : list) {
      if (!item.IsMap()) return At(item, "pool '" + p + "': each 'observed' entry must be a mapping");
      for (const auto& entry : item)
        if (!kObservationKeys.count(entry.first.Scalar()))
          return At(entry.first, "pool '" + p + "': unknown field '" + entry.first.Scalar() +
                                     "' in 'observed' (allowed: image, fact, code, name, api, host, date)");
      Observation seen;
      seen.line = item.Mark().line + 1;
      for (const char* field : {"image", "fact", "name", "api", "host", "date"}) {
        if (!item[field]) continue;
        auto value = ScalarField(item[field], p, std::string("observed.") + field);
        if (!value.ok()) return value.error();
        std::string& slot = std::string_view(field) == "image" ? seen.image
                            : std::string_view(field) == "fact" ? seen.fact
                            : std::string_view(field) == "name" ? seen.name
                            : std::string_view(field) == "api"  ? seen.api
                            : std::string_view(field) == "host" ? seen.host
                                                                : seen.date;
        slot = *value;
      }
      if (seen.image.empty() && seen.fact.empty())
        return At(item, "pool '" + p + "': an 'observed' entry needs 'image' (a digest) or 'fact'");
      if (!seen.image.empty() && seen.image.rfind("sha256:", 0) != 0)
        return At(item["image"], "pool '" + p + "': observed 'image' must be a digest sha256:..., got '" +
                                     seen.image + "'");
      if (seen.host.empty() || seen.date.empty())
        return At(item, "pool '" + p + "': an 'observed' entry needs 'host' and 'date'");
      bool date_ok = seen.date.size() == 10 && seen.date[4] == '-' && seen.date[7] == '-';
      for (size_t i = 0; date_ok && i < 10; ++i)
        date_ok = (i == 4 || i == 7) || std::isdigit(static_cast<unsigned char>(seen.date[i]));
      if (!date_ok) return At(item["date"], "pool '" + p + "': observed 'date' must be YYYY-MM-DD, got '" + seen.date + "'");
      const YAML::Node& code = item["code"];
      bool code_ok = code && code.IsScalar() && !code.Scalar().empty() && code.Scalar().size() <= 6;
      if (code_ok)
        for (char c : code.Scalar()) code_ok &= std::isdigit(static_cast<unsigned char>(c)) != 0;
      if (!code_ok) return At(code ? code : item, "pool '" + p + "': observed 'code' must be a CUDA error code (0 = ran)");
      seen.code = std::stoi(code.Scalar());
      out.push_back(std::move(seen));
    }
    return out;
  }

  std::string source_;
  const Knowledge& knowledge_;
  std::filesystem::path memo_dir_;  // where a passed YAML limits check is remembered ("" = nowhere)
};

}  // namespace

Result<Fleet> ParseFleet(std::string_view yaml_text, const std::string& source, const Knowledge& knowledge,
                         const std::filesystem::path& yaml_memo_dir) {
  FleetParser parser(source, knowledge, yaml_memo_dir);
  try {
    return parser.Parse(yaml_text);
  } catch (const YAML::Exception& e) {
    return MakeErrorAtLine(source, e.mark.line + 1, e.mark.column + 1, "invalid fleet file: " + e.msg);
  }
}

Result<Fleet> LoadFleetFile(const std::string& path, const Knowledge& knowledge,
                            const std::filesystem::path& yaml_memo_dir) {
  auto text = ReadBoundedFile(path, kMaxFleetBytes, "fleet file", FileKinds::kRegularOnly);
  if (!text.ok()) return text.error();
  return ParseFleet(*text, path, knowledge, yaml_memo_dir);
}

std::vector<Platform> PoolsByPlatform::Platforms() const {
  std::vector<Platform> out;
  for (const PlatformPools& group : groups) out.push_back(group.platform);
  return out;
}

const PlatformPools* PoolsByPlatform::Find(const Platform& platform) const {
  for (const PlatformPools& group : groups)
    if (group.platform == platform) return &group;
  return nullptr;
}

PoolsByPlatform GroupPoolsByPlatform(const Fleet& fleet) {
  PoolsByPlatform out;
  for (size_t p = 0; p < fleet.pools.size(); ++p) {
    const Platform platform = fleet.pools[p].platform.Normalized();
    auto group = std::find_if(out.groups.begin(), out.groups.end(),
                              [&](const PlatformPools& g) { return g.platform == platform; });
    if (group == out.groups.end()) group = out.groups.insert(out.groups.end(), PlatformPools{platform, {}});
    group->pools.push_back(p);
  }
  return out;
}

}  // namespace imagelint
