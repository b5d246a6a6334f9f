// Reporters: one report object (`imagelint.report/v1`, DESIGN.md "Report"),
// six renderings (text, json, sarif, junit, github, markdown).
//
//   auto shown = report::Finalize(analysis_report, {.min_severity = ...});
//   auto rules = report::RulesFromReport(shown);          // or FromRuleInfo(...)
//   IMAGELINT_TRY(report::WriteReports(shown, rules, requests, options, std::cout));
//   return report::ExitCodeFor(shown, fail_on);          // 0 or 1
//
// Every reporter reads the same finalised report: the findings that are shown
// (at or above --min-severity), the suppressed ones (listed, never dropped
// silently) and a `summary` object. The gate (ExitCodeFor) looks at every
// finding that was not suppressed, whatever --min-severity hides.
#pragma once

#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "imagelint/result.h"
#include "imagelint/rules.h"

namespace imagelint::report {

using rules::Severity;

// kK8s: placement advice (a nodeAffinity over the fleet's pools,
// docs/fleet-import.md); rendered by RenderOptions::placement.
enum class Format { kText, kJson, kSarif, kJunit, kGithub, kMarkdown, kK8s };

std::string_view FormatName(Format format);  // "text", "json", ...
Result<Format> ParseFormat(std::string_view name);
std::vector<std::string> FormatNames();

// One `--format` request: `sarif=out.sarif` writes SARIF to out.sarif;
// `text` (no path, or "-") writes to the stream given to WriteReports.
struct FormatRequest {
  Format format = Format::kText;
  std::string path;  // empty or "-" = standard output
};
Result<FormatRequest> ParseFormatRequest(std::string_view spec);

// `--fail-on` / `--min-severity` values: "error" | "warning" | "note" | "none".
// nullopt means "none" (never fail / show nothing is not offered: --min-severity
// accepts only error|warning|note).
Result<std::optional<Severity>> ParseThreshold(std::string_view text);
std::optional<Severity> ParseSeverityName(std::string_view text);
std::string_view SeverityLabel(Severity severity);  // "error" | "warning" | "note"

// What SARIF's rule table and `imagelint rules` need to know about a rule.
struct RuleMeta {
  std::string id;        // "IL003"
  std::string name;      // "forward-compat-unsupported-gpu"
  std::string title;     // one line
  std::string summary;   // a few sentences
  Severity severity = Severity::kError;  // effective default severity
  std::string docs;      // "docs/rules/IL003.md" (relative to the checkout)
  bool enabled = true;
};

// From the report's own rule table (`rules[]`, written by analysis::Analyze).
std::vector<RuleMeta> RulesFromReport(const nlohmann::json& report);
// From the rule engine's list (RuleSet::List()).
RuleMeta FromRuleInfo(const rules::RuleInfo& info);
std::vector<RuleMeta> FromRuleInfos(const std::vector<rules::RuleInfo>& infos);

inline constexpr const char* kDefaultDocsBaseUri = "https://github.com/imagelint/imagelint/blob/main/";

struct RenderOptions {
  bool color = false;  // ANSI colour in text output (see ColorWanted)
  // Prefix of helpUri / links: docs_base_uri + rule.docs.
  std::string docs_base_uri = kDefaultDocsBaseUri;
  // Where docs/rules/<ID>.md live, for SARIF help.markdown; empty = the
  // built-in docs directory (DocsDir()).
  std::string docs_dir;
  // The Dockerfile given with --dockerfile, as the user spelled it (relative
  // to the repository root for GitHub); used for locations when a finding's
  // evidence carries a dockerfile_line and the image entry names none.
  std::string dockerfile;
  size_t markdown_top_findings = 10;
  size_t width = 80;  // text output width
  // --format k8s needs the fleet, which the report does not carry: a command
  // with a fleet sets this (fleet_import::RenderPlacementAdvice bound to it).
  std::function<Result<std::string>(const nlohmann::json& report)> placement;
  // Replaces RenderText for the text format (a command with its own layout);
  // it should end with RenderTextSummary so suppressions are never silent.
  std::function<std::string(const nlohmann::json& report, const RenderOptions& options)> text_renderer;
};

// Applies --min-severity: findings below it move out of `findings` (counted in
// summary.hidden); adds `summary` {images, pools, verdicts{pass,warn,fail},
// findings{error,warning,note}, hidden, suppressed, expired_ignores,
// unused_ignores}. Idempotent; the input report is not modified.
struct FinalizeOptions {
  Severity min_severity = Severity::kNote;
};
nlohmann::json Finalize(const nlohmann::json& report, const FinalizeOptions& options = {});

std::string RenderText(const nlohmann::json& report, const RenderOptions& options = {});
// The tail of RenderText: suppressed findings, expired/rejected/unused
// ignores and the summary line.
std::string RenderTextSummary(const nlohmann::json& report, const RenderOptions& options = {});
std::string RenderJson(const nlohmann::json& report);
std::string RenderSarif(const nlohmann::json& report, const std::vector<RuleMeta>& rules,
                        const RenderOptions& options = {});
std::string RenderJunit(const nlohmann::json& report);
std::string RenderGithub(const nlohmann::json& report, const RenderOptions& options = {});
std::string RenderMarkdown(const nlohmann::json& report, const std::vector<RuleMeta>& rules,
                           const RenderOptions& options = {});
std::string Render(const nlohmann::json& report, Format format, const std::vector<RuleMeta>& rules,
                   const RenderOptions& options = {});

// Renders every request: to its file, or to `out` when it has no path. At most
// one request may write to `out`. `options.color` applies only to text written
// to `out` (files never get colour). Errors name the file that could not be written.
Status WriteReports(const nlohmann::json& report, const std::vector<RuleMeta>& rules,
                    const std::vector<FormatRequest>& requests, const RenderOptions& options, std::ostream& out);

// 1 when an unsuppressed finding (shown or hidden by --min-severity) is at or
// above `fail_on`; 0 otherwise, and always 0 for nullopt (--fail-on none).
int ExitCodeFor(const nlohmann::json& report, std::optional<Severity> fail_on);

// Colour for a stream: only when it is a terminal, NO_COLOR is unset or empty
// and TERM is not "dumb".
bool ColorWanted(int fd);

// Directory with docs/rules/*.md: $IMAGELINT_DOCS_DIR, else the checkout's docs/.
std::string DocsDir();

// A stable identity for a finding across runs (rule, image ref, pools,
// evidence paths; never digests, line numbers or message wording): 64 hex.
std::string FindingFingerprint(const nlohmann::json& image, const nlohmann::json& finding);

}  // namespace imagelint::report
