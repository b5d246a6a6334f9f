// The process environment, read in one place (see environment.h).
#include "cli/environment.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "common/bytes_text.h"
#include "imagelint/cache.h"
#include "imagelint/config.h"
#include "imagelint/knowledge_update.h"

namespace imagelint::cli {

namespace fs = std::filesystem;

namespace {

bool HasData(const fs::path& dir) {
  std::error_code ec;
  return !dir.empty() && fs::is_directory(dir / "rules" / "knowledge", ec);
}

// "layers 3/7, 512.0 MiB" on one line of stderr, redrawn in place.
void DrawProgress(const ReadProgress& progress) {
  std::fprintf(stderr, "\rimagelint: layers %zu/%zu, %.1f MiB%s", progress.layers_done, progress.layers_total,
               static_cast<double>(progress.bytes_done) / (1 << 20),
               progress.layers_done == progress.layers_total ? "\n" : "");
  std::fflush(stderr);
}

}  // namespace

Environment::Environment(Lookup lookup, fs::path executable, fs::path source_dir)
    : lookup_(std::move(lookup)), executable_(std::move(executable)), source_dir_(std::move(source_dir)) {}

Environment Environment::FromProcess(const char* argv0) {
  std::error_code ec;
  fs::path executable = fs::read_symlink("/proc/self/exe", ec);
  if (ec || executable.empty()) executable = fs::absolute(argv0 ? argv0 : "imagelint", ec);
  auto lookup = [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (!value) return std::nullopt;
    return std::string(value);
  };
  return Environment(lookup, executable, IMAGELINT_SOURCE_DIR);
}

std::optional<std::string> Environment::Find(const std::string& name) const { return lookup_(name); }

std::string Environment::Get(const std::string& name) const { return Find(name).value_or(""); }

fs::path Environment::DataDirectory() const {
  fs::path bin = executable_.parent_path();
  if (fs::path installed = bin.parent_path() / "share" / "imagelint"; HasData(installed)) return installed;
  // A build tree inside the checkout: <checkout>/<build>/src/cli/imagelint.
  if (bin.filename() == "cli" && bin.parent_path().filename() == "src") {
    fs::path checkout = bin.parent_path().parent_path().parent_path();
    if (HasData(checkout)) return checkout;
  }
  return source_dir_;
}

Context Environment::MakeContext() const {
  Context context = Context::ForDataDirectory(DataDirectory());
  if (std::string dir = Get("IMAGELINT_RULES_DIR"); !dir.empty()) context.rules_dir = dir;
  if (std::string dir = Get("IMAGELINT_KNOWLEDGE_DIR"); !dir.empty()) context.knowledge_dir = dir;
  if (std::string dir = Get("IMAGELINT_DOCS_DIR"); !dir.empty()) context.docs_dir = dir;
  context.cache_dir = DefaultCacheDirectory(Get("XDG_CACHE_HOME"), Get("HOME"));
  if (std::string today = Get("IMAGELINT_TODAY"); config::IsDate(today)) context.today = today;
  context.credential_stores.registry_auth_file = Get("REGISTRY_AUTH_FILE");
  context.credential_stores.xdg_runtime_dir = Get("XDG_RUNTIME_DIR");
  context.credential_stores.docker_auth_config = Get("DOCKER_AUTH_CONFIG");
  context.credential_stores.docker_config = Get("DOCKER_CONFIG");
  context.credential_stores.home = Get("HOME");
  context.docker_host = Get("DOCKER_HOST");
  if (std::string from = Get("IMAGELINT_BASE_FROM"); !from.empty()) context.base_from = from;
  context.free_at_end = false;  // the process exits when the command is done
  if (::isatty(STDERR_FILENO) == 1) context.progress = DrawProgress;
  context.warn = [](const std::string& message) {
    std::fprintf(stderr, "imagelint: warning: %s\n", DisplayText(message).c_str());  // one line, no control codes
  };
  (void)SelectKnowledge(context, "", KnowledgeDirectoryFixed());  // errors only for an explicit selection
  return context;
}

fs::path Environment::BuiltinKnowledgeDirectory() const {
  if (std::string dir = Get("IMAGELINT_KNOWLEDGE_DIR"); !dir.empty()) return dir;
  return Context::ForDataDirectory(DataDirectory()).knowledge_dir;
}

std::string Environment::UserConfigDirectory() const {
  if (std::string xdg = Get("XDG_CONFIG_HOME"); !xdg.empty()) return (fs::path(xdg) / "imagelint").string();
  if (std::string home = Get("HOME"); !home.empty()) return (fs::path(home) / ".config" / "imagelint").string();
  return "";
}

bool Environment::ColorWanted(int fd, const std::string& when) const {
  if (when == "always") return true;
  if (when == "never") return false;
  if (!Get("NO_COLOR").empty()) return false;
  if (Get("TERM") == "dumb") return false;
  return ::isatty(fd) == 1;
}

size_t Environment::TextWidth(int fd) const {
  constexpr size_t kDefault = 80;
  if (::isatty(fd) != 1) return kDefault;
  struct winsize size {};
  if (::ioctl(fd, TIOCGWINSZ, &size) != 0 || size.ws_col == 0) return kDefault;
  return std::clamp<size_t>(size.ws_col, 60, 200);
}

Result<std::map<std::string, std::string>> Environment::BuildArgs(const std::vector<std::string>& flags) const {
  std::map<std::string, std::string> args;
  for (const std::string& arg : flags) {
    size_t eq = arg.find('=');
    if (eq == 0) return MakeError("--build-arg", "expected NAME=VALUE, got \"" + arg + "\"");
    if (eq != std::string::npos) {
      args[arg.substr(0, eq)] = arg.substr(eq + 1);
    } else if (auto value = Find(arg)) {  // docker build --build-arg NAME
      args[arg] = *value;
    }
  }
  return args;
}

std::filesystem::path Environment::ProbeProgram() const {
  if (auto set = Find("IMAGELINT_PROBE"); set && !set->empty()) return *set;
  const std::filesystem::path bin = executable_.parent_path();
  for (const auto& candidate : {bin / ".." / "libexec" / "imagelint" / "imagelint-probe",
                                bin / ".." / ".." / "probe" / "imagelint-probe"}) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(candidate, ec)) return std::filesystem::weakly_canonical(candidate, ec);
  }
  return {};
}

}  // namespace imagelint::cli
