// Flags mirroring .imagelint.yaml and the report step of a scan.
#include "cli_options.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <ostream>

namespace imagelint::config {

namespace {

bool Has(CLI::App& app, const std::string& name) { return app.get_option_no_throw(name) != nullptr; }

}  // namespace

void AddConfigFlags(CLI::App& app, CommandLineOptions& options) {
  if (!Has(app, "--config"))
    app.add_option("--config", options.config_file,
                   "config file (default: ./.imagelint.yaml, then $XDG_CONFIG_HOME/imagelint/config.yaml), "
                   "e.g. --config ci/imagelint.yaml");
  if (!Has(app, "--no-config"))
    app.add_flag("--no-config", options.no_config, "ignore every config file; use only flags and defaults");
  if (!Has(app, "--rules"))
    app.add_option("--rules", options.rule_files,
                   "extra rule file, after the built-in rules (repeatable), e.g. --rules team-rules.yaml");
  if (!Has(app, "--severity"))
    app.add_option("--severity", options.severity,
                   "override a rule's severity (repeatable): RULE=error|warning|note|off, e.g. --severity IL010=error");
  if (!Has(app, "--disable"))
    app.add_option("--disable", options.disable, "do not run this rule (repeatable), e.g. --disable IL020");
}

void AddReportFlags(CLI::App& app, CommandLineOptions& options) {
  if (!Has(app, "--fail-on"))
    app.add_option("--fail-on", options.fail_on,
                   "exit 1 when a finding is at or above this severity: error (default), warning, note, none; "
                   "independent of --min-severity, e.g. --fail-on warning")
        ->check(CLI::IsMember({"error", "warning", "note", "none"}));
  if (!Has(app, "--min-severity"))
    app.add_option("--min-severity", options.min_severity,
                   "show findings at or above this severity: note (default), warning, error; hidden ones still "
                   "count for --fail-on, e.g. --min-severity warning")
        ->check(CLI::IsMember({"error", "warning", "note"}));
  std::string extra;
  for (const auto& name : options.extra_formats) extra += ", " + name;
  if (!Has(app, "--format"))
    app.add_option("--format", options.formats,
                   "report format, optionally to a file (repeatable): text (default), json, sarif, junit, github, "
                   "markdown" + extra + ", e.g. --format sarif=imagelint.sarif --format text");
  if (!Has(app, "--output") && !Has(app, "-o"))
    app.add_option("-o,--output", options.output, "write the (single) report format to FILE, e.g. --output report.json");
  if (!Has(app, "--ignore"))
    app.add_option("--ignore", options.ignore,
                   "suppress a rule with a reason, optionally until a date (repeatable): RULE[:YYYY-MM-DD]=REASON, "
                   "e.g. --ignore 'IL010:2026-12-31=JIT accepted until the rebuild'");
  if (!Has(app, "--docs-url"))
    app.add_option("--docs-url", options.docs_url,
                   std::string("base URL of rule docs in SARIF/Markdown links (default ") + report::kDefaultDocsBaseUri +
                       ")");
  if (!Has(app, "--no-inline-ignores"))
    app.add_flag("--no-inline-ignores", options.no_inline_ignores,
                 "ignore '# imagelint ignore=RULE reason' comments in Dockerfiles");
}

Result<Settings> ResolveConfig(const CommandLineOptions& options) {
  Config file_config;
  if (!options.no_config) {
    auto found = FindConfigFile(options.config_file, options.working_directory);
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
  if (!options.fail_on.empty()) flags.fail_on = options.fail_on;
  if (!options.min_severity.empty()) flags.min_severity = options.min_severity;
  flags.formats = options.formats;
  if (!options.output.empty()) flags.output = options.output;
  if (!options.docs_url.empty()) flags.docs_url = options.docs_url;
  if (!options.dockerfile.empty()) flags.dockerfile = options.dockerfile;
  if (!options.platform.empty()) flags.platform = options.platform;
  if (options.no_inline_ignores) flags.inline_ignores = false;

  Settings settings;
  settings.config = Merge(file_config, flags);
  const Config& config = settings.config;
  std::string where = config.file.empty() ? "" : " (" + config.file + ")";
  if (config.fail_on) {
    auto threshold = report::ParseThreshold(*config.fail_on);
    if (!threshold.ok()) return MakeError("--fail-on" + where, threshold.error().message);
    settings.fail_on = *threshold;
  }
  if (config.min_severity) {
    auto severity = report::ParseSeverityName(*config.min_severity);
    if (!severity) return MakeError("--min-severity" + where, "'" + *config.min_severity + "' is not one of error, warning, note");
    settings.min_severity = *severity;
  }
  for (const auto& spec : config.formats) {
    std::string name = spec.substr(0, spec.find('='));
    if (std::find(options.extra_formats.begin(), options.extra_formats.end(), name) != options.extra_formats.end()) {
      std::string path = spec.size() > name.size() ? spec.substr(name.size() + 1) : "";
      if (spec.size() > name.size() && path.empty())
        return MakeError("--format", "'" + spec + "': a file name must follow '=' (or use '-' for stdout)");
      settings.extra_formats.emplace_back(name, path == "-" ? "" : path);
      continue;
    }
    auto request = report::ParseFormatRequest(spec);
    if (!request.ok()) return request.error();
    settings.formats.push_back(*request);
  }
  if (settings.formats.empty() && settings.extra_formats.empty())
    settings.formats.push_back({report::Format::kText, ""});
  size_t to_stdout = 0;
  for (const auto& request : settings.formats) to_stdout += request.path.empty() || request.path == "-" ? 1 : 0;
  for (const auto& [name, path] : settings.extra_formats) to_stdout += path.empty() ? 1 : 0;
  if (config.output) {
    if (settings.formats.size() + settings.extra_formats.size() != 1 || to_stdout != 1)
      return MakeError("--output", "works with a single --format; give each format its own file instead (--format sarif=FILE)");
    if (!settings.formats.empty()) settings.formats[0].path = *config.output;
    if (!settings.extra_formats.empty()) settings.extra_formats[0].second = *config.output;
  } else if (to_stdout > 1) {
    return MakeError("--format", "only one format can go to standard output; give the others a file (FORMAT=FILE)");
  }
  settings.render.color = report::ColorWanted(STDOUT_FILENO);
  if (config.docs_url) {
    settings.render.docs_base_uri = *config.docs_url;
    if (!settings.render.docs_base_uri.empty() && settings.render.docs_base_uri.back() != '/')
      settings.render.docs_base_uri += '/';
  }
  if (config.dockerfile) settings.render.dockerfile = *config.dockerfile;
  settings.inline_ignores = config.inline_ignores.value_or(true);
  return settings;
}

Result<int> FinishReport(const nlohmann::json& analysis_report, const Settings& settings,
                         const std::vector<Suppression>& inline_suppressions, std::ostream& out,
                         const std::vector<report::RuleMeta>& rules,
                         const std::map<std::string, ExtraRenderer>& extra) {
  std::vector<Suppression> suppressions = settings.config.ignores;
  if (settings.inline_ignores)
    suppressions.insert(suppressions.end(), inline_suppressions.begin(), inline_suppressions.end());
  nlohmann::json report = ApplySuppressions(analysis_report, suppressions, Today());
  report = report::Finalize(report, {.min_severity = settings.min_severity});
  std::vector<report::RuleMeta> table = rules.empty() ? report::RulesFromReport(report) : rules;
  IMAGELINT_TRY(report::WriteReports(report, table, settings.formats, settings.render, out));
  for (const auto& [name, path] : settings.extra_formats) {
    auto renderer = extra.find(name);
    if (renderer == extra.end()) return MakeError("--format", "no renderer for format '" + name + "'");
    auto text = renderer->second(report);
    if (!text.ok()) return text.error();
    if (path.empty()) {
      out << *text;
      out.flush();
      continue;
    }
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    file << *text;
    file.close();
    if (!file) return MakeError(path, "could not write the " + name + " report");
  }
  return report::ExitCodeFor(report, settings.fail_on);
}

}  // namespace imagelint::config
