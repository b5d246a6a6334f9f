// From facts to verdicts: runs a rule set over images × pools and builds the
// report (`imagelint.report/v1`, DESIGN.md "Report"; fields documented in
// docs/rule-language.md "Report"), then decides what is shown and whether it
// fails. imagelint::Scan (pipeline.h) runs all of this; call it directly only
// to analyse facts you built yourself.
//
//   auto rules = rules::LoadRuleSet(rules_dir, extra_files);    // rules.h
//   auto functions = analysis::DefaultFunctions(knowledge);     // language + knowledge functions
//   IMAGELINT_TRY(rules->CheckFunctions(functions));
//   auto images = analysis::AnalyzeImages({&facts}, {}, fleet, *rules, functions);
//   analysis::Report report = analysis::ReportDocument(std::move(*images), fleet, *rules);
//   config::ApplySuppressions(report, ignores, today);                // config.h, optional
//   report = analysis::Finalize(std::move(report), {.min_severity = ...}, {fail_on, fail_on_undecided});
//   int exit_code = analysis::GateFailed(report) ? 1 : 0;
//   nlohmann::json document = analysis::WriteReport(report);          // report_document.h
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "imagelint/fleet.h"
#include "imagelint/report_document.h"
#include "imagelint/report_model.h"
#include "imagelint/result.h"
#include "imagelint/rules.h"

namespace imagelint {
class Knowledge;  // include/imagelint/knowledge.h
}

namespace imagelint::analysis {

// The language's built-ins plus every knowledge function (NVIDIA semantics:
// requirement strings, libcuda selection, compatibility, SASS/PTX matching)
// bound to `knowledge`, which must outlive the registry.
rules::FunctionRegistry DefaultFunctions(const Knowledge& knowledge);
// Only the knowledge functions (DefaultFunctions = BuiltinFunctions + these).
rules::FunctionRegistry KnowledgeFunctions(const Knowledge& knowledge);

// A pool as the rule language sees it (`pool.*`): the fleet file's fields;
// unset optional fields are absent, so rules read them as unknown.
nlohmann::json PoolToJson(const Pool& pool);

// An image's platform as its facts say it (image.os, image.architecture and
// image.variant), normalised; nullopt without image facts naming both os and
// architecture.
std::optional<Platform> ImagePlatform(const nlohmann::json& facts);

// Variables an expression may read at the top level, besides `let` names and
// `foreach` variables: facts, image, env, cuda, binaries, frameworks, pool.
std::vector<std::string> RuleVariables();

struct AnalyzeOptions {
  rules::EvalLimits limits;
  // Evaluation steps of all rules in one Analyze call: this many, plus
  // `rule_steps_per_cell` for each image x pool. The built-in rules take a
  // few thousand steps per cell; a rule file whose rules each stay within
  // their step limit could otherwise take hours over a small fleet.
  int64_t rule_steps_base = 10'000'000;
  int64_t rule_steps_per_cell = 1'000'000;
  // Images analysed side by side (threads); 0 = one per CPU core, at most 16.
  // The report is the same for any number.
  int jobs = 0;
};

// Runs every enabled rule: image-scoped rules once per image, pool-scoped
// rules once per image × pool. An error in a rule (a type error, a failing
// function) is an Error naming the rule file, line and column.
Result<nlohmann::json> Analyze(const std::vector<nlohmann::json>& facts, const Fleet& fleet,
                               const rules::RuleSet& rules, const rules::FunctionRegistry& functions,
                               const AnalyzeOptions& options = {});

// Facts that stand for an image on some pools only: a Dockerfile that leaves
// its platform open, built for each pool's platform (docs/dockerfile.md
// "Platform"). Those pools are evaluated against these facts, image-scoped
// rules included; the others against the image's own.
struct PoolFacts {
  Platform platform;          // the platform these facts were built for
  std::vector<size_t> pools;  // indexes into the fleet's pools (PlatformPools::pools)
  nlohmann::json facts;
};
// As above; `pool_facts[i]` (when there is one) holds image i's facts for
// some pools. Findings equal on several pools are still one finding, whichever
// facts each pool saw; ref, digest and platform of the report image come from
// `facts[i]`.
Result<nlohmann::json> Analyze(const std::vector<nlohmann::json>& facts,
                               const std::vector<std::vector<PoolFacts>>& pool_facts, const Fleet& fleet,
                               const rules::RuleSet& rules, const rules::FunctionRegistry& functions,
                               const AnalyzeOptions& options = {});
// The same over facts held elsewhere (they must outlive the call): facts
// judged on several fleets (imagelint::Evaluator) are not copied for each.
// (Its own name: an overload would make Analyze({facts}, ...) ambiguous.)
Result<nlohmann::json> AnalyzeReferenced(const std::vector<const nlohmann::json*>& facts,
                               const std::vector<std::vector<PoolFacts>>& pool_facts, const Fleet& fleet,
                               const rules::RuleSet& rules, const rules::FunctionRegistry& functions,
                               const AnalyzeOptions& options = {});

// The typed result of the same analysis: one ImageReport per facts, in
// input order (findings merged across pools, verdicts derived); Analyze and
// AnalyzeReferenced are ReportDocument over it.
Result<std::vector<ImageReport>> AnalyzeImages(const std::vector<const nlohmann::json*>& facts,
                                               const std::vector<std::vector<PoolFacts>>& pool_facts,
                                               const Fleet& fleet, const rules::RuleSet& rules,
                                               const rules::FunctionRegistry& functions,
                                               const AnalyzeOptions& options = {});
// The report document of analysed images: schema, tool, fleet, rules and
// the images written by the report model's writer.
Report ReportDocument(std::vector<ImageReport> images, const Fleet& fleet, const rules::RuleSet& rules);
// A pool as the report records it (the fields PoolToJson gives the rules).
ReportPool ReportPoolOf(const Pool& pool);

// Undecided findings (`Finding::unknown`: a fact the rule needs is unknown,
// `missing[]` names it in user terms) are never counted as warnings:
// verdicts show them as `undecided`, and only --fail-on-undecided makes them
// fail the gate.

// A `--fail-on` value: "error" | "warning" | "note", or "none" (nullopt: never
// fail). Errors name the value and the accepted ones.
Result<std::optional<rules::Severity>> ParseThreshold(std::string_view text);

// The gate (the one behind exit code 1): a finding that was not suppressed
// fails it when it is decided and at or above `fail_on`, or undecided (at
// warning level: its rule says not knowing matters) with `fail_on_undecided`.
struct GateOptions {
  std::optional<rules::Severity> fail_on = rules::Severity::kError;  // nullopt = --fail-on none
  bool fail_on_undecided = false;                                    // --fail-on-undecided
};
// Whether one finding that was not suppressed (shown or hidden) fails `gate`:
// Finalize's gate and --fail-on-new both ask this.
bool FailsGate(const Finding& finding, const GateOptions& gate);

// True when a decided finding that was not suppressed is at or above
// `threshold`, whether it is shown or hidden by --min-severity (Finalize
// counts those in summary.hidden); nullopt = never (--fail-on none).
// Undecided findings never count here (see GateOptions).
bool HasFindingsAtOrAbove(const Report& report, std::optional<rules::Severity> threshold);

// The gate Finalize decided: summary.gate.failed.
bool GateFailed(const Report& report);

// Applies --min-severity: findings below it move out of `findings` (counted in
// summary.hidden); decides the gate over every finding, shown or hidden
// (`gate: pass|fail` on each image and verdict, summary.gate {fail_on,
// fail_on_undecided, failed}), so that reporters show what fails the build
// (JUnit marks a warn pool failed under --fail-on warning); adds `summary`
// {images, pools, verdicts{pass,warn,fail,undecided},
// findings{error,warning,note,undecided}, hidden, min_severity, suppressed,
// expired_ignores, unused_ignores, invalid_ignores, gate}. Idempotent; the
// input report is not modified. Every reporter reads a finalised report.
struct FinalizeOptions {
  rules::Severity min_severity = rules::Severity::kNote;
};
Report Finalize(Report report, const FinalizeOptions& options = {}, const GateOptions& gate = {});


// Derives each verdict of one report image from the image's findings (each
// with its `pools`): a decided error fails; else an undecided finding at
// warning level makes it `undecided`; else a warning warns; else it passes.
// The predicted error is the error finding met first (stage, then the
// rule's priority); `rules` and `undetermined` list the findings behind it.
// Also sets the image's overall `status` (from the findings alone when there
// are no pools). Analyze uses it, and so does anything that later removes
// findings from a report (suppressions), so both always agree.
void DeriveVerdicts(ImageReport& image);

// Observations (`observed:` of a pool, docs/probe.md). FactKey: what an
// observation's `fact` names, a finding's rule and logical location joined
// by spaces ("IL004 path:/usr/local/cuda/compat/libcuda.so.1").
std::string FactKey(const Finding& finding);
// Puts on each verdict of a report image the observation of its pool that
// applies: one for the image's digest first, else one whose fact is a
// finding of the image on that pool. DeriveVerdicts then applies it.
void AttachObservations(ImageReport& image, const Fleet& fleet);
// On a verdict DeriveVerdicts just decided from findings: with `observed`,
// moves the prediction to `prediction` {status, predicted_error}, sets
// `observation` agrees|contradicts|settles (settles: the prediction was
// undecided) and takes status and predicted_error (with `observed: true`)
// from what was observed.
void ApplyObservation(Verdict& verdict);

// --baseline: an earlier report of the same images and fleet. Errors: it is
// not an imagelint.report/v1 document with an images list.
// What a finding is about, apart from its wording and pools: "path:P" per
// evidence path, "detail:NAME" per NAME=VALUE evidence, "missing:FACT" per
// missing fact; sorted, distinct. Report fingerprints and --baseline match on it.
std::vector<std::string> LogicalLocation(const Finding& finding);

// The baseline file's report, read by the document's reader. Errors name
// the file and say what is wrong.
Result<Report> ReadBaseline(const nlohmann::json& baseline, const std::string& name);
// Marks each shown finding of a finalised `report` with baseline_state "new"
// (on a pool where the baseline image did not have it; new_pools when only
// some pools are new) or "unchanged", lists under each image's `fixed` the
// baseline's findings gone since (baseline_state "absent", on the pools
// where they are gone), and adds summary.baseline {file, new, unchanged,
// fixed, unmatched_images}. Images match by ref, else by name (without tag
// or digest) when only one baseline image has it; findings by rule and
// logical location per pool, never by wording.
void ApplyBaseline(Report& report, const Report& baseline, const std::string& name);
// --fail-on-new: whether a finding marked new fails `gate`.
bool NewFindingsFailGate(const Report& report, const GateOptions& gate);

}  // namespace imagelint::analysis
