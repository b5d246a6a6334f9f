// The whole report document (`imagelint.report/v1`) as C++ values: the
// images of report_model.h with what surrounds them (the tool, the knowledge
// bundle, the fleet and rule set that ran, the ignore entries and the
// summary Finalize computes). Analysis builds it, suppressions, --baseline
// and Finalize change it, and every reporter reads it; the JSON is written
// once, by WriteReport, and read back (a --baseline file, a saved report)
// only by ReadReport. docs/report-schema.json describes the JSON.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "imagelint/knowledge_bundle.h"
#include "imagelint/report_model.h"
#include "imagelint/result.h"
#include "imagelint/rules.h"

namespace imagelint::analysis {

inline constexpr const char* kReportSchema = "imagelint.report/v1";

struct ToolInfo {
  std::string name;
  std::string version;
  bool operator==(const ToolInfo&) const = default;
};

// The knowledge bundle the verdicts rest on (docs/knowledge.md "Bundle").
using imagelint::KnowledgeStamp;

// A pool as the report records it: the fleet file's fields (analysis::
// PoolToJson writes the same for the rule language), without observations.
struct ReportPool {
  std::string name;
  std::optional<std::string> gpu;
  std::optional<std::string> compute_capability;
  std::optional<std::string> brand;
  std::optional<bool> datacenter;
  std::optional<std::string> architecture;
  std::optional<bool> integrated;
  std::optional<std::string> cuda_compat_mode;
  std::optional<bool> disable_require;
  std::optional<std::vector<std::string>> defaulted;  // fields the loader assumed
  std::optional<std::string> driver;
  std::optional<std::string> container_toolkit;
  std::optional<std::string> runtime;
  std::optional<Platform> platform;
  std::optional<int64_t> count;
  std::optional<std::string> source;
  std::optional<int64_t> line;
  std::optional<std::map<std::string, std::string>> selector_labels;
  bool operator==(const ReportPool&) const = default;
};

struct ReportFleet {
  std::string source;
  std::vector<ReportPool> pools;
  bool operator==(const ReportFleet&) const = default;
};

// One rule of the rule set that ran, with its effective severity.
struct ReportRule {
  std::string id;
  std::string name;
  std::string title;
  std::string summary;
  rules::Severity severity = rules::Severity::kError;
  Scope scope = Scope::kPool;
  bool enabled = true;
  std::string docs;
  bool operator==(const ReportRule&) const = default;
};

// An ignore entry that was not applied: expired, unused, or invalid (then
// `problem` says why).
struct IgnoreEntry {
  SuppressedBy entry;
  std::optional<std::string> problem;
  bool operator==(const IgnoreEntry&) const = default;
};

struct Ignores {
  std::optional<std::vector<IgnoreEntry>> expired;
  std::optional<std::vector<IgnoreEntry>> unused;
  std::optional<std::vector<IgnoreEntry>> invalid;
  bool operator==(const Ignores&) const = default;
};

// Findings per severity; undecided ones counted apart.
struct SeverityCounts {
  int64_t error = 0;
  int64_t warning = 0;
  int64_t note = 0;
  int64_t undecided = 0;
  int64_t& Of(rules::Severity severity);
  bool operator==(const SeverityCounts&) const = default;
};

struct VerdictCounts {
  int64_t pass = 0;
  int64_t warn = 0;
  int64_t fail = 0;
  int64_t undecided = 0;
  bool operator==(const VerdictCounts&) const = default;
};

// The gate as Finalize applied it: --fail-on ("none" when off), --fail-on-undecided.
struct GateSummary {
  std::string fail_on;
  bool fail_on_undecided = false;
  bool failed = false;
  bool operator==(const GateSummary&) const = default;
};

// --baseline: findings new, unchanged and fixed since the baseline report.
struct BaselineSummary {
  std::string file;
  int64_t added = 0;  // "new"
  int64_t unchanged = 0;
  int64_t fixed = 0;
  int64_t unmatched_images = 0;
  bool operator==(const BaselineSummary&) const = default;
};

struct Summary {
  int64_t images = 0;
  int64_t pools = 0;
  VerdictCounts verdicts;
  SeverityCounts findings;  // shown
  SeverityCounts hidden;    // below --min-severity; they still count for the gate
  std::optional<rules::Severity> min_severity;
  int64_t suppressed = 0;
  std::optional<int64_t> expired_ignores;
  std::optional<int64_t> unused_ignores;
  std::optional<int64_t> invalid_ignores;
  std::optional<GateSummary> gate;
  std::optional<BaselineSummary> baseline;
  std::optional<int64_t> unreadable;  // --keep-going: images that could not be read
  bool operator==(const Summary&) const = default;
};

struct Report {
  std::string schema = kReportSchema;
  std::optional<ToolInfo> tool;
  std::optional<KnowledgeStamp> knowledge;
  std::optional<ReportFleet> fleet;
  std::optional<std::vector<ReportRule>> rules;
  std::vector<ImageReport> images;
  std::optional<Ignores> ignores;
  std::optional<Summary> summary;
  bool operator==(const Report&) const = default;
};

// The one writer and the one reader of the document. Reading is strict, as
// ReadImageReport is: errors name `subject` and the field's path.
nlohmann::json WriteReport(const Report& report);
Result<Report> ReadReport(const nlohmann::json& value, const std::string& subject);
nlohmann::json WriteKnowledgeStamp(const KnowledgeStamp& stamp);
nlohmann::json WriteReportPool(const ReportPool& pool);
nlohmann::json WriteSummary(const Summary& summary);
// The report with every string through `text` (fields, list items, map keys),
// walked by the same field lists: reporters for people escape control
// characters this way without a field list of their own.
Report MapReportStrings(Report report, const std::function<std::string(std::string_view)>& text);

}  // namespace imagelint::analysis
