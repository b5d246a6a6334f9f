// Helpers shared by the reporters (private to src/report/).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/bytes_text.h"
#include "common/json.h"
#include "imagelint/report.h"
#include "imagelint/report_document.h"

namespace imagelint::report::internal {

using nlohmann::json;
using analysis::Evidence;
using analysis::Finding;
using analysis::ImageReport;
using analysis::PredictedError;
using analysis::Report;
using analysis::Verdict;

// A finding's severity (its rule's effective one).
inline Severity SeverityOf(const Finding& finding) { return finding.severity; }
// "pass", "warn", "fail", "undecided" or "error".
inline std::string StatusText(analysis::Outcome status) { return std::string(analysis::OutcomeName(status)); }
// An optional text, or `fallback` when it is absent.
inline std::string TextOr(const std::optional<std::string>& text, const std::string& fallback = "") {
  return text ? *text : fallback;
}
// Whether a finding was evaluated once for the whole image.
inline bool ImageScoped(const Finding& finding) { return finding.scope == analysis::Scope::kImage; }
// The stage a prediction names ("cuInit"; "" when none).
inline std::string StageText(const PredictedError& predicted) {
  return predicted.stage ? std::string(rules::StageName(*predicted.stage)) : "";
}

// "1 image" / "3 images": the count and the word that goes with it.
inline std::string Plural(int64_t n, const std::string& one, const std::string& many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}
// Items joined with `separator`.
std::string Joined(const std::vector<std::string>& items, const std::string& separator = ", ");

// "804 cudaErrorCompatNotSupportedOnDevice" / "requirement-unsatisfied".
std::string PredictedText(const PredictedError& predicted);
// "usr/lib/libcuda.so.1 (layer 3: RUN apt-get install ...) [Dockerfile:12]".
std::string EvidenceText(const Evidence& item);
// created_by without the "/bin/sh -c #(nop)" noise.
std::string CleanCreatedBy(std::string created_by);
// The first Dockerfile line among a finding's evidence, 0 when none.
int DockerfileLine(const Finding& finding);
// The Dockerfile that a finding's lines refer to: image.dockerfile, else options.dockerfile.
std::string DockerfileFor(const ImageReport& image, const RenderOptions& options);
// Comma-joined pool names of a finding.
std::string PoolList(const Finding& finding);
// Greedy word wrap to `width`; the first line starts with `first`, the others with `rest`.
std::string Wrap(const std::string& text, const std::string& first, const std::string& rest, size_t width);
// Text as markup character data: & < > " and ' as entities (`apostrophe`:
// "&#39;" for HTML, "&apos;" for XML), control characters other than tab,
// newline and (with `keep_cr`) carriage return replaced by `control` (XML 1.0
// forbids them even escaped). Bytes >= 0x80 pass through.
std::string EscapeMarkup(const std::string& text, const char* apostrophe, char control, bool keep_cr);
// Markdown: text inside a table cell or list item (CommonMark escapes, no
// line breaks or raw HTML), and a code span.
std::string MarkdownText(const std::string& text);
std::string MarkdownCode(const std::string& text);
// One line, at most `width` characters ("…" as "~" when cut).
std::string Fit(const std::string& text, size_t width);
std::string Pad(const std::string& text, size_t width);
// Docs URL of a rule: base + docs path (or docs/rules/<ID>.md); "" when no
// base is set (--docs-url): imagelint has no public home to link to.
std::string HelpUri(const std::string& base, const std::string& rule_id, const std::string& docs);

// The knowledge bundle the report rests on ("knowledge 2026.11.27 of
// 2026-11-27"; "" when the report names none) and its staleness note ("" when
// it is younger than 90 days).
inline std::string KnowledgeLabel(const Report& report) {
  if (!report.knowledge) return "";
  return "knowledge " + report.knowledge->revision + " of " + report.knowledge->date;
}
inline std::string KnowledgeNote(const Report& report) {
  return report.knowledge ? TextOr(report.knowledge->note) : "";
}

// What the fleet left to the loader and the verdicts assumed ("" when every
// pool names its container toolkit and runtime): one sentence for the tail
// of a report.
std::string FleetAssumptions(const Report& report);

// Whether the rule behind a finding could not decide (`unknown`: a fact it
// needs is unknown).
inline bool Undecided(const Finding& finding) { return finding.unknown; }
// "error", "warning", "note" or "undecided".
std::string Kind(const Finding& finding);
// A finding's place in listings: error 3, undecided 2 (it may be an error),
// warning 1, note 0.
int Order(const Finding& finding);

// Findings with one root cause: the same rule, prediction and evidence on
// several pools (their messages differ only by the pool's own values), or,
// for undecided findings, the same unknown facts behind several rules.
struct RootCause {
  std::vector<const Finding*> findings;  // the first one is shown
  std::vector<std::string> pools;     // union, in the order of the fleet
  std::vector<std::string> rules;     // distinct rule ids, in order
  std::string kind;                   // Kind() of the findings
};
// An image's findings as root causes, errors first, then undecided,
// warnings, notes; stable within each.
std::vector<RootCause> RootCauses(const ImageReport& image);

// The numbers every format prints, counted in one place so that text,
// Markdown, JUnit and the summary line agree: shown findings and their root
// causes by Kind(), and image × pool verdicts by status.
struct Counts {
  std::map<std::string, int64_t> findings;  // "error", "undecided", "warning", "note"
  std::map<std::string, int64_t> causes;    // the same, one per RootCause
  std::map<std::string, int64_t> verdicts;  // "pass", "warn", "fail", "undecided"
  int64_t Of(const std::map<std::string, int64_t>& counts, const std::string& key) const {
    auto found = counts.find(key);
    return found == counts.end() ? 0 : found->second;
  }
  // Every image × pool verdict, undecided ones included.
  int64_t Cells() const;
};
Counts CountImage(const ImageReport& image);
Counts CountReport(const Report& report);

// --baseline: "new" when a finding of the cause is new since the baseline,
// "unchanged" when all are, "" without a baseline.
std::string BaselineState(const RootCause& cause);

// The image's name without tag or digest ("reg:5000/team/app:1.4@sha256:..."
// -> "reg:5000/team/app"): SARIF identity stays the same across rebuilds.
std::string ImageName(const std::string& ref);

// Long NVIDIA_REQUIRE_* style lists ("cuda>=12.4 brand=tesla,driver>=470,...
// x30") shortened to the clauses that matter: the first one and those that
// `deciding` (the finding's message) names, then "… N more clauses".
std::string ShortenRequirements(const std::string& text, const std::string& deciding);

// The unknown facts of an undecided finding, one sentence each ("the CUDA
// runtime (libcudart) of the base image `x` is unknown"), and why (the
// Dockerfile's reasons, with their lines).
std::vector<std::string> MissingTexts(const Finding& finding);
// The unknown facts of several findings as sentences, one per owner: "the
// CUDA runtime (libcudart) and the LD_LIBRARY_PATH of the base image `x` are
// unknown".
std::vector<std::string> MissingSentences(const std::vector<const Finding*>& findings);
std::vector<std::string> MissingReasons(const Finding& finding);

// A rule's page, docs_dir/rules/<ID>.md (at most 64 KiB); "" when there is none.
std::string RuleDocs(const std::string& docs_dir, const std::string& rule_id);

}  // namespace imagelint::report::internal
