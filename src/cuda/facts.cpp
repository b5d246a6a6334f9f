// Builds the `cuda`, `binaries` and `frameworks` facts from the merged tree.
// See docs/cuda-facts.md for the shape and for how each version is chosen.
#include <algorithm>
#include <cctype>
#include <cstring>
#include <deque>
#include <fnmatch.h>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "cuda/cuda.h"

namespace imagelint::cuda {
namespace {

using nlohmann::json;

bool StartsWith(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }
bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}
std::string BaseName(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}
std::string DirName(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}
std::string Shown(const std::string& path) { return "/" + path; }
std::string Normalize(std::string name) {
  for (char& c : name) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (c == '_' || c == '.') c = '-';
  }
  return name;
}
int Components(const std::string& version) {
  if (version.empty()) return 0;
  return static_cast<int>(std::count(version.begin(), version.end(), '.')) + 1;
}
std::string Major(const std::string& version) { return version.substr(0, version.find('.')); }
// "12.4.127-1" / "12.4.127~12.4.1-2" / "1:12.4.127-1" -> "12.4.127"
std::string UpstreamVersion(std::string version) {
  size_t colon = version.find(':');
  if (colon != std::string::npos) version = version.substr(colon + 1);
  version = version.substr(0, version.find_first_of("-~+"));
  return version;
}
// "site-packages" / "dist-packages" directory a path lies in ("" when none).
std::string SitePackages(const std::string& path) {
  for (const char* marker : {"/site-packages/", "/dist-packages/"}) {
    size_t at = path.find(marker);
    if (at != std::string::npos) return path.substr(0, at + std::strlen(marker) - 1);
  }
  return "";
}
// Python: NAME = 'value' / NAME: Optional[str] = "value"
std::string PyAssignment(const std::string& text, const std::string& name) {
  std::regex pattern("(^|\\n)\\s*" + name + "\\s*(:[^=\\n]*)?=\\s*['\"]([^'\"\\n]*)['\"]");
  std::smatch match;
  if (std::regex_search(text, match, pattern)) return match[3];
  return "";
}
// Python dict literal entry: 'key': 'value'
std::string PyDictValue(const std::string& text, const std::string& key) {
  std::regex pattern("['\"]" + key + "['\"]\\s*:\\s*['\"]([^'\"\\n]*)['\"]");
  std::smatch match;
  if (std::regex_search(text, match, pattern)) return match[1];
  return "";
}

struct Env {
  std::map<std::string, std::string> values;
  std::vector<std::string> order;
};

Env ParseEnv(const json& config) {
  Env env;
  const json* list = nullptr;
  if (config.contains("config") && config["config"].is_object() && config["config"].contains("Env"))
    list = &config["config"]["Env"];
  else if (config.contains("Env"))
    list = &config["Env"];
  if (list == nullptr || !list->is_array()) return env;
  for (const auto& item : *list) {
    if (!item.is_string()) continue;
    std::string text = item.get<std::string>();
    size_t eq = text.find('=');
    std::string key = text.substr(0, eq), value = eq == std::string::npos ? "" : text.substr(eq + 1);
    if (!env.values.count(key)) env.order.push_back(key);
    env.values[key] = value;
  }
  return env;
}

// CUDA_VERSION -> "major.minor" as the NVIDIA Container Toolkit derives it
// (nvidia-container-stack.md §1.10 Table E); nullopt when it would reject it.
std::optional<std::string> LegacyMajorMinor(std::string value) {
  if (!value.empty() && value[0] == 'v') value = value.substr(1);
  static const std::regex pattern("^([0-9]+)(\\.([0-9]+))?(\\.([0-9]+))?$");
  std::smatch match;
  if (!std::regex_match(value, match, pattern)) return std::nullopt;
  auto fits = [](const std::string& digits) { return digits.size() < 10 || (digits.size() == 10 && digits <= "4294967295"); };
  for (int group : {1, 3, 5})
    if (match[group].matched && !fits(match[group])) return std::nullopt;
  return std::string(match[1]) + "." + (match[3].matched ? std::string(match[3]) : "0");
}

bool GoParseBool(const std::string& value) {
  return value == "1" || value == "t" || value == "T" || value == "TRUE" || value == "true" || value == "True";
}

// Directories the loader searches last. glibc's built-in list plus the
// Debian/Ubuntu multiarch directories (their ld.so.conf.d and the distro's
// configured slibdir); same order as `Loader()` reports candidates in.
constexpr const char* kDefaultLoaderDirs[] = {"lib/x86_64-linux-gnu", "usr/lib/x86_64-linux-gnu",
                                              "lib/aarch64-linux-gnu", "usr/lib/aarch64-linux-gnu",
                                              "lib64", "usr/lib64", "lib", "usr/lib"};

class Builder {
 public:
  Builder(const CudaFactsInput& input) : input_(input), env_(ParseEnv(input.config)) {
    for (const CudaFile& file : input_.files) by_path_[file.path] = &file;
    for (const CudaFile& file : input_.files) {
      if (file.text == nullptr) continue;
      std::string kind = file.text->value("kind", "");
      texts_[kind].push_back(&file);
    }
  }

  void Run(json& facts) {
    json cuda = json::object();
    loader_ = Loader();          // before Binaries: executables' libcudart lookups use it
    json binaries = Binaries();  // also collects static runtimes
    cuda["runtimes"] = Runtimes();
    cuda["static_runtimes"] = static_runtimes_;
    cuda["drivers"] = Drivers();
    cuda["driver_libraries"] = driver_libraries_;
    cuda["requirements"] = Requirements();
    cuda["loader"] = loader_;
    cuda["toolkits"] = Toolkits();
    json packages = json::array();
    for (const CudaFile* file : texts_["dpkg_status"])
      for (const auto& package : file->text->value("packages", json::array())) {
        json row = package;
        row["evidence"] = Shown(file->path);
        packages.push_back(row);
      }
    cuda["packages"] = packages;
    facts["cuda"] = cuda;
    facts["binaries"] = binaries;
    facts["frameworks"] = Frameworks();
  }

 private:
  json loader_ = json::object();  // Loader(), computed first

  json Layer(const CudaFile& file) const {
    return file.layer;
  }
  void AddWhere(json& row, const CudaFile& file) const {
    row["path"] = Shown(file.path);
    row["layer"] = file.layer;
    if (file.layer < input_.layer_digests.size()) row["layer_digest"] = input_.layer_digests[file.layer];
  }
  std::optional<std::string> Resolve(const std::string& path) const {
    if (input_.resolve) return input_.resolve(path);
    // Inside the file list only: every component, absolute targets from the
    // root, ".." clamped at the root, at most 40 links.
    std::deque<std::string> pending;
    auto push_front = [&](const std::string& text) {
      std::vector<std::string> parts;
      size_t start = 0;
      while (start <= text.size()) {
        size_t end = text.find('/', start);
        if (end == std::string::npos) end = text.size();
        parts.push_back(text.substr(start, end - start));
        start = end + 1;
      }
      pending.insert(pending.begin(), parts.begin(), parts.end());
    };
    push_front(path);
    std::vector<std::string> done;
    int hops = 0;
    while (!pending.empty()) {
      std::string part = pending.front();
      pending.pop_front();
      if (part.empty() || part == ".") continue;
      if (part == "..") {
        if (!done.empty()) done.pop_back();
        continue;
      }
      std::string candidate;
      for (const auto& d : done) candidate += d + "/";
      candidate += part;
      const CudaFile* file = Find(candidate);
      if (file != nullptr && file->type == EntryType::kSymlink) {
        if (++hops > 40) return std::nullopt;
        if (StartsWith(file->link_target, "/")) done.clear();
        push_front(file->link_target);
        continue;
      }
      done.push_back(part);
    }
    std::string out;
    for (const auto& d : done) out += (out.empty() ? "" : "/") + d;
    return out;
  }
  const CudaFile* Find(const std::string& path) const {
    auto it = by_path_.find(path);
    return it == by_path_.end() ? nullptr : it->second;
  }
  // Symlinks whose resolved target is `path`.
  json AliasesOf(const std::string& path) const {
    json out = json::array();
    for (const CudaFile& file : input_.files) {
      if (file.type != EntryType::kSymlink) continue;
      if (BaseName(file.path).rfind("lib", 0) != 0) continue;
      auto resolved = Resolve(file.path);
      if (resolved && *resolved == path) out.push_back(Shown(file.path));
    }
    return out;
  }

  // --- runtimes -------------------------------------------------------------
  json Runtimes() {
    static const std::regex name_pattern("^libcudart(-[0-9a-f]{8})?\\.so((\\.[0-9]+)*)$");
    json out = json::array();
    for (const CudaFile& file : input_.files) {
      if (file.type != EntryType::kRegular && file.type != EntryType::kHardlink) continue;
      std::string base = BaseName(file.path);
      std::smatch match;
      if (!std::regex_match(base, match, name_pattern)) continue;
      struct Evidence {
        std::string source, version, path;
        int rank;
      };
      std::vector<Evidence> evidence;
      std::string suffix = match[2].str();
      if (!suffix.empty()) suffix = suffix.substr(1);
      std::string soname = file.elf ? file.elf->value("soname", "") : "";
      std::string soname_major;
      if (StartsWith(soname, "libcudart.so.")) soname_major = Major(soname.substr(13));
      if (Components(suffix) >= 3) evidence.push_back({"filename", suffix, Shown(file.path), 0});
      std::string major = !soname_major.empty() ? soname_major : Major(suffix);
      // dpkg: cuda-cudart-X-Y or libcudartNN from Debian/Ubuntu.
      if (!SitePackages(file.path).size() && file.path.find("conda") == std::string::npos) {
        for (const CudaFile* status : texts_["dpkg_status"]) {
          for (const auto& package : status->text->value("packages", json::array())) {
            std::string name = package.value("name", "");
            bool is_cudart = StartsWith(name, "cuda-cudart-" + major + "-") || StartsWith(name, "libcudart" + major);
            if (!is_cudart || EndsWith(name, "-dev") || name.find("-dev-") != std::string::npos) continue;
            std::string version = UpstreamVersion(package.value("version", ""));
            if (Major(version) == major && Components(version) >= 2)
              evidence.push_back({"dpkg", version, Shown(status->path) + " (" + name + ")", 1});
          }
        }
      }
      std::string site = SitePackages(file.path);
      bool torch_copy = file.path.find("/torch/lib/") != std::string::npos;
      if (!site.empty()) {
        // PyTorch's own hashed copy is not the nvidia-cuda-runtime wheel's file.
        for (const CudaFile* meta : torch_copy ? std::vector<const CudaFile*>{} : texts_["pip_metadata"]) {
          if (SitePackages(meta->path) != site) continue;
          std::string name = Normalize(meta->text->value("name", ""));
          if (name != "nvidia-cuda-runtime-cu" + major && name != "nvidia-cuda-runtime") continue;
          std::string version = meta->text->value("version", "");
          if (Major(version) == major || major.empty())
            evidence.push_back({"pip", UpstreamVersion(version), Shown(meta->path), 2});
        }
        if (file.path.find("/torch/lib/") != std::string::npos) {
          for (const CudaFile* torch : texts_["torch_version"]) {
            if (SitePackages(torch->path) != site) continue;
            std::string cuda = PyAssignment(torch->text->value("text", ""), "cuda");
            if (!cuda.empty() && (major.empty() || Major(cuda) == major))
              evidence.push_back({"torch/version.py", cuda, Shown(torch->path), 5});
          }
        }
      }
      // conda: <prefix>/lib/libcudart... with <prefix>/conda-meta/*.json
      size_t lib = file.path.rfind("/lib/");
      if (lib != std::string::npos) {
        std::string prefix = file.path.substr(0, lib);
        for (const CudaFile* meta : texts_["conda_meta"]) {
          if (DirName(meta->path) != prefix + "/conda-meta") continue;
          std::string name = meta->text->value("name", "");
          if (name != "cuda-cudart" && name != "cudatoolkit" && name != "cuda-cudart_linux-64") continue;
          std::string version = meta->text->value("version", "");
          if (major.empty() || Major(version) == major)
            evidence.push_back({"conda", version, Shown(meta->path), 3});
        }
      }
      // version.json of the toolkit directory the file lives in.
      static const std::regex toolkit_dir("^(usr/local/cuda(-[0-9.]+)?)/");
      std::smatch dir_match;
      if (std::regex_search(file.path, dir_match, toolkit_dir)) {
        std::string root = dir_match[1];
        for (const CudaFile* version_file : texts_["cuda_version_json"]) {
          std::string dir = DirName(version_file->path);
          auto resolved_root = Resolve(root);
          if (dir != root && (!resolved_root || dir != *resolved_root)) continue;
          const json versions = version_file->text->value("versions", json::object());
          std::string version = versions.value("cuda_cudart", "");
          if (!version.empty()) evidence.push_back({"version.json", version, Shown(version_file->path), 4});
        }
      }
      if (!soname_major.empty()) evidence.push_back({"soname", soname_major, Shown(file.path), 6});
      else if (!suffix.empty()) evidence.push_back({"filename", suffix, Shown(file.path), 7});
      json row = json::object();
      AddWhere(row, file);
      row["soname"] = soname;
      if (match[1].matched) row["hashed_copy"] = true;
      bool conda = file.path.find("conda") != std::string::npos ||
                   (lib != std::string::npos && Find(file.path.substr(0, lib) + "/conda-meta/history") != nullptr);
      std::string origin = !site.empty() ? (file.path.find("/torch/lib/") != std::string::npos ? "torch" : "pip")
                           : conda       ? "conda"
                                         : "system";
      row["origin"] = origin;
      std::stable_sort(evidence.begin(), evidence.end(), [](const Evidence& a, const Evidence& b) {
        int ca = Components(a.version), cb = Components(b.version);
        if (std::min(ca, 3) != std::min(cb, 3)) return std::min(ca, 3) > std::min(cb, 3);
        return a.rank < b.rank;
      });
      json all = json::array();
      std::set<std::string> full_versions;
      for (const Evidence& e : evidence) {
        all.push_back({{"source", e.source}, {"version", e.version}, {"path", e.path}});
        if (Components(e.version) >= 3) full_versions.insert(e.version);
      }
      if (!evidence.empty()) {
        row["version"] = evidence.front().version;
        row["source"] = evidence.front().source;
        row["evidence_path"] = evidence.front().path;
      } else {
        row["version"] = nullptr;
        row["source"] = nullptr;
      }
      row["evidence"] = all;
      if (full_versions.size() > 1) row["conflict"] = true;
      row["aliases"] = AliasesOf(file.path);
      out.push_back(row);
    }
    return out;
  }

  // --- drivers --------------------------------------------------------------
  json Drivers() {
    static const std::regex name_pattern("^libcuda\\.so((\\.[0-9]+)*)$");
    static const std::regex other_pattern(
        "^(libnvidia-(ml|ptxjitcompiler|nvvm|gpucomp|pkcs11|pkcs11-openssl3|tileiras|fatbinaryloader|opencl)|"
        "libcudadebugger|libnvcuvid|libnvidia-encode)\\.so((\\.[0-9]+)*)$");
    json out = json::array();
    for (const CudaFile& file : input_.files) {
      if (file.type != EntryType::kRegular && file.type != EntryType::kHardlink) continue;
      std::string base = BaseName(file.path);
      std::smatch match;
      std::string kind = file.path.find("/stubs/") != std::string::npos    ? "stub"
                         : file.path.find("/compat/") != std::string::npos ? "compat"
                                                                           : "bundled";
      if (std::regex_match(base, match, other_pattern)) {
        std::string suffix = match[3].str();
        if (!suffix.empty()) suffix = suffix.substr(1);
        json row = {{"name", match[1].str()}, {"kind", kind}};
        AddWhere(row, file);
        row["version"] = Components(suffix) >= 2 ? json(suffix) : json(nullptr);
        driver_libraries_.push_back(row);
        continue;
      }
      if (!std::regex_match(base, match, name_pattern)) continue;
      std::string suffix = match[1].str();
      if (!suffix.empty()) suffix = suffix.substr(1);
      json row = json::object();
      AddWhere(row, file);
      row["kind"] = kind;
      if (Components(suffix) >= 2) {
        row["version"] = suffix;
        row["source"] = "filename";
      } else {
        row["version"] = nullptr;
        row["source"] = nullptr;
        // A real libcuda.so.1 file without the version in its name: dpkg may know.
        if (kind == "bundled") {
          for (const CudaFile* status : texts_["dpkg_status"])
            for (const auto& package : status->text->value("packages", json::array())) {
              std::string name = package.value("name", "");
              if (name == "libcuda1" || (StartsWith(name, "libnvidia-tesla-") && EndsWith(name, "-cuda1")) ||
                  StartsWith(name, "libnvidia-compute-")) {
                row["version"] = UpstreamVersion(package.value("version", ""));
                row["source"] = "dpkg";
                row["evidence_path"] = Shown(status->path) + " (" + name + ")";
              }
            }
        }
      }
      static const std::regex toolkit_dir("^usr/local/cuda-([0-9]+\\.[0-9]+)/");
      std::smatch dir_match;
      if (std::regex_search(file.path, dir_match, toolkit_dir)) row["toolkit_dir"] = dir_match[1].str();
      if (file.elf) {
        row["soname"] = file.elf->value("soname", "");
        if (file.elf->contains("fwd_compat")) row["note"] = (*file.elf)["fwd_compat"];
        if (file.elf->contains("problems")) row["problems"] = (*file.elf)["problems"];
      }
      if (!row.contains("note")) row["note"] = json::object();
      row["aliases"] = AliasesOf(file.path);
      out.push_back(row);
    }
    return out;
  }

  // --- requirements -----------------------------------------------------------
  json Requirements() {
    json out = json::object();
    for (const std::string& key : env_.order) {
      if (StartsWith(key, "NVIDIA_REQUIRE_") || key == "CUDA_VERSION" || key == "NVIDIA_DISABLE_REQUIRE" ||
          key == "NVIDIA_VISIBLE_DEVICES" || key == "NVIDIA_DRIVER_CAPABILITIES" || StartsWith(key, "NV_CUDA_") ||
          key == "NVIDIA_PRODUCT_NAME" || key == "NVARCH")
        out[key] = env_.values.at(key);
    }
    auto get = [&](const std::string& key) -> std::string {
      auto it = env_.values.find(key);
      return it == env_.values.end() ? "" : it->second;
    };
    out["disabled"] = GoParseBool(get("NVIDIA_DISABLE_REQUIRE"));
    std::string cuda_version = get("CUDA_VERSION");
    bool legacy = !cuda_version.empty() && get("NVIDIA_REQUIRE_CUDA").empty();
    out["legacy"] = legacy;
    if (legacy) {
      auto major_minor = LegacyMajorMinor(cuda_version);
      out["legacy_cuda_version"] = major_minor ? json(*major_minor) : json(nullptr);
      if (!major_minor) out["legacy_cuda_version_invalid"] = true;
    } else {
      out["legacy_cuda_version"] = nullptr;
    }
    return out;
  }

  // --- loader -----------------------------------------------------------------
  void ReadLdSoConf(const std::string& path, int depth, json& dirs, std::set<std::string>& seen) {
    if (depth > 8 || seen.count(path)) return;
    seen.insert(path);
    const CudaFile* file = Find(path);
    if (file == nullptr) {
      auto resolved = Resolve(path);
      if (resolved) file = Find(*resolved);
    }
    if (file == nullptr || file->text == nullptr) return;
    std::istringstream lines(file->text->value("text", ""));
    std::string line;
    while (std::getline(lines, line)) {
      line = line.substr(0, line.find('#'));
      size_t start = line.find_first_not_of(" \t\r");
      if (start == std::string::npos) continue;
      line = line.substr(start);
      line.erase(line.find_last_not_of(" \t\r") + 1);
      if (StartsWith(line, "include") && line.size() > 7 && (line[7] == ' ' || line[7] == '\t')) {
        std::string pattern = line.substr(8);
        pattern.erase(0, pattern.find_first_not_of(" \t"));
        if (!StartsWith(pattern, "/")) pattern = DirName(path) + "/" + pattern;
        else pattern = pattern.substr(1);
        std::vector<std::string> matches;
        for (const CudaFile& candidate : input_.files)
          if (fnmatch(pattern.c_str(), candidate.path.c_str(), FNM_PATHNAME) == 0) matches.push_back(candidate.path);
        std::sort(matches.begin(), matches.end());
        for (const std::string& match : matches) ReadLdSoConf(match, depth + 1, dirs, seen);
        continue;
      }
      if (StartsWith(line, "hwcap")) continue;
      // One line may hold several directories separated by spaces, tabs, ':' or ','.
      std::string item;
      for (size_t i = 0; i <= line.size(); ++i) {
        char c = i < line.size() ? line[i] : ' ';
        if (c == ' ' || c == '\t' || c == ':' || c == ',') {
          if (!item.empty()) dirs.push_back({{"dir", item}, {"file", Shown(file->path)}, {"layer", file->layer}});
          item.clear();
        } else {
          item += c;
        }
      }
    }
  }

  json Loader() {
    json out = json::object();
    json ld_library_path = json::array();
    auto it = env_.values.find("LD_LIBRARY_PATH");
    if (it != env_.values.end()) {
      std::string value = it->second;
      size_t start = 0;
      while (start <= value.size()) {
        size_t end = value.find(':', start);
        if (end == std::string::npos) end = value.size();
        std::string dir = value.substr(start, end - start);
        if (!dir.empty()) ld_library_path.push_back(dir);
        start = end + 1;
      }
    }
    out["ld_library_path"] = ld_library_path;
    json conf = json::array();
    std::set<std::string> seen;
    if (Find("etc/ld.so.conf")) {
      ReadLdSoConf("etc/ld.so.conf", 0, conf, seen);
    } else {
      // No /etc/ld.so.conf: glibc reads nothing else, but the NVIDIA toolkit's
      // update-ldcache hook creates one that includes ld.so.conf.d/*.conf.
      std::vector<std::string> matches;
      for (const CudaFile& file : input_.files)
        if (StartsWith(file.path, "etc/ld.so.conf.d/") && EndsWith(file.path, ".conf")) matches.push_back(file.path);
      std::sort(matches.begin(), matches.end());
      for (const std::string& match : matches) ReadLdSoConf(match, 1, conf, seen);
      out["ld_so_conf_missing"] = true;
    }
    out["ld_so_conf"] = conf;
    // Which libcuda.so.1 a process would find in the image itself, in search order.
    json candidates = json::array();
    auto consider = [&](const std::string& dir, const std::string& via) {
      std::string clean = dir;
      while (StartsWith(clean, "/")) clean = clean.substr(1);
      while (EndsWith(clean, "/")) clean.pop_back();
      std::string path = clean + "/libcuda.so.1";
      auto resolved = Resolve(path);
      if (!Find(path) && !(resolved && Find(*resolved))) return;
      json row = {{"dir", "/" + clean}, {"via", via}, {"path", Shown(path)}};
      if (resolved && Find(*resolved)) {
        row["resolves_to"] = Shown(*resolved);
        row["kind"] = resolved->find("/stubs/") != std::string::npos    ? "stub"
                      : resolved->find("/compat/") != std::string::npos ? "compat"
                                                                        : "bundled";
      } else {
        row["resolves_to"] = nullptr;
      }
      candidates.push_back(row);
    };
    // libcuda is dlopen'ed by libcudart: no RPATH/RUNPATH of the program applies.
    for (const auto& [dir, via] : SearchOrder(out, json::object(), "")) consider(dir, via);
    out["libcuda_candidates"] = candidates;
    return out;
  }

  // The directories the dynamic loader searches for the DT_NEEDED entries of
  // an object with `elf`'s RPATH/RUNPATH, in glibc's order, with "via" names:
  // DT_RPATH (only without DT_RUNPATH), LD_LIBRARY_PATH, DT_RUNPATH, the
  // ld.so.conf directories of `loader` (the cache), the default directories.
  // $ORIGIN becomes `origin` (the object's directory, no leading slash).
  std::vector<std::pair<std::string, std::string>> SearchOrder(const json& loader, const json& elf,
                                                               const std::string& origin) const {
    auto expand = [&](std::string dir) {
      for (const std::string token : {"${ORIGIN}", "$ORIGIN"}) {
        for (size_t at = dir.find(token); at != std::string::npos; at = dir.find(token, at + origin.size() + 1)) {
          dir.replace(at, token.size(), "/" + origin);
        }
      }
      return dir;
    };
    std::vector<std::pair<std::string, std::string>> search;
    bool has_runpath = elf.contains("runpath");
    if (!has_runpath && elf.contains("rpath"))
      for (const auto& dir : elf["rpath"]) search.emplace_back(expand(dir.get<std::string>()), "RPATH");
    for (const auto& dir : loader.value("ld_library_path", json::array()))
      search.emplace_back(dir.get<std::string>(), "LD_LIBRARY_PATH");
    if (has_runpath)
      for (const auto& dir : elf["runpath"]) search.emplace_back(expand(dir.get<std::string>()), "RUNPATH");
    for (const auto& entry : loader.value("ld_so_conf", json::array()))
      search.emplace_back(entry.value("dir", ""), "ld.so.conf");
    for (const char* dir : kDefaultLoaderDirs) search.emplace_back(std::string("/") + dir, "default");
    return search;
  }

  // Where the dynamic loader would find `soname` for the executable `file`
  // (SearchOrder). The cache is taken as the ld.so.conf directories: the
  // NVIDIA runtime's update-ldcache hook runs ldconfig in the container at
  // start (nvidia-container-stack.md §update-ldcache), so files added after
  // the image's last ldconfig count.
  json LookupForExecutable(const CudaFile& file, const json& elf, const std::string& soname) {
    const auto search = SearchOrder(loader_, elf, DirName(file.path));
    json lookup = {{"needed", soname}, {"found", nullptr}, {"via", nullptr}};
    json searched = json::array();
    bool incomplete = false;
    for (const auto& [dir, via] : search) {
      // A relative entry depends on the working directory, $LIB and $PLATFORM
      // on the loader build and the CPU: not decidable from the image.
      if (dir.empty() || dir[0] != '/' || dir.find('$') != std::string::npos) {
        incomplete = incomplete || !dir.empty();
        continue;
      }
      searched.push_back(dir);
      std::string clean = dir.substr(1);
      while (EndsWith(clean, "/")) clean.pop_back();
      std::string path = clean.empty() ? soname : clean + "/" + soname;
      auto resolved = Resolve(path);
      const CudaFile* target = resolved ? Find(*resolved) : nullptr;
      if (target == nullptr) target = Find(path);
      if (target == nullptr || (target->type != EntryType::kRegular && target->type != EntryType::kHardlink)) continue;
      // Shown through the directory's real path ("bin/../lib" -> "lib"), the file name kept.
      auto real_dir = clean.empty() ? std::optional<std::string>("") : Resolve(clean);
      lookup["found"] = Shown(real_dir ? (real_dir->empty() ? soname : *real_dir + "/" + soname) : path);
      lookup["via"] = via;
      break;
    }
    lookup["searched"] = searched;
    if (incomplete && lookup["found"].is_null()) lookup["incomplete"] = true;
    return lookup;
  }

  // --- toolkits ----------------------------------------------------------------
  json Toolkits() {
    json out = json::array();
    for (const CudaFile* file : texts_["cuda_version_json"]) {
      json row = {{"path", Shown(file->path)}, {"layer", file->layer}};
      const json versions = file->text->value("versions", json::object());
      row["version"] = versions.value("cuda", "");
      row["components"] = versions;
      out.push_back(row);
    }
    for (const CudaFile* file : texts_["cuda_version_txt"]) {
      std::string text = file->text->value("text", "");
      static const std::regex pattern("CUDA Version ([0-9.]+)");
      std::smatch match;
      json row = {{"path", Shown(file->path)}, {"layer", file->layer}};
      row["version"] = std::regex_search(text, match, pattern) ? match[1].str() : "";
      out.push_back(row);
    }
    return out;
  }

  // --- binaries ----------------------------------------------------------------
  static bool CudaLibrary(const std::string& name) {
    static const std::regex pattern(
        "^(libcuda|libcudart|libcublas|libcublasLt|libcudnn[a-z_]*|libcufft|libcufftw|libcurand|libcusolver|"
        "libcusolverMg|libcusparse|libnvrtc|libnvJitLink|libnvjpeg|libnpp[a-z]*|libnccl|libnvinfer[a-z_]*|"
        "libnvidia-ml|libnvToolsExt|libcupti|libnvfatbin|libcudla|libtorch_cuda|libc10_cuda)"
        "(-[0-9a-f]{8})?\\.so(\\.[0-9]+)*$");
    return std::regex_match(name, pattern);
  }

  json Binaries() {
    json out = json::array();
    for (const CudaFile& file : input_.files) {
      if (file.elf == nullptr) continue;
      if (file.type != EntryType::kRegular && file.type != EntryType::kHardlink) continue;
      const json& elf = *file.elf;
      json needed = elf.value("needed", json::array());
      bool cuda_needed = false;
      std::string cudart_needed;
      for (const auto& name : needed) {
        std::string text = name.get<std::string>();
        if (CudaLibrary(text)) cuda_needed = true;
        if (StartsWith(text, "libcudart")) cudart_needed = text;
      }
      std::string soname = elf.value("soname", "");
      bool has_device_code = elf.contains("fatbin") || elf.contains("cubin");
      bool is_cuda_lib = CudaLibrary(soname) || CudaLibrary(BaseName(file.path));
      bool problems = elf.contains("problems");
      json markers = elf.value("cudart_markers", json::array());
      bool has_marker = std::find(markers.begin(), markers.end(), "cudaErrorInsufficientDriver") != markers.end();
      bool is_cudart = StartsWith(soname, "libcudart") || StartsWith(BaseName(file.path), "libcudart");
      // Static cudart: the runtime's own error-name table inside a file that is not
      // libcudart and does not load one, plus device code or the driver lookup.
      bool static_cudart = has_marker && !is_cudart && cudart_needed.empty() &&
                           (has_device_code || std::find(markers.begin(), markers.end(), "cuGetProcAddress") !=
                                                   markers.end());
      if (!(has_device_code || cuda_needed || is_cuda_lib || problems || static_cudart)) continue;
      // Driver libraries (libcuda carries ~200 internal cubins) are reported in
      // cuda.drivers / cuda.driver_libraries; their kernels are not the application's.
      std::string base = BaseName(file.path);
      if (!problems && (StartsWith(base, "libcuda.so") || StartsWith(base, "libnvidia-") ||
                        StartsWith(base, "libcudadebugger.so")))
        continue;
      json row = json::object();
      AddWhere(row, file);
      for (const char* key : {"machine", "class", "type"})
        if (elf.contains(key)) row[key] = elf[key];
      row["soname"] = soname;
      row["needed"] = needed;
      if (elf.contains("runpath")) row["runpath"] = elf["runpath"];
      if (elf.contains("rpath")) row["rpath"] = elf["rpath"];
      // Executables only: a shared library's lookups also depend on whoever loads it.
      if (!cudart_needed.empty() && elf.contains("interp")) {
        row["cudart_lookup"] = LookupForExecutable(file, elf, cudart_needed);
      }
      row["sass"] = elf.value("sass", json::array());
      row["ptx"] = elf.value("ptx", json::array());
      if (elf.contains("fatbin")) {
        const json& fatbin = elf["fatbin"];
        row["fatbin"] = fatbin;
        row["toolkits"] = fatbin.value("toolkits", json::array());
      }
      if (elf.contains("cubin")) row["cubin"] = elf["cubin"];
      row["static_cudart"] = static_cudart;
      if (static_cudart) {
        json entry = json::object();
        AddWhere(entry, file);
        entry["markers"] = markers;
        entry["toolkits"] = row.value("toolkits", json::array());
        static_runtimes_.push_back(entry);
      }
      if (problems) row["problems"] = elf["problems"];
      out.push_back(row);
    }
    return out;
  }

  // --- frameworks ----------------------------------------------------------------
  json Frameworks() {
    json out = json::array();
    auto add = [&](std::string name, std::string version, json cuda, const CudaFile& evidence, json extra) {
      json row = {{"name", name}, {"version", version}, {"cuda", cuda}};
      AddWhere(row, evidence);
      row.update(extra);
      out.push_back(row);
    };
    // PyTorch from torch/version.py, with the architectures of its CUDA libraries.
    for (const CudaFile* file : texts_["torch_version"]) {
      std::string text = file->text->value("text", "");
      std::string version = PyAssignment(text, "__version__");
      std::string cuda = PyAssignment(text, "cuda");
      std::string torch_lib = DirName(file->path) + "/lib/";
      std::set<std::string> sass;
      std::map<std::string, json> ptx;
      json libraries = json::array();
      for (const CudaFile& lib : input_.files) {
        if (!lib.elf || !StartsWith(lib.path, torch_lib)) continue;
        if (!lib.elf->contains("fatbin")) continue;
        libraries.push_back(Shown(lib.path));
        for (const auto& arch : lib.elf->value("sass", json::array())) sass.insert(arch.get<std::string>());
        for (const auto& row : lib.elf->value("ptx", json::array())) ptx[row.dump()] = row;
      }
      json ptx_list = json::array();
      for (auto& [key, row] : ptx) ptx_list.push_back(row);
      add("torch", version, cuda.empty() ? json(nullptr) : json(cuda), *file,
          {{"sass", sass}, {"ptx", ptx_list}, {"cuda_libraries", libraries},
           {"git_version", PyAssignment(text, "git_version")}});
    }
    for (const CudaFile* file : texts_["tensorflow_build_info"]) {
      std::string text = file->text->value("text", "");
      std::string cuda = PyDictValue(text, "cuda_version");
      if (cuda.empty()) cuda = PyAssignment(text, "cuda_version_number");
      std::string version;
      std::string site = SitePackages(file->path);
      for (const CudaFile* meta : texts_["pip_metadata"]) {
        std::string name = Normalize(meta->text->value("name", ""));
        if (SitePackages(meta->path) == site && (StartsWith(name, "tensorflow") || StartsWith(name, "tf-nightly")))
          if (name == "tensorflow" || name == "tensorflow-gpu" || name == "tf-nightly" || name == "tensorflow-cpu")
            version = meta->text->value("version", "");
      }
      add("tensorflow", version, cuda.empty() ? json(nullptr) : json(cuda), *file,
          {{"cudnn", PyDictValue(text, "cudnn_version")}});
    }
    std::map<std::string, std::string> onnx_cuda;  // site-packages -> cuda_version
    for (const CudaFile* file : texts_["onnxruntime_version_info"])
      onnx_cuda[SitePackages(file->path)] = PyAssignment(file->text->value("text", ""), "cuda_version");
    static const std::regex cuda_suffix("-cu(da)?([0-9]+)(x)?($|-)");
    for (const CudaFile* meta : texts_["pip_metadata"]) {
      std::string name = Normalize(meta->text->value("name", ""));
      std::string version = meta->text->value("version", "");
      std::smatch match;
      json cuda = nullptr;
      if (std::regex_search(name, match, cuda_suffix)) {
        std::string digits = match[2];
        // cupy-cuda117 -> 11.7, cupy-cuda12x -> 12.x, tensorrt-cu12 -> 12
        if (match[3].matched) cuda = digits + ".x";
        else if (digits.size() == 3) cuda = digits.substr(0, 2) + "." + digits.substr(2);
        else cuda = digits;
      }
      size_t plus = version.find("+cu");
      if (plus != std::string::npos && cuda.is_null()) {
        std::string local = version.substr(plus + 3);
        if (StartsWith(local, "da")) local = local.substr(2);
        std::string digits;
        for (char c : local) {
          if (!std::isdigit(static_cast<unsigned char>(c))) break;
          digits += c;
        }
        if (digits.size() >= 3) cuda = digits.substr(0, digits.size() - 1) + "." + digits.substr(digits.size() - 1);
        else if (!digits.empty()) cuda = digits;
      }
      std::string framework;
      if (StartsWith(name, "cupy")) framework = "cupy";
      else if (StartsWith(name, "jax-cuda") || name == "jaxlib" || StartsWith(name, "jax-plugins")) framework = "jax";
      else if (StartsWith(name, "onnxruntime-gpu") || name == "onnxruntime") framework = "onnxruntime";
      else if (StartsWith(name, "tensorrt")) framework = "tensorrt";
      else if (name == "torch") continue;  // torch/version.py is the better witness
      else continue;
      if (framework == "onnxruntime") {
        auto it = onnx_cuda.find(SitePackages(meta->path));
        if (it != onnx_cuda.end() && !it->second.empty()) cuda = it->second;
        if (name == "onnxruntime" && cuda.is_null()) continue;  // CPU build
      }
      add(framework, version, cuda, *meta, {{"package", meta->text->value("name", "")}});
    }
    for (const CudaFile* meta : texts_["conda_meta"]) {
      std::string name = meta->text->value("name", "");
      std::string build = meta->text->value("build", "");
      std::string framework;
      if (name == "pytorch") framework = "torch";
      else if (name == "tensorflow" || name == "tensorflow-base") framework = "tensorflow";
      else if (name == "jaxlib") framework = "jax";
      else if (name == "cupy" || name == "cupy-core") framework = "cupy";
      else if (name == "onnxruntime") framework = "onnxruntime";
      else if (name == "tensorrt" || name == "libnvinfer") framework = "tensorrt";
      else continue;
      static const std::regex build_cuda("cuda([0-9]+)[._]?([0-9])");
      std::smatch match;
      json cuda = nullptr;
      if (std::regex_search(build, match, build_cuda)) cuda = match[1].str() + "." + match[2].str();
      if (framework != "torch" && framework != "tensorflow" && cuda.is_null() &&
          build.find("cuda") == std::string::npos)
        continue;
      add(framework, meta->text->value("version", ""), cuda, *meta, {{"package", name}, {"build", build}});
    }
    for (const CudaFile* status : texts_["dpkg_status"]) {
      for (const auto& package : status->text->value("packages", json::array())) {
        std::string name = package.value("name", "");
        std::string version = package.value("version", "");
        if (!(name == "libnvinfer8" || name == "libnvinfer10" || name == "tensorrt" || StartsWith(name, "libnvinfer")))
          continue;
        if (EndsWith(name, "-dev") || name.find("plugin") != std::string::npos ||
            name.find("lean") != std::string::npos || name.find("dispatch") != std::string::npos ||
            name.find("headers") != std::string::npos || name.find("bin") != std::string::npos)
          continue;
        size_t at = version.find("+cuda");
        json cuda = at == std::string::npos ? json(nullptr) : json(version.substr(at + 5));
        add("tensorrt", UpstreamVersion(version), cuda, *status, {{"package", name}});
      }
    }
    return out;
  }

  const CudaFactsInput& input_;
  Env env_;
  std::map<std::string, const CudaFile*> by_path_;
  std::map<std::string, std::vector<const CudaFile*>> texts_;
  json static_runtimes_ = json::array();
  json driver_libraries_ = json::array();
};

}  // namespace

void AddCudaFacts(const CudaFactsInput& input, json& facts) {
  Builder builder(input);
  builder.Run(facts);
}

}  // namespace imagelint::cuda
