// Configuration (.imagelint.yaml, docs/config-schema.json) and suppressions.
//
//   config::CommandLineOptions flags;                          // the values of the flags
//   flags.user_config_dir = ...;                               // $XDG_CONFIG_HOME/imagelint (the CLI decides)
//   auto merged = config::ResolveConfig(flags);                // --config / ./.imagelint.yaml / user dir + flags
//   ...imagelint::ScanRequestFromConfig(*merged) (pipeline.h) turns it into a scan...
//   report = config::ApplySuppressions(report, merged->ignores + Dockerfile pragmas, today);
//
// Suppressions never make a finding vanish: it moves to the image's
// `suppressed[]` list with the suppression that matched (`suppressed_by`),
// the summary counts it, and expired or unused ignores are listed in
// `report.ignores`.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "imagelint/report_document.h"
#include "imagelint/result.h"
#include "imagelint/rules.h"

namespace imagelint::config {

// One suppression: from the config file's ignore list, a --ignore flag, or a
// Dockerfile comment `# imagelint ignore=IL003,IL010 reason text` (one
// Suppression per rule; origin "inline", line = the comment's line,
// dockerfile_line = the instruction it precedes, 0 for `global ignore=`).
struct Suppression {
  std::string rule;     // rule id ("IL003") or name; "*" is not allowed
  std::string reason;   // required: why this is acceptable
  std::string origin;   // "config" | "flag" | "inline"
  std::string file;     // config file or Dockerfile that holds it ("" for flags)
  int line = 0;         // its line in `file` (the comment's line for inline ones)
  // Optional narrowing (empty = any). Globs use '*' (any run of characters).
  std::string image;    // image ref glob
  std::string pool;     // pool name glob
  std::string path;     // glob over evidence paths inside the image
  // Inline suppressions apply to the instruction that follows the comment:
  // only findings whose evidence names this Dockerfile line. 0 = any line.
  int dockerfile_line = 0;
  std::string expires;  // "YYYY-MM-DD"; after that day the suppression no longer applies
  // Set when the entry cannot apply (a Dockerfile comment naming no rule of
  // the rule set): it is listed in ignores.invalid with this text, not applied.
  std::string problem;
};

// Dockerfile pragmas (dockerfile::InlineSuppression: rules, reason, file,
// line, instruction_line) as suppressions, one per rule. A template so that
// this header does not depend on the Dockerfile module.
template <typename InlinePragma>
std::vector<Suppression> FromInlinePragmas(const std::vector<InlinePragma>& pragmas) {
  std::vector<Suppression> out;
  for (const auto& pragma : pragmas) {
    for (const auto& rule : pragma.rules) {
      Suppression s;
      s.rule = rule;
      s.reason = pragma.reason;
      s.origin = "inline";
      s.file = pragma.file;
      s.line = pragma.line;
      s.dockerfile_line = pragma.instruction_line;
      out.push_back(std::move(s));
    }
  }
  return out;
}

// What .imagelint.yaml can say; every field is also a command-line flag.
struct Config {
  std::string file;  // the file it came from ("" = none / flags)
  std::optional<std::string> fleet;                 // fleet: FILE       --fleet
  std::vector<std::string> rule_files;              // rules: [FILE]     --rules
  std::vector<rules::RuleOverride> overrides;       // severity: {ID: level}, disable: [ID]
  std::vector<Suppression> ignores;                 // ignore: [{rule, reason, expires...}]
  std::optional<std::string> fail_on;               // fail-on: error|warning|note|none
  std::optional<bool> fail_on_undecided;            // fail-on-undecided: true  --fail-on-undecided
  std::optional<std::string> min_severity;          // min-severity: error|warning|note
  std::vector<std::string> formats;                 // format: [text, sarif=out.sarif]
  std::optional<std::string> output;                // output: FILE
  std::optional<std::string> platform;              // platform: linux/amd64
  std::optional<std::string> dockerfile;            // dockerfile: FILE
  std::optional<std::string> docs_url;              // docs-url: base URL of the docs pages
  std::optional<bool> inline_ignores;               // inline-ignores: false ignores Dockerfile pragmas
};

// Parses a config file's text. Relative paths (fleet, rules, dockerfile,
// output and format files) are resolved against the file's directory. Errors
// name file:line:column; unknown keys are errors (a typo must not be ignored).
Result<Config> ParseConfig(std::string_view text, const std::string& file);
Result<Config> LoadConfig(const std::string& path);

// The config file to use: `explicit_path` when given (it must exist), else
// <working_directory>/.imagelint.yaml, else <user_config_dir>/config.yaml
// (`.imagelint.yaml` in that directory is accepted too; the command line
// passes $XDG_CONFIG_HOME/imagelint or ~/.config/imagelint, "" = none).
// nullopt = none found.
Result<std::optional<std::string>> FindConfigFile(const std::string& explicit_path = "",
                                                  const std::string& working_directory = ".",
                                                  const std::string& user_config_dir = "");

// `overlay` (command-line flags) over `base` (the file): scalars in overlay
// win; lists (rule files, overrides, ignores) are appended after the file's;
// formats given on the command line replace the file's.
Config Merge(const Config& base, const Config& overlay);

// Flag parsers ("IL003=warning", "IL003=reason text" / "IL003:2026-01-31=reason").
Result<rules::RuleOverride> ParseSeverityFlag(std::string_view spec);
Result<Suppression> ParseIgnoreFlag(std::string_view spec);

// The values of the flags that mirror .imagelint.yaml, as given on a command
// line (empty = not given), and where to look for the file. The command line
// declares the flags (src/cli/options.h); this is plain data.
struct CommandLineOptions {
  std::string config_file;  // --config
  bool no_config = false;   // --no-config
  std::string fleet;        // --fleet
  std::vector<std::string> rule_files;  // --rules
  std::vector<std::string> severity;    // --severity RULE=LEVEL
  std::vector<std::string> disable;     // --disable RULE
  std::vector<std::string> ignore;      // --ignore RULE[:DATE]=REASON
  std::string fail_on;                  // --fail-on
  bool fail_on_undecided = false;       // --fail-on-undecided
  std::string min_severity;             // --min-severity
  std::vector<std::string> formats;     // --format FORMAT[=FILE]
  std::string output;                   // --output FILE
  std::string docs_url;                 // --docs-url
  std::string dockerfile;               // --dockerfile (when the command has one)
  std::string platform;                 // --platform (when the command has one)
  bool no_inline_ignores = false;       // --no-inline-ignores
  std::string working_directory = ".";  // where ./.imagelint.yaml is looked for
  std::string user_config_dir;          // the user's config directory (FindConfigFile); "" = none
};

// Finds and loads the config file (unless --no-config), parses every flag
// and merges them over it (Merge). Errors name the file:line:column or the flag.
Result<Config> ResolveConfig(const CommandLineOptions& options);

// Whether `text` is a valid calendar date "YYYY-MM-DD".
bool IsDate(std::string_view text);
// '*' glob over a whole string.
bool GlobMatch(std::string_view pattern, std::string_view text);

// The rule of the rule set `rule` names (by id or name), or the closest ones
// by edit distance for a "did you mean" (empty when nothing is close).
std::vector<std::string> ClosestRules(std::string_view rule, const std::vector<rules::RuleInfo>& known);

// Every ignore entry of the config file and the flags must name a rule of the
// rule set, as --severity must: a typo would keep the finding and leave the
// entry "unused". Errors name the flag or file:line and suggest the closest
// rule ("--ignore: no rule named 'IL31' (did you mean IL013?)").
Status CheckIgnoredRules(const std::vector<Suppression>& ignores, const std::vector<rules::RuleInfo>& known);

// Moves matching findings of `report` into images[].suppressed[] (each with
// `suppressed_by`), recomputes verdicts and image status from what remains,
// and records `ignores.expired` (expired entries, which are not applied),
// `ignores.unused` (entries that matched nothing) and `ignores.invalid`
// (entries without a reason or a single rule, or with a `problem`: not applied). `today` is
// "YYYY-MM-DD".
void ApplySuppressions(analysis::Report& report, const std::vector<Suppression>& suppressions,
                       const std::string& today);

}  // namespace imagelint::config
