// Everything imagelint takes from its process environment, read here and
// nowhere else: the library receives the values (imagelint::Context, config
// search paths, render options). docs/cli.md "Environment" lists the variables.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "imagelint/pipeline.h"

namespace imagelint::cli {

class Environment {
 public:
  // A variable's value; nullopt when it is not set.
  using Lookup = std::function<std::optional<std::string>(const std::string& name)>;

  // `lookup` reads variables; `executable` is the running binary;
  // `source_dir` the checkout it was built from (the last place data is
  // looked for).
  Environment(Lookup lookup, std::filesystem::path executable, std::filesystem::path source_dir);
  // The process's environment (getenv), /proc/self/exe (else argv0) and the
  // checkout compiled in.
  static Environment FromProcess(const char* argv0);

  std::optional<std::string> Find(const std::string& name) const;
  std::string Get(const std::string& name) const;  // "" when unset

  // Where the rules, knowledge tables and docs are: the first of
  // <bin>/../share/imagelint (an installed binary), the checkout holding the
  // build tree the binary sits in (<checkout>/<build>/src/cli/imagelint), and
  // the checkout it was compiled from. A candidate counts when it has
  // rules/knowledge/.
  std::filesystem::path DataDirectory() const;

  // The library's context: data directories ($IMAGELINT_RULES_DIR,
  // $IMAGELINT_KNOWLEDGE_DIR, $IMAGELINT_DOCS_DIR override each; without
  // the knowledge variable, the newest bundle `knowledge update` stored in
  // the cache when it is newer than the built-in one),
  // the layer cache ($XDG_CACHE_HOME/imagelint or ~/.cache/imagelint),
  // today ($IMAGELINT_TODAY when it is a date), stored registry credentials
  // ($REGISTRY_AUTH_FILE, $XDG_RUNTIME_DIR, $DOCKER_AUTH_CONFIG,
  // $DOCKER_CONFIG, $HOME), progress on stderr when it is a terminal and
  // warnings on stderr.
  Context MakeContext() const;

  // The C probe `imagelint probe` runs inside images: $IMAGELINT_PROBE, else
  // <bin>/../libexec/imagelint/imagelint-probe (installed), else the build
  // tree's probe/imagelint-probe beside src/cli/ ("" when none exists).
  std::filesystem::path ProbeProgram() const;

  // The knowledge tables before any update: $IMAGELINT_KNOWLEDGE_DIR, else
  // <data>/rules/knowledge; and whether the variable named it (then no
  // stored bundle replaces it).
  std::filesystem::path BuiltinKnowledgeDirectory() const;
  bool KnowledgeDirectoryFixed() const { return !Get("IMAGELINT_KNOWLEDGE_DIR").empty(); }

  // $XDG_CONFIG_HOME/imagelint, else ~/.config/imagelint ("" when neither is set).
  std::string UserConfigDirectory() const;

  // Colour for a stream. `when` is --color: "always" and "never" decide
  // (a flag given for this run wins over NO_COLOR, as no-color.org asks);
  // "auto": only when it is a terminal, NO_COLOR is unset or empty and TERM
  // is not "dumb".
  bool ColorWanted(int fd, const std::string& when = "auto") const;

  // Columns of the text report: the terminal's width when `fd` is one
  // (between 60 and 200), else 80, so files, pipes and CI logs are stable.
  size_t TextWidth(int fd) const;

  // `--build-arg NAME[=VALUE]` as `docker build` reads them: NAME alone takes
  // the variable's value (skipped when it is unset). Errors name the flag.
  Result<std::map<std::string, std::string>> BuildArgs(const std::vector<std::string>& flags) const;

 private:
  Lookup lookup_;
  std::filesystem::path executable_;
  std::filesystem::path source_dir_;
};

}  // namespace imagelint::cli
