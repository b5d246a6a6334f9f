// From Dockerfile text to imagelint.facts/v1: walks the target stage's chain of
// stages, starting from what knowledge says about the base image, and applies
// each instruction (ENV, ARG, LABEL, RUN, COPY, ADD) to a model of the image.
// Every row carries the line that caused it; what cannot be known is left out
// and listed in facts.dockerfile.unknown.
#include <fnmatch.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "dockerfile/knowledge.h"
#include "dockerfile/shell.h"
#include "dockerfile/util.h"
#include "imagelint/dockerfile.h"
#include "imagelint/knowledge.h"

namespace imagelint::dockerfile {
namespace {

using json = nlohmann::json;

constexpr const char* kFactsSchema = "imagelint.facts/v1";
constexpr size_t kMaxCreatedBy = 400;

std::string BaseName(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}
std::string DirName(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return "";
  return slash == 0 ? "/" : path.substr(0, slash);
}
std::string CleanDir(std::string dir) {
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  std::string out;
  for (size_t i = 0; i < dir.size(); ++i)
    if (!(dir[i] == '/' && i + 1 < dir.size() && dir[i + 1] == '/')) out.push_back(dir[i]);
  return out;
}
// Strips a Debian revision: "465.19.01-1" -> "465.19.01", "1:550.54.14-1" -> "550.54.14".
std::string UpstreamVersion(std::string version) {
  size_t colon = version.find(':');
  if (colon != std::string::npos) version = version.substr(colon + 1);
  size_t dash = version.rfind('-');
  if (dash != std::string::npos) version = version.substr(0, dash);
  return version;
}
// "cu113" -> "11.3", "cu102" -> "10.2", "cu92" -> "9.2", "cu130" -> "13.0".
std::string CudaFromVariant(const std::string& variant) {
  if (!StartsWith(variant, "cu")) return "";
  std::string digits = variant.substr(2);
  if (digits.size() < 2 || digits.size() > 4 || !std::all_of(digits.begin(), digits.end(), ::isdigit)) return "";
  return digits.substr(0, digits.size() - 1) + "." + digits.substr(digits.size() - 1);
}

// Paths under which a driver file is reachable: the /usr/local/cuda symlink
// and the libcuda.so.1 / libcuda.so links the packages ship beside it.
json AliasesFor(const std::string& path, const std::string& cuda_home, const std::string& kind) {
  json out = json::array();
  std::string dir = path.substr(0, path.rfind('/'));
  std::vector<std::string> dirs = {dir};
  if (!cuda_home.empty() && dir.rfind(cuda_home, 0) == 0) dirs.push_back("/usr/local/cuda" + dir.substr(cuda_home.size()));
  if (kind == "stub" && dir.find("/targets/") != std::string::npos) {
    dirs.push_back(cuda_home + "/lib64/stubs");
    dirs.push_back("/usr/local/cuda/lib64/stubs");
  }
  std::string base = path.substr(path.rfind('/') + 1);
  for (const std::string& d : dirs) {
    if (d + "/" + base != path) out.push_back(d + "/" + base);
    if (kind == "compat" && base != "libcuda.so.1") out.push_back(d + "/libcuda.so.1");
    if (kind == "compat" && base != "libcuda.so") out.push_back(d + "/libcuda.so");
  }
  return out;
}

// Splits ENV/LABEL/ARG arguments into words at unquoted blanks, keeping quotes
// and escapes for ExpandWord.
std::vector<std::string> SplitKeepingQuotes(std::string_view text, char escape) {
  std::vector<std::string> out;
  std::string current;
  char quote = 0;
  bool have = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == escape && quote != '\'' && i + 1 < text.size()) {
      current.push_back(c);
      current.push_back(text[++i]);
      have = true;
      continue;
    }
    if (quote) {
      if (c == quote) quote = 0;
      current.push_back(c);
      continue;
    }
    if (c == '"' || c == '\'') {
      quote = c;
      current.push_back(c);
      have = true;
      continue;
    }
    if (c == ' ' || c == '\t') {
      if (have) out.push_back(current);
      current.clear();
      have = false;
      continue;
    }
    current.push_back(c);
    have = true;
  }
  if (have) out.push_back(current);
  return out;
}

struct ImageRef {
  std::string repository;  // "nvidia/cuda", "nvcr.io/nvidia/pytorch"
  std::string tag;
  std::string digest;
};
ImageRef ParseRef(const std::string& ref) {
  ImageRef out;
  std::string rest = ref;
  size_t at = rest.find('@');
  if (at != std::string::npos) {
    out.digest = rest.substr(at + 1);
    rest = rest.substr(0, at);
  }
  size_t slash = rest.rfind('/');
  size_t colon = rest.rfind(':');
  if (colon != std::string::npos && (slash == std::string::npos || colon > slash)) {
    out.tag = rest.substr(colon + 1);
    rest = rest.substr(0, colon);
  }
  out.repository = ToLower(rest);
  for (const char* prefix : {"docker.io/library/", "docker.io/", "index.docker.io/", "registry.hub.docker.com/"})
    if (StartsWith(out.repository, prefix)) out.repository = out.repository.substr(std::string(prefix).size());
  return out;
}

// The model of one stage's image while instructions are applied.
struct State {
  std::map<std::string, std::string> env;
  std::vector<std::string> env_order;
  json env_provenance = json::object();  // NAME -> {dockerfile_line, origin}
  std::map<std::string, std::string> args;  // ARG values in scope (not in the image)
  json labels = json::object();
  json layers = json::array();
  json base = json::object();
  json runtimes = json::array();
  json drivers = json::array();
  json packages = json::array();
  json frameworks = json::array();
  json ld_so_conf = json::array();
  json unknown = json::array();
  json notes = json::array();
  json changes = json::array();  // removals and overrides, with their lines
  bool drivers_known = false;
  bool runtimes_known = false;
  bool frameworks_known = false;
  bool env_known = false;       // the base image's env is known
  bool ld_so_conf_known = false;
  std::string cuda_home;        // "/usr/local/cuda-11.3": where /usr/local/cuda points
  std::string os = "linux";
  std::string architecture;     // "amd64"
  std::string target_triplet = "x86_64-linux";
  std::string lib_triplet = "x86_64-linux-gnu";
  char shell_escape = '\\';

  void SetEnv(const std::string& name, const std::string& value, int line, const std::string& origin) {
    if (!env.count(name)) env_order.push_back(name);
    env[name] = value;
    env_provenance[name] = {{"dockerfile_line", line}, {"origin", origin}};
  }
  // ARG values then ENV (ENV wins, as in BuildKit).
  std::map<std::string, std::string> Vars() const {
    std::map<std::string, std::string> vars = args;
    for (const auto& [k, v] : env) vars[k] = v;
    return vars;
  }
};

class Builder {
 public:
  Builder(const Dockerfile& file, const DockerfileOptions& options, const DockerfileKnowledge& knowledge)
      : file_(file), options_(options), k_(knowledge) {}

  Result<DockerfileAnalysis> Run() {
    IMAGELINT_TRY(GlobalArgs());
    size_t target = file_.stages.size() - 1;
    if (!options_.target.empty()) {
      std::string wanted = ToLower(options_.target);
      bool found = false;
      for (size_t s = 0; s < file_.stages.size(); ++s)
        if (file_.stages[s].name == wanted) {
          target = s;
          found = true;
        }
      if (!found) return MakeError(file_.path, "target stage \"" + options_.target + "\" not found");
    }
    auto state = StageState(target, 0);
    if (!state.ok()) return state.error();
    DockerfileAnalysis out;
    out.target_stage = target;
    out.facts = Facts(*state, target);
    out.suppressions = file_.suppressions;
    out.dockerfile = file_;
    return out;
  }

 private:
  // ------------------------------------------------------------ errors
  Error ErrorAt(const Instruction& inst, const std::string& message) const {
    return MakeErrorAtLine(file_.path, inst.line, inst.column, message);
  }
  Result<std::string> Expand(const Instruction& inst, std::string_view word, const std::map<std::string, std::string>& vars,
                             bool* exact = nullptr) const {
    auto expanded = ExpandWord(word, vars, file_.escape);
    if (!expanded.ok()) return ErrorAt(inst, expanded.error().message);
    if (exact) *exact = expanded->exact;
    return expanded->value;
  }

  // -------------------------------------------------------------- ARGs
  std::map<std::string, std::string> PlatformArgs(const std::string& platform) const {
    std::map<std::string, std::string> out;
    auto parts = SplitOn(platform, '/');
    out["TARGETPLATFORM"] = platform;
    out["TARGETOS"] = parts.size() > 0 ? parts[0] : "linux";
    out["TARGETARCH"] = parts.size() > 1 ? parts[1] : "amd64";
    out["TARGETVARIANT"] = parts.size() > 2 ? parts[2] : "";
    out["BUILDPLATFORM"] = "linux/amd64";
    out["BUILDOS"] = "linux";
    out["BUILDARCH"] = "amd64";
    out["BUILDVARIANT"] = "";
    return out;
  }

  // Declares ARGs from `inst` into `scope`: build args win over defaults;
  // `inherited` (global ARGs) provides values for redeclared names.
  Status DeclareArgs(const Instruction& inst, std::map<std::string, std::string>& scope,
                     const std::map<std::string, std::string>& inherited, const std::map<std::string, std::string>& vars_in) {
    std::map<std::string, std::string> vars = vars_in;
    for (const std::string& word : SplitKeepingQuotes(inst.arguments, file_.escape)) {
      size_t eq = word.find('=');
      std::string name = word.substr(0, eq);
      if (name.empty() || !std::all_of(name.begin(), name.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }))
        return ErrorAt(inst, "invalid ARG name \"" + name.substr(0, 64) + "\"");
      auto build = options_.build_args.find(name);
      if (build != options_.build_args.end()) {
        scope[name] = build->second;
      } else if (eq != std::string::npos) {
        auto value = Expand(inst, word.substr(eq + 1), vars);
        if (!value.ok()) return value.error();
        scope[name] = *value;
      } else if (auto it = inherited.find(name); it != inherited.end()) {
        scope[name] = it->second;
      } else {
        scope.erase(name);
        declared_unset_.insert(name);
      }
      if (scope.count(name)) vars[name] = scope[name];
      used_build_args_.insert(name);
    }
    return OkStatus();
  }

  Status GlobalArgs() {
    global_args_ = PlatformArgs(options_.platform);
    for (const Instruction& inst : file_.instructions) {
      if (inst.stage != SIZE_MAX) break;
      IMAGELINT_TRY(DeclareArgs(inst, global_args_, {}, global_args_));
    }
    return OkStatus();
  }

  // ------------------------------------------------------------ stages
  Result<State> StageState(size_t index, int depth) {
    if (depth > static_cast<int>(file_.stages.size())) return MakeError(file_.path, "stage chain loops");
    auto cached = stage_cache_.find(index);
    if (cached != stage_cache_.end()) return cached->second;
    const Stage& stage = file_.stages[index];
    const Instruction& from = file_.instructions[stage.from_instruction];
    auto base_ref = Expand(from, stage.base, global_args_);
    if (!base_ref.ok()) return base_ref.error();
    std::string platform = options_.platform;
    if (!stage.platform.empty()) {
      auto expanded = Expand(from, stage.platform, global_args_);
      if (!expanded.ok()) return expanded.error();
      platform = *expanded;
    }
    State state;
    // FROM <earlier stage>: continue from that stage's image.
    std::optional<size_t> parent;
    for (size_t s = 0; s < index; ++s)
      if (!file_.stages[s].name.empty() && file_.stages[s].name == ToLower(*base_ref)) parent = s;
    if (parent) {
      auto parent_state = StageState(*parent, depth + 1);
      if (!parent_state.ok()) return parent_state.error();
      state = *parent_state;
      state.args.clear();
      state.layers.push_back(Layer(from, false));
    } else {
      BaseImage(from, *base_ref, platform, state);
    }
    // Platform ARGs are visible inside a stage only when declared; keep the
    // global scope for redeclaration.
    for (size_t i = stage.from_instruction + 1; i < stage.end_instruction; ++i) {
      IMAGELINT_TRY(Apply(file_.instructions[i], state));
    }
    stage_cache_[index] = state;
    return state;
  }

  json Layer(const Instruction& inst, bool base) const {
    std::string created_by = inst.original.size() > kMaxCreatedBy ? inst.original.substr(0, kMaxCreatedBy) + "…"
                                                                   : inst.original;
    json layer = {{"created_by", created_by}, {"dockerfile", file_.path}, {"dockerfile_line", inst.line},
                  {"instruction", inst.keyword}};
    if (base) layer["base_image"] = true;
    if (inst.keyword != "RUN" && inst.keyword != "COPY" && inst.keyword != "ADD" && !base) layer["empty_layer"] = true;
    return layer;
  }

  // Common provenance of a fact row.
  json Where(const Instruction& inst, const State& state, const std::string& origin) const {
    std::string created_by = inst.original.size() > kMaxCreatedBy ? inst.original.substr(0, kMaxCreatedBy) + "…"
                                                                   : inst.original;
    return {{"dockerfile", file_.path},
            {"dockerfile_line", inst.line},
            {"layer", state.layers.empty() ? 0 : state.layers.size() - 1},
            {"created_by", created_by},
            {"origin", origin}};
  }
  void Unknown(State& state, const Instruction& inst, const std::string& fact, const std::string& reason) const {
    state.unknown.push_back({{"fact", fact}, {"dockerfile", file_.path}, {"dockerfile_line", inst.line}, {"reason", reason}});
  }
  void Note(State& state, const Instruction& inst, const std::string& text) const {
    state.notes.push_back({{"dockerfile_line", inst.line}, {"note", text}});
  }

  // ------------------------------------------------------------ base images
  void BaseImage(const Instruction& from, const std::string& ref_text, const std::string& platform, State& state) {
    state.layers.push_back(Layer(from, true));
    auto parts = SplitOn(platform, '/');
    state.os = parts.size() > 0 && !parts[0].empty() ? parts[0] : "linux";
    state.architecture = parts.size() > 1 ? parts[1] : "amd64";
    if (state.architecture == "arm64") {
      state.target_triplet = "sbsa-linux";
      state.lib_triplet = "aarch64-linux-gnu";
    }
    ImageRef ref = ParseRef(ref_text);
    json base = {{"ref", ref_text}, {"repository", ref.repository}, {"tag", ref.tag}, {"digest", ref.digest},
                 {"platform", platform}, {"dockerfile", file_.path}, {"dockerfile_line", from.line}, {"known", false}};
    auto finish = [&](const std::string& kind, const std::string& reason) {
      base["kind"] = kind;
      if (!reason.empty()) {
        base["reason"] = reason;
        Unknown(state, from, "base-image", reason);
      }
      state.base = base;
    };
    if (ref_text == "scratch") {
      state.drivers_known = state.runtimes_known = state.frameworks_known = state.env_known = true;
      state.ld_so_conf_known = true;
      base["known"] = true;
      finish("scratch", "");
      return;
    }
    bool is_cuda = std::find(k_.cuda_repositories.begin(), k_.cuda_repositories.end(), ref.repository) !=
                   k_.cuda_repositories.end();
    bool is_torch = std::find(k_.pytorch_repositories.begin(), k_.pytorch_repositories.end(), ref.repository) !=
                    k_.pytorch_repositories.end();
    if ((is_cuda || is_torch) && ref.tag.empty()) {
      finish(is_cuda ? "nvidia/cuda" : "pytorch/pytorch",
             ref.digest.empty() ? "no tag: the release cannot be told"
                                : "digest-pinned without a tag: the release behind " + ref.digest + " cannot be told; "
                                  "write FROM repo:tag@digest");
      return;
    }
    if (is_cuda) {
      CudaBase(from, ref, base, state);
      finish("nvidia/cuda", base.value("known", false) ? "" : base.value("reason", "unknown nvidia/cuda tag"));
      return;
    }
    if (is_torch) {
      TorchBase(from, ref, base, state);
      finish("pytorch/pytorch", "");
      return;
    }
    if (StartsWith(ref.repository, k_.ngc_prefix)) {
      finish("ngc", "NGC container " + ref.repository + ":" + ref.tag +
                        ": the knowledge files hold no per-release data for NGC images (" + k_.ngc_source + ")");
      return;
    }
    finish("unknown", "base image " + ref_text + " is not in base-images.yaml: its CUDA facts are unknown");
  }

  void CudaBase(const Instruction& from, const ImageRef& ref, json& base, State& state) {
    static const std::regex tag_re(R"(^(\d+\.\d+(?:\.\d+)?)-(?:(cudnn\d*)-)?([a-z]+)(?:-(.+))?$)");
    std::smatch m;
    if (!std::regex_match(ref.tag, m, tag_re) ||
        std::find(k_.cuda_flavors.begin(), k_.cuda_flavors.end(), m[3].str()) == k_.cuda_flavors.end()) {
      base["reason"] = "nvidia/cuda tag \"" + ref.tag + "\" does not follow X.Y[.Z]-[cudnnN-]{base,runtime,devel}-<os>";
      return;
    }
    std::string version = m[1];
    std::string flavor = m[3];
    std::string os_name = m[4].matched ? m[4].str() : "";
    const CudaRelease* release = k_.FindRelease(version);
    base["cuda_tag_version"] = version;
    base["flavor"] = flavor;
    if (m[2].matched) base["cudnn"] = m[2].str();
    base["distribution"] = os_name;
    if (!release) {
      base["reason"] = "nvidia/cuda " + version + " is not in base-images.yaml";
      return;
    }
    base["known"] = true;
    base["cuda_version"] = release->cuda;
    base["source"] = k_.SourceText(release->source);
    if (std::count(version.begin(), version.end(), '.') == 1) {
      base["tag_resolution"] = "minor-only tag " + version + " taken as the newest known release " + release->cuda +
                               " — UNCONFIRMED";
      Note(state, from, base["tag_resolution"]);
    }
    bool ubuntu = StartsWith(os_name, "ubuntu") || os_name.empty();
    std::string mm = MajorMinor(release->cuda);
    state.cuda_home = "/usr/local/cuda-" + mm;
    state.env_known = state.drivers_known = state.runtimes_known = state.frameworks_known = true;
    state.ld_so_conf_known = true;
    if (state.architecture == "arm64" && !k_.arm64_from.empty() && CompareVersions(release->cuda, k_.arm64_from) < 0)
      Note(state, from, "arm64 images of CUDA " + release->cuda + " are not recorded (" + k_.arm64_source + ")");

    std::string from_src = "base-image";
    auto env = [&](const std::string& name, const std::string& value) { state.SetEnv(name, value, from.line, from_src); };
    env("NVARCH", state.architecture == "arm64" ? "sbsa" : "x86_64");
    env("NVIDIA_REQUIRE_CUDA", release->require);
    env("NV_CUDA_CUDART_VERSION", release->cudart + "-1");
    bool has_compat = !release->compat_libcuda.empty() && CompareVersions(release->cuda, k_.compat_from) >= 0;
    bool compat_arch_skip = has_compat && ubuntu && state.architecture != "amd64" && state.architecture != "ppc64le" &&
                            CompareVersions(release->cuda, k_.compat_ubuntu_amd64_only_through) <= 0;
    std::string compat_package = "cuda-compat-" + std::string(mm).replace(mm.find('.'), 1, "-");
    if (has_compat && ubuntu && state.architecture == "amd64" &&
        CompareVersions(release->cuda, k_.compat_ubuntu_amd64_only_through) <= 0)
      env("NV_CUDA_COMPAT_PACKAGE", compat_package);
    env("CUDA_VERSION", release->cuda);
    for (const auto& [name, value] : k_.cuda_env) env(name, value);
    for (const LdPathRow& row : k_.ld_library_path)
      if (CompareVersions(release->cuda, row.from) >= 0 && CompareVersions(release->cuda, row.to) <= 0) {
        env("LD_LIBRARY_PATH", row.value);
        break;
      }
    if (flavor == "devel")
      for (const auto& [name, value] : k_.cuda_devel_env) env(name, value);
    base["env_source"] = k_.SourceText(k_.cuda_env_source);

    json where = Where(from, state, "base-image");
    // cudart of the release.
    std::string major = SplitOn(release->cuda, '.')[0];
    std::string soname = CompareVersions(release->cuda, "11.0") >= 0 && CompareVersions(release->cuda, "12.0") < 0
                             ? "libcudart.so.11.0"
                         : CompareVersions(release->cuda, "12.0") >= 0 ? "libcudart.so." + major
                                                                       : "libcudart.so." + mm;
    json runtime = where;
    runtime.update({{"path", state.cuda_home + "/targets/" + state.target_triplet + "/lib/libcudart.so." + release->cudart},
                    {"version", release->cudart},
                    {"soname", soname},
                    {"source", "base-image"},
                    {"knowledge", k_.SourceText(release->source)}});
    state.runtimes.push_back(runtime);
    if (has_compat && !compat_arch_skip) {
      json driver = where;
      driver.update({{"name", "libcuda.so." + release->compat_libcuda},
                     {"path", state.cuda_home + "/compat/libcuda.so." + release->compat_libcuda},
                     {"version", release->compat_libcuda},
                     {"kind", "compat"},
                     {"toolkit_dir", mm},
                     {"package", compat_package},
                     {"source", "base-image"},
                     {"knowledge", k_.SourceText(release->compat_source)}});
      driver["aliases"] = AliasesFor(driver["path"], state.cuda_home, "compat");
      if (release->compat_unconfirmed) driver["unconfirmed"] = "compat libcuda version: " + release->compat_source;
      state.drivers.push_back(driver);
    } else if (compat_arch_skip) {
      Note(state, from,
           "Ubuntu " + state.architecture + " images of CUDA " + release->cuda + " carry no compat package (" +
               k_.compat_arch_source + ")");
    }
    if (flavor == "devel") {
      json stub = where;
      stub.update({{"name", "libcuda.so"},
                   {"path", state.cuda_home + "/targets/" + state.target_triplet + "/lib/stubs/libcuda.so"},
                   {"version", nullptr},
                   {"kind", "stub"},
                   {"toolkit_dir", mm},
                   {"source", "base-image"},
                   {"knowledge", k_.SourceText(k_.cuda_env_source) + " (devel images: LIBRARY_PATH stubs)"}});
      stub["aliases"] = AliasesFor(stub["path"], state.cuda_home, "stub");
      state.drivers.push_back(stub);
    }
    // ld.so.conf: the images' nvidia.conf (§4.3); other package entries are not recorded.
    std::vector<std::string> conf_dirs =
        CompareVersions(release->cuda, "13.0") >= 0 ? std::vector<std::string>{"/usr/local/cuda/lib64"}
                                                    : std::vector<std::string>{"/usr/local/nvidia/lib", "/usr/local/nvidia/lib64"};
    for (const std::string& dir : conf_dirs) {
      json row = where;
      row.update({{"dir", dir}, {"file", "/etc/ld.so.conf.d/nvidia.conf"}});
      state.ld_so_conf.push_back(row);
    }
    base["require_source"] = k_.SourceText(release->require_source);
    if (release->require_unconfirmed) base["require_unconfirmed"] = true;
  }

  void TorchBase(const Instruction& from, const ImageRef& ref, json& base, State& state) {
    static const std::regex tag_re(R"(^(\d+\.\d+(?:\.\d+)?)-cuda(\d+\.\d+)-cudnn(\d+)-(runtime|devel)$)");
    std::smatch m;
    std::string torch_version, cuda;
    std::optional<bool> compat;
    std::string row_source;
    for (const PytorchTag& tag : k_.pytorch_tags)
      if (tag.tag == ref.tag) {
        cuda = tag.cuda_version;
        torch_version = tag.torch;
        compat = tag.compat;
        row_source = tag.source;
      }
    if (std::regex_match(ref.tag, m, tag_re)) {
      torch_version = m[1];
      cuda = m[2];
    }
    if (torch_version.empty() && !row_source.empty()) torch_version = SplitOn(ref.tag, '-')[0];
    if (torch_version.empty()) {
      base["reason"] = "pytorch/pytorch tag \"" + ref.tag + "\" names no torch release and CUDA variant";
      Unknown(state, from, "base-image", base["reason"]);
      return;
    }
    base["known"] = "partial";
    base["torch"] = torch_version;
    base["cuda_version"] = cuda;
    state.frameworks_known = true;
    json where = Where(from, state, "base-image");
    std::string variant = "cu" + std::string(cuda).erase(cuda.find('.'), 1);
    json torch = where;
    torch.update({{"name", "torch"}, {"version", torch_version}, {"cuda", cuda}, {"variant", variant},
                  {"cuda_source", "base-image tag"}, {"source", "base-image"}, {"knowledge", k_.pytorch_source}});
    AddArchList(torch);
    state.frameworks.push_back(torch);
    json runtime = where;
    runtime.update({{"path", nullptr}, {"version", cuda}, {"version_precision", "major.minor"},
                    {"source", "base-image"}, {"knowledge", k_.pytorch_source}});
    state.runtimes.push_back(runtime);
    state.runtimes_known = true;
    if (compat.has_value()) {
      state.drivers_known = true;
      base["compat"] = *compat;
      base["compat_source"] = row_source;
    } else {
      Unknown(state, from, "cuda.drivers",
              "pytorch/pytorch:" + ref.tag + ": whether it ships a compat package is not in base-images.yaml");
    }
    Unknown(state, from, "cuda.requirements",
            "pytorch/pytorch:" + ref.tag + ": its NVIDIA_REQUIRE_* environment is not in base-images.yaml");
  }

  // sass/ptx of a torch row from pytorch.yaml (knowledge module), when loaded.
  void AddArchList(json& row) const {
    if (!options_.knowledge || !row.contains("variant") || !row["version"].is_string()) return;
    const json* build = options_.knowledge->FindTorchBuild(row["version"].get<std::string>(), row["variant"].get<std::string>());
    if (!build || !build->contains("arch_list") || !(*build)["arch_list"].is_string()) return;
    std::string list = (*build)["arch_list"];
    json sass = json::array(), ptx = json::array();
    std::string highest;
    for (std::string item : SplitOn(list, ';')) {
      bool plus_ptx = EndsWith(item, "+PTX");
      if (plus_ptx) item = item.substr(0, item.size() - 4);
      std::string digits;
      for (char c : item)
        if (std::isdigit(static_cast<unsigned char>(c))) digits.push_back(c);
      if (digits.empty()) continue;
      sass.push_back("sm_" + digits);
      if (plus_ptx || build->value("ptx", false)) highest = digits;
    }
    if (!highest.empty()) ptx.push_back({{"arch", "compute_" + highest}});
    row["sass"] = sass;
    row["ptx"] = ptx;
    row["arch_list"] = list;
    row["arch_list_source"] = build->value("source", "pytorch.yaml");
    if (build->contains("unconfirmed")) row["arch_list_unconfirmed"] = (*build)["unconfirmed"];
  }

  // ----------------------------------------------------------- instructions
  Status Apply(const Instruction& inst, State& state) {
    const std::string& k = inst.keyword;
    if (k == "ARG") {
      state.layers.push_back(Layer(inst, false));
      return DeclareArgs(inst, state.args, global_args_, state.Vars());
    }
    if (k == "ENV") {
      state.layers.push_back(Layer(inst, false));
      return ApplyEnv(inst, state);
    }
    if (k == "LABEL") {
      state.layers.push_back(Layer(inst, false));
      return ApplyPairs(inst, state, true);
    }
    if (k == "RUN") {
      state.layers.push_back(Layer(inst, false));
      return ApplyRun(inst, state);
    }
    if (k == "COPY" || k == "ADD") {
      state.layers.push_back(Layer(inst, false));
      return ApplyCopy(inst, state);
    }
    if (k == "SHELL" || k == "WORKDIR" || k == "USER" || k == "CMD" || k == "ENTRYPOINT" || k == "EXPOSE" ||
        k == "VOLUME" || k == "STOPSIGNAL" || k == "HEALTHCHECK" || k == "ONBUILD" || k == "MAINTAINER") {
      state.layers.push_back(Layer(inst, false));
      if (k == "SHELL" && !inst.json_arguments.empty()) {
        std::string shell = BaseName(inst.json_arguments[0]);
        if (shell != "sh" && shell != "bash" && shell != "dash" && shell != "zsh") {
          non_posix_shell_ = true;
          Note(state, inst, "SHELL " + shell + ": later RUN commands are not read as POSIX shell");
        }
      }
      return OkStatus();
    }
    return OkStatus();
  }

  Status ApplyEnv(const Instruction& inst, State& state) { return ApplyPairs(inst, state, false); }

  // ENV/LABEL: `K=V K2="v 2"` or the legacy `K value with spaces`.
  Status ApplyPairs(const Instruction& inst, State& state, bool label) {
    std::vector<std::string> words = SplitKeepingQuotes(inst.arguments, file_.escape);
    std::vector<std::pair<std::string, std::string>> pairs;
    auto vars = state.Vars();
    if (!words.empty() && words[0].find('=') == std::string::npos) {
      if (label) return ErrorAt(inst, "LABEL requires KEY=VALUE pairs");
      std::string rest = inst.arguments.substr(inst.arguments.find(words[0]) + words[0].size());
      size_t start = rest.find_first_not_of(" \t");
      if (start == std::string::npos) return ErrorAt(inst, "ENV " + words[0] + " has no value");
      auto value = Expand(inst, rest.substr(start), vars);
      if (!value.ok()) return value.error();
      pairs.emplace_back(words[0], *value);
    } else {
      for (const std::string& word : words) {
        size_t eq = word.find('=');
        if (eq == std::string::npos || eq == 0)
          return ErrorAt(inst, std::string(label ? "LABEL" : "ENV") + " expects KEY=VALUE, got \"" + word.substr(0, 64) + "\"");
        auto key = Expand(inst, word.substr(0, eq), vars);
        if (!key.ok()) return key.error();
        // BuildKit expands every value against the variables as they were
        // before this instruction.
        auto value = Expand(inst, word.substr(eq + 1), vars);
        if (!value.ok()) return value.error();
        pairs.emplace_back(*key, *value);
      }
    }
    for (auto& [key, value] : pairs) {
      if (label) {
        state.labels[key] = value;
        continue;
      }
      // `$VAR` of a variable the base image sets but we do not know.
      if (!state.env_known && !state.env.count(key) &&
          inst.arguments.find("$" + key) != std::string::npos)
        Unknown(state, inst, "image.env." + key, "extends the base image's " + key + ", which is unknown");
      state.SetEnv(key, value, inst.line, "ENV");
    }
    return OkStatus();
  }

  // -------------------------------------------------------------- RUN
  Status ApplyRun(const Instruction& inst, State& state) {
    if (non_posix_shell_ && !inst.json_form) {
      Unknown(state, inst, "RUN", "command for a non-POSIX SHELL not read");
      return OkStatus();
    }
    std::vector<std::string> scripts;
    if (inst.json_form) {
      // ["/bin/sh", "-c", "..."] or ["pip", "install", ...].
      std::string joined;
      for (const std::string& arg : inst.json_arguments) {
        std::string quoted = "'";
        for (char c : arg) {
          if (c == '\'') quoted += "'\\''";
          else quoted.push_back(c);
        }
        joined += quoted + "' ";
      }
      scripts.push_back(joined);
    } else if (!inst.heredocs.empty()) {
      std::string line = inst.arguments;
      // `RUN <<EOF` runs the body as a script; `RUN bash <<EOF` feeds it to a shell.
      static const std::regex marker(R"(<<-?["']?[A-Za-z0-9_.-]+["']?)");
      std::string without = std::regex_replace(line, marker, "");
      auto words = SplitKeepingQuotes(without, file_.escape);
      bool shell_body = words.empty() || BaseName(words[0]) == "sh" || BaseName(words[0]) == "bash" ||
                        BaseName(words[0]) == "dash";
      if (!words.empty() && !shell_body) scripts.push_back(without);
      for (const Heredoc& doc : inst.heredocs) {
        if (shell_body) scripts.push_back(doc.body);
        else Unknown(state, inst, "RUN", "heredoc fed to " + words[0] + " not read");
      }
    } else {
      scripts.push_back(inst.arguments);
    }
    auto vars = state.Vars();
    for (const std::string& script : scripts) {
      ShellScript parsed = ParseShell(script, vars);
      if (parsed.truncated) Unknown(state, inst, "RUN", "script over the command limit; the rest was not read");
      std::string echo_text;
      bool echo_exact = true;
      for (const ShellCommand& command : parsed.commands) {
        if (command.words.empty()) continue;
        IMAGELINT_TRY(Command(inst, state, command, echo_text, echo_exact));
      }
    }
    return OkStatus();
  }

  // One simple command.
  Status Command(const Instruction& inst, State& state, const ShellCommand& command, std::string& echo_text,
                 bool& echo_exact) {
    const auto& w = command.words;
    std::string tool = BaseName(w[0].value);
    size_t at = 1;
    // python -m pip / uv pip
    if (StartsWith(tool, "python") && w.size() > 2 && w[1].value == "-m" && StartsWith(w[2].value, "pip")) {
      tool = "pip";
      at = 3;
    } else if (tool == "uv" && w.size() > 1 && w[1].value == "pip") {
      tool = "uv-pip";
      at = 2;
    } else if (StartsWith(tool, "pip")) {
      tool = "pip";
    }
    if (tool == "pip" || tool == "uv-pip") return Pip(inst, state, command, at, tool == "uv-pip");
    if (tool == "conda" || tool == "mamba" || tool == "micromamba") return Conda(inst, state, command);
    if (tool == "apt-get" || tool == "apt" || tool == "aptitude" || tool == "yum" || tool == "dnf" ||
        tool == "microdnf" || tool == "zypper" || tool == "tdnf")
      return Apt(inst, state, command);
    if (tool == "dpkg") return Dpkg(inst, state, command);
    if (tool == "rm") return Remove(inst, state, command);
    if (tool == "ln") return Link(inst, state, command);
    if (tool == "echo" || tool == "printf") {
      echo_text.clear();
      echo_exact = true;
      for (size_t i = 1; i < w.size(); ++i) {
        if (tool == "echo" && i == 1 && (w[i].value == "-e" || w[i].value == "-n")) continue;
        echo_text += (echo_text.empty() ? "" : " ") + w[i].value;
        echo_exact = echo_exact && w[i].exact;
      }
      if (tool == "printf") {
        size_t pos;
        while ((pos = echo_text.find("\\n")) != std::string::npos) echo_text.replace(pos, 2, "\n");
      }
      for (const ShellRedirect& r : command.redirects)
        if (r.op == ">" || r.op == ">>") LdConfWrite(inst, state, r.target, echo_text, echo_exact, r.op == ">");
      return OkStatus();
    }
    if (tool == "tee") {
      bool append = false;
      for (size_t i = 1; i < w.size(); ++i) {
        if (w[i].value == "-a" || w[i].value == "--append") append = true;
        else if (!StartsWith(w[i].value, "-")) LdConfWrite(inst, state, w[i], echo_text, echo_exact, !append);
      }
      return OkStatus();
    }
    if (tool == "curl" || tool == "wget") {
      for (const auto& word : w)
        if (EndsWith(word.value, ".run") || word.value.find("cuda-repo") != std::string::npos)
          Note(state, inst, "downloads " + word.value + ": installers run from it are not read");
      return OkStatus();
    }
    if ((tool == "sh" || tool == "bash") && w.size() > 1 && EndsWith(w[1].value, ".run")) {
      Unknown(state, inst, "cuda.drivers", "runs installer " + w[1].value + ": what it installs is not read");
      Unknown(state, inst, "cuda.runtimes", "runs installer " + w[1].value + ": what it installs is not read");
      return OkStatus();
    }
    if (EndsWith(tool, ".run")) {
      Unknown(state, inst, "cuda.drivers", "runs installer " + tool + ": what it installs is not read");
      Unknown(state, inst, "cuda.runtimes", "runs installer " + tool + ": what it installs is not read");
      return OkStatus();
    }
    return OkStatus();
  }

  // echo DIR > /etc/ld.so.conf.d/x.conf: the loader will search DIR.
  void LdConfWrite(const Instruction& inst, State& state, const ShellWord& target, const std::string& text, bool exact,
                   bool truncate) {
    std::string path = target.value;
    if (!(StartsWith(path, "/etc/ld.so.conf.d/") || path == "/etc/ld.so.conf")) return;
    if (!exact || !target.exact) {
      Unknown(state, inst, "cuda.loader.ld_so_conf", "writes " + path + " with text that cannot be computed");
      return;
    }
    if (truncate) {
      json kept = json::array();
      for (const auto& row : state.ld_so_conf)
        if (row.value("file", "") != path) kept.push_back(row);
      state.ld_so_conf = kept;
    }
    for (const std::string& line : SplitOn(text, '\n'))
      for (const std::string& dir : SplitOn(line, ' ')) {
        if (dir.empty() || dir[0] != '/') continue;
        json row = Where(inst, state, "instruction");
        row.update({{"dir", CleanDir(dir)}, {"file", path}});
        state.ld_so_conf.push_back(row);
      }
  }

  // ------------------------------------------------------------- pip
  struct Requirement {
    std::string name;  // normalized
    std::vector<std::string> extras;
    std::string version;  // exact "1.12.1+cu113", prefix "1.12.*", "" = unknown
    bool exact = true;
    std::string raw;
  };

  static std::string NormalizeName(std::string name) {
    name = ToLower(name);
    std::replace(name.begin(), name.end(), '_', '-');
    std::replace(name.begin(), name.end(), '.', '-');
    return name;
  }

  static std::optional<Requirement> ParseRequirement(const ShellWord& word) {
    Requirement r;
    r.raw = word.value;
    r.exact = word.exact;
    std::string text = word.value;
    // A wheel URL or file: name-version(-build)?-python-abi-platform.whl
    if (EndsWith(text, ".whl")) {
      std::string file = BaseName(text);
      size_t pos;
      while ((pos = file.find("%2B")) != std::string::npos) file.replace(pos, 3, "+");
      auto parts = SplitOn(file, '-');
      if (parts.size() < 5) return std::nullopt;
      r.name = NormalizeName(parts[0]);
      r.version = parts[1];
      return r;
    }
    if (text.find("://") != std::string::npos || StartsWith(text, ".") || StartsWith(text, "/") ||
        text.find('@') != std::string::npos)
      return std::nullopt;
    static const std::regex re(R"(^([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*(.*)$)");
    std::smatch m;
    if (!std::regex_match(text, m, re)) return std::nullopt;
    r.name = NormalizeName(m[1]);
    if (m[2].matched) {
      std::string extras = m[2].str().substr(1, m[2].length() - 2);
      for (std::string e : SplitOn(extras, ',')) {
        e.erase(std::remove(e.begin(), e.end(), ' '), e.end());
        if (!e.empty()) r.extras.push_back(ToLower(e));
      }
    }
    std::string spec = m[3];
    spec = spec.substr(0, spec.find(';'));  // environment markers
    spec.erase(std::remove(spec.begin(), spec.end(), ' '), spec.end());
    if (StartsWith(spec, "===")) r.version = spec.substr(3);
    else if (StartsWith(spec, "==") && spec.find(',') == std::string::npos) r.version = spec.substr(2);
    else if (StartsWith(spec, "=") && !StartsWith(spec, "==")) r.version = spec.substr(1);  // conda style
    return r;
  }

  // CUDA variant from an index URL: .../whl/cu121 -> "cu121", .../whl/cpu -> "cpu".
  std::string IndexVariant(const std::string& url) const {
    bool torch_host = false;
    for (const std::string& host : k_.torch_index_hosts) torch_host = torch_host || url.find(host) != std::string::npos;
    if (!torch_host) return "";
    static const std::regex re(R"(/whl/(?:nightly/|test/)?(cu\d+|cpu|rocm[0-9.]+)/?)");
    std::smatch m;
    if (std::regex_search(url, m, re)) return m[1];
    return "";
  }

  Status Pip(const Instruction& inst, State& state, const ShellCommand& command, size_t at, bool uv) {
    const auto& w = command.words;
    std::string subcommand;
    std::string index_variant, extra_variant, index_url;
    bool from_pypi = true;
    std::vector<Requirement> requirements;
    static const std::set<std::string> kValueOptions = {
        "-r", "--requirement", "-c", "--constraint", "-i", "--index-url", "--extra-index-url", "-f", "--find-links",
        "-t", "--target", "--prefix", "--root", "--src", "-e", "--editable", "--platform", "--python-version",
        "--implementation", "--abi", "--trusted-host", "--cache-dir", "--progress-bar", "--upgrade-strategy",
        "--global-option", "--install-option", "-C", "--config-settings", "--no-binary", "--only-binary", "--report",
        "--log", "--timeout", "--retries", "--proxy", "--exists-action", "--python", "-p", "--index-strategy",
        "--index", "--default-index", "--resolution", "--prerelease", "--python-platform", "--keyring-provider",
        "--extra-index", "--group", "--cert", "--client-cert", "--use-feature", "--root-user-action"};
    for (size_t i = at; i < w.size(); ++i) {
      std::string word = w[i].value;
      std::string option, value;
      bool has_value = false;
      if (StartsWith(word, "-")) {
        size_t eq = word.find('=');
        option = word.substr(0, eq);
        if (eq != std::string::npos) {
          value = word.substr(eq + 1);
          has_value = true;
        } else if (kValueOptions.count(option) && i + 1 < w.size()) {
          value = w[++i].value;
          has_value = true;
        } else if (option.size() > 2 && option[1] != '-' && kValueOptions.count(option.substr(0, 2))) {
          value = option.substr(2);  // -rrequirements.txt
          option = option.substr(0, 2);
          has_value = true;
        }
        if (option == "-r" || option == "--requirement") {
          Unknown(state, inst, "frameworks", "pip installs from " + value + ", which imagelint does not read");
          frameworks_partial_ = true;
        } else if (option == "-e" || option == "--editable") {
          Unknown(state, inst, "frameworks", "pip installs the project " + value + " (its dependencies are not read)");
          frameworks_partial_ = true;
        } else if (option == "-i" || option == "--index-url" || option == "--index" || option == "--default-index") {
          index_url = value;
          index_variant = IndexVariant(value);
          from_pypi = false;
        } else if (option == "--extra-index-url" || option == "--extra-index") {
          std::string v = IndexVariant(value);
          if (!v.empty()) extra_variant = v;
        }
        (void)has_value;
        continue;
      }
      if (subcommand.empty()) {
        subcommand = word;
        continue;
      }
      if (subcommand != "install" && subcommand != "uninstall" && subcommand != "sync") return OkStatus();
      if (subcommand == "sync") {
        Unknown(state, inst, "frameworks", "uv pip sync " + word + " is not read");
        frameworks_partial_ = true;
        continue;
      }
      auto requirement = ParseRequirement(w[i]);
      if (!requirement) {
        Unknown(state, inst, "frameworks", "pip installs \"" + word.substr(0, 120) + "\", which imagelint does not read");
        frameworks_partial_ = true;
        continue;
      }
      requirements.push_back(*requirement);
    }
    if (subcommand == "uninstall") {
      for (const Requirement& r : requirements) RemoveFramework(inst, state, r.name);
      return OkStatus();
    }
    if (subcommand != "install") return OkStatus();
    // `uv` searches extra indexes first; pip takes the highest version, and a
    // `+cuXXX` local version sorts above the plain one (PEP 440).
    std::string chosen_variant = index_variant;
    std::string variant_source = index_variant.empty() ? "" : "--index-url " + index_url;
    if (!extra_variant.empty() && (uv || index_variant.empty())) {
      chosen_variant = extra_variant;
      variant_source = "--extra-index-url";
    }
    for (const Requirement& r : requirements) PipPackage(inst, state, r, chosen_variant, variant_source, from_pypi, uv);
    return OkStatus();
  }

  void RemoveFramework(const Instruction& inst, State& state, const std::string& name) {
    json kept = json::array();
    for (const auto& row : state.frameworks) {
      if (NormalizeName(row.value("package", row.value("name", ""))) == name ||
          (name == "torch" && row.value("name", "") == "torch"))
        state.changes.push_back({{"dockerfile_line", inst.line}, {"removed", row}});
      else
        kept.push_back(row);
    }
    state.frameworks = kept;
  }

  void PipPackage(const Instruction& inst, State& state, const Requirement& r, const std::string& variant,
                  const std::string& variant_source, bool from_pypi, bool uv) {
    json row = Where(inst, state, "instruction");
    row["package"] = r.name;
    row["installer"] = uv ? "uv pip" : "pip";
    std::string version = r.version;
    std::string local;
    size_t plus = version.find('+');
    if (plus != std::string::npos) {
      local = version.substr(plus + 1);
      version = version.substr(0, plus);
    }
    if (!r.exact) {
      Unknown(state, inst, "frameworks", "pip requirement \"" + r.raw + "\" uses a value that cannot be computed");
      row["version_unknown_reason"] = "unresolved variable";
    }
    json version_value = r.exact && !version.empty() ? json(version) : json(nullptr);

    if (r.name == "torch" || r.name == "torchvision" || r.name == "torchaudio") {
      row["name"] = r.name;
      row["version"] = version_value;
      std::string chosen = !local.empty() ? local : variant;
      std::string source = !local.empty() ? "local version +" + local : variant_source;
      if (chosen.empty() && from_pypi && !version.empty() && r.exact) {
        std::string torch_mm = MajorMinor(version);
        bool companion_unconfirmed = false;
        if (r.name != "torch") {
          auto table = k_.torch_companions.find(r.name);
          auto it = table == k_.torch_companions.end() ? table->second.end() : table->second.find(torch_mm);
          if (table == k_.torch_companions.end() || it == table->second.end()) torch_mm.clear();
          else torch_mm = it->second;
          companion_unconfirmed = k_.companions_unconfirmed;
        }
        for (const DefaultRow& d : k_.torch_pypi_default)
          if (d.key == torch_mm) {
            chosen = "cu" + std::string(d.value).erase(d.value.find('.'), 1);
            source = "PyPI default of torch " + torch_mm;
            row["knowledge"] = k_.SourceText(d.source);
            if (d.unconfirmed || companion_unconfirmed) row["unconfirmed"] = "PyPI default CUDA of torch " + torch_mm;
          }
        if (chosen.empty()) Unknown(state, inst, "frameworks", r.name + " " + version + ": its PyPI CUDA variant is not in packages.yaml");
      } else if (chosen.empty()) {
        Unknown(state, inst, "frameworks", r.name + " without a pinned version: its CUDA variant cannot be told");
      }
      if (!chosen.empty()) {
        row["variant"] = chosen;
        row["cuda"] = chosen == "cpu" ? json(nullptr) : json(CudaFromVariant(chosen));
        if (!StartsWith(chosen, "cu") && chosen != "cpu") row["cuda"] = nullptr;
        row["cuda_source"] = source;
      } else {
        row["cuda"] = nullptr;
        row["cuda_unknown"] = true;
      }
      if (r.name == "torch") AddArchList(row);
      ReplaceFramework(state, row);
      return;
    }
    if (r.name == "jax" || r.name == "jaxlib" || StartsWith(r.name, "jax-cuda")) {
      row["name"] = "jax";
      row["version"] = version_value;
      std::string cuda;
      for (const std::string& e : r.extras) {
        std::smatch m;
        static const std::regex re(R"(^cuda(\d+))");
        if (std::regex_search(e, m, re)) cuda = m[1];
      }
      static const std::regex local_re(R"(^cuda(\d+))");
      std::smatch lm;
      if (cuda.empty() && std::regex_search(local, lm, local_re)) cuda = lm[1];
      static const std::regex plugin_re(R"(^jax-cuda(\d+))");
      std::smatch pm;
      if (cuda.empty() && std::regex_search(r.name, pm, plugin_re)) cuda = pm[1];
      if (r.name == "jax" && cuda.empty()) return;  // CPU jax
      row["cuda"] = cuda.empty() ? json(nullptr) : json(cuda);
      row["cuda_source"] = "package extra or name";
      ReplaceFramework(state, row);
      return;
    }
    if (r.name == "tensorflow" || r.name == "tensorflow-gpu" || r.name == "tf-nightly") {
      row["name"] = "tensorflow";
      row["version"] = version_value;
      auto it = version.empty() ? k_.tensorflow_cuda.end() : k_.tensorflow_cuda.find(MajorMinor(version));
      if (it != k_.tensorflow_cuda.end()) {
        row["cuda"] = it->second;
        row["cuda_source"] = "packages.yaml tensorflow_cuda";
        row["knowledge"] = k_.tensorflow_source;
        if (k_.tensorflow_unconfirmed) row["unconfirmed"] = "TensorFlow build CUDA";
      } else {
        row["cuda"] = nullptr;
        row["cuda_unknown"] = true;
        Unknown(state, inst, "frameworks", "tensorflow " + (version.empty() ? std::string("(unpinned)") : version) +
                                               ": its CUDA is not in packages.yaml");
      }
      ReplaceFramework(state, row);
      return;
    }
    static const std::regex cupy_re(R"(^cupy-cuda(\d+)(x?)$)");
    std::smatch m;
    if (std::regex_match(r.name, m, cupy_re)) {
      std::string digits = m[1];
      std::string cuda = m[2].length() ? digits + ".x"
                         : digits.size() == 3 ? digits.substr(0, 2) + "." + digits.substr(2)
                                              : digits;
      row.update({{"name", "cupy"}, {"version", version_value}, {"cuda", cuda}, {"cuda_source", "package name"}});
      ReplaceFramework(state, row);
      return;
    }
    if (r.name == "onnxruntime-gpu") {
      row.update({{"name", "onnxruntime"}, {"version", version_value}, {"cuda", nullptr}, {"cuda_unknown", true}});
      ReplaceFramework(state, row);
      return;
    }
    // NVIDIA's CUDA wheels: nvidia-cuda-runtime-cu12 ...
    static const std::regex wheel_re(R"(^(nvidia-[a-z0-9-]+)-cu(\d+)$)");
    if (std::regex_match(r.name, m, wheel_re)) {
      std::string cu = m[2];
      json package = row;
      package.update({{"name", r.name}, {"version", version_value}, {"cuda_major", cu}, {"manager", "pip"}});
      for (const NvidiaWheel& wheel : k_.nvidia_wheels) {
        std::string pattern = wheel.name;
        pattern.replace(pattern.find("{cu}"), 4, cu);
        if (pattern != r.name) continue;
        package["component"] = wheel.component;
        package["knowledge"] = wheel.source;
        if (wheel.component == "cudart" && !wheel.library.empty()) {
          std::string soname_version = cu == "11" ? "11.0" : cu;
          std::string library = wheel.library;
          library.replace(library.find("{soname}"), 8, soname_version);
          json runtime = row;
          runtime.update({{"path", "<site-packages>/" + library},
                          {"version", version_value},
                          {"soname", "libcudart.so." + soname_version},
                          {"source", "pip"},
                          {"package", r.name},
                          {"knowledge", wheel.source}});
          if (wheel.unconfirmed) runtime["unconfirmed"] = "wheel layout";
          state.runtimes.push_back(runtime);
        }
      }
      state.packages.push_back(package);
    }
  }

  void ReplaceFramework(State& state, const json& row) {
    json kept = json::array();
    // One copy of a framework per image: a later install replaces it.
    for (const auto& existing : state.frameworks)
      if (existing.value("name", "") != row.value("name", "")) kept.push_back(existing);
    kept.push_back(row);
    state.frameworks = kept;
  }

  // ------------------------------------------------------------ conda
  Status Conda(const Instruction& inst, State& state, const ShellCommand& command) {
    const auto& w = command.words;
    size_t i = 1;
    while (i < w.size() && StartsWith(w[i].value, "-")) ++i;
    if (i >= w.size()) return OkStatus();
    std::string sub = w[i].value;
    if (sub == "env" || (sub == "create" && std::any_of(w.begin(), w.end(), [](const ShellWord& x) {
                           return x.value == "-f" || x.value == "--file";
                         }))) {
      Unknown(state, inst, "frameworks", "conda environment file not read");
      frameworks_partial_ = true;
      return OkStatus();
    }
    if (sub != "install" && sub != "create" && sub != "remove" && sub != "uninstall") return OkStatus();
    std::map<std::string, Requirement> specs;
    std::string cuda;
    std::string cuda_from;
    static const std::set<std::string> kValue = {"-c", "--channel", "-n", "--name", "-p", "--prefix", "--override-channels"};
    for (++i; i < w.size(); ++i) {
      std::string word = w[i].value;
      if (StartsWith(word, "-")) {
        if (kValue.count(word) && word != "--override-channels") ++i;
        continue;
      }
      // name[=version[=build]] or name==version, "name>=x"
      std::string name = word, version;
      size_t op = word.find_first_of("=<>!~ ");
      if (op != std::string::npos) {
        name = word.substr(0, op);
        version = word.substr(op);
        while (!version.empty() && (version[0] == '=')) version.erase(0, 1);
        if (version.find_first_of("<>!~,|") != std::string::npos) version.clear();
        size_t build = version.find('=');
        if (build != std::string::npos) version = version.substr(0, build);
      }
      size_t channel = name.find("::");
      if (channel != std::string::npos) name = name.substr(channel + 2);
      name = ToLower(name);
      if (std::find(k_.conda_cuda_selectors.begin(), k_.conda_cuda_selectors.end(), name) != k_.conda_cuda_selectors.end()) {
        if (!version.empty() && w[i].exact) {
          cuda = MajorMinor(version);
          cuda_from = name + "=" + version;
        }
        continue;
      }
      Requirement r;
      r.name = name;
      r.version = version;
      r.exact = w[i].exact;
      r.raw = word;
      specs[name] = r;
    }
    for (auto& [name, r] : specs) {
      auto it = k_.conda_frameworks.find(name);
      if (it == k_.conda_frameworks.end()) continue;
      if (sub == "remove" || sub == "uninstall") {
        RemoveFramework(inst, state, it->second);
        continue;
      }
      json row = Where(inst, state, "instruction");
      row.update({{"name", it->second}, {"package", name}, {"installer", "conda"},
                  {"version", r.version.empty() || !r.exact ? json(nullptr) : json(r.version)}});
      if (!cuda.empty()) {
        row["cuda"] = cuda;
        row["cuda_source"] = cuda_from;
        row["variant"] = "cu" + std::string(cuda).erase(cuda.find('.'), 1);
      } else {
        row["cuda"] = nullptr;
        row["cuda_unknown"] = true;
        Unknown(state, inst, "frameworks", "conda " + name + ": no cudatoolkit/pytorch-cuda pin, CUDA variant unknown");
      }
      if (it->second == "torch") AddArchList(row);
      ReplaceFramework(state, row);
    }
    return OkStatus();
  }

  // -------------------------------------------------------------- apt
  // Matches an apt pattern "cuda-compat-{M}-{m}" against a package name.
  static std::optional<std::map<std::string, std::string>> MatchPattern(const std::string& pattern,
                                                                        const std::string& name) {
    std::string re = "^";
    std::vector<std::string> keys;
    for (size_t i = 0; i < pattern.size(); ++i) {
      if (pattern[i] == '{') {
        size_t end = pattern.find('}', i);
        keys.push_back(pattern.substr(i + 1, end - i - 1));
        re += "(\\d+)";
        i = end;
      } else if (std::isalnum(static_cast<unsigned char>(pattern[i]))) {
        re.push_back(pattern[i]);
      } else {
        re += std::string("\\") + pattern[i];
      }
    }
    re += "$";
    // Compiled once per pattern (std::regex construction dominates otherwise).
    static thread_local std::map<std::string, std::regex> compiled;
    auto it = compiled.find(re);
    if (it == compiled.end()) it = compiled.emplace(re, std::regex(re)).first;
    std::smatch m;
    if (!std::regex_match(name, m, it->second)) return std::nullopt;
    std::map<std::string, std::string> out;
    for (size_t i = 0; i < keys.size(); ++i) out[keys[i]] = m[i + 1];
    return out;
  }

  static std::string Fill(std::string text, const std::map<std::string, std::string>& values) {
    for (const auto& [key, value] : values) {
      std::string token = "{" + key + "}";
      size_t pos;
      while ((pos = text.find(token)) != std::string::npos) text.replace(pos, token.size(), value);
    }
    return text;
  }

  Status Apt(const Instruction& inst, State& state, const ShellCommand& command) {
    const auto& w = command.words;
    std::string action;
    for (size_t i = 1; i < w.size(); ++i) {
      const std::string& word = w[i].value;
      if (word == "-o" || word == "--option" || word == "-t" || word == "--target-release" || word == "-c") {
        ++i;
        continue;
      }
      if (StartsWith(word, "-")) continue;
      if (action.empty()) {
        action = word;
        continue;
      }
      if (action == "install" || action == "reinstall") AptInstall(inst, state, w[i]);
      else if (action == "remove" || action == "purge" || action == "erase" || action == "autoremove")
        RemovePackage(inst, state, w[i].value);
    }
    return OkStatus();
  }

  Status Dpkg(const Instruction& inst, State& state, const ShellCommand& command) {
    const auto& w = command.words;
    bool remove = false;
    for (size_t i = 1; i < w.size(); ++i) {
      const std::string& word = w[i].value;
      if (word == "-r" || word == "-P" || word == "--remove" || word == "--purge") {
        remove = true;
        continue;
      }
      if (word == "-i" || word == "--install") {
        for (size_t j = i + 1; j < w.size(); ++j) {
          if (BaseName(w[j].value).find("cuda") != std::string::npos || BaseName(w[j].value).find("nvidia") != std::string::npos) {
            Unknown(state, inst, "cuda.drivers", "dpkg -i " + w[j].value + ": package contents not read");
          }
        }
        return OkStatus();
      }
      if (remove && !StartsWith(word, "-")) RemovePackage(inst, state, word);
    }
    return OkStatus();
  }

  void AptInstall(const Instruction& inst, State& state, const ShellWord& word) {
    std::string spec = word.value;
    std::string name = spec, pin;
    size_t eq = spec.find('=');
    if (eq != std::string::npos) {
      name = spec.substr(0, eq);
      pin = UpstreamVersion(spec.substr(eq + 1));
    }
    size_t colon = name.find(':');
    if (colon != std::string::npos) name = name.substr(0, colon);
    for (const AptPattern& pattern : k_.apt) {
      auto values = MatchPattern(pattern.pattern, name);
      if (!values) continue;
      if (!word.exact) {
        Unknown(state, inst, "cuda.drivers", "apt package \"" + spec + "\" uses a value that cannot be computed");
        return;
      }
      (*values)["triplet"] = state.lib_triplet;
      (*values)["target"] = state.target_triplet;
      json row = Where(inst, state, "instruction");
      row["package"] = name;
      row["knowledge"] = pattern.source;
      std::string version = pin;
      if (pattern.kind == "compat" || pattern.kind == "cudart") {
        std::string mm = (*values)["M"] + "." + (*values)["m"];
        const CudaRelease* release = k_.FindRelease(mm);
        if (version.empty() && release) {
          version = pattern.kind == "compat" ? release->compat_libcuda : release->cudart;
          row["version_source"] = "base-images.yaml (newest " + mm + " release; unpinned install)";
          row["unconfirmed"] = "unpinned " + name + ": the repository serves its newest build";
        } else if (!version.empty()) {
          row["version_source"] = "apt pin";
        }
        (*values)["version"] = version.empty() ? "*" : version;
        row["path"] = Fill(pattern.path, *values);
        row["version"] = version.empty() ? json(nullptr) : json(version);
        row["source"] = "apt";
        if (pattern.kind == "compat") {
          row["kind"] = "compat";
          row["name"] = BaseName(row["path"].get<std::string>());
          row["toolkit_dir"] = mm;
          row["aliases"] = AliasesFor(row["path"], "/usr/local/cuda-" + mm, "compat");
          AddDriver(state, row);
        } else {
          std::string major = (*values)["M"];
          row["soname"] = major == "11" ? "libcudart.so.11.0" : std::stoi(major) >= 12 ? "libcudart.so." + major
                                                                                       : "libcudart.so." + mm;
          state.runtimes.push_back(row);
        }
        if (state.cuda_home.empty()) state.cuda_home = "/usr/local/cuda-" + mm;
        return;
      }
      // bundled user-mode driver
      std::string branch = values->count("B") ? (*values)["B"] : "";
      if (!branch.empty() && !version.empty() && !StartsWith(version, branch + ".")) version.clear();
      (*values)["version"] = version.empty() ? "*" : version;
      (*values)["B"] = version.empty() ? branch + ".*" : version;
      row["path"] = "/" + Fill(pattern.path, *values);
      row["name"] = BaseName(row["path"].get<std::string>());
      row["version"] = version.empty() ? json(nullptr) : json(version);
      if (!branch.empty()) row["branch"] = branch;
      row["kind"] = "bundled";
      row["source"] = "apt";
      AddDriver(state, row);
      return;
    }
  }

  void AddDriver(State& state, const json& row) {
    json kept = json::array();
    for (const auto& existing : state.drivers)
      if (existing.value("path", "") != row.value("path", "")) kept.push_back(existing);
    kept.push_back(row);
    state.drivers = kept;
  }

  void RemovePackage(const Instruction& inst, State& state, const std::string& pattern) {
    std::string name = pattern.substr(0, pattern.find('='));
    auto remove_from = [&](json& rows) {
      json kept = json::array();
      for (const auto& row : rows) {
        std::string package = row.value("package", "");
        if (!package.empty() && fnmatch(name.c_str(), package.c_str(), 0) == 0)
          state.changes.push_back({{"dockerfile_line", inst.line}, {"removed", row}, {"by", "package " + pattern}});
        else
          kept.push_back(row);
      }
      rows = kept;
    };
    remove_from(state.drivers);
    remove_from(state.runtimes);
  }

  // --------------------------------------------------------- rm / ln
  // /usr/local/cuda/... -> /usr/local/cuda-X.Y/... (the symlink the images create).
  std::string Canonical(const State& state, std::string path) const {
    path = CleanDir(path);
    if (!state.cuda_home.empty() && (path == "/usr/local/cuda" || StartsWith(path, "/usr/local/cuda/")))
      path = state.cuda_home + path.substr(std::string("/usr/local/cuda").size());
    return path;
  }

  Status Remove(const Instruction& inst, State& state, const ShellCommand& command) {
    const auto& w = command.words;
    bool recursive = false;
    std::vector<const ShellWord*> paths;
    bool options_done = false;
    for (size_t i = 1; i < w.size(); ++i) {
      const std::string& word = w[i].value;
      if (!options_done && word == "--") {
        options_done = true;
        continue;
      }
      if (!options_done && StartsWith(word, "-") && word.size() > 1) {
        if (word.find('r') != std::string::npos || word.find('R') != std::string::npos || word == "--recursive")
          recursive = true;
        continue;
      }
      paths.push_back(&w[i]);
    }
    for (const ShellWord* word : paths) {
      if (!word->exact) {
        if (word->value.find("compat") != std::string::npos || word->value.find("libcuda") != std::string::npos)
          Unknown(state, inst, "cuda.drivers", "rm of \"" + word->value + "\" whose path cannot be computed");
        continue;
      }
      std::string target = Canonical(state, word->value);
      auto remove_from = [&](json& rows) {
        json kept = json::array();
        for (const auto& row : rows) {
          std::string path = row.value("path", "");
          if (!row["path"].is_string()) {
            kept.push_back(row);
            continue;
          }
          std::string canonical = Canonical(state, path);
          bool hit = canonical == target || fnmatch(target.c_str(), canonical.c_str(), FNM_PATHNAME) == 0;
          // A directory (or glob of directories) removed recursively.
          if (!hit && recursive) {
            std::string dir = DirName(canonical);
            while (!hit && dir.size() > 1) {
              hit = dir == target || fnmatch(target.c_str(), dir.c_str(), FNM_PATHNAME) == 0;
              dir = DirName(dir);
            }
          }
          // `rm /usr/local/cuda/compat/libcuda.so*`
          if (hit)
            state.changes.push_back({{"dockerfile_line", inst.line}, {"removed", row}, {"by", "rm " + word->value}});
          else
            kept.push_back(row);
        }
        rows = kept;
      };
      remove_from(state.drivers);
      remove_from(state.runtimes);
    }
    return OkStatus();
  }

  Status Link(const Instruction& inst, State& state, const ShellCommand& command) {
    const auto& w = command.words;
    bool symbolic = false;
    std::vector<const ShellWord*> operands;
    for (size_t i = 1; i < w.size(); ++i) {
      const std::string& word = w[i].value;
      if (StartsWith(word, "-") && word.size() > 1) {
        if (word == "--symbolic" || (word[1] != '-' && word.find('s') != std::string::npos)) symbolic = true;
        if (word == "-t" || word == "--target-directory") return OkStatus();  // rare form, not read
        continue;
      }
      operands.push_back(&w[i]);
    }
    if (operands.size() != 2) return OkStatus();
    const ShellWord& target = *operands[0];
    const ShellWord& link = *operands[1];
    bool libcuda_target = BaseName(target.value).rfind("libcuda.so", 0) == 0;
    if (!libcuda_target) return OkStatus();
    if (!target.exact || !link.exact) {
      Unknown(state, inst, "cuda.drivers", "ln of libcuda with a path that cannot be computed");
      return OkStatus();
    }
    std::string link_path = link.value;
    if (EndsWith(link_path, "/")) link_path += BaseName(target.value);
    std::string resolved_target = target.value;
    if (!StartsWith(resolved_target, "/")) resolved_target = DirName(link_path) + "/" + resolved_target;
    std::string canonical_target = Canonical(state, resolved_target);
    std::string kind = canonical_target.find("/stubs/") != std::string::npos    ? "stub"
                       : canonical_target.find("/compat/") != std::string::npos ? "compat"
                                                                                : "bundled";
    json row = Where(inst, state, "instruction");
    // A link to a file the image model knows inherits its version.
    json version = nullptr;
    for (const auto& existing : state.drivers)
      if (existing["path"].is_string() && Canonical(state, existing["path"]) == canonical_target)
        version = existing.value("version", json(nullptr));
    if (kind == "compat" && version.is_null())
      for (const auto& existing : state.drivers)
        if (existing.value("kind", "") == "compat" && existing["path"].is_string() &&
            DirName(Canonical(state, existing["path"])) == DirName(canonical_target))
          version = existing.value("version", json(nullptr));
    row.update({{"name", BaseName(link_path)}, {"path", CleanDir(link_path)}, {"link_target", target.value},
                {"resolves_to", canonical_target}, {"kind", kind}, {"version", version}, {"source", "symlink"}});
    if (!symbolic) row["hard_link"] = true;
    AddDriver(state, row);
    return OkStatus();
  }

  // ------------------------------------------------------- COPY / ADD
  Status ApplyCopy(const Instruction& inst, State& state) {
    std::vector<std::string> words;
    auto vars = state.Vars();
    std::string from_stage;
    for (const Flag& flag : inst.flags)
      if (flag.name == "from") {
        auto expanded = Expand(inst, flag.value, vars);
        if (!expanded.ok()) return expanded.error();
        from_stage = *expanded;
      }
    if (inst.json_form) {
      words = inst.json_arguments;
    } else {
      for (const std::string& raw : SplitKeepingQuotes(inst.arguments, file_.escape)) {
        auto expanded = Expand(inst, raw, vars);
        if (!expanded.ok()) return expanded.error();
        words.push_back(*expanded);
      }
    }
    if (words.size() < 2 && inst.heredocs.empty()) return ErrorAt(inst, inst.keyword + " requires a source and a destination");
    if (words.empty()) return OkStatus();
    std::string dest = words.back();
    bool dest_dir = EndsWith(dest, "/") || words.size() > 2;
    // Heredoc sources: COPY <<EOF /etc/ld.so.conf.d/compat.conf
    for (const Heredoc& doc : inst.heredocs) {
      std::string path = dest_dir ? CleanDir(dest) + "/" + doc.delimiter : dest;
      if (StartsWith(path, "/etc/ld.so.conf")) {
        ShellWord target{path, true, false};
        LdConfWrite(inst, state, target, doc.body, true, true);
      }
    }
    for (size_t i = 0; i + 1 < words.size(); ++i) {
      const std::string& source = words[i];
      if (StartsWith(source, "<<")) continue;
      std::string base = BaseName(CleanDir(source));
      if (StartsWith(base, "libcuda.so") || (base.find('*') != std::string::npos && fnmatch(base.c_str(), "libcuda.so.1", 0) == 0)) {
        std::string path = dest_dir ? CleanDir(dest) + "/" + base : dest;
        json row = Where(inst, state, "instruction");
        std::string version = StartsWith(base, "libcuda.so.") ? base.substr(11) : "";
        bool known_version = IsVersion(version) && std::count(version.begin(), version.end(), '.') >= 1;
        std::string canonical = Canonical(state, path);
        std::string kind = canonical.find("/stubs/") != std::string::npos    ? "stub"
                           : canonical.find("/compat/") != std::string::npos ? "compat"
                                                                             : "bundled";
        row.update({{"name", BaseName(path)}, {"path", path}, {"version", known_version ? json(version) : json(nullptr)},
                    {"kind", kind}, {"source", "copy"}, {"copied_from", source}});
        if (!from_stage.empty()) row["copied_from_stage"] = from_stage;
        AddDriver(state, row);
        continue;
      }
      if (!from_stage.empty() && (StartsWith(CleanDir(source), "/usr/local/cuda") || source.find("nvidia") != std::string::npos)) {
        Unknown(state, inst, "cuda.drivers", "copies " + source + " from " + from_stage + ": contents not followed");
        Unknown(state, inst, "cuda.runtimes", "copies " + source + " from " + from_stage + ": contents not followed");
      }
      if (inst.keyword == "ADD" && EndsWith(source, ".run"))
        Note(state, inst, "adds installer " + source + " (not read)");
    }
    return OkStatus();
  }

  // ------------------------------------------------------------ output
  json Facts(const State& state, size_t target) {
    json facts;
    facts["schema"] = kFactsSchema;
    const Stage& stage = file_.stages[target];
    json build_args = json::object();
    for (const auto& [k, v] : options_.build_args) build_args[k] = v;
    facts["source"] = {{"kind", "dockerfile"}, {"path", file_.path}, {"target", stage.name},
                       {"stage", target}, {"build_args", build_args}};
    json image;
    image["ref"] = file_.path + (stage.name.empty() || target + 1 == file_.stages.size() ? "" : "#" + stage.name);
    image["kind"] = "dockerfile";
    image["dockerfile"] = file_.path;  // reporters locate findings in this file
    image["os"] = state.os;
    image["architecture"] = state.architecture;
    json env = json::object();
    for (const std::string& name : state.env_order) env[name] = state.env.at(name);
    image["env"] = env;
    image["env_provenance"] = state.env_provenance;
    image["env_complete"] = state.env_known;
    image["labels"] = state.labels;
    image["layers"] = state.layers;
    image["base"] = state.base;
    facts["image"] = image;

    json cuda = json::object();
    bool drivers_known = state.drivers_known && !HasUnknown(state, "cuda.drivers");
    bool runtimes_known = state.runtimes_known && !HasUnknown(state, "cuda.runtimes");
    if (drivers_known || !state.drivers.empty()) cuda["drivers"] = state.drivers;
    if (runtimes_known || !state.runtimes.empty()) cuda["runtimes"] = state.runtimes;
    cuda["drivers_complete"] = drivers_known;
    cuda["runtimes_complete"] = runtimes_known;
    cuda["packages"] = state.packages;
    if (state.env_known || HasRequirementEnv(state)) cuda["requirements"] = Requirements(state);
    cuda["loader"] = Loader(state);
    facts["cuda"] = cuda;
    bool frameworks_known = state.frameworks_known && !frameworks_partial_;
    if (frameworks_known || !state.frameworks.empty()) facts["frameworks"] = state.frameworks;
    facts["frameworks_complete"] = frameworks_known;
    // GPU code of frameworks whose arch list knowledge gives (torch wheels):
    // the rules' kernel checks read binaries[].
    json binaries = json::array();
    for (const auto& row : state.frameworks) {
      if (!row.contains("sass")) continue;
      json binary = row;
      for (const char* key : {"name", "version", "cuda", "variant", "cuda_source", "installer", "package"}) binary.erase(key);
      binary["path"] = "<site-packages>/" + row.value("name", "torch") + "/lib/lib" + row.value("name", "torch") + "_cuda.so";
      binary["soname"] = "lib" + row.value("name", "torch") + "_cuda.so";
      binary["needed"] = json::array();
      binary["framework"] = row.value("name", "");
      binary["framework_version"] = row.value("version", json(nullptr));
      binary["source"] = "knowledge: TORCH_CUDA_ARCH_LIST of " + row.value("name", "") + " " +
                         (row["version"].is_string() ? row["version"].get<std::string>() : std::string("?")) + "+" +
                         row.value("variant", "");
      binaries.push_back(binary);
    }
    if (!binaries.empty()) facts["binaries"] = binaries;
    facts["binaries_complete"] = false;

    json stages = json::array();
    for (size_t s = 0; s < file_.stages.size(); ++s)
      stages.push_back({{"name", file_.stages[s].name}, {"base", file_.stages[s].base},
                        {"dockerfile_line", file_.stages[s].line}, {"target", s == target}});
    json suppressions = json::array();
    for (const InlineSuppression& s : file_.suppressions)
      suppressions.push_back({{"rules", s.rules}, {"reason", s.reason}, {"file", s.file}, {"line", s.line},
                              {"instruction_line", s.instruction_line}, {"instruction", s.instruction}});
    json unused_args = json::array();
    for (const auto& [name, value] : options_.build_args)
      if (!used_build_args_.count(name)) unused_args.push_back(name);
    facts["dockerfile"] = {{"path", file_.path},        {"escape", std::string(1, file_.escape)},
                           {"syntax", file_.syntax},    {"stages", stages},
                           {"unknown", state.unknown},  {"notes", state.notes},
                           {"changes", state.changes},  {"suppressions", suppressions},
                           {"unused_build_args", unused_args}};
    return facts;
  }

  static bool HasUnknown(const State& state, const std::string& fact) {
    for (const auto& row : state.unknown)
      if (row.value("fact", "") == fact) return true;
    return false;
  }
  static bool HasRequirementEnv(const State& state) {
    for (const auto& [k, v] : state.env)
      if (StartsWith(k, "NVIDIA_REQUIRE_") || k == "CUDA_VERSION" || k == "NVIDIA_DISABLE_REQUIRE") return true;
    return false;
  }

  // Same shape as the image facts' cuda.requirements.
  json Requirements(const State& state) const {
    json out = json::object();
    for (const std::string& key : state.env_order) {
      if (StartsWith(key, "NVIDIA_REQUIRE_") || key == "CUDA_VERSION" || key == "NVIDIA_DISABLE_REQUIRE" ||
          key == "NVIDIA_VISIBLE_DEVICES" || key == "NVIDIA_DRIVER_CAPABILITIES" || StartsWith(key, "NV_CUDA_") ||
          key == "NVIDIA_PRODUCT_NAME" || key == "NVARCH")
        out[key] = state.env.at(key);
    }
    auto get = [&](const std::string& key) -> std::string {
      auto it = state.env.find(key);
      return it == state.env.end() ? "" : it->second;
    };
    json provenance = json::object();
    for (const auto& [key, value] : out.items())
      if (state.env_provenance.contains(key)) provenance[key] = state.env_provenance[key];
    out["provenance"] = provenance;
    std::string disable = ToLower(get("NVIDIA_DISABLE_REQUIRE"));
    // Go's strconv.ParseBool truthy values.
    out["disabled"] = disable == "1" || disable == "t" || disable == "true";
    if (!state.env_known) {
      out["complete"] = false;  // the base image may add NVIDIA_REQUIRE_* the Dockerfile does not show
      return out;
    }
    out["complete"] = true;
    std::string cuda_version = get("CUDA_VERSION");
    bool legacy = !cuda_version.empty() && get("NVIDIA_REQUIRE_CUDA").empty();
    out["legacy"] = legacy;
    if (legacy) {
      auto parts = SplitOn(cuda_version, '.');
      bool valid = parts.size() >= 2 && IsVersion(parts[0]) && IsVersion(parts[1]);
      out["legacy_cuda_version"] = valid ? json(parts[0] + "." + parts[1]) : json(nullptr);
      if (!valid) out["legacy_cuda_version_invalid"] = true;
    } else {
      out["legacy_cuda_version"] = nullptr;
    }
    return out;
  }

  json Loader(const State& state) const {
    json out = json::object();
    json ld_library_path = json::array();
    auto it = state.env.find("LD_LIBRARY_PATH");
    if (it != state.env.end())
      for (const std::string& dir : SplitOn(it->second, ':'))
        if (!dir.empty()) ld_library_path.push_back(dir);
    if (it != state.env.end() || state.env_known) out["ld_library_path"] = ld_library_path;
    if (state.env_provenance.contains("LD_LIBRARY_PATH"))
      out["ld_library_path_provenance"] = state.env_provenance["LD_LIBRARY_PATH"];
    bool conf_known = state.ld_so_conf_known && !HasUnknown(state, "cuda.loader.ld_so_conf");
    if (conf_known || !state.ld_so_conf.empty()) out["ld_so_conf"] = state.ld_so_conf;
    out["ld_so_conf_complete"] = conf_known;
    // Which libcuda.so.1 the image itself would offer, in search order.
    json candidates = json::array();
    auto consider = [&](const std::string& dir_text, const std::string& via, const json* provenance) {
      std::string dir = Canonical(state, dir_text);
      for (const auto& row : state.drivers) {
        if (!row["path"].is_string()) continue;
        std::string path = Canonical(state, row["path"]);
        if (DirName(path) != dir) continue;
        json candidate = {{"dir", dir_text}, {"via", via}, {"path", row["path"]}, {"kind", row.value("kind", "")},
                          {"version", row.value("version", json(nullptr))}, {"dockerfile_line", row.value("dockerfile_line", 0)}};
        if (provenance) candidate["via_dockerfile_line"] = provenance->value("dockerfile_line", 0);
        candidates.push_back(candidate);
        break;
      }
    };
    const json* ld_provenance = state.env_provenance.contains("LD_LIBRARY_PATH") ? &state.env_provenance["LD_LIBRARY_PATH"] : nullptr;
    for (const auto& dir : ld_library_path) consider(dir.get<std::string>(), "LD_LIBRARY_PATH", ld_provenance);
    for (const auto& entry : state.ld_so_conf) consider(entry["dir"].get<std::string>(), "ld.so.conf", &entry);
    for (const std::string& dir : {"/lib/" + state.lib_triplet, "/usr/lib/" + state.lib_triplet, std::string("/lib64"),
                                   std::string("/usr/lib64"), std::string("/lib"), std::string("/usr/lib")})
      consider(dir, "default", nullptr);
    out["libcuda_candidates"] = candidates;
    return out;
  }

  const Dockerfile& file_;
  const DockerfileOptions& options_;
  const DockerfileKnowledge& k_;
  std::map<std::string, std::string> global_args_;
  std::set<std::string> declared_unset_;
  std::set<std::string> used_build_args_;
  std::map<size_t, State> stage_cache_;
  bool non_posix_shell_ = false;
  bool frameworks_partial_ = false;
};

}  // namespace

Result<DockerfileAnalysis> AnalyzeDockerfileText(std::string_view text, const std::string& path,
                                                 const DockerfileOptions& options) {
  auto parsed = ParseDockerfile(text, path, options.limits);
  if (!parsed.ok()) return parsed.error();
  auto knowledge = LoadKnowledge(options.knowledge_dir.empty() ? DefaultKnowledgeDir() : options.knowledge_dir);
  if (!knowledge.ok()) return knowledge.error();
  Builder builder(*parsed, options, **knowledge);
  return builder.Run();
}

Result<DockerfileAnalysis> AnalyzeDockerfile(const std::string& path, const DockerfileOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return MakeError(path, "cannot open Dockerfile");
  std::string text;
  char buffer[65536];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    text.append(buffer, static_cast<size_t>(in.gcount()));
    if (text.size() > options.limits.max_bytes)
      return MakeError(path, "Dockerfile is over the limit of " + std::to_string(options.limits.max_bytes) + " bytes");
  }
  return AnalyzeDockerfileText(text, path, options);
}

}  // namespace imagelint::dockerfile
