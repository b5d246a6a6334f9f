// From facts to verdicts: runs a rule set over images × pools and builds the
// report (`imagelint.report/v1`, DESIGN.md "Report"; fields documented in
// docs/rule-language.md "Report").
//
//   auto rules = rules::LoadRuleSet(extra_files);              // rules.h
//   auto functions = analysis::DefaultFunctions(knowledge);     // language + knowledge functions
//   IMAGELINT_TRY(rules->CheckFunctions(functions));
//   auto report = analysis::Analyze({facts}, fleet, *rules, functions);
//   int exit_code = analysis::HasFindingsAtOrAbove(*report, threshold) ? 1 : 0;
#pragma once

#include <optional>
#include <string>
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

// True when a finding at or above `threshold` exists; nullopt = never
// (--fail-on none).
bool HasFindingsAtOrAbove(const nlohmann::json& report, std::optional<rules::Severity> threshold);

// Derives each verdict of one report image ({pool}) from the image's findings
// (each with its `pools`): the worst severity on the pool decides pass / warn /
// fail; the predicted error is the error finding met first (stage, then the
// rule's priority); `rules` and `undetermined` list the findings behind it.
// Also sets the image's overall `status` (from the findings alone when there
// are no pools). Analyze uses it, and so does anything that later removes
// findings from a report (suppressions), so both always agree.
void DeriveVerdicts(nlohmann::json& image);

// The default plain-text rendering (80 columns): a matrix of images × pools
// with the predicted error in each cell, then findings with evidence and fix.
std::string RenderText(const nlohmann::json& report);

}  // namespace imagelint::analysis
