// Reporters: one report object (`imagelint.report/v1`, DESIGN.md "Report"),
// nine renderings (text, json, sarif, junit, github, markdown, gitlab, html,
// k8s), and the output of the other commands (rule lists, cache usage, fleet
// imports).
//
//   auto result = imagelint::Scan(request, context);       // pipeline.h: finalised report + exit code
//   auto plan = report::PlanOutputs(config);                // --format/--output -> requests
//   auto rules = report::RulesFromReport(result->report);   // or FromRuleInfos(...)
//   IMAGELINT_TRY(report::WriteReports(result->report, rules, plan->requests, options, std::cout));
//   return result->exit_code;                               // 0 or 1
//
// Every reporter reads the same finalised report (analysis::Finalize): the
// findings that are shown (at or above --min-severity), the suppressed ones
// (listed, never dropped silently) and a `summary` object. The exit code is
// not decided here (analysis::HasFindingsAtOrAbove, through imagelint::Scan).
#pragma once

#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "imagelint/cache.h"
#include "imagelint/config.h"
#include "imagelint/fleet_import.h"
#include "imagelint/report_document.h"
#include "imagelint/result.h"
#include "imagelint/rules.h"

namespace imagelint::report {

using rules::Severity;

// kK8s: placement advice (a nodeAffinity over the fleet's pools,
// docs/fleet-import.md); rendered by RenderOptions::placement.
// kGitlab: GitLab's Code Quality report; kHtml: one self-contained page.
enum class Format { kText, kJson, kSarif, kJunit, kGithub, kMarkdown, kK8s, kGitlab, kHtml };

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

// From the report's own rule table (`rules`, written by analysis::Analyze).
std::vector<RuleMeta> RulesFromReport(const analysis::Report& report);
// From the rule engine's list (RuleSet::List()).
RuleMeta FromRuleInfo(const rules::RuleInfo& info);
std::vector<RuleMeta> FromRuleInfos(const std::vector<rules::RuleInfo>& infos);

struct RenderOptions {
  bool color = false;  // ANSI colour in text output (see ColorWanted)
  // Prefix of links to the rule pages (SARIF helpUri, Markdown, HTML, text):
  // docs_base_uri + rule.docs. Empty (the default, --docs-url unset) = no
  // links: imagelint has no public home, and the rule help travels inside
  // the reports (SARIF help.text/help.markdown, `imagelint explain`).
  std::string docs_base_uri;
  // Where docs/rules/<ID>.md live, for SARIF help.markdown; empty = no pages
  // (the command line passes imagelint::Context::docs_dir).
  std::string docs_dir;
  // The Dockerfile given with --dockerfile, as the user spelled it (relative
  // to the repository root for GitHub); used for locations when a finding's
  // evidence carries a dockerfile_line and the image entry names none.
  std::string dockerfile;
  size_t markdown_top_findings = 10;
  size_t width = 80;  // text output width (the terminal's, on a terminal)
  // --format k8s needs the fleet, which the report does not carry: a command
  // with a fleet sets this (RenderPlacementAdvice bound to it).
  std::function<Result<std::string>(const analysis::Report& report)> placement;
};

// What --format/--output (flags over the config file) ask for: the requests
// (default: text to standard output) and the render options the config sets
// (docs-url, dockerfile). Errors: an unknown format, two formats on standard
// output, --output with several formats.
struct OutputPlan {
  std::vector<FormatRequest> requests;
  RenderOptions render;
  // What was asked that works but is likely not what was meant (`-o json`,
  // kubectl's spelling, names a file "json"), one sentence each.
  std::vector<std::string> warnings;
};
Result<OutputPlan> PlanOutputs(const config::Config& config);

// The text report for people (RenderOptions::width columns): per image, the
// verdict of each pool with the predicted error, then the findings grouped by
// severity (errors, undecided, warnings, notes), one block per root cause
// with its pools, message, prediction, evidence (long requirement lists
// shortened), fix and help; then suppressed findings, expired/rejected/unused
// ignores and the summary line.
std::string RenderText(const analysis::Report& report, const RenderOptions& options = {});
std::string RenderJson(const analysis::Report& report);
std::string RenderSarif(const analysis::Report& report, const std::vector<RuleMeta>& rules,
                        const RenderOptions& options = {});
// A suite per image, a case per pool: a pool that fails the gate
// (summary.gate: --fail-on, --fail-on-undecided) is a <failure>, an
// undecided one that does not is <skipped>.
std::string RenderJunit(const analysis::Report& report);
// GitHub workflow commands, one per rule and location (pools and images
// listed), file-located ones first, at most 10 (GitHub shows 10 per step)
// plus one line saying how many more there are.
std::string RenderGithub(const analysis::Report& report, const RenderOptions& options = {});
inline constexpr size_t kGithubMaxAnnotations = 10;
// GitLab Code Quality (a JSON array of issues: description, check_name,
// fingerprint, severity, location.path/lines.begin).
std::string RenderGitlab(const analysis::Report& report, const RenderOptions& options = {});
// One self-contained HTML page (inline CSS, no script, no external
// resource): the images × pools matrix, the findings by root cause with
// evidence, fix and rule help (from options.docs_dir), and the fleet.
std::string RenderHtml(const analysis::Report& report, const std::vector<RuleMeta>& rules,
                       const RenderOptions& options = {});
std::string RenderMarkdown(const analysis::Report& report, const std::vector<RuleMeta>& rules,
                           const RenderOptions& options = {});
std::string Render(const analysis::Report& report, Format format, const std::vector<RuleMeta>& rules,
                   const RenderOptions& options = {});

// Renders every request: to its file, or to `out` when it has no path. At most
// one request may write to `out`. `options.color` applies only to text written
// to `out` (files never get colour). Errors name the file that could not be written.
Status WriteReports(const analysis::Report& report, const std::vector<RuleMeta>& rules,
                    const std::vector<FormatRequest>& requests, const RenderOptions& options, std::ostream& out);

// `imagelint rules`: the rule list as text (id, severity or "off", scope,
// one-line summary; 80 columns), json or markdown (a table for docs/).
Result<std::string> RenderRuleList(const std::vector<rules::RuleInfo>& rules, Format format);

// `imagelint cache`: what a cache directory holds, and what a prune removed
// (text or json).
Result<std::string> RenderCacheUsage(const std::string& directory, const CacheUsage& usage, Format format);
Result<std::string> RenderCachePrune(const std::string& directory, const PruneResult& pruned, Format format);

// `imagelint fleet import`: what was imported, one line ("imported 3 pools
// from 12 nodes of nodes.json; 1 without GPU information skipped").
std::string FleetImportSummary(const fleet_import::ImportResult& imported);

// A stable identity for a finding across runs: the rule, the image's name
// without tag or digest (or the Dockerfile's path), the pools and the
// finding's logical location (evidence paths, the variables it names, the
// facts an undecided rule misses) -- never tags, digests, layer or line
// numbers, or message wording: 64 hex.
std::string FindingFingerprint(const analysis::ImageReport& image, const analysis::Finding& finding);

// Placement advice (`--format k8s`): for every image of `report`, a YAML
// document with an `affinity.nodeAffinity` block over node labels that admits
// exactly the pools whose verdict is `pass`, and comments naming each
// excluded pool with its status, predicted error and rules. Pools without
// selector labels (hand-written fleets) get labels derived from their gpu and
// driver (GPU Feature Discovery's), marked as derived.
Result<std::string> RenderPlacementAdvice(const analysis::Report& report, const imagelint::Fleet& fleet);

}  // namespace imagelint::report
