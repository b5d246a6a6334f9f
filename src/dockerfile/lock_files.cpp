#include "dockerfile/lock_files.h"

#include <algorithm>
#include <map>
#include <vector>

#include "common/text.h"
#include "dockerfile/frameworks.h"
#include "dockerfile/pip.h"

namespace imagelint::dockerfile {
namespace {

// One [[package]] table of a lock file.
struct LockedPackage {
  std::string name, version, source;  // source: the registry/index URL, "" = none given
  std::string markers;                // resolution-markers, as written
  int line = 0;
};

// `key = "value"` -> value (the first quoted string after '=').
std::string QuotedValue(std::string_view line) {
  size_t eq = line.find('=');
  if (eq == std::string_view::npos) return "";
  size_t open = line.find('"', eq);
  if (open == std::string_view::npos) return "";
  size_t close = line.find('"', open + 1);
  if (close == std::string_view::npos) return "";
  return std::string(line.substr(open + 1, close - open - 1));
}

// The key of a `key = ...` line ("" when none).
std::string KeyOf(std::string_view line) {
  size_t eq = line.find('=');
  if (eq == std::string_view::npos) return "";
  return Trim(line.substr(0, eq));
}

// uv: source = { registry = "URL" }; poetry/pdm: url = "URL" in [package.source].
std::string InlineRegistry(std::string_view line) {
  for (std::string_view key : {"registry", "url"}) {
    size_t at = line.find(key);
    if (at == std::string_view::npos) continue;
    std::string value = QuotedValue(line.substr(at));
    if (!value.empty()) return value;
  }
  return "";
}

std::vector<LockedPackage> ParsePackages(const std::string& text, size_t max_packages) {
  std::vector<LockedPackage> out;
  bool in_package = false, in_source = false, in_markers = false;
  int number = 0;
  for (const std::string& raw : SplitOn(text, '\n')) {
    ++number;
    std::string line = Trim(raw);
    if (in_markers) {  // resolution-markers = [ "...", ... ]
      out.back().markers += line;
      if (line.find(']') != std::string::npos && line.find('"') == std::string::npos) in_markers = false;
      continue;
    }
    if (line.empty() || line[0] == '#') continue;
    if (line[0] == '[') {
      in_source = false;
      if (line == "[[package]]") {
        if (out.size() >= max_packages) break;
        out.push_back({});
        out.back().line = number;
        in_package = true;
      } else if (in_package && (line == "[package.source]")) {
        in_source = true;
      } else if (!StartsWith(line, "[package.") && !StartsWith(line, "[[package.")) {
        in_package = false;  // [metadata], [[manifest...]]...
      }
      continue;
    }
    if (!in_package) continue;
    std::string key = KeyOf(line);
    if (in_source) {
      if (key == "url") out.back().source = QuotedValue(line);
      continue;
    }
    if (key == "name") out.back().name = QuotedValue(line);
    else if (key == "version") out.back().version = QuotedValue(line);
    else if (key == "source") out.back().source = InlineRegistry(line);
    else if (key == "resolution-markers") {
      out.back().markers = line;
      in_markers = line.find(']') == std::string::npos;
    }
  }
  return out;
}

// Whether the markers a lock gives a version rule out Linux: all of them
// name another platform (sys_platform/platform_system), as uv writes them for
// a macOS or Windows build of torch beside the Linux one.
bool OnlyOtherPlatforms(const std::string& markers) {
  if (markers.empty()) return false;
  bool any = false;
  size_t at = 0;
  while ((at = markers.find('"', at)) != std::string::npos) {
    size_t end = markers.find('"', at + 1);
    if (end == std::string::npos) break;
    std::string marker = markers.substr(at + 1, end - at - 1);
    at = end + 1;
    any = true;
    bool other = marker.find("sys_platform == 'darwin'") != std::string::npos ||
                 marker.find("sys_platform == 'win32'") != std::string::npos ||
                 marker.find("platform_system == 'Darwin'") != std::string::npos ||
                 marker.find("platform_system == 'Windows'") != std::string::npos;
    if (!other) return false;
  }
  return any;
}

}  // namespace

void ReadTomlLock(const Context& ctx, const ImageModel& image, const std::string& container_dir,
                  const std::string& file, RequirementsRead& out) {
  std::string dir = container_dir == "/" ? "" : container_dir;
  ContextSource source = FindInContext(ctx, image, dir + "/" + file);
  if (!source.path) {
    out.unread.push_back(dir + "/" + file + ": " + source.why_not);
    return;
  }
  auto text = ReadContextFile(ctx, *source.path, ctx.options.context_limits.max_lock_bytes);
  if (!text.ok()) {
    out.unread.push_back(text.error().ToString());
    return;
  }
  out.files.push_back(*source.path);
  std::map<std::string, std::vector<LockedPackage>> by_name;
  for (LockedPackage& package : ParsePackages(*text, 10000))
    if (!package.name.empty() && !package.version.empty()) by_name[NormalizePackageName(package.name)].push_back(std::move(package));
  // Every lock these tools write holds the project itself at least: a file
  // without one package is a placeholder or another format, and reading it as
  // "installs nothing" would pass an image on a lock nobody could sync.
  if (by_name.empty()) {
    out.files.pop_back();
    out.unread.push_back(*source.path + ": holds no [[package]] table with a name and a version");
    out.lock_unreadable = true;
    return;
  }
  for (auto& [name, versions] : by_name) {
    std::vector<const LockedPackage*> linux;
    for (const LockedPackage& package : versions)
      if (!OnlyOtherPlatforms(package.markers)) linux.push_back(&package);
    if (linux.size() != 1) {
      if (versions.size() > 1)
        out.unread.push_back(*source.path + ": " + name + " is locked at " + std::to_string(versions.size()) +
                             " versions, chosen by environment markers imagelint does not evaluate");
      continue;
    }
    const LockedPackage& package = *linux.front();
    std::string origin = *source.path + ":" + std::to_string(package.line);
    size_t before = out.requirements.size();
    // The lock's version is what installs, local tag included ("2.5.1+cu124").
    std::string pinned = package.name + "==" + package.version;
    auto requirement = ParseRequirement(ShellWord{pinned, true, false});
    if (!requirement) continue;
    requirement->origin = origin;
    out.requirements.push_back(std::move(*requirement));
    if (!package.source.empty() && out.requirements.size() > before &&
        std::find(out.extra_index_urls.begin(), out.extra_index_urls.end(), package.source) == out.extra_index_urls.end())
      out.extra_index_urls.push_back(package.source);
  }
}

}  // namespace imagelint::dockerfile
