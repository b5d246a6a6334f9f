// Subcommand table of the command line (ninja's "tools table" idea).
//
// Each src/cli/cmd_<name>.cpp registers one subcommand with a static
// CommandRegistration: a name, a one-line summary, and a Setup function that
// declares the subcommand's options on its CLI::App and returns the function
// that runs it. main.cpp owns parsing, the default subcommand (`scan`), the
// process environment (passed to the run function) and the mapping of errors
// to exit codes; commands call the library (imagelint/pipeline.h), write
// through the report module and return the exit code.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/environment.h"
#include "imagelint/result.h"

namespace imagelint::cli {

// Exit codes of DESIGN.md.
inline constexpr int kExitOk = 0;        // nothing at or above --fail-on
inline constexpr int kExitFindings = 1;  // findings at or above --fail-on
inline constexpr int kExitToolError = 2; // imagelint could not do its job

using RunFunction = std::function<int(const Environment& environment)>;
using SetupFunction = std::function<RunFunction(CLI::App& subcommand)>;

struct CommandSpec {
  std::string name;
  std::string summary;
  SetupFunction setup;
  int order = 100;  // position in --help
};

std::vector<CommandSpec>& CommandTable();

struct CommandRegistration {
  explicit CommandRegistration(CommandSpec spec) { CommandTable().push_back(std::move(spec)); }
};

// Prints "imagelint: <error>" on stderr and returns kExitToolError.
int ReportToolError(const Error& error);

// How a command that renders one text ends: the text on stdout and kExitOk,
// or the error as ReportToolError says it.
int PrintText(const Result<std::string>& text);

}  // namespace imagelint::cli
