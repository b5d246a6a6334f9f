// After the rules ran: what a report shows (--min-severity, the summary) and
// whether it fails (--fail-on). One severity reading, one gate, for every
// reporter and for the exit code.
#include <map>
#include <set>

#include "common/json.h"
#include "imagelint/analysis.h"

namespace imagelint::analysis {

using nlohmann::json;
using rules::Severity;

namespace {

const json& Arr(const json& j, const char* key) { return ArrayField(j, key); }
int64_t Count(const json& counts, Severity severity) {
  if (!counts.is_object()) return 0;
  auto it = counts.find(std::string(rules::SeverityName(severity)));
  return it != counts.end() && it->is_number_integer() ? it->get<int64_t>() : 0;
}

}  // namespace

Severity FindingSeverity(const json& finding) {
  return rules::ParseSeverity(StringField(finding, "severity")).value_or(Severity::kError);
}

bool IsUndecided(const json& finding) {
  if (!finding.is_object()) return false;
  auto it = finding.find("unknown");
  return it != finding.end() && it->is_boolean() && it->get<bool>();
}

Result<std::optional<Severity>> ParseThreshold(std::string_view text) {
  if (text == "none") return std::optional<Severity>();
  auto severity = rules::ParseSeverity(text);
  if (!severity) return MakeError("", "'" + std::string(text) + "' is not one of error, warning, note, none");
  return std::optional<Severity>(*severity);
}

namespace {

// Whether one finding (shown or about to be hidden) fails the gate.
bool FailsGate(const json& finding, const GateOptions& gate) {
  if (IsUndecided(finding)) return gate.fail_on_undecided && FindingSeverity(finding) >= Severity::kWarning;
  return gate.fail_on && FindingSeverity(finding) >= *gate.fail_on;
}

}  // namespace

bool HasFindingsAtOrAbove(const json& report, std::optional<Severity> threshold) {
  if (!threshold) return false;
  for (const auto& image : Arr(report, "images")) {
    for (const auto& finding : Arr(image, "findings")) {
      if (!IsUndecided(finding) && FindingSeverity(finding) >= *threshold) return true;
    }
  }
  // Findings hidden by --min-severity still decide the exit code.
  const json& hidden = report.is_object() && report.contains("summary") && report["summary"].is_object()
                           ? report["summary"].value("hidden", json::object())
                           : json::object();
  for (Severity severity : {Severity::kNote, Severity::kWarning, Severity::kError}) {
    if (severity >= *threshold && Count(hidden, severity) > 0) return true;
  }
  return false;
}

bool GateFailed(const json& report) {
  if (!report.is_object() || !report.contains("summary") || !report["summary"].is_object()) return false;
  const json& gate = report["summary"].value("gate", json::object());
  return gate.is_object() && gate.value("failed", false);
}

json Finalize(const json& input, const FinalizeOptions& options, const GateOptions& gate) {
  json report = input.is_object() ? input : json::object();
  json hidden = {{"error", 0}, {"warning", 0}, {"note", 0}, {"undecided", 0}};
  bool was_failed = GateFailed(report);
  if (report.contains("summary") && report["summary"].is_object()) {
    const json previous = report["summary"].value("hidden", json::object());
    for (Severity severity : {Severity::kNote, Severity::kWarning, Severity::kError})
      hidden[std::string(rules::SeverityName(severity))] = Count(previous, severity);
    if (previous.is_object() && previous.contains("undecided") && previous["undecided"].is_number_integer())
      hidden["undecided"] = previous["undecided"];
  }
  json shown_counts = {{"error", 0}, {"warning", 0}, {"note", 0}, {"undecided", 0}};
  json verdict_counts = {{"pass", 0}, {"warn", 0}, {"fail", 0}, {"undecided", 0}};
  size_t suppressed = 0;
  bool failed = was_failed;
  std::map<std::string, bool> pools;
  if (!report.contains("images") || !report["images"].is_array()) report["images"] = json::array();
  for (auto& image : report["images"]) {
    if (!image.is_object()) continue;
    // The gate first, over every finding that was not suppressed, shown or not.
    bool image_fails = StringField(image, "gate") == "fail";
    for (const auto& finding : Arr(image, "findings")) image_fails = image_fails || FailsGate(finding, gate);
    image["gate"] = image_fails ? "fail" : "pass";
    failed = failed || image_fails;
    if (image.contains("verdicts") && image["verdicts"].is_array()) {
      // The pools of the findings that fail the gate, gathered once (per
      // verdict, every finding was looked at: quadratic in a big fleet).
      std::set<std::string> failing_pools;
      for (const auto& finding : Arr(image, "findings")) {
        if (!FailsGate(finding, gate)) continue;
        for (const auto& name : Arr(finding, "pools"))
          if (name.is_string()) failing_pools.insert(name.get<std::string>());
      }
      for (auto& verdict : image["verdicts"]) {
        if (!verdict.is_object()) continue;
        const bool fails = StringField(verdict, "gate") == "fail" || failing_pools.count(StringField(verdict, "pool")) > 0;
        verdict["gate"] = fails ? "fail" : "pass";
      }
    }
    json kept = json::array();
    for (const auto& finding : Arr(image, "findings")) {
      Severity severity = FindingSeverity(finding);
      std::string name = IsUndecided(finding) ? "undecided" : std::string(rules::SeverityName(severity));
      if (severity < options.min_severity) {
        hidden[name] = hidden[name].get<int64_t>() + 1;
        continue;
      }
      shown_counts[name] = shown_counts[name].get<int64_t>() + 1;
      kept.push_back(finding);
    }
    image["findings"] = kept;
    suppressed += Arr(image, "suppressed").size();
    for (const auto& verdict : Arr(image, "verdicts")) {
      std::string status = StringField(verdict, "status");
      if (verdict_counts.contains(status)) verdict_counts[status] = verdict_counts[status].get<int64_t>() + 1;
      pools[StringField(verdict, "pool")] = true;
    }
  }
  json summary = json::object();
  summary["images"] = report["images"].size();
  summary["pools"] = report.contains("fleet") && report["fleet"].is_object() ? Arr(report["fleet"], "pools").size()
                                                                              : pools.size();
  summary["verdicts"] = verdict_counts;
  summary["findings"] = shown_counts;
  summary["hidden"] = hidden;
  summary["min_severity"] = std::string(rules::SeverityName(options.min_severity));
  summary["suppressed"] = suppressed;
  const json& ignores = report.contains("ignores") ? report["ignores"] : json::object();
  summary["expired_ignores"] = Arr(ignores, "expired").size();
  summary["unused_ignores"] = Arr(ignores, "unused").size();
  summary["invalid_ignores"] = Arr(ignores, "invalid").size();
  summary["gate"] = {{"fail_on", gate.fail_on ? std::string(rules::SeverityName(*gate.fail_on)) : std::string("none")},
                     {"fail_on_undecided", gate.fail_on_undecided},
                     {"failed", failed}};
  report["summary"] = summary;
  return report;
}

}  // namespace imagelint::analysis
