// The flags that mirror .imagelint.yaml, shared by `scan`, `rules` and
// `explain`, and the last step of a scan: suppressions, --min-severity, every
// --format, and the exit code of --fail-on.
//
// In a subcommand's Setup:
//   auto options = std::make_shared<config::CommandLineOptions>();
//   config::AddConfigFlags(app, *options);   // --config --no-config --rules --severity --disable
//   config::AddReportFlags(app, *options);   // --fail-on --min-severity --format --output --ignore ...
// In its Run:
//   auto settings = config::ResolveConfig(*options);        // file + flags
//   ...rules from settings->config.rule_files / overrides; analysis...
//   auto code = config::FinishReport(report, *settings, inline_suppressions, std::cout);
//   return code.ok() ? *code : ReportToolError(code.error());
// Flags a command already declares itself (e.g. --fleet) are skipped; put
// their values into CommandLineOptions before ResolveConfig.
#pragma once

#include <functional>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "imagelint/config.h"
#include "imagelint/report.h"

namespace imagelint::config {

struct CommandLineOptions {
  std::string config_file;  // --config
  bool no_config = false;   // --no-config
  std::string fleet;        // --fleet
  std::vector<std::string> rule_files;  // --rules
  std::vector<std::string> severity;    // --severity RULE=LEVEL
  std::vector<std::string> disable;     // --disable RULE
  std::vector<std::string> ignore;      // --ignore RULE[:DATE]=REASON
  std::string fail_on;                  // --fail-on
  std::string min_severity;             // --min-severity
  std::vector<std::string> formats;     // --format FORMAT[=FILE]
  std::string output;                   // --output FILE
  std::string docs_url;                 // --docs-url
  std::string dockerfile;               // --dockerfile (when the command has one)
  std::string platform;                 // --platform (when the command has one)
  bool no_inline_ignores = false;       // --no-inline-ignores
  std::string working_directory = ".";  // where ./.imagelint.yaml is looked for
  // Formats the command renders itself (e.g. scan's "k8s" placement advice):
  // accepted by --format (NAME or NAME=FILE) and handed to FinishReport's
  // `extra` renderers. Set before AddReportFlags (it shows them in --help).
  std::vector<std::string> extra_formats;
};

void AddConfigFlags(CLI::App& app, CommandLineOptions& options);
void AddReportFlags(CLI::App& app, CommandLineOptions& options);

// Everything a command needs after merging the config file and the flags.
struct Settings {
  Config config;  // merged (file, then flags)
  std::vector<report::FormatRequest> formats;  // default: text to stdout (when no extra format either)
  std::vector<std::pair<std::string, std::string>> extra_formats;  // name, path ("" = stdout)
  std::optional<rules::Severity> fail_on = rules::Severity::kError;  // nullopt = none
  rules::Severity min_severity = rules::Severity::kNote;
  report::RenderOptions render;
  bool inline_ignores = true;
};

// Finds and loads the config file (unless --no-config), parses every flag,
// merges. Errors name the file:line:column or the flag.
Result<Settings> ResolveConfig(const CommandLineOptions& options);

// Applies ignores (config + flags + `inline_suppressions` when allowed),
// --min-severity, writes every format and returns the exit code (0 or 1).
// `rules` defaults to the report's own rule table when empty.
using ExtraRenderer = std::function<Result<std::string>(const nlohmann::json& report)>;
Result<int> FinishReport(const nlohmann::json& report, const Settings& settings,
                         const std::vector<Suppression>& inline_suppressions, std::ostream& out,
                         const std::vector<report::RuleMeta>& rules = {},
                         const std::map<std::string, ExtraRenderer>& extra = {});

}  // namespace imagelint::config
