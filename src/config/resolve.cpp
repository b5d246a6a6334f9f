// The flags that mirror .imagelint.yaml, merged over the config file.
#include "imagelint/analysis.h"
#include "imagelint/config.h"

namespace imagelint::config {

Result<Config> ResolveConfig(const CommandLineOptions& options) {
  Config file_config;
  if (!options.no_config) {
    auto found = FindConfigFile(options.config_file, options.working_directory, options.user_config_dir);
    if (!found.ok()) return found.error();
    if (found->has_value()) {
      auto loaded = LoadConfig(**found);
      if (!loaded.ok()) return loaded.error();
      file_config = std::move(*loaded);
    }
  } else if (!options.config_file.empty()) {
    return MakeError("--config", "cannot be combined with --no-config");
  }

  Config flags;
  if (!options.fleet.empty()) flags.fleet = options.fleet;
  flags.rule_files = options.rule_files;
  for (const auto& spec : options.severity) {
    auto parsed = ParseSeverityFlag(spec);
    if (!parsed.ok()) return parsed.error();
    flags.overrides.push_back(*parsed);
  }
  for (const auto& rule : options.disable) {
    rules::RuleOverride entry;
    entry.rule = rule;
    entry.disabled = true;
    flags.overrides.push_back(entry);
  }
  for (const auto& spec : options.ignore) {
    auto parsed = ParseIgnoreFlag(spec);
    if (!parsed.ok()) return parsed.error();
    flags.ignores.push_back(*parsed);
  }
  if (!options.fail_on.empty()) {
    auto threshold = analysis::ParseThreshold(options.fail_on);
    if (!threshold.ok()) return MakeError("--fail-on", threshold.error().message);
    flags.fail_on = options.fail_on;
  }
  if (options.fail_on_undecided) flags.fail_on_undecided = true;
  if (!options.min_severity.empty()) {
    if (!rules::ParseSeverity(options.min_severity))
      return MakeError("--min-severity", "'" + options.min_severity + "' is not one of error, warning, note");
    flags.min_severity = options.min_severity;
  }
  flags.formats = options.formats;
  if (!options.output.empty()) flags.output = options.output;
  if (!options.docs_url.empty()) flags.docs_url = options.docs_url;
  if (!options.dockerfile.empty()) flags.dockerfile = options.dockerfile;
  if (!options.platform.empty()) flags.platform = options.platform;
  if (options.no_inline_ignores) flags.inline_ignores = false;
  return Merge(file_config, flags);
}

}  // namespace imagelint::config
