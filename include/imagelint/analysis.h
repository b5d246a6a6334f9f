// From facts to verdicts: runs a rule set over images × pools and builds the
// report (`imagelint.report/v1`, DESIGN.md "Report"; fields documented in
// docs/rule-language.md "Report"), then decides what is shown and whether it
// fails. imagelint::Scan (pipeline.h) runs all of this; call it directly only
// to analyse facts you built yourself.
//
//   auto rules = rules::LoadRuleSet(rules_dir, extra_files);    // rules.h
//   auto functions = analysis::DefaultFunctions(knowledge);     // language + knowledge functions
//   IMAGELINT_TRY(rules->CheckFunctions(functions));
//   auto report = analysis::Analyze({facts}, fleet, *rules, functions);
//   auto shown = analysis::Finalize(*report, {.min_severity = ...});   // after any suppressions
//   int exit_code = analysis::HasFindingsAtOrAbove(shown, fail_on) ? 1 : 0;
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "imagelint/fleet.h"
#include "imagelint/result.h"
#include "imagelint/rules.h"

namespace imagelint {
class Knowledge;  // include/imagelint/knowledge.h
}

namespace imagelint::analysis {

inline constexpr const char* kReportSchema = "imagelint.report/v1";

// The language's built-ins plus every knowledge function (NVIDIA semantics:
// requirement strings, libcuda selection, compatibility, SASS/PTX matching)
// bound to `knowledge`, which must outlive the registry.
rules::FunctionRegistry DefaultFunctions(const Knowledge& knowledge);
// Only the knowledge functions (DefaultFunctions = BuiltinFunctions + these).
rules::FunctionRegistry KnowledgeFunctions(const Knowledge& knowledge);

// A pool as the rule language sees it (`pool.*`): the fleet file's fields;
// unset optional fields are absent, so rules read them as unknown.
nlohmann::json PoolToJson(const Pool& pool);

// Variables an expression may read at the top level, besides `let` names and
// `foreach` variables: facts, image, env, cuda, binaries, frameworks, pool.
std::vector<std::string> RuleVariables();

struct AnalyzeOptions {
  rules::EvalLimits limits;
};

// Runs every enabled rule: image-scoped rules once per image, pool-scoped
// rules once per image × pool. An error in a rule (a type error, a failing
// function) is an Error naming the rule file, line and column.
Result<nlohmann::json> Analyze(const std::vector<nlohmann::json>& facts, const Fleet& fleet,
                               const rules::RuleSet& rules, const rules::FunctionRegistry& functions,
                               const AnalyzeOptions& options = {});

// The severity of a report finding (or of a report's rule entry): its
// "severity" read with rules::ParseSeverity, the one severity parser. The one
// fallback: a severity that is missing or not error|warning|note counts as an
// error, so a finding the tool cannot rank fails the verdict and the gate
// instead of passing silently. (Analyze never writes such a finding; reports
// built or edited elsewhere might.)
rules::Severity FindingSeverity(const nlohmann::json& finding);

// A `--fail-on` value: "error" | "warning" | "note", or "none" (nullopt: never
// fail). Errors name the value and the accepted ones.
Result<std::optional<rules::Severity>> ParseThreshold(std::string_view text);

// The gate (the one behind exit code 1): true when a finding that was not
// suppressed is at or above `threshold`, whether it is shown or hidden by
// --min-severity (Finalize counts those in summary.hidden); nullopt = never
// (--fail-on none).
bool HasFindingsAtOrAbove(const nlohmann::json& report, std::optional<rules::Severity> threshold);

// Applies --min-severity: findings below it move out of `findings` (counted in
// summary.hidden); adds `summary` {images, pools, verdicts{pass,warn,fail},
// findings{error,warning,note}, hidden, min_severity, suppressed,
// expired_ignores, unused_ignores, invalid_ignores}. Idempotent; the input
// report is not modified. Every reporter reads a finalised report.
struct FinalizeOptions {
  rules::Severity min_severity = rules::Severity::kNote;
};
nlohmann::json Finalize(const nlohmann::json& report, const FinalizeOptions& options = {});

// Derives each verdict of one report image ({pool}) from the image's findings
// (each with its `pools`): the worst severity on the pool decides pass / warn /
// fail; the predicted error is the error finding met first (stage, then the
// rule's priority); `rules` and `undetermined` list the findings behind it.
// Also sets the image's overall `status` (from the findings alone when there
// are no pools). Analyze uses it, and so does anything that later removes
// findings from a report (suppressions), so both always agree.
void DeriveVerdicts(nlohmann::json& image);

}  // namespace imagelint::analysis
