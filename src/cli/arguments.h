// Before CLI11 parses: the default command, `help`, and flags or commands
// that do not exist, answered with the closest one ("did you mean").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace imagelint::cli {

// `imagelint IMAGE...` is `imagelint scan IMAGE...`; `imagelint help [CMD]`
// is `imagelint [CMD] --help`. Returns the arguments to parse, or the error
// for a first argument that is a near miss of a command ("expain") rather
// than an image, as "imagelint: ..." without a newline.
struct CommandLine {
  std::vector<std::string> args;
  std::optional<std::string> error;
};
CommandLine ResolveCommand(const CLI::App& root, std::vector<std::string> args);

// The first flag no command on the path declares, as "imagelint: ...: unknown
// flag --flet (did you mean --fleet?)"; nullopt when every flag exists.
// Values of options that take one are skipped, and nothing after "--" is a flag.
std::optional<std::string> CheckFlags(const CLI::App& root, const std::vector<std::string>& args);

// Every flag takes one value per occurrence, as in docker, hadolint and
// trivy: `--disable IL013 app.tar` scans app.tar (CLI11 would otherwise let a
// list flag swallow the arguments after it). Positionals keep taking many.
void OneValuePerFlag(CLI::App& app);

// CLI11's own parse errors, in the same shape: "imagelint: CMD: message" and
// where to look.
std::string FailureMessage(const CLI::App* app, const CLI::Error& error);

}  // namespace imagelint::cli
