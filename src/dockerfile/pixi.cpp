// pixi install / pixi run / pixi shell-hook: the packages pixi.lock locks
// for one environment and one platform, installed into the project's
// .pixi/envs/<environment>.
//
// pixi.lock is YAML written by pixi (https://pixi.sh/latest/workspace/lockfile/):
//
//   environments:
//     default:
//       channels: ...
//       packages:
//         linux-64:
//         - conda: https://conda.anaconda.org/conda-forge/linux-64/pytorch-2.5.1-cuda126_py312h_303.conda
//         - pypi: https://download.pytorch.org/whl/cu124/torch-2.5.1%2Bcu124-cp312-cp312-linux_x86_64.whl
//
// Every package is named by its URL, whose file name carries name, version
// and build (conda: NAME-VERSION-BUILD.conda; a wheel: PEP 427), so the
// environment's lists are all that is read, line by line and bounded, from
// lock format 4 on. Lock format 7 may list one subdir under several named
// platforms (`platforms:`, each with `subdir:`), chosen by the virtual
// packages of the machine that installs; those are read only when they lock
// the same frameworks.
#include <algorithm>
#include <map>
#include <set>

#include "common/text.h"
#include "dockerfile/build_context.h"
#include "dockerfile/conda.h"
#include "dockerfile/frameworks.h"
#include "dockerfile/lock_files.h"
#include "dockerfile/pip.h"
#include "dockerfile/pip_builds.h"
#include "dockerfile/util.h"

namespace imagelint::dockerfile {
namespace {

constexpr size_t kMaxLockedPackages = 20000;

size_t Indent(std::string_view line) {
  size_t n = 0;
  while (n < line.size() && line[n] == ' ') ++n;
  return n;
}

// `key:` (nothing after the colon) -> key; "" otherwise.
std::string MappingKey(std::string_view trimmed) {
  if (trimmed.size() < 2 || trimmed.back() != ':' || trimmed[0] == '-') return "";
  std::string key(trimmed.substr(0, trimmed.size() - 1));
  if (key.size() >= 2 && (key[0] == '"' || key[0] == '\'') && key.back() == key[0]) key = key.substr(1, key.size() - 2);
  return key;
}

// The conda subdir of an OCI platform (conda's platform names).
std::string CondaSubdir(const std::string& platform) {
  if (platform.find("arm64") != std::string::npos || platform.find("aarch64") != std::string::npos) return "linux-aarch64";
  if (platform.find("ppc64le") != std::string::npos) return "linux-ppc64le";
  return "linux-64";
}

struct PixiLock {
  // Per platform name of the environment: the package URLs ("conda: URL").
  std::map<std::string, std::vector<std::string>> lists;
  std::map<std::string, std::string> subdirs;  // platform name -> subdir (format 7's `platforms:`)
  bool has_environment = false;
  bool truncated = false;
};

PixiLock ParsePixiLock(const std::string& text, const std::string& environment) {
  PixiLock out;
  enum class Section { kNone, kPlatforms, kEnvironments } section = Section::kNone;
  std::string platform_name;       // in `platforms:`, the entry being read
  size_t env_indent = 0;           // indentation of the environment names
  bool in_env = false, in_packages = false;
  size_t packages_indent = 0;
  std::string list;                // the platform whose packages are being read
  size_t packages = 0;
  for (const std::string& raw : SplitOn(text, '\n')) {
    std::string_view line = raw;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const std::string trimmed = Trim(line);
    if (trimmed.empty() || trimmed[0] == '#') continue;
    const size_t indent = Indent(line);
    if (indent == 0) {
      section = trimmed == "platforms:" ? Section::kPlatforms
              : trimmed == "environments:" ? Section::kEnvironments : Section::kNone;
      env_indent = 0;
      in_env = in_packages = false;
      continue;
    }
    if (section == Section::kPlatforms) {
      // - name: p1 / subdir: linux-64
      std::string item = StartsWith(trimmed, "- ") ? Trim(trimmed.substr(2)) : trimmed;
      if (StartsWith(item, "name:")) {
        platform_name = Trim(item.substr(5));
        out.subdirs[platform_name] = platform_name;
      } else if (StartsWith(item, "subdir:") && !platform_name.empty()) {
        out.subdirs[platform_name] = Trim(item.substr(7));
      }
      continue;
    }
    if (section != Section::kEnvironments) continue;
    if (env_indent == 0) env_indent = indent;
    if (indent <= env_indent) {
      in_env = indent == env_indent && MappingKey(trimmed) == environment;
      out.has_environment = out.has_environment || in_env;
      in_packages = false;
      continue;
    }
    if (!in_env) continue;
    if (in_packages && indent <= packages_indent) in_packages = false;
    if (!in_packages) {
      if (trimmed == "packages:") {
        in_packages = true;
        packages_indent = indent;
        list.clear();
      }
      continue;
    }
    if (std::string key = MappingKey(trimmed); !key.empty()) {
      list = key;
      out.lists[list];
      continue;
    }
    if (StartsWith(trimmed, "- ") && !list.empty()) {
      if (++packages > kMaxLockedPackages) {
        out.truncated = true;
        break;
      }
      out.lists[list].push_back(Trim(trimmed.substr(2)));
    }
  }
  return out;
}

// conda: .../<channel>/<subdir>/NAME-VERSION-BUILD.conda (or .tar.bz2).
struct CondaFile {
  std::string channel, name, version, build;
};
std::optional<CondaFile> ParseCondaUrl(const std::string& url) {
  std::string file = BaseName(url);
  for (const char* ext : {".conda", ".tar.bz2"})
    if (EndsWith(file, ext)) file.resize(file.size() - std::string_view(ext).size());
  size_t last = file.rfind('-');
  if (last == std::string::npos || last == 0) return std::nullopt;
  size_t before = file.rfind('-', last - 1);
  if (before == std::string::npos || before == 0) return std::nullopt;
  CondaFile out;
  out.name = ToLower(file.substr(0, before));
  out.version = file.substr(before + 1, last - before - 1);
  out.build = file.substr(last + 1);
  std::vector<std::string> parts = SplitOn(url, '/');
  if (parts.size() >= 3) out.channel = parts[parts.size() - 3];
  return out;
}

// What decides the frameworks in one platform's list: the packages that are
// frameworks or select the CUDA, as their URLs.
std::set<std::string> DecidingUrls(const Context& ctx, const std::vector<std::string>& list) {
  std::set<std::string> out;
  for (const std::string& entry : list) {
    if (StartsWith(entry, "conda:")) {
      auto file = ParseCondaUrl(Trim(entry.substr(6)));
      const PythonPackage* known = file ? ctx.packages.FindPythonPackage("conda", file->name) : nullptr;
      if (known && (known->cuda_selector || !known->framework.empty())) out.insert(entry);
    } else if (StartsWith(entry, "pypi:")) {
      auto r = ParseRequirement(ShellWord{Trim(entry.substr(5)), true, false});
      const PythonPackage* known = r ? ctx.packages.FindPythonPackage("pip", r->name) : nullptr;
      if (known && !known->framework.empty()) out.insert(entry);
    }
  }
  return out;
}

}  // namespace

Status ApplyPixi(const Context& ctx, const Instruction& inst, ImageModel& image, const ShellCommand& command,
                 const std::string& project_dir) {
  const auto& w = command.words;
  std::string environment = "default";
  bool all = false;
  for (size_t i = 2; i < w.size(); ++i) {
    const std::string& word = w[i].value;
    if (word == "-a" || word == "--all") all = true;
    if ((word == "-e" || word == "--environment") && i + 1 < w.size()) environment = w[++i].value;
    else if (StartsWith(word, "--environment=")) environment = word.substr(14);
  }
  const std::string prefix = CleanPath(project_dir + "/.pixi/envs/" + environment);
  auto unread = [&](const std::string& why) {
    ctx.Unknown(image, inst, "frameworks", "pixi: " + why.substr(0, 400),
                ctx.options.context_dir.empty() ? "give the build context (imagelint --context DIR, the folder docker build gets)"
                                                : "make pixi.lock readable in the build context, or scan the built image");
    image.frameworks_partial = true;
    return OkStatus();
  };
  if (all) return unread("`--all` installs every environment of pixi.lock; which one the container runs is not read");
  const std::string dir = project_dir == "/" ? "" : project_dir;
  ContextSource source = FindInContext(ctx, image, dir + "/pixi.lock");
  if (!source.path) return unread(dir + "/pixi.lock: " + source.why_not);
  auto text = ReadContextFile(ctx, *source.path, ctx.options.context_limits.max_lock_bytes);
  if (!text.ok()) return unread(text.error().ToString());
  const std::string& file = *source.path;
  PixiLock lock = ParsePixiLock(*text, environment);
  if (lock.truncated)
    return unread(file + " locks more than " + std::to_string(kMaxLockedPackages) + " packages (imagelint's limit)");
  if (!lock.has_environment) return unread(file + " has no environment `" + environment + "`");
  const std::string subdir = CondaSubdir(image.platform);
  std::vector<std::string> names;
  for (const auto& [name, list] : lock.lists) {
    auto mapped = lock.subdirs.find(name);
    if ((mapped != lock.subdirs.end() ? mapped->second : name) == subdir) names.push_back(name);
  }
  if (names.empty()) return unread(file + ": environment `" + environment + "` locks no packages for " + subdir +
                  " (pixi install refuses a platform its lock does not list)");
  for (size_t i = 1; i < names.size(); ++i)
    if (DecidingUrls(ctx, lock.lists[names[i]]) != DecidingUrls(ctx, lock.lists[names[0]]))
      return unread(file + ": environment `" + environment + "` locks different frameworks for the platforms " +
                    names[0] + " and " + names[i] + " of " + subdir +
                    ", chosen by the virtual packages of the machine that installs");
  ctx.AddNote(image, inst, "pixi reads " + file.substr(0, 200) + " (environment " + environment.substr(0, 100) + ", " + subdir + ")");

  // Conda packages as one `conda install` of exact specs (the CUDA selector
  // among them decides the builds' CUDA), CPU builds of frameworks left out.
  ShellCommand conda;
  conda.words = {{"conda", true, false}, {"install", true, false}};
  std::set<std::string> other_channel_frameworks;  // from channels whose builds' arch lists the tables do not hold
  std::vector<Requirement> wheels;
  Indexes indexes;
  for (const std::string& entry : lock.lists[names[0]]) {
    if (StartsWith(entry, "conda:")) {
      auto package = ParseCondaUrl(Trim(entry.substr(6)));
      if (!package) continue;
      const PythonPackage* known = ctx.packages.FindPythonPackage("conda", package->name);
      if (known && !known->framework.empty()) {
        if (ctx.packages.IsCpuCondaBuild(package->channel, package->build)) {
          ctx.AddNote(image, inst, package->name + " " + package->version + " from " + file.substr(0, 200) + " is a CPU build (" +
                                       package->build.substr(0, 100) + ")");
          continue;
        }
        const CondaChannel* channel = ctx.packages.FindCondaChannel(package->channel);
        if (!channel || channel->arch_lists != "pypi") other_channel_frameworks.insert(known->FrameworkOf(package->name));
      }
      conda.words.push_back({package->name + "=" + package->version + "=" + package->build, true, false});
    } else if (StartsWith(entry, "pypi:")) {
      const std::string url = Trim(entry.substr(5));
      auto requirement = ParseRequirement(ShellWord{url, true, false});
      if (!requirement) {
        // The project itself (`./`) is listed with its dependencies; a VCS or
        // path dependency is built at install time.
        if (url != "." && url != "./" && (url.find("://") != std::string::npos || StartsWith(url, "git+")))
          ctx.Unknown(image, inst, "binaries", "pixi installs " + url.substr(0, 200) + " from source (" + file.substr(0, 200) + ")",
                      "scan the built image");
        continue;
      }
      requirement->origin = file;
      if (url.find("://") != std::string::npos && url.find("files.pythonhosted.org") == std::string::npos) {
        std::string index = url.substr(0, url.rfind('/'));
        if (std::find(indexes.extra_urls.begin(), indexes.extra_urls.end(), index) == indexes.extra_urls.end())
          indexes.extra_urls.push_back(index);
      }
      wheels.push_back(std::move(*requirement));
    }
  }
  IMAGELINT_TRY(ApplyConda(ctx, inst, image, conda));
  for (const Requirement& r : wheels) PipPackage(ctx, inst, image, r, indexes, false);
  for (facts::Framework& row : image.frameworks) {
    if (row.provenance.dockerfile_line != inst.line) continue;
    image.framework_roots[row.name] = prefix;
    // Another channel's build (conda-forge's: conda_channels) is built with
    // its own arch list, which the tables do not hold: its kernels are not claimed.
    if (row.installer == "conda" && other_channel_frameworks.count(row.name) && row.arch_list) {
      row.sass.reset();
      row.ptx.reset();
      row.arch_list.reset();
      row.arch_list_source.reset();
      ctx.AddNote(image, inst, row.name + " comes from a conda channel whose build's GPU architectures the knowledge tables do not hold");
    }
  }
  return OkStatus();
}

}  // namespace imagelint::dockerfile
