// After the rules ran: what a report shows (--min-severity, the summary) and
// whether it fails (--fail-on). One severity reading, one gate, for every
// reporter and for the exit code.
#include <set>

#include "imagelint/analysis.h"

namespace imagelint::analysis {

using rules::Severity;

Result<std::optional<Severity>> ParseThreshold(std::string_view text) {
  if (text == "none") return std::optional<Severity>();
  auto severity = rules::ParseSeverity(text);
  if (!severity) return MakeError("", "'" + std::string(text) + "' is not one of error, warning, note, none");
  return std::optional<Severity>(*severity);
}

bool FailsGate(const Finding& finding, const GateOptions& gate) {
  if (finding.unknown) return gate.fail_on_undecided && finding.severity >= Severity::kWarning;
  return gate.fail_on && finding.severity >= *gate.fail_on;
}

bool HasFindingsAtOrAbove(const Report& report, std::optional<Severity> threshold) {
  if (!threshold) return false;
  for (const ImageReport& image : report.images)
    for (const Finding& finding : image.findings)
      if (!finding.unknown && finding.severity >= *threshold) return true;
  // Findings hidden by --min-severity still decide the exit code.
  if (!report.summary) return false;
  SeverityCounts hidden = report.summary->hidden;
  for (Severity severity : {Severity::kNote, Severity::kWarning, Severity::kError})
    if (severity >= *threshold && hidden.Of(severity) > 0) return true;
  return false;
}

bool GateFailed(const Report& report) { return report.summary && report.summary->gate && report.summary->gate->failed; }

Report Finalize(Report report, const FinalizeOptions& options, const GateOptions& gate) {
  SeverityCounts hidden;
  bool failed = GateFailed(report);
  if (report.summary) hidden = report.summary->hidden;  // a report finalised before keeps what it hid
  SeverityCounts shown_counts;
  VerdictCounts verdict_counts;
  int64_t suppressed = 0;
  std::set<std::string> pools;
  for (ImageReport& image : report.images) {
    // The gate first, over every finding that was not suppressed, shown or not.
    bool image_fails = image.gate == "fail";
    for (const Finding& finding : image.findings) image_fails = image_fails || FailsGate(finding, gate);
    image.gate = image_fails ? "fail" : "pass";
    failed = failed || image_fails;
    // The pools of the findings that fail the gate, gathered once (per
    // verdict, every finding was looked at: quadratic in a big fleet).
    std::set<std::string> failing_pools;
    for (const Finding& finding : image.findings)
      if (FailsGate(finding, gate)) failing_pools.insert(finding.pools.begin(), finding.pools.end());
    for (Verdict& verdict : image.verdicts)
      verdict.gate = verdict.gate == "fail" || failing_pools.count(verdict.pool) > 0 ? "fail" : "pass";
    std::vector<Finding> kept;
    for (Finding& finding : image.findings) {
      SeverityCounts& counts = finding.severity < options.min_severity ? hidden : shown_counts;
      (finding.unknown ? counts.undecided : counts.Of(finding.severity)) += 1;
      if (finding.severity >= options.min_severity) kept.push_back(std::move(finding));
    }
    image.findings = std::move(kept);
    suppressed += image.suppressed ? static_cast<int64_t>(image.suppressed->size()) : 0;
    for (const Verdict& verdict : image.verdicts) {
      switch (verdict.status) {
        case Outcome::kPass: ++verdict_counts.pass; break;
        case Outcome::kWarn: ++verdict_counts.warn; break;
        case Outcome::kFail: ++verdict_counts.fail; break;
        case Outcome::kUndecided: ++verdict_counts.undecided; break;
        case Outcome::kError: break;
      }
      pools.insert(verdict.pool);
    }
  }
  Summary summary;
  if (report.summary) {  // what later steps added (--baseline, unreadable images) stays
    summary.baseline = report.summary->baseline;
    summary.unreadable = report.summary->unreadable;
  }
  summary.images = static_cast<int64_t>(report.images.size());
  summary.pools = static_cast<int64_t>(report.fleet ? report.fleet->pools.size() : pools.size());
  summary.verdicts = verdict_counts;
  summary.findings = shown_counts;
  summary.hidden = hidden;
  summary.min_severity = options.min_severity;
  summary.suppressed = suppressed;
  auto count = [](const std::optional<std::vector<IgnoreEntry>>& list) {
    return static_cast<int64_t>(list ? list->size() : 0);
  };
  const Ignores ignores = report.ignores.value_or(Ignores{});
  summary.expired_ignores = count(ignores.expired);
  summary.unused_ignores = count(ignores.unused);
  summary.invalid_ignores = count(ignores.invalid);
  summary.gate = GateSummary{gate.fail_on ? std::string(rules::SeverityName(*gate.fail_on)) : std::string("none"),
                             gate.fail_on_undecided, failed};
  report.summary = std::move(summary);
  return report;
}

}  // namespace imagelint::analysis
