// pip, pip3, python -m pip, uv pip and the lock-file installers: how a
// command line names what it installs (options, PEP 508 requirements, -r
// files, indexes) and where it installs it. What each requirement then
// installs (the framework and its CUDA build) is pip_builds.cpp's.
// Requirements pip reads from elsewhere (-r files, -e projects, URLs) are
// listed as unknown, never guessed.
#include "dockerfile/pip.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "common/text.h"
#include "common/version.h"
#include "dockerfile/build_code.h"
#include "dockerfile/build_context.h"
#include "dockerfile/frameworks.h"
#include "dockerfile/lock_files.h"
#include "dockerfile/pip_builds.h"
#include "dockerfile/resolve.h"
#include "dockerfile/util.h"
#include "imagelint/knowledge_bundle.h"

namespace imagelint::dockerfile {
namespace {

// Names and versions longer than these are not ones any table knows.
constexpr size_t kMaxName = 200;
constexpr size_t kMaxVersion = 128;

bool IsAlnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }

// Options of pip and uv pip that take a value (the next word when not `=`-joined).
const std::set<std::string>& ValueOptions() {
  static const std::set<std::string> options = {
      "-r", "--requirement", "-c", "--constraint", "-i", "--index-url", "--extra-index-url", "-f", "--find-links",
      "-t", "--target", "--prefix", "--root", "--src", "-e", "--editable", "--platform", "--python-version",
      "--implementation", "--abi", "--trusted-host", "--cache-dir", "--progress-bar", "--upgrade-strategy",
      "--global-option", "--install-option", "-C", "--config-settings", "--no-binary", "--only-binary", "--report",
      "--log", "--timeout", "--retries", "--proxy", "--exists-action", "--python", "-p", "--index-strategy",
      "--index", "--default-index", "--resolution", "--prerelease", "--python-platform", "--keyring-provider",
      "--extra-index", "--group", "--cert", "--client-cert", "--use-feature", "--root-user-action",
      "--torch-backend"};
  return options;
}

}  // namespace

std::optional<Requirement> ParseRequirement(const ShellWord& word) {
  Requirement r;
  r.raw = word.value;
  r.exact = word.exact;
  std::string_view text = word.value;
  // A wheel file or URL: {name}-{version}(-{build})?-{python}-{abi}-{platform}.whl (PEP 427).
  if (EndsWith(text, ".whl")) {
    std::string file = BaseName(text);
    size_t pos;
    while ((pos = file.find("%2B")) != std::string::npos) file.replace(pos, 3, "+");
    auto parts = SplitOn(file, '-');
    if (parts.size() < 5 || parts[0].size() > kMaxName || parts[1].size() > kMaxVersion) return std::nullopt;
    r.name = NormalizePackageName(parts[0]);
    r.version = parts[1];
    return r;
  }
  if (text.find("://") != std::string_view::npos || StartsWith(text, ".") || StartsWith(text, "/") ||
      text.find('@') != std::string_view::npos)
    return std::nullopt;
  // name [extras] spec: name = [A-Za-z0-9][A-Za-z0-9._-]* (PEP 508).
  size_t pos = 0;
  if (text.empty() || !IsAlnum(text[0])) return std::nullopt;
  while (pos < text.size() && (IsAlnum(text[pos]) || text[pos] == '.' || text[pos] == '_' || text[pos] == '-')) ++pos;
  if (pos > kMaxName) return std::nullopt;
  r.name = NormalizePackageName(text.substr(0, pos));
  while (pos < text.size() && IsSpace(text[pos])) ++pos;
  if (pos < text.size() && text[pos] == '[') {
    size_t close = text.find(']', pos);
    if (close != std::string_view::npos) {
      for (std::string extra : SplitOn(text.substr(pos + 1, close - pos - 1), ',')) {
        extra.erase(std::remove(extra.begin(), extra.end(), ' '), extra.end());
        // PEP 685: extras compare normalized, as package names do.
        if (!extra.empty()) r.extras.push_back(NormalizePackageName(extra.substr(0, kMaxName)));
      }
      pos = close + 1;
      while (pos < text.size() && IsSpace(text[pos])) ++pos;
    }
  }
  if (text.find_first_of("\n\r", pos) != std::string_view::npos) return std::nullopt;  // one line of specifiers
  std::string spec(text.substr(pos));
  spec = spec.substr(0, spec.find(';'));  // environment markers
  spec.erase(std::remove(spec.begin(), spec.end(), ' '), spec.end());
  if (StartsWith(spec, "===")) r.version = spec.substr(3);
  else if (StartsWith(spec, "==") && spec.find_first_of(",*") == std::string::npos) r.version = spec.substr(2);
  else if (StartsWith(spec, "=") && !StartsWith(spec, "==")) r.version = spec.substr(1);  // conda style
  else if (!spec.empty()) r.specifier = spec;
  if (r.version.size() > kMaxVersion || r.specifier.size() > kMaxVersion) return std::nullopt;
  return r;
}

namespace {

// The prefix above `.../bin/<exe>` ("/opt/venv/bin/pip" -> "/opt/venv"); "" when none.
std::string PrefixOfExecutable(const std::string& path) {
  size_t bin = path.rfind("/bin/");
  return bin == std::string::npos || bin == 0 ? "" : CleanPath(path.substr(0, bin));
}

}  // namespace

std::string InstallRoot(const ImageModel& image, const ShellCommand& command, const std::string& option_root) {
  if (!option_root.empty()) return CleanPath(option_root);
  if (std::string prefix = PrefixOfExecutable(command.words[0].value); !prefix.empty()) return prefix;
  if (auto venv = image.env.find("VIRTUAL_ENV"); venv != image.env.end() && StartsWith(venv->second, "/"))
    return CleanPath(venv->second);
  if (auto path = image.env.find("PATH"); path != image.env.end())
    for (const std::string& dir : SplitOn(path->second, ':')) {
      if (dir == "/usr/local/sbin" || dir == "/usr/local/bin" || dir == "/usr/sbin" || dir == "/usr/bin" ||
          dir == "/sbin" || dir == "/bin")
        break;
      if (EndsWith(dir, "/bin") && StartsWith(dir, "/")) return CleanPath(dir.substr(0, dir.size() - 4));
    }
  return "/usr/local";
}

namespace {

// Where `pip install --user` (or PIP_USER) puts packages: the user's site
// under $HOME/.local. HOME is the image's ENV when set, else /root for root
// and /home/NAME for a USER by name (useradd -m's default); "" when not known.
std::string UserSiteRoot(const ImageModel& image) {
  if (auto home = image.env.find("HOME"); home != image.env.end() && StartsWith(home->second, "/"))
    return CleanPath(home->second + "/.local");
  if (image.user.empty() || image.user == "root" || image.user == "0") return "/root/.local";
  if (image.user == "?" || std::all_of(image.user.begin(), image.user.end(), IsAsciiDigit)) return "";
  return "/home/" + image.user + "/.local";
}

// pip's boolean options from the environment (PIP_USER=1): strtobool's words.
bool PipEnvTrue(const ImageModel& image, const std::string& name) {
  auto value = image.env.find(name);
  if (value == image.env.end()) return false;
  std::string v = ToLower(value->second);
  return v == "1" || v == "true" || v == "yes" || v == "on" || v == "y" || v == "t";
}

// Packages that require torch without torch on the same line: pip installs
// the torch release each requires — exactly (torch_pins: vLLM, xFormers) or a
// series (pypi_releases pairs torchvision and torchaudio with one) — or, for an
// unpinned one and for one that bounds torch from below only (python_packages
// `requires_torch`: accelerate, peft...), the newest; an image whose torch
// already satisfies it keeps it.
std::optional<Requirement> CompanionTorch(const Context& ctx, const ImageModel& image,
                                          const std::vector<Requirement>& requirements) {
  std::optional<Requirement> out, newest_any;
  for (const Requirement& r : requirements) {
    if (r.name == "torch") return std::nullopt;
    const bool paired = r.name == "torchvision" || r.name == "torchaudio";
    const bool bounded_below = !paired && ctx.packages.RequiresTorch(r.name);
    if ((!paired && !bounded_below && !ctx.packages.PinsTorch(r.name)) || !r.exact) continue;
    Requirement torch;
    torch.name = "torch";
    torch.raw = r.raw;
    if (bounded_below) {  // a companion's pin, if any, says more
      torch.assumed_because = r.name + " requires torch with a lower bound only: pip installs the newest torch with it";
      if (!newest_any) newest_any = torch;
      continue;
    }
    std::string version = r.version.substr(0, r.version.find('+'));
    const TorchPin* newest = nullptr;  // an unpinned package that pins torch: its newest release the tables know
    if (version.empty() && r.specifier.empty())
      for (const TorchPin& row : ctx.packages.torch_pins)
        if (row.package == r.name && (!newest || CompareNaturalVersions(row.release, newest->release) > 0)) newest = &row;
    if (newest) {
      torch.version = newest->torch;
      torch.assumed_because = r.name + " is not pinned: assumed " + r.name + " " + newest->release +
                     ", the newest release the knowledge tables know, which requires torch==" + newest->torch +
                     (newest->unconfirmed.empty() ? "" : " (UNCONFIRMED: " + newest->unconfirmed + ")") +
                     "; pin it to make this certain";
    } else if (version.empty()) {
      torch.assumed_because = r.name + " is not pinned and brings torch";
    } else if (const TorchPin* pin = ctx.packages.FindTorchPin(r.name, version)) {
      torch.version = pin->torch;
      torch.origin = r.name + " " + version + " requires torch==" + pin->torch +
                     (pin->unconfirmed.empty() ? "" : " (UNCONFIRMED: " + pin->unconfirmed + ")");
    } else if (const PypiRelease* pair = paired ? ctx.packages.FindPypiRelease(r.name, MajorMinor(version)) : nullptr;
               pair && !pair->torch.empty()) {
      torch.specifier = "==" + pair->torch + ".*";
      torch.assumed_because = r.name + " " + version + " requires torch " + pair->torch;
    } else {
      continue;  // a release the tables do not pair: its torch stays unknown
    }
    if (!out) out = torch;
  }
  if (!out) out = newest_any;
  if (!out) return std::nullopt;
  for (const facts::Framework& row : image.frameworks) {
    if (row.name != "torch" || !row.version) continue;
    const std::string installed = row.version->substr(0, row.version->find('+'));
    if (!out->version.empty() ? installed == out->version
                              : out->specifier.empty() ||
                                    SeriesSatisfies(MajorMinor(installed), out->specifier).value_or(false))
      return std::nullopt;  // pip keeps an installed torch that satisfies the requirement
  }
  return out;
}

// A project directory or a file path rather than a requirement: ".", "./x",
// "/app", ".[dev]".
bool IsLocalPath(const std::string& word) {
  return word == "." || StartsWith(word, "./") || StartsWith(word, "/") || StartsWith(word, ".[") ||
         StartsWith(word, "../");
}

// What a pip command reads from files: -r, -c, and projects (`.`, `-e .`).
struct FileInputs {
  std::vector<std::string> requirement_files, constraint_files, projects;
};

// Reads the command's files from the build context (build_context.cpp) into
// its requirements and indexes: options in a requirements file apply to the
// whole install, as pip applies them. What could not be read is an unknown
// fact of this line, saying what would decide it.
void ReadInputs(const Context& ctx, const Instruction& inst, ImageModel& image, const FileInputs& inputs,
                Indexes& indexes, std::vector<Requirement>& requirements) {
  RequirementsRead read;
  for (const std::string& file : inputs.requirement_files) ReadRequirements(ctx, image, InRun(image, file), false, read);
  for (const std::string& file : inputs.constraint_files) ReadRequirements(ctx, image, InRun(image, file), true, read);
  for (const std::string& project : inputs.projects) {
    std::string dir = project, extras;
    if (size_t open = dir.find('['); open != std::string::npos && dir.back() == ']') {
      extras = dir.substr(open + 1, dir.size() - open - 2);
      dir = dir.substr(0, open);
    }
    std::vector<std::string> names;
    for (const std::string& extra : SplitOn(extras, ','))
      if (!Trim(extra).empty()) names.push_back(ToLower(Trim(extra)));
    ReadProject(ctx, image, InRun(image, dir), names, read);
  }
  if (!read.index_url.empty() && indexes.index_url.empty()) {
    indexes.index_url = read.index_url;
    indexes.from_pypi = ctx.packages.IsPypiIndex(read.index_url);
  }
  for (const std::string& url : read.extra_index_urls) indexes.extra_urls.push_back(url);
  for (const std::string& url : read.find_links) indexes.find_links.push_back(url);
  for (Requirement& r : read.requirements) requirements.push_back(std::move(r));
  // -c pins what the requirements leave open (pip applies constraints to every requirement).
  for (Requirement& r : requirements)
    if (auto pin = read.constraints.find(r.name);
        pin != read.constraints.end() && r.version.empty() && r.specifier.empty()) {
      r.version = pin->second.version;
      r.specifier = pin->second.specifier;
      r.origin = pin->second.origin;
    }
  bool no_context = ctx.options.context_dir.empty();
  for (const std::string& what : read.unread) {
    ctx.Unknown(image, inst, "frameworks", "pip: " + what.substr(0, 400),
                no_context ? "give the build context (imagelint --context DIR, the folder docker build gets)"
                           : "make the file readable in the build context, or scan the built image");
    image.frameworks_partial = true;
  }
  if (!read.files.empty()) {
    std::string files;
    for (const std::string& file : read.files) files += (files.empty() ? "" : ", ") + file.substr(0, 200);
    ctx.AddNote(image, inst, "pip reads " + files + " from the build context");
  }
  for (size_t i = 0; i < read.notes.size() && i < 8; ++i) ctx.AddNote(image, inst, "pip: " + read.notes[i].substr(0, 500));
}

}  // namespace

bool ApplyLockedInstall(const Context& ctx, const Instruction& inst, ImageModel& image, const ShellCommand& command) {
  const auto& w = command.words;
  if (w.size() < 2) return false;
  std::string tool = BaseName(w[0].value), sub = w[1].value;
  // Each installer's subcommands that install a project, the lock they read
  // ("" = a format imagelint does not read) and the options that name the
  // project's directory (the tools' CLI references).
  struct LockedInstaller {
    const char* tool;
    std::set<std::string> subcommands;
    const char* lock;
    std::set<std::string> dir_options;
    bool read;
  };
  static const LockedInstaller kInstallers[] = {
      {"uv", {"sync", "run"}, "uv.lock", {"--project", "--directory"}, true},
      {"poetry", {"install", "sync"}, "poetry.lock", {"-C", "--directory", "-P", "--project"}, true},
      {"pdm", {"install", "sync"}, "pdm.lock", {"-p", "--project"}, true},
      {"pipenv", {"install", "sync"}, "Pipfile.lock", {}, true},
      {"pixi", {"install", "run", "shell-hook"}, "pixi.lock", {"--manifest-path"}, true},
  };
  const LockedInstaller* installer = nullptr;
  for (const LockedInstaller& row : kInstallers)
    if (tool == row.tool && row.subcommands.count(sub)) installer = &row;
  if (installer == nullptr) return false;
  const std::string lock = installer->lock;
  const std::set<std::string>& dir_options = installer->dir_options;
  if (!installer->read) {
    ctx.Unknown(image, inst, "frameworks", tool + " " + sub + " installs from " + lock + ", which imagelint does not read",
                "scan the built image");
    image.frameworks_partial = true;
    return true;
  }
  std::string dir = image.run_cwd;
  // UV_NO_SYNC (any value but 0/false/no/off/empty) is uv's --no-sync.
  bool no_sync = false;
  if (auto env = image.env.find("UV_NO_SYNC"); tool == "uv" && env != image.env.end()) {
    const std::string value = ToLower(env->second);
    no_sync = !(value.empty() || value == "0" || value == "false" || value == "no" || value == "off");
  }
  for (size_t i = 2; i < w.size(); ++i) {
    const std::string& word = w[i].value;
    if (tool == "uv" && sub == "run" && !StartsWith(word, "-")) break;  // the command uv runs
    if (word == "--no-sync") no_sync = true;
    std::string option = word.substr(0, word.find('='));
    if (!dir_options.count(option)) continue;
    std::string value = word.find('=') != std::string::npos ? word.substr(word.find('=') + 1)
                                                            : (i + 1 < w.size() ? w[++i].value : "");
    if (!value.empty()) dir = NormalPath(StartsWith(value, "/") ? value : image.run_cwd + "/" + value);
  }
  if (no_sync) return true;  // uv run --no-sync installs nothing
  // pixi's --manifest-path names the manifest file; its directory is the project's.
  if (tool == "pixi" && EndsWith(dir, ".toml")) dir = NormalPath(dir.substr(0, dir.rfind('/')));
  // `uv run` / `pixi run` sync only a project they find: one the build context
  // shows absent from where the command runs is none (uv then just runs).
  if (command.runner_sync) {
    // Nothing copied from the context: no project of the repository's is there.
    if (image.context_copies.empty()) return true;
    bool absent = true;
    for (const char* name : {"pyproject.toml", tool == "pixi" ? "pixi.toml" : "pyproject.toml", lock.c_str()}) {
      ContextSource source = FindInContext(ctx, image, (dir == "/" ? "" : dir) + "/" + name);
      if (!absent || !source.path) {
        absent = false;
        continue;
      }
      auto text = ReadContextFile(ctx, *source.path);
      absent = !text.ok() && text.error().message.ends_with("does not exist");
    }
    if (absent) return true;
  }
  if (tool == "pixi") {
    (void)ApplyPixi(ctx, inst, image, command, dir);
    return true;
  }
  if (tool == "pipenv") {
    // PIPENV_PIPFILE names the Pipfile; its directory is the project's.
    if (auto pipfile = image.env.find("PIPENV_PIPFILE"); pipfile != image.env.end() && !pipfile->second.empty()) {
      const std::string path = StartsWith(pipfile->second, "/") ? pipfile->second : dir + "/" + pipfile->second;
      dir = NormalPath(path.substr(0, path.rfind('/')));
    }
    (void)ApplyPipenv(ctx, inst, image, command, dir);
    return true;
  }
  RequirementsRead read;
  ReadTomlLock(ctx, image, dir, lock, read);
  // Without its lock, uv sync, poetry install and pdm install resolve the
  // project's dependencies (Poetry's own table for poetry) as pip would
  // resolve `pip install .`, and lock the result. A lock that is there but
  // not readable locks versions that satisfy those same dependencies, so
  // they stand for it (ranges resolve to the newest known release, and say so).
  if (read.files.empty() && (tool == "uv" || tool == "poetry" || tool == "pdm")) {
    if (read.lock_unreadable)
      for (const std::string& what : read.unread)
        ctx.AddNote(image, inst, tool + " " + sub + ": " + what.substr(0, 400) +
                                     "; the project's dependencies (pyproject.toml) stand for what it locks");
    std::vector<std::string> lock_unread = std::move(read.unread);
    read.unread.clear();
    // `poetry install` takes every dependency group not marked optional.
    ReadProject(ctx, image, dir, {}, read, tool == "poetry" ? std::vector<std::string>{"*"} : std::vector<std::string>{});
    if (read.files.empty()) read.unread.insert(read.unread.begin(), lock_unread.begin(), lock_unread.end());
  }
  Indexes indexes;
  for (const std::string& url : read.extra_index_urls) indexes.extra_urls.push_back(url);
  bool no_context = ctx.options.context_dir.empty();
  for (const std::string& what : read.unread) {
    ctx.Unknown(image, inst, "frameworks", tool + " " + sub + ": " + what.substr(0, 400),
                no_context ? "give the build context (imagelint --context DIR, the folder docker build gets)"
                           : "make the lock file readable in the build context, or scan the built image");
    image.frameworks_partial = true;
  }
  if (!read.files.empty()) ctx.AddNote(image, inst, tool + " reads " + read.files.front().substr(0, 200) + " from the build context");
  for (const Requirement& r : read.requirements) PipPackage(ctx, inst, image, r, indexes, tool == "uv");
  // uv and pdm install into the project's .venv; poetry into its virtualenv (or the system).
  std::string root = tool == "poetry" ? InstallRoot(image, command, "") : CleanPath(dir + "/.venv");
  if (auto env = image.env.find("UV_PROJECT_ENVIRONMENT"); tool == "uv" && env != image.env.end() && !env->second.empty())
    root = CleanPath(StartsWith(env->second, "/") ? env->second : dir + "/" + env->second);
  for (const facts::Framework& row : image.frameworks)
    if (row.provenance.dockerfile_line == inst.line) image.framework_roots[row.name] = root;
  return true;
}

// An unpinned (or range) requirement of a framework the environment already
// has in a release that satisfies it: pip and uv leave it as it is
// ("Requirement already satisfied") unless told to upgrade or reinstall.
// `root` is where this command installs; `fresh_env` says it is a new
// environment (uv's default .venv) that a base image's framework is not in.
const facts::Framework* AlreadySatisfied(const Context& ctx, const ImageModel& image, const Requirement& r,
                                         const std::string& root, bool fresh_env) {
  if (!r.exact || !r.version.empty()) return nullptr;
  const PythonPackage* known = ctx.packages.FindPythonPackage("pip", r.name);
  if (!known || known->framework.empty()) return nullptr;
  for (const facts::Framework& row : image.frameworks) {
    if (row.name != known->FrameworkOf(r.name) || !row.version || row.version->empty()) continue;
    auto recorded = image.framework_roots.find(row.name);
    const bool same_env =
        recorded != image.framework_roots.end() && !recorded->second.empty() ? recorded->second == root : !fresh_env;
    if (!same_env) return nullptr;
    if (!r.specifier.empty() && !SeriesSatisfies(MajorMinor(*row.version), r.specifier).value_or(false)) return nullptr;
    return &row;
  }
  return nullptr;
}

Status ApplyPip(const Context& ctx, const Instruction& inst, ImageModel& image, const ShellCommand& command,
                size_t first, bool uv) {
  bool reinstall = false;  // -U, --force-reinstall, -I: an installed release does not satisfy
  std::string option_root;
  bool user_install = !uv && PipEnvTrue(image, "PIP_USER");
  bool uv_system = uv && (image.env.count("UV_SYSTEM_PYTHON") != 0);
  const auto& w = command.words;
  std::string subcommand;
  Indexes indexes;
  if (auto backend = image.env.find("UV_TORCH_BACKEND"); uv && backend != image.env.end())
    indexes.torch_backend = ToLower(backend->second);
  FileInputs inputs;
  std::vector<Requirement> requirements;
  for (size_t i = first; i < w.size(); ++i) {
    const std::string& word = w[i].value;
    if (StartsWith(word, "-")) {
      std::string option = word, value;
      size_t eq = word.find('=');
      if (eq != std::string::npos) {
        option = word.substr(0, eq);
        value = word.substr(eq + 1);
      } else if (ValueOptions().count(option) && i + 1 < w.size()) {
        value = w[++i].value;
      } else if (option.size() > 2 && option[1] != '-' && ValueOptions().count(option.substr(0, 2))) {
        value = option.substr(2);  // -rrequirements.txt
        option = option.substr(0, 2);
      }
      if (option == "-r" || option == "--requirement") {
        inputs.requirement_files.push_back(value);
      } else if (option == "-c" || option == "--constraint") {
        inputs.constraint_files.push_back(value);
      } else if (option == "-e" || option == "--editable") {
        if (IsLocalPath(value)) {
          inputs.projects.push_back(value);
        } else {
          ctx.Unknown(image, inst, "frameworks",
                      "pip installs the project " + value.substr(0, 200) + " (its dependencies are not read)");
          image.frameworks_partial = true;
        }
      } else if (option == "-i" || option == "--index-url" || option == "--index" || option == "--default-index") {
        indexes.index_url = value;
        indexes.from_pypi = ctx.packages.IsPypiIndex(value);  // a PyPI mirror serves PyPI's wheels
      } else if (option == "--extra-index-url" || option == "--extra-index") {
        indexes.extra_urls.push_back(value);
      } else if (option == "-f" || option == "--find-links") {
        indexes.find_links.push_back(value);
      } else if (option == "--torch-backend" && uv) {
        indexes.torch_backend = ToLower(value);
      } else if (option == "--prefix" || option == "--target" || option == "-t") {
        option_root = value;
      } else if (option == "--user" && !uv) {
        user_install = true;
      } else if (option == "--system" && uv) {
        uv_system = true;
      } else if (option == "--python" || option == "-p") {
        option_root = PrefixOfExecutable(value + (EndsWith(value, "/bin/python") ? "" : "/bin/python"));
      } else if (option == "-U" || option == "--upgrade" || option == "--force-reinstall" || option == "-I" ||
                 option == "--ignore-installed" || option == "--reinstall") {
        reinstall = true;
      }
      continue;
    }
    if (subcommand.empty()) {
      subcommand = word;
      continue;
    }
    if (subcommand != "install" && subcommand != "uninstall" && subcommand != "sync") return OkStatus();
    if (subcommand == "sync") {
      ctx.Unknown(image, inst, "frameworks", "uv pip sync " + word.substr(0, 200) + " is not read");
      image.frameworks_partial = true;
      continue;
    }
    auto requirement = ParseRequirement(w[i]);
    if (!requirement && IsLocalPath(word) && w[i].exact) {
      inputs.projects.push_back(word);
      continue;
    }
    if (!requirement) {
      ctx.Unknown(image, inst, "frameworks", "pip installs \"" + word.substr(0, 120) + "\", which imagelint does not read");
      image.frameworks_partial = true;
      continue;
    }
    requirements.push_back(std::move(*requirement));
  }
  if (subcommand == "uninstall") {
    for (const Requirement& r : requirements) RemoveFramework(image, inst.line, r.name);
    return OkStatus();
  }
  if (subcommand != "install") return OkStatus();
  for (const std::string& project : inputs.projects) {
    if (EndsWith(project, ".whl"))
      ctx.Unknown(image, inst, "binaries", "pip installs the wheel " + project.substr(0, 200) + ", whose files are not read",
                  "scan the built image");
    else if (auto backend = PurePythonBuild(ctx, image, InRun(image, project.substr(0, project.find('['))));
             backend)
      ctx.AddNote(image, inst, "the project " + project.substr(0, 200) + " is built by " + backend->substr(0, 300) +
                                   ", which builds pure-Python wheels: no GPU code");
    else
      BuildsPythonProject(ctx, inst, image, command, "the project " + project.substr(0, 200));
  }
  ReadInputs(ctx, inst, image, inputs, indexes, requirements);
  if (!reinstall) {
    const bool uv_venv = uv && !uv_system && option_root.empty() && !image.env.count("VIRTUAL_ENV");
    const std::string target = InstallRoot(image, command, uv_venv ? NormalPath(image.run_cwd + "/.venv") : option_root);
    std::erase_if(requirements, [&](const Requirement& r) {
      const facts::Framework* kept = AlreadySatisfied(ctx, image, r, target, uv_venv);
      if (kept)
        ctx.AddNote(image, inst,
                    "\"" + r.raw.substr(0, 120) + "\" is already satisfied by " + kept->name + " " + *kept->version +
                        " (line " + std::to_string(kept->provenance.dockerfile_line.value_or(0)) +
                        "): pip keeps it without --upgrade");
      return kept != nullptr;
    });
  }
  for (const Requirement& r : requirements) PipPackage(ctx, inst, image, r, indexes, uv);
  if (auto torch = CompanionTorch(ctx, image, requirements)) PipPackage(ctx, inst, image, *torch, indexes, uv);
  if (user_install && option_root.empty()) option_root = UserSiteRoot(image);
  // uv pip installs into the active venv, else the `.venv` of the directory
  // it runs in (uv venv's default; https://docs.astral.sh/uv/pip/environments/),
  // unless --system / UV_SYSTEM_PYTHON.
  if (uv && !uv_system && option_root.empty() && !image.env.count("VIRTUAL_ENV"))
    option_root = NormalPath(image.run_cwd + "/.venv");
  std::string root = user_install && option_root.empty() ? "" : InstallRoot(image, command, option_root);
  for (const facts::Framework& row : image.frameworks)
    if (row.provenance.dockerfile_line == inst.line) image.framework_roots[row.name] = root;
  return OkStatus();
}

}  // namespace imagelint::dockerfile
