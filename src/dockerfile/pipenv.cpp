// pipenv install / pipenv sync: the packages of Pipfile.lock (JSON), or of
// the Pipfile itself when no lock is in the build context (pipenv then
// locks first, resolving the Pipfile's specifiers as pip would).
//
// Formats (https://pipenv.pypa.io/en/latest/pipfile.html):
//   Pipfile.lock  {"_meta": {"sources": [{"name": "pytorch", "url": "..."}]},
//                  "default": {"torch": {"version": "==2.1.0+cu118", "index": "pytorch"}},
//                  "develop": {...}}
//   Pipfile       [[source]] name/url tables; [packages] / [dev-packages]
//                 with `torch = "==2.1.0"` or `torch = {version = "...", index = "pytorch"}`
// A package that names an index is installed from that source only; the
// others from the first source (pipenv's default index). `--dev` adds the
// develop packages.
#include <algorithm>
#include <map>

#include "common/json.h"
#include "common/text.h"
#include "dockerfile/build_context.h"
#include "dockerfile/lock_files.h"
#include "dockerfile/pip.h"
#include "dockerfile/pip_builds.h"
#include "dockerfile/util.h"

namespace imagelint::dockerfile {
namespace {

constexpr size_t kMaxPipenvPackages = 10000;

struct PipenvPackage {
  std::string name, spec, index, file;  // spec: "==2.1.0", "*", ">=2"; file: a wheel URL
  std::string from_source;              // git/path: built from source at install
  std::string markers;
};

struct PipenvRead {
  std::vector<std::pair<std::string, std::string>> sources;  // name, url, in order
  std::vector<PipenvPackage> packages;
  std::string file;
  std::vector<std::string> unread;
};

// Markers that only another operating system satisfies.
bool OnlyOtherSystems(const std::string& markers) {
  if (markers.empty() || markers.find("linux") != std::string::npos) return false;
  return markers.find("'darwin'") != std::string::npos || markers.find("'win32'") != std::string::npos ||
         markers.find("'Windows'") != std::string::npos || markers.find("'Darwin'") != std::string::npos;
}

void ReadLock(const std::string& file, const std::string& text, bool dev, PipenvRead& out) {
  auto parsed = ParseJson(text, file, 16);
  if (!parsed.ok() || !parsed->is_object()) {
    out.unread.push_back(parsed.ok() ? file + " is not a JSON object" : parsed.error().ToString());
    return;
  }
  const nlohmann::json& lock = *parsed;
  if (lock.contains("_meta") && lock["_meta"].is_object())
    for (const auto& source : ArrayField(lock["_meta"], "sources"))
      out.sources.emplace_back(StringField(source, "name"), StringField(source, "url"));
  for (const char* category : {"default", "develop"}) {
    if (std::string(category) == "develop" && !dev) continue;
    if (!lock.contains(category) || !lock[category].is_object()) continue;
    for (const auto& [name, entry] : lock[category].items()) {
      if (out.packages.size() >= kMaxPipenvPackages) return;
      PipenvPackage package;
      package.name = name;
      package.spec = StringField(entry, "version");
      package.index = StringField(entry, "index");
      package.file = StringField(entry, "file");
      package.markers = StringField(entry, "markers");
      for (const char* key : {"git", "path"})
        if (std::string where = StringField(entry, key); !where.empty()) package.from_source = where;
      out.packages.push_back(std::move(package));
    }
  }
}

// `key = "value"` or `key = {a = "b", ...}` of one TOML line.
std::string InlineValue(const std::string& table, const std::string& key) {
  size_t at = 0;
  while ((at = table.find(key, at)) != std::string::npos) {
    const bool starts = at == 0 || table[at - 1] == '{' || table[at - 1] == ',' || table[at - 1] == ' ';
    size_t eq = table.find_first_not_of(' ', at + key.size());
    if (starts && eq != std::string::npos && table[eq] == '=') {
      size_t open = table.find('"', eq);
      size_t close = open == std::string::npos ? open : table.find('"', open + 1);
      if (close != std::string::npos) return table.substr(open + 1, close - open - 1);
    }
    at += key.size();
  }
  return "";
}

void ReadPipfile(const std::string& file, const std::string& text, bool dev, PipenvRead& out) {
  enum class Section { kOther, kSource, kPackages } section = Section::kOther;
  for (const std::string& raw : SplitOn(text, '\n')) {
    std::string line = Trim(raw);
    if (line.empty() || line[0] == '#') continue;
    if (line[0] == '[') {
      section = line == "[[source]]" ? Section::kSource
              : line == "[packages]" || (dev && line == "[dev-packages]") ? Section::kPackages : Section::kOther;
      if (section == Section::kSource) out.sources.emplace_back();
      continue;
    }
    size_t eq = line.find('=');
    if (eq == std::string::npos) continue;
    std::string key = Trim(line.substr(0, eq)), value = Trim(line.substr(eq + 1));
    if (key.size() >= 2 && key[0] == '"' && key.back() == '"') key = key.substr(1, key.size() - 2);
    if (section == Section::kSource) {
      if (key == "name") out.sources.back().first = InlineValue(line, "name");
      if (key == "url") out.sources.back().second = InlineValue(line, "url");
      continue;
    }
    if (section != Section::kPackages || out.packages.size() >= kMaxPipenvPackages) continue;
    PipenvPackage package;
    package.name = key;
    if (!value.empty() && value[0] == '"') {
      package.spec = value.substr(1, value.find('"', 1) == std::string::npos ? 0 : value.find('"', 1) - 1);
    } else if (!value.empty() && value[0] == '{') {
      package.spec = InlineValue(value, "version");
      package.index = InlineValue(value, "index");
      package.file = InlineValue(value, "file");
      package.markers = InlineValue(value, "markers") + InlineValue(value, "sys_platform");
      for (const char* where : {"git", "path"})
        if (std::string source = InlineValue(value, where); !source.empty()) package.from_source = source;
    }
    out.packages.push_back(std::move(package));
  }
}

PipenvRead ReadPipenv(const Context& ctx, const ImageModel& image, const std::string& dir, bool dev, bool lock_only) {
  PipenvRead out;
  for (const char* name : {"Pipfile.lock", "Pipfile"}) {
    const bool is_lock = std::string(name) == "Pipfile.lock";
    ContextSource source = FindInContext(ctx, image, dir + "/" + name);
    if (!source.path) {
      out.unread.push_back(dir + "/" + name + ": " + source.why_not);
      if (is_lock && lock_only) return out;
      continue;
    }
    auto text = ReadContextFile(ctx, *source.path, ctx.options.context_limits.max_lock_bytes);
    if (!text.ok()) {
      out.unread.push_back(text.error().ToString());
      if (!text.error().message.ends_with("does not exist") || (is_lock && lock_only)) return out;
      continue;
    }
    out.unread.clear();
    out.file = *source.path;
    if (is_lock) ReadLock(*source.path, *text, dev, out);
    else ReadPipfile(*source.path, *text, dev, out);
    return out;
  }
  return out;
}

}  // namespace

Status ApplyPipenv(const Context& ctx, const Instruction& inst, ImageModel& image, const ShellCommand& command,
                   const std::string& project_dir) {
  const auto& w = command.words;
  const std::string sub = w[1].value;
  bool dev = false, system = false;
  std::vector<std::string> named;
  for (size_t i = 2; i < w.size(); ++i) {
    const std::string& word = w[i].value;
    if (word == "-d" || word == "--dev") dev = true;
    else if (word == "--system") system = true;
    else if (word == "--python" || word == "--categories" || word == "--pypi-mirror") ++i;
    else if (!StartsWith(word, "-")) named.push_back(word);
  }
  const std::string dir = project_dir == "/" ? "" : project_dir;
  auto unread = [&](const std::string& why) {
    ctx.Unknown(image, inst, "frameworks", "pipenv " + sub + ": " + why.substr(0, 400),
                ctx.options.context_dir.empty() ? "give the build context (imagelint --context DIR, the folder docker build gets)"
                                                : "make Pipfile.lock readable in the build context, or scan the built image");
    image.frameworks_partial = true;
  };
  if (!named.empty()) {
    unread("installing " + named.front().substr(0, 100) + " re-resolves the Pipfile, which is not followed");
    return OkStatus();
  }
  // `pipenv sync` installs the lock and needs it; `pipenv install` locks the Pipfile when there is none.
  PipenvRead read = ReadPipenv(ctx, image, dir, dev, sub == "sync");
  for (const std::string& why : read.unread) unread(why);
  if (read.file.empty()) return OkStatus();
  ctx.AddNote(image, inst, "pipenv reads " + read.file.substr(0, 200) + " from the build context");
  auto source_url = [&](const std::string& name) -> std::string {
    if (name.empty()) return read.sources.empty() ? "" : read.sources.front().second;
    for (const auto& [source, url] : read.sources)
      if (source == name) return url;
    return "";
  };
  for (const PipenvPackage& package : read.packages) {
    if (OnlyOtherSystems(package.markers)) continue;
    if (!package.from_source.empty()) {
      ctx.Unknown(image, inst, "binaries", "pipenv installs " + package.name.substr(0, 100) + " from " +
                                               package.from_source.substr(0, 200) + " (built at install)", "scan the built image");
      continue;
    }
    std::string text = !package.file.empty() ? package.file
                     : package.name + (package.spec == "*" ? "" : package.spec);
    auto requirement = ParseRequirement(ShellWord{text, true, false});
    if (!requirement) continue;
    requirement->origin = read.file;
    Indexes indexes;
    const std::string url = source_url(package.index);
    if (!url.empty() && url.find("pypi.org/simple") == std::string::npos && url.find("pypi.python.org") == std::string::npos) {
      indexes.index_url = url;
      indexes.from_pypi = false;
    }
    PipPackage(ctx, inst, image, *requirement, indexes, false);
  }
  // --system: the image's Python; otherwise the project's virtualenv
  // (.venv with PIPENV_VENV_IN_PROJECT, else under ~/.local/share/virtualenvs).
  std::string root = system ? InstallRoot(image, command, "") : "";
  if (!system && image.env.count("PIPENV_VENV_IN_PROJECT")) root = CleanPath(dir + "/.venv");
  for (const facts::Framework& row : image.frameworks)
    if (row.provenance.dockerfile_line == inst.line && !root.empty()) image.framework_roots[row.name] = root;
  return OkStatus();
}

}  // namespace imagelint::dockerfile
