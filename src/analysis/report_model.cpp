// The field list of every record of the report model (report_model.h), once:
// the JSON key and the member behind it. WriteImageReport and ReadImageReport
// both walk these lists (common/json_record.h), so a field added here is
// written, read and type-checked alike; docs/report-schema.json describes
// the result.
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
template <class V, Is<KnowledgeStamp> S>
void Visit(V& visit, S& row) {
  visit("schema_version", row.schema_version);
  visit("revision", row.revision);
  visit("date", row.date);
  visit("digest", row.digest);
  visit("age_days", row.age_days);
  visit("stale", row.stale);
  visit("note", row.note);
}

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

template <class V, Is<Evidence> S>
void Visit(V& visit, S& row) {
  visit("path", row.path);
  visit("layer", row.layer);
  visit("layer_digest", row.layer_digest);
  visit("created_by", row.created_by);
  visit("dockerfile_line", row.dockerfile_line);
  visit("detail", row.detail);
}

template <class V, Is<PredictedError> S>
void Visit(V& visit, S& row) {
  visit("code", row.code);
  visit("name", row.name);
  visit("stage", row.stage);
  visit("message", row.message);
  visit("rule", row.rule);
  visit("observed", row.observed);
}

template <class V, Is<MissingFact> S>
void Visit(V& visit, S& row) {
  visit("fact", row.fact);
  visit("subject", row.subject);
  visit("owner", row.owner);
  visit("text", row.text);
  visit("dockerfile_line", row.dockerfile_line);
  visit("reason", row.reason);
  visit("hint", row.hint);
}

template <class V, Is<SuppressedBy> S>
void Visit(V& visit, S& row) {
  visit("rule", row.rule);
  visit("reason", row.reason);
  visit("origin", row.origin);
  visit("file", row.file);
  visit("line", row.line);
  visit("expires", row.expires);
  visit("image", row.image);
  visit("pool", row.pool);
  visit("path", row.path);
  visit("dockerfile_line", row.dockerfile_line);
}

template <class V, Is<Finding> S>
void Visit(V& visit, S& row) {
  visit("rule", row.rule);
  visit("name", row.name);
  visit("title", row.title);
  visit("docs", row.docs);
  visit("priority", row.priority);
  visit("scope", row.scope);
  visit("severity", row.severity);
  visit("message", row.message);
  visit("fix", row.fix);
  visit("pools", row.pools);
  visit("evidence", row.evidence);
  visit("predicted_error", row.predicted_error);
  visit("unknown", row.unknown);
  visit("missing_facts", row.missing_facts);
  visit("missing", row.missing);
  visit("suppressed_by", row.suppressed_by);
  visit("baseline_state", row.baseline_state);
  visit("new_pools", row.new_pools);
}

template <class V, Is<Observed> S>
void Visit(V& visit, S& row) {
  visit("code", row.code);
  visit("host", row.host);
  visit("date", row.date);
  visit("key", row.key);
  visit("line", row.line);
  visit("image", row.image);
  visit("fact", row.fact);
  visit("name", row.name);
  visit("api", row.api);
}

template <class V, Is<Prediction> S>
void Visit(V& visit, S& row) {
  visit("status", row.status);
  visit("predicted_error", row.predicted_error);
}

template <class V, Is<Verdict> S>
void Visit(V& visit, S& row) {
  visit("pool", row.pool);
  visit("status", row.status);
  visit("predicted_error", row.predicted_error);
  visit("rules", row.rules);
  visit("undetermined", row.undetermined);
  visit("gate", row.gate);
  visit("observed", row.observed);
  visit("prediction", row.prediction);
  visit("observation", row.observation);
  visit("platform", row.platform);
}

template <class V, Is<BaseImage> S>
void Visit(V& visit, S& row) {
  visit("ref", row.ref);
  visit("resolved_from", row.resolved_from);
  visit("digest", row.digest);
  visit("platform", row.platform);
  visit("note", row.note);
}

template <class V, Is<PlatformBuild> S>
void Visit(V& visit, S& row) {
  visit("platform", row.platform);
  visit("pools", row.pools);
  visit("platform_source", row.platform_source);
  visit("base", row.base);
}

template <class V, Is<ImageReport> S>
void Visit(V& visit, S& row) {
  visit("ref", row.ref);
  visit("digest", row.digest);
  visit("platform", row.platform);
  visit("dockerfile", row.dockerfile);
  visit("base", row.base);
  visit("platforms", row.platforms);
  visit("status", row.status);
  visit("error", row.error);
  visit("gate", row.gate);
  visit("findings", row.findings);
  visit("suppressed", row.suppressed);
  visit("verdicts", row.verdicts);
  visit("fixed", row.fixed);
}

// The document around the images (report_document.h).

template <class V, Is<ToolInfo> S>
void Visit(V& visit, S& row) {
  visit("name", row.name);
  visit("version", row.version);
}


template <class V, Is<ReportPool> S>
void Visit(V& visit, S& row) {
  visit("name", row.name);
  visit("gpu", row.gpu);
  visit("compute_capability", row.compute_capability);
  visit("brand", row.brand);
  visit("datacenter", row.datacenter);
  visit("architecture", row.architecture);
  visit("integrated", row.integrated);
  visit("cuda_compat_mode", row.cuda_compat_mode);
  visit("disable_require", row.disable_require);
  visit("defaulted", row.defaulted);
  visit("driver", row.driver);
  visit("container_toolkit", row.container_toolkit);
  visit("runtime", row.runtime);
  visit("platform", row.platform);
  visit("count", row.count);
  visit("source", row.source);
  visit("line", row.line);
  visit("selector_labels", row.selector_labels);
}

template <class V, Is<ReportFleet> S>
void Visit(V& visit, S& row) {
  visit("source", row.source);
  visit("pools", row.pools);
}

template <class V, Is<ReportRule> S>
void Visit(V& visit, S& row) {
  visit("id", row.id);
  visit("name", row.name);
  visit("title", row.title);
  visit("summary", row.summary);
  visit("severity", row.severity);
  visit("scope", row.scope);
  visit("enabled", row.enabled);
  visit("docs", row.docs);
}

// An ignore entry is its suppression's fields, plus `problem` when invalid.
template <class V, Is<IgnoreEntry> S>
void Visit(V& visit, S& row) {
  Visit(visit, row.entry);
  visit("problem", row.problem);
}

template <class V, Is<Ignores> S>
void Visit(V& visit, S& row) {
  visit("expired", row.expired);
  visit("unused", row.unused);
  visit("invalid", row.invalid);
}

template <class V, Is<SeverityCounts> S>
void Visit(V& visit, S& row) {
  visit("error", row.error);
  visit("warning", row.warning);
  visit("note", row.note);
  visit("undecided", row.undecided);
}

template <class V, Is<VerdictCounts> S>
void Visit(V& visit, S& row) {
  visit("pass", row.pass);
  visit("warn", row.warn);
  visit("fail", row.fail);
  visit("undecided", row.undecided);
}

template <class V, Is<GateSummary> S>
void Visit(V& visit, S& row) {
  visit("fail_on", row.fail_on);
  visit("fail_on_undecided", row.fail_on_undecided);
  visit("failed", row.failed);
}

template <class V, Is<BaselineSummary> S>
void Visit(V& visit, S& row) {
  visit("file", row.file);
  visit("new", row.added);
  visit("unchanged", row.unchanged);
  visit("fixed", row.fixed);
  visit("unmatched_images", row.unmatched_images);
}

template <class V, Is<Summary> S>
void Visit(V& visit, S& row) {
  visit("images", row.images);
  visit("pools", row.pools);
  visit("verdicts", row.verdicts);
  visit("findings", row.findings);
  visit("hidden", row.hidden);
  visit("min_severity", row.min_severity);
  visit("suppressed", row.suppressed);
  visit("expired_ignores", row.expired_ignores);
  visit("unused_ignores", row.unused_ignores);
  visit("invalid_ignores", row.invalid_ignores);
  visit("gate", row.gate);
  visit("baseline", row.baseline);
  visit("unreadable", row.unreadable);
}

template <class V, Is<Report> S>
void Visit(V& visit, S& row) {
  visit("schema", row.schema);
  visit("tool", row.tool);
  visit("knowledge", row.knowledge);
  visit("fleet", row.fleet);
  visit("rules", row.rules);
  visit("images", row.images);
  visit("ignores", row.ignores);
  visit("summary", row.summary);
}

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
