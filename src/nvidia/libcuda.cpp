// Which libcuda.so.1 a CUDA process loads: the dynamic loader's search order (ld.so(8),
// https://man7.org/linux/man-pages/man8/ld.so.8.html) and what NVIDIA's container runtime mounts
// or links (NVIDIA/nvidia-container-toolkit, https://github.com/NVIDIA/nvidia-container-toolkit;
// NVIDIA/libnvidia-container, https://github.com/NVIDIA/libnvidia-container).
#include <algorithm>
#include <set>

#include "common/json.h"
#include "common/text.h"
#include "imagelint/image_env.h"
#include "imagelint/nvidia.h"
#include "internal.h"

namespace imagelint::nvidia {
namespace {

using nlohmann::json;

// A directory as the loader sees it, made comparable: leading "/", no
// trailing "/", /usr/local/cuda-X.Y → /usr/local/cuda, lib64 and the
// targets/<arch>/lib spelling of the toolkit's library dir folded together.
std::string NormalizeDir(std::string dir) {
  if (dir.empty() || dir[0] != '/') dir = "/" + dir;
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  // collapse "//" and "/./"
  std::string out;
  for (size_t i = 0; i < dir.size(); ++i) {
    if (dir[i] == '/' && !out.empty() && out.back() == '/') continue;
    out += dir[i];
  }
  dir = out;
  static const std::string kCuda = "/usr/local/cuda-";
  if (dir.rfind(kCuda, 0) == 0) {
    size_t end = dir.find('/', kCuda.size());
    dir = "/usr/local/cuda" + (end == std::string::npos ? std::string() : dir.substr(end));
  }
  // The toolkit installs its libraries in targets/<target>/lib and links lib64
  // to it, whatever the target (x86_64-linux, sbsa-linux, ...): fold the
  // first "/targets/<one component>/lib" that is a whole directory.
  for (size_t at = dir.find("/targets/"); at != std::string::npos; at = dir.find("/targets/", at + 1)) {
    size_t target_end = dir.find('/', at + 9);
    if (target_end == std::string::npos || target_end == at + 9) break;
    std::string_view rest = std::string_view(dir).substr(target_end);
    if (StartsWith(rest, "/lib") && (rest.size() == 4 || rest[4] == '/')) {
      dir = dir.substr(0, at) + "/lib64" + dir.substr(target_end + 4);
      break;
    }
  }
  return dir;
}

// The loader's default directories (loader.yaml), where the runtime mounts the host driver.
bool IsSystemDir(const std::string& dir, const std::vector<std::string>& system) {
  return std::find(system.begin(), system.end(), NormalizeDir(dir)) != system.end();
}

// libcuda rows of facts.cuda.drivers that a process would find as
// libcuda.so.1 (or, for stubs, libcuda.so) when `dir` is searched.
std::vector<const json*> DriversInDir(const std::vector<const json*>& drivers, const std::string& dir,
                                      bool need_so1_file) {
  std::vector<const json*> out;
  std::string wanted = NormalizeDir(dir);
  for (const json* at : drivers) {
    const json& row = *at;
    std::string path = StringField(row, "path");
    bool match =
        NormalizeDir(DirName(path)) == wanted && (!need_so1_file || BaseName(path) == "libcuda.so.1");
    static const json kNoAliases = json::array();
    auto found = row.find("aliases");
    const json& aliases = found != row.end() && found->is_array() ? *found : kNoAliases;
    for (const auto& alias : aliases) {
      if (!alias.is_string()) continue;
      std::string a = alias.get<std::string>();
      if (NormalizeDir(DirName(a)) != wanted) continue;
      std::string base = BaseName(a);
      if (base == "libcuda.so.1" || (!need_so1_file)) match = true;
    }
    // A stub directory only has libcuda.so. In an ld.so.conf directory ldconfig
    // links libcuda.so.1 from its SONAME, so the cache reaches it; on
    // LD_LIBRARY_PATH the loader looks for the file libcuda.so.1 by name (the
    // CUDA runtime dlopens libcuda.so.1), so a bare libcuda.so there is only
    // found by programs that dlopen("libcuda.so"): IL005's warning, not 34.
    if (!match && !need_so1_file && StringField(row, "kind") == "stub" && NormalizeDir(DirName(path)) == wanted) match = true;
    if (match) out.push_back(&row);
  }
  return out;
}

LibcudaSelection FromRow(const json& row, const std::string& via, const std::string& reason) {
  LibcudaSelection s;
  s.kind = StringField(row, "kind").empty() ? "bundled" : StringField(row, "kind");
  s.path = StringField(row, "path");
  s.version = StringField(row, "version");
  s.via = via;
  s.reason = reason;
  s.note = row.contains("note") && row["note"].is_object() && !row["note"].empty() ? row["note"] : json(nullptr);
  s.toolkit_dir = StringField(row, "toolkit_dir");
  if (row.contains("missing_needed") && row["missing_needed"].is_array())
    for (const auto& name : row["missing_needed"])
      if (name.is_string()) s.missing_needed.push_back(name.get<std::string>());
  if (s.toolkit_dir.empty()) {
    static const std::string kCuda = "/usr/local/cuda-";
    if (s.path.rfind(kCuda, 0) == 0) s.toolkit_dir = s.path.substr(kCuda.size(), s.path.find('/', kCuda.size()) - kCuda.size());
  }
  return s;
}

// Picks the row to report among several in one directory: a versioned file
// (the real library) over a bare name.
const json* Preferred(const std::vector<const json*>& rows) {
  const json* best = nullptr;
  for (const json* row : rows) {
    if (best == nullptr) best = row;
    else if (StringField(*best, "version").empty() && !StringField(*row, "version").empty()) best = row;
    else if (!StringField(*row, "version").empty() && !StringField(*best, "version").empty() &&
             CompareVersions(StringField(*row, "version"), StringField(*best, "version")).value_or(0) > 0)
      best = row;
  }
  return best;
}

bool CapabilitiesIncludeCompute(const std::map<std::string, std::string>& env) {
  auto it = env.find("NVIDIA_DRIVER_CAPABILITIES");
  if (it == env.end() || it->second.empty()) return true;  // default compute,utility (legacy image: all)
  for (const std::string& entry : SplitOn(it->second, ',')) {
    std::string_view item = TrimView(entry);
    if (item == "all" || item == "compute" || item == "video") return true;
  }
  return false;
}

}  // namespace

bool CompatWouldBeUsed(std::string_view mechanism, std::string_view compat_version, std::string_view host_driver,
                       const nlohmann::json& note) {
  auto compat_branch = DriverBranch(compat_version);
  auto host_branch = DriverBranch(host_driver);
  if (!compat_branch || !host_branch) return false;  // hook: no host version → no-op
  if (mechanism == "mount")
    return *compat_branch != *host_branch && CompareVersions(compat_version, host_driver).value_or(0) > 0;
  if (mechanism == "ldconfig" || mechanism == "hook") return *compat_branch > *host_branch;
  if (mechanism == "hook-elf") {
    if (note.is_object() && note.contains("Driver") && note["Driver"].is_array()) {
      bool listed = false;
      for (const auto& branch : note["Driver"])
        if (branch.is_number_integer() && branch.get<int>() == *host_branch) listed = true;
      return listed && CompareVersions(compat_version, host_driver).value_or(0) > 0;
    }
    return *compat_branch > *host_branch;
  }
  return false;
}

bool TegraCompatWouldBeUsed(std::string_view note_cuda_version, std::string_view host_cuda) {
  return CompareVersions(note_cuda_version, host_cuda).value_or(0) > 0;
}

nlohmann::json LibcudaSelection::ToJson() const {
  return {{"kind", kind}, {"path", path},   {"version", version},       {"via", via},
          {"reason", reason}, {"note", note}, {"toolkit_dir", toolkit_dir}, {"missing_needed", missing_needed},
          {"launch", path_info.ToJson()}};
}

namespace {
// The facts' own loader view (cuda.loader.libcuda_candidates: libcuda.so.1 per
// searched dir, resolved inside the image) complements the driver rows.
const json* CandidateRow(const ImageInputs& image, const std::string& dir, const std::string& via) {
  const json& loader = *image.loader;
  if (!loader.contains("libcuda_candidates") || !loader["libcuda_candidates"].is_array()) return nullptr;
  for (const auto& candidate : loader["libcuda_candidates"]) {
    if (!candidate.is_object() || StringField(candidate, "via") != via) continue;
    if (NormalizeDir(StringField(candidate, "dir")) != NormalizeDir(dir)) continue;
    std::string target = StringField(candidate, "resolves_to");
    for (const json* row : image.libcuda)
      if (!target.empty() && StringField(*row, "path") == target) return row;
  }
  return nullptr;
}
}  // namespace

ImageInputs ReadImageInputs(const nlohmann::json& facts, const Knowledge& knowledge) {
  static const json kEmptyObject = json::object();
  ImageInputs image;
  image.env = internal::ImageEnv(facts);
  const auto& env = image.env;
  auto get = [&](const std::string& key) -> std::optional<std::string> {
    auto it = env.find(key);
    if (it == env.end()) return std::nullopt;
    return it->second;
  };
  // What CheckStart reads.
  image.env_disables_require = DisableRequireIsTrue(get("NVIDIA_DISABLE_REQUIRE"));
  image.legacy_image = IsLegacyCudaImage(get("CUDA_VERSION").value_or(""), get("NVIDIA_REQUIRE_CUDA").value_or(""));
  image.visible_devices = get("NVIDIA_VISIBLE_DEVICES");
  image.cuda_version = get("CUDA_VERSION").value_or("");
  nlohmann::json env_json = nlohmann::json::object();
  for (const auto& [k, v] : env) env_json[k] = v;
  image.requirements = CollectRequirements(env_json);
  env_json["NVIDIA_DISABLE_REQUIRE"] = "true";  // a pool with disable_require
  image.requirements_pool_disabled = CollectRequirements(env_json);

  // What SelectLibcuda reads.
  const json& cuda = facts.contains("cuda") && facts["cuda"].is_object() ? facts["cuda"] : kEmptyObject;
  image.drivers_known = cuda.contains("drivers") && cuda["drivers"].is_array();
  // Only libcuda rows (facts list other driver libraries separately).
  if (image.drivers_known)
    for (const auto& row : cuda["drivers"])
      if (row.is_object() && StartsWith(BaseName(StringField(row, "path")), "libcuda.so")) image.libcuda.push_back(&row);
  const json& loader = cuda.contains("loader") && cuda["loader"].is_object() ? cuda["loader"] : kEmptyObject;
  image.loader = &loader;
  const std::vector<std::string> system = knowledge.LoaderDefaultDirectories();

  // 1. LD_LIBRARY_PATH is searched before the ld.so cache: the toolkit never rewrites it.
  std::vector<std::string> ld_library_path;
  auto it = env.find("LD_LIBRARY_PATH");
  if (loader.contains("ld_library_path") && loader["ld_library_path"].is_array()) {
    for (const auto& dir : loader["ld_library_path"])
      if (dir.is_string()) ld_library_path.push_back(dir.get<std::string>());
  } else if (it != env.end()) {
    size_t start = 0;
    while (start <= it->second.size()) {
      size_t end = it->second.find(':', start);
      if (end == std::string::npos) end = it->second.size();
      if (end > start) ld_library_path.push_back(it->second.substr(start, end - start));
      start = end + 1;
    }
  }
  for (const std::string& dir : ld_library_path) {
    if (IsSystemDir(dir, system)) continue;  // the host library is mounted there too: step 4 decides
    auto rows = DriversInDir(image.libcuda, dir, true);
    if (const json* row = CandidateRow(image, dir, "LD_LIBRARY_PATH")) rows.insert(rows.begin(), row);
    if (const json* row = Preferred(rows)) {
      image.via_ld_library_path = FromRow(*row, "LD_LIBRARY_PATH",
                                          "LD_LIBRARY_PATH entry " + dir + " holds " + StringField(*row, "path") +
                                              ", which the loader finds before the host driver in the ld.so cache");
      break;
    }
  }

  // 3. Compat rows the container toolkit may choose (SelectLibcuda).
  for (const json* at : image.libcuda) {
    const json& row = *at;
    if (StringField(row, "kind") != "compat") continue;
    if (NormalizeDir(DirName(StringField(row, "path"))).size() < 7) continue;
    std::string dir = DirName(StringField(row, "path"));
    if (dir.size() >= 7 && dir.compare(dir.size() - 7, 7, "/compat") == 0 && !StringField(row, "version").empty())
      image.compat.push_back(&row);
  }
  std::set<std::string> versions;
  for (const json* row : image.compat) versions.insert(StringField(*row, "version"));
  image.compat_versions = versions.size();
  image.capabilities_include_compute = CapabilitiesIncludeCompute(env);
  image.no_ld_so_cache =
      loader.contains("ld_so_cache") && loader["ld_so_cache"].is_boolean() && !loader["ld_so_cache"].get<bool>();

  // 4. Bundled rows in a system lib dir, with a version.
  for (const json* at : image.libcuda) {
    const json& row = *at;
    if (StringField(row, "kind") != "bundled" || !IsSystemDir(DirName(StringField(row, "path")), system)) continue;
    if (StringField(row, "version").empty()) continue;
    image.bundled.push_back(&row);
  }
  return image;
}

LibcudaSelection SelectLibcuda(const nlohmann::json& facts, const Pool& pool, const Knowledge& knowledge) {
  return SelectLibcuda(ReadImageInputs(facts, knowledge), pool, ResolveLaunchPath(pool, knowledge), knowledge);
}

LibcudaSelection SelectLibcuda(const ImageInputs& image, const Pool& pool, const LaunchPath& launch,
                               const Knowledge& knowledge) {
  const json& loader = *image.loader;
  const std::string& host = pool.driver;

  auto finish = [&](LibcudaSelection s) {
    s.path_info = launch;
    return s;
  };

  // 1. LD_LIBRARY_PATH (ReadImageInputs).
  if (image.via_ld_library_path) return finish(*image.via_ld_library_path);

  // 2. Directories the image adds to ld.so.conf. Where the toolkit puts the host
  // driver's directories in ldconfig's order depends on the launch mode
  // (driver-injection.yaml): legacy passes them on ldconfig's command line, ahead
  // of every conf file, so no image entry wins; CDI modes list them in
  // 00-nvcr-*.conf, so only image files that sort before it win. Without a row
  // for the mode, every image entry is assumed first (the old, cautious view).
  std::string driver_dirs, conf_prefix;
  for (const auto& row : knowledge.Table("driver_injection"))
    if (row.value("mode", "") == launch.mode) {
      driver_dirs = row.value("driver_dirs", "");
      conf_prefix = row.value("conf_prefix", "");
    }
  if (driver_dirs != "command-line" && loader.contains("ld_so_conf") && loader["ld_so_conf"].is_array()) {
    const std::vector<std::string> system = knowledge.LoaderDefaultDirectories();
    for (const auto& entry : loader["ld_so_conf"]) {
      std::string dir = entry.is_object() ? StringField(entry, "dir") : entry.is_string() ? entry.get<std::string>() : "";
      if (dir.empty() || IsSystemDir(dir, system)) continue;
      std::string file = entry.is_object() ? StringField(entry, "file") : "";
      if (driver_dirs == "conf-file" && !file.empty() && file != "/etc/ld.so.conf" && BaseName(file) >= conf_prefix)
        continue;
      auto rows = DriversInDir(image.libcuda, dir, false);
      if (const json* row = CandidateRow(image, dir, "ld.so.conf")) rows.insert(rows.begin(), row);
      if (const json* row = Preferred(rows))
        return finish(FromRow(*row, "ld.so.conf",
                              "the image's ld.so.conf" + (file.empty() ? std::string() : " (" + file + ")") +
                                  " lists " + dir + ", so ldconfig puts " + StringField(*row, "path") +
                                  " ahead of the host driver"));
    }
  }

  // 3. The container toolkit's own compat decision.
  const std::vector<const json*>& compat = image.compat;
  const std::string& mechanism = launch.compat_mechanism;
  bool lnc_path = mechanism == "mount" || mechanism == "ldconfig";
  if (!compat.empty() && mechanism != "none") {
    std::string why_not;
    if (lnc_path && !image.capabilities_include_compute) why_not = "NVIDIA_DRIVER_CAPABILITIES lacks compute/video";
    if ((mechanism == "hook" || mechanism == "hook-elf")) {
      if (image.compat_versions > 1) why_not = "more than one libcuda.so.*.* in the compat directory: the hook does nothing";
      const json* behaviour = knowledge.ToolkitBehaviour(launch.toolkit);
      if (behaviour && behaviour->at("hook_needs_ld_so_cache").get<bool>() && image.no_ld_so_cache)
        why_not = "no /etc/ld.so.cache in the image: the hook of this toolkit version does nothing";
    }
    if (why_not.empty()) {
      static const json kNoNote = nullptr;
      const json* chosen = nullptr;
      for (const json* row : compat) {
        auto note = row->find("note");
        if (!CompatWouldBeUsed(mechanism, StringField(*row, "version"), host, note != row->end() ? *note : kNoNote))
          continue;
        if (chosen == nullptr || CompareVersions(StringField(*row, "version"), StringField(*chosen, "version")).value_or(0) > 0)
          chosen = row;
      }
      if (chosen != nullptr) {
        std::string rule = mechanism == "mount"      ? "mounts compat libraries whose major differs from the host's "
                                                       "and ldconfig picks the highest version"
                           : mechanism == "hook-elf" ? "the enable-cuda-compat hook uses compat when its ELF note lists "
                                                       "the host branch (or, without a note, its major is newer) and it "
                                                       "is newer than the host driver"
                                                     : "uses compat libraries whose major is newer than the host driver's";
        return finish(FromRow(*chosen, "toolkit",
                              "container toolkit " + launch.toolkit + " (" + launch.runtime + ", " + mechanism + ") " +
                                  rule + ": " + StringField(*chosen, "path") + " " + StringField(*chosen, "version") + " vs host " + host));
      }
    }
  }

  // 4. A libcuda baked into a system lib dir: the host's library is mounted next
  // to it and ldconfig points libcuda.so.1 at the highest version.
  const json* bundled = nullptr;
  for (const json* row : image.bundled) {
    if (CompareVersions(StringField(*row, "version"), host).value_or(0) <= 0) continue;
    if (bundled == nullptr || CompareVersions(StringField(*row, "version"), StringField(*bundled, "version")).value_or(0) > 0)
      bundled = row;
  }
  if (bundled != nullptr)
    return finish(FromRow(*bundled, "ldconfig-highest",
                          StringField(*bundled, "path") + " is newer than the host's " + host +
                              " in the same library directory, so ldconfig points libcuda.so.1 at it"));

  LibcudaSelection s;
  s.kind = "host";
  s.version = host;
  s.reason = "the host driver's libcuda (" + host + ") injected by the container toolkit";
  s.copies_unknown = !image.drivers_known;
  return finish(s);
}

}  // namespace imagelint::nvidia
