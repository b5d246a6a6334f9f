// The field list of every record of the report model (report_model.h), once:
// the JSON key and the member behind it, one name for both
// (IMAGELINT_RECORD_FIELDS). WriteImageReport and ReadImageReport both walk
// these lists (common/json_record.h), so a field added here is written, read
// and type-checked alike; docs/report-schema.json describes the result.
#include "imagelint/report_model.h"

#include "imagelint/report_document.h"

#include <array>
#include <utility>

#include "common/enum_names.h"
#include "common/json_record.h"

namespace imagelint {

using json_record::Is;
using nlohmann::json;

namespace {

constexpr std::array<std::pair<analysis::Outcome, std::string_view>, 5> kOutcomeNames{{
    {analysis::Outcome::kPass, "pass"},
    {analysis::Outcome::kWarn, "warn"},
    {analysis::Outcome::kFail, "fail"},
    {analysis::Outcome::kUndecided, "undecided"},
    {analysis::Outcome::kError, "error"},
}};

}  // namespace

// The rule language's enums, written by name (found by argument-dependent
// lookup from json_record.h, hence in their own namespace).
namespace rules {
static json WriteValue(const Severity& value) { return std::string(SeverityName(value)); }
static void ReadValue(const json& value, Severity& out, std::string& problem) {
  ReadNamed<Severity>(value, out, problem, &ParseSeverity, "\"error\", \"warning\" or \"note\"");
}
static json WriteValue(const Scope& value) { return std::string(ScopeName(value)); }
static void ReadValue(const json& value, Scope& out, std::string& problem) {
  ReadNamed<Scope>(value, out, problem, &ParseScope, "\"image\" or \"pool\"");
}
static json WriteValue(const Stage& value) { return std::string(StageName(value)); }
static void ReadValue(const json& value, Stage& out, std::string& problem) {
  ReadNamed<Stage>(value, out, problem, &ParseStage, "a stage name");
}
}  // namespace rules

// The knowledge bundle's stamp (knowledge_bundle.h), found by ADL in its namespace.
IMAGELINT_RECORD_FIELDS(KnowledgeStamp, schema_version, revision, date, digest, age_days, stale, note)

// A platform's parts come from image configs: hostile text, mapped as any
// other string of the report (MapReportStrings).
template <class F>
static void MapValueStrings(Platform& value, F& fn) {
  fn(value.os);
  fn(value.architecture);
  fn(value.variant);
}

// Platforms are written in containerd's spelling ("linux/arm64") and read
// back through Platform::Parse.
static json WriteValue(const Platform& value) { return value.ToString(); }
static void ReadValue(const json& value, Platform& out, std::string& problem) {
  auto parsed = value.is_string() ? Platform::Parse(value.get<std::string>()) : Result<Platform>(MakeError("", ""));
  if (parsed.ok()) {
    out = *parsed;
  } else {
    problem = "expected a platform \"os/arch[/variant]\", got " +
              (value.is_string() ? "\"" + value.get<std::string>().substr(0, 64) + "\"" : json_record::JsonType(value));
  }
}

namespace analysis {

std::string_view OutcomeName(Outcome status) { return NameIn(kOutcomeNames, status); }
std::optional<Outcome> ParseOutcome(std::string_view text) { return ValueIn(kOutcomeNames, text); }

static json WriteValue(const Outcome& value) { return std::string(OutcomeName(value)); }
static void ReadValue(const json& value, Outcome& out, std::string& problem) {
  ReadNamed<Outcome>(value, out, problem, &ParseOutcome, "\"pass\", \"warn\", \"fail\", \"undecided\" or \"error\"");
}

IMAGELINT_RECORD_FIELDS(Evidence, path, layer, layer_digest, created_by, dockerfile_line, detail)

IMAGELINT_RECORD_FIELDS(PredictedError, code, name, stage, message, rule, observed)

IMAGELINT_RECORD_FIELDS(MissingFact, fact, subject, owner, text, dockerfile_line, reason, hint)

IMAGELINT_RECORD_FIELDS(SuppressedBy, rule, reason, origin, file, line, expires, image, pool, path, dockerfile_line)

IMAGELINT_RECORD_FIELDS(Finding, rule, name, title, docs, priority, scope, severity, message, fix, pools, evidence,
    predicted_error, unknown, missing_facts, missing, suppressed_by, baseline_state, new_pools)

IMAGELINT_RECORD_FIELDS(Observed, code, host, date, key, line, image, fact, name, api)

IMAGELINT_RECORD_FIELDS(Prediction, status, predicted_error)

IMAGELINT_RECORD_FIELDS(Verdict, pool, status, predicted_error, rules, undetermined, gate, observed, prediction,
    observation, platform)

IMAGELINT_RECORD_FIELDS(BaseImage, ref, resolved_from, digest, platform, note)

IMAGELINT_RECORD_FIELDS(PlatformBuild, platform, pools, platform_source, base)

IMAGELINT_RECORD_FIELDS(ImageReport, ref, digest, platform, dockerfile, base, platforms, status, error, gate, findings,
    suppressed, verdicts, fixed)

// The document around the images (report_document.h).

IMAGELINT_RECORD_FIELDS(ToolInfo, name, version)


IMAGELINT_RECORD_FIELDS(ReportPool, name, gpu, compute_capability, brand, datacenter, architecture, integrated,
    cuda_compat_mode, disable_require, defaulted, driver, container_toolkit, runtime, platform, count, source, line,
    selector_labels)

IMAGELINT_RECORD_FIELDS(ReportFleet, source, pools)

IMAGELINT_RECORD_FIELDS(ReportRule, id, name, title, summary, severity, scope, enabled, docs)

// An ignore entry is its suppression's fields, plus `problem` when invalid.
IMAGELINT_RECORD_FIELDS_AFTER(IgnoreEntry, entry, problem)

IMAGELINT_RECORD_FIELDS(Ignores, expired, unused, invalid)

IMAGELINT_RECORD_FIELDS(SeverityCounts, error, warning, note, undecided)

IMAGELINT_RECORD_FIELDS(VerdictCounts, pass, warn, fail, undecided)

IMAGELINT_RECORD_FIELDS(GateSummary, fail_on, fail_on_undecided, failed)

// The key "new" is a C++ keyword, so its member is `added`.
template <class V, Is<BaselineSummary> S>
void Visit(V& visit, S& row) {
  visit("file", row.file);
  visit("new", row.added);
  IMAGELINT_VISIT_FIELDS(visit, row, unchanged, fixed, unmatched_images);
}

IMAGELINT_RECORD_FIELDS(Summary, images, pools, verdicts, findings, hidden, min_severity, suppressed, expired_ignores,
    unused_ignores, invalid_ignores, gate, baseline, unreadable)

IMAGELINT_RECORD_FIELDS(Report, schema, tool, knowledge, fleet, rules, images, ignores, summary)

int64_t& SeverityCounts::Of(rules::Severity severity) {
  switch (severity) {
    case rules::Severity::kError:
      return error;
    case rules::Severity::kWarning:
      return warning;
    case rules::Severity::kNote:
      return note;
  }
  return error;
}

json WriteReport(const Report& report) { return json_record::Write(report); }
Result<Report> ReadReport(const json& value, const std::string& subject) {
  auto report = json_record::Read<Report>(value, subject);
  if (report.ok() && report->schema != kReportSchema)
    return MakeError(subject, "schema: expected \"" + std::string(kReportSchema) + "\", got \"" +
                                  report->schema.substr(0, 64) + "\"");
  return report;
}
json WriteKnowledgeStamp(const KnowledgeStamp& stamp) { return json_record::Write(stamp); }
json WriteReportPool(const ReportPool& pool) { return json_record::Write(pool); }
json WriteSummary(const Summary& summary) { return json_record::Write(summary); }
Report MapReportStrings(Report report, const std::function<std::string(std::string_view)>& text) {
  auto map = [&text](std::string& value) { value = text(value); };
  json_record::MapStrings(report, map);
  return report;
}

json WriteFinding(const Finding& finding) { return json_record::Write(finding); }
json WriteImageReport(const ImageReport& image) { return json_record::Write(image); }
json WriteSuppressedBy(const SuppressedBy& entry) { return json_record::Write(entry); }
json WriteVerdict(const Verdict& verdict) { return json_record::Write(verdict); }
json WritePredictedError(const Nullable<PredictedError>& predicted) { return json_record::Write(predicted); }
json WriteMissingFacts(const std::vector<MissingFact>& missing) { return json_record::Write(missing); }
Result<Finding> ReadFinding(const json& value, const std::string& subject) {
  return json_record::Read<Finding>(value, subject);
}
Result<ImageReport> ReadImageReport(const json& value, const std::string& subject) {
  return json_record::Read<ImageReport>(value, subject);
}

}  // namespace analysis
}  // namespace imagelint
