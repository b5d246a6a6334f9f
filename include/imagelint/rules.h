// The rule language and rule sets (docs/rule-language.md, rules/*.yaml).
//
// A rule is a YAML entry: id, name, title, severity, scope, a condition
// written in a small expression language over the image's facts, the pool and
// knowledge functions, a message template, the CUDA error it predicts, a fix
// and a docs page. The language evaluates over JSON values plus one extra
// state, "unknown" (a fact that is missing), with three-valued logic, so a
// rule can say "cannot tell" instead of passing silently.
//
// Logic that needs real code (requirement strings, which libcuda wins, fatbin
// vs GPU) is not written in rules: it is bound into a FunctionRegistry and
// called from conditions like any other function.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "imagelint/result.h"

namespace imagelint::rules {

// ---------------------------------------------------------------- values

// A value of the language: a JSON value, or unknown (a missing fact).
// JSON null is a value ("known to be absent"); unknown is not.
struct Value {
  bool unknown = false;
  nlohmann::json json;

  static Value Unknown() { return Value{true, nullptr}; }
  static Value Of(nlohmann::json j) { return Value{false, std::move(j)}; }
  bool IsTrue() const { return !unknown && json.is_boolean() && json.get<bool>(); }
  bool IsFalse() const { return !unknown && json.is_boolean() && !json.get<bool>(); }
};

// Renders a value the way message templates show it: strings bare, lists
// joined with ", ", unknown as "unknown".
std::string RenderValue(const Value& value);

// Natural version order of two strings ("11.8.89", "460.67", "12", "v12.2",
// "12.2-rc1"): dot-separated components compared by their leading number,
// then by the rest as text; missing trailing components count as 0; a
// component without a suffix sorts after one with ("12.2" > "12.2-rc1").
// Always has a value (every string has a place in this order).
std::optional<int> CompareVersionStrings(std::string_view a, std::string_view b);

// ------------------------------------------------------------- functions

// Arguments arrive evaluated. Unless accepts_unknown is set, a call with an
// unknown argument is not made and yields unknown; unless accepts_null is
// set, the same holds for a JSON null argument (an absent fact).
//
// An argument is read where it lies: `libcuda(facts, pool)` hands the function
// the facts themselves, not a copy (the evaluator copied the whole facts
// document for every such call: a tenth of a Dockerfile check, far more for
// an image with thousands of files). Valid for the call only.
struct Argument {
  bool unknown = false;
  const nlohmann::json& json;  // null when unknown
  Value ToValue() const { return unknown ? Value::Unknown() : Value::Of(json); }
};
using Arguments = std::vector<Argument>;
// Argument `index` when it is a string, else the error "argument <index + 1>
// must be a string" (functions of the language report it as their error).
Result<std::string> StringArgument(const Arguments& args, size_t index);
using FunctionImpl = std::function<Result<Value>(const Arguments& args)>;
// A function that keeps its results (a memo) hands out the kept value, valid
// for the rest of the evaluation, so `driver_compat(...).error` copies one
// field instead of the whole result; a result it does not keep goes to
// `slot`, and the pointer returned is then `&slot`.
using KeptImpl = std::function<Result<const Value*>(const Arguments& args, Value& slot)>;

struct FunctionSpec {
  std::string name;
  int min_args = 0;
  int max_args = 0;  // -1 = any number
  bool accepts_unknown = false;
  std::string summary;  // one line, for docs and `imagelint rules --functions`
  FunctionImpl impl;
  bool accepts_null = false;
  KeptImpl kept;  // optional; when set, the evaluator calls it instead of impl
};

class FunctionRegistry {
 public:
  // Later registrations of the same name replace earlier ones.
  void Register(FunctionSpec spec);
  const FunctionSpec* Find(std::string_view name) const;
  std::vector<std::string> Names() const;
  // Adds every function of `other` (replacing same-named ones).
  void Merge(const FunctionRegistry& other);

 private:
  std::map<std::string, FunctionSpec, std::less<>> functions_;
};

// The language's own functions (len, lower, starts_with, version_compare...).
FunctionRegistry BuiltinFunctions();

// ----------------------------------------------------------- expressions

// Where an expression's text sits in its rule file, so that errors in it are
// reported as file:line:column.
struct SourceLocation {
  std::string file;
  int line = 0;    // 1-based, of the expression's first character
  int column = 0;  // 1-based
  // For YAML block scalars: lines after the first start at this column.
  int continuation_column = 1;
};

struct Node;  // the syntax tree, private to src/rules/

// Variables visible to an expression (facts, pool, let bindings...): its own
// names, then those of `parent` (which must outlive it). Rule evaluation
// binds the per-pool and per-rule names in a small environment over one
// holding the facts, so that binding them copies no facts.
class Environment : public std::map<std::string, Value, std::less<>> {
 public:
  Environment() = default;
  explicit Environment(const Environment* parent) : parent_(parent) {}
  // The value of `name` here or in a parent; null when no one binds it.
  const Value* Find(std::string_view name) const {
    for (const Environment* env = this; env != nullptr; env = env->parent_) {
      const std::map<std::string, Value, std::less<>>& names = *env;
      if (auto it = names.find(name); it != names.end()) return &it->second;
    }
    return nullptr;
  }
  // Lookups that would miss the parent's names: use Find.
  template <typename Key> void find(const Key&) const = delete;
  template <typename Key> void count(const Key&) const = delete;
  template <typename Key> void at(const Key&) const = delete;
  template <typename Key> void contains(const Key&) const = delete;

  // `name` bound to a known value that lives elsewhere and outlives this
  // environment (a `foreach` element inside the facts, a function's result
  // kept by a memo): read where it lies, never copied. A rule over a
  // 200-binary image bound a copy of each binary per pool and rule.
  void BindRef(std::string name, const nlohmann::json* value) { refs_[std::move(name)] = value; }
  // What the evaluator reads for `name`, here or in a parent (a value or a
  // reference); nullopt when no one binds it.
  struct Bound {
    bool unknown = false;
    const nlohmann::json* json = nullptr;
  };
  std::optional<Bound> Lookup(std::string_view name) const {
    for (const Environment* env = this; env != nullptr; env = env->parent_) {
      const std::map<std::string, Value, std::less<>>& names = *env;
      if (auto it = names.find(name); it != names.end()) return Bound{it->second.unknown, &it->second.json};
      if (auto it = env->refs_.find(name); it != env->refs_.end()) return Bound{false, it->second};
    }
    return std::nullopt;
  }
  // The environment this one is made over (null at the root).
  const Environment* parent() const { return parent_; }

 private:
  const Environment* parent_ = nullptr;
  std::map<std::string, const nlohmann::json*, std::less<>> refs_;
};

struct EvalLimits {
  int64_t max_steps = 5'000'000;  // nodes visited in one evaluation
  // Memory of the values one evaluation builds (sums, lists, map/filter
  // results, function results), summed as common/json_memory.h estimates it:
  // each step may copy up to a 1 MiB string or a 100,000-element list, so
  // the step limit alone let a rule file build gigabytes.
  uint64_t max_value_bytes = 64ull << 20;
  // A rendered message, fix or evidence text.
  size_t max_text_bytes = 64 * 1024;
};

// What an evaluation learnt besides its value: the facts it found missing.
struct EvalTrace {
  std::vector<std::string> missing;  // "pool.brand", "cuda.drivers[0].note"...
  int64_t steps = 0;  // summed over the evaluations that shared this trace
};

class Expression {
 public:
  Expression() = default;
  // Parses `text`; errors carry file:line:column of the offending token.
  static Result<Expression> Parse(std::string_view text, const SourceLocation& where = {});

  Result<Value> Evaluate(const Environment& env, const FunctionRegistry& functions,
                         EvalTrace* trace = nullptr, const EvalLimits& limits = {}) const;
  // The same, without copying a value that lies elsewhere: a path into a
  // bound value (`binaries`, `cuda.runtimes`) or a function result its memo
  // keeps is read where it is; anything else is evaluated into `slot`, which
  // must outlive the result. The result is valid while `env` and the memo are.
  Result<Argument> EvaluateInPlace(const Environment& env, const FunctionRegistry& functions, Value& slot,
                                   EvalTrace* trace = nullptr, const EvalLimits& limits = {}) const;

  // Every function name called (for checking a rule set against a registry),
  // with the location of the call.
  struct Call {
    std::string name;
    int line = 0;
    int column = 0;
  };
  std::vector<Call> Calls() const;
  // Free variables the expression reads (for checking rule sets).
  std::vector<Call> Variables() const;
  // What the expression reads of its free variables: `field` when a variable
  // is only read as `name.field...` there, "" where it is read whole (passed
  // to a function, indexed, compared...). Each pair once, in first-read order.
  struct Read {
    std::string name;
    std::string field;
    bool operator==(const Read&) const = default;
  };
  std::vector<Read> Reads() const;

  const std::string& text() const { return text_; }
  const SourceLocation& where() const { return where_; }
  bool empty() const { return root_ == nullptr; }

 private:
  std::shared_ptr<const Node> root_;
  std::string text_;
  SourceLocation where_;
};

// "text {{ expr }} text": message, fix and evidence templates.
class Template {
 public:
  static Result<Template> Parse(std::string_view text, const SourceLocation& where = {});
  Result<std::string> Render(const Environment& env, const FunctionRegistry& functions,
                             EvalTrace* trace = nullptr, const EvalLimits& limits = {}) const;
  const std::string& text() const { return text_; }
  std::vector<Expression::Call> Calls() const;

 private:
  struct Piece {
    std::string literal;
    std::optional<Expression> expression;
  };
  std::vector<Piece> pieces_;
  std::string text_;
  SourceLocation where_;
};

// ----------------------------------------------------------------- rules

enum class Severity { kNote = 0, kWarning = 1, kError = 2 };
std::string_view SeverityName(Severity severity);  // "note" | "warning" | "error"
std::optional<Severity> ParseSeverity(std::string_view text);

enum class Scope { kImage, kPool };
std::string_view ScopeName(Scope scope);  // "image" | "pool"
std::optional<Scope> ParseScope(std::string_view text);

// The order in which a user meets failures.
// process-start: the dynamic loader, before any CUDA call; runtime: later
// API calls (e.g. error 36 under minor-version compatibility).
enum class Stage { kContainerStart = 0, kProcessStart = 1, kCuInit = 2, kKernelLoad = 3, kRuntime = 4 };
// "container-start" | "process-start" | "cuInit" | "kernel-load" | "runtime"
std::string_view StageName(Stage stage);
std::optional<Stage> ParseStage(std::string_view text);

// What to do when a condition evaluates to unknown (a fact it needs is missing).
enum class OnUnknown { kIgnore, kNote, kWarning };

// One predicted failure of a rule. A rule may list several; the first whose
// `when` holds (or that has none) applies to a finding.
struct Prediction {
  std::optional<Expression> when;
  int code = 0;                   // CUDA error code; 0 when the failure is not a CUDA error
  std::string name;               // "cudaErrorCompatNotSupportedOnDevice" | "requirement-unsatisfied"
  Stage stage = Stage::kCuInit;
  std::optional<Template> message;  // the runtime's own text, when it prints one
  std::optional<Severity> severity;  // a finding with this prediction has this severity
};

struct Rule {
  std::string id;       // "IL003"
  std::string name;     // "forward-compat-unsupported-gpu"
  std::string title;    // one line
  std::string summary;  // a few sentences, for rule tables
  Severity severity = Severity::kError;  // default; overrides change it
  Scope scope = Scope::kPool;
  std::string docs;  // "docs/rules/IL003.md"
  std::vector<std::pair<std::string, Expression>> lets;  // evaluated in order
  // `foreach: b in binaries`: the condition runs once per element, one
  // finding per element that fires.
  std::optional<std::pair<std::string, Expression>> foreach;
  Expression condition;
  Template message;
  std::optional<Template> fix;
  std::vector<Prediction> predicts;
  // `demote: {when: EXPR, severity: note}`: a finding for which `when` holds
  // is reported at that (lower) severity and predicts no failure — e.g. code
  // that nothing in the image loads.
  struct Demotion {
    Expression when;
    Severity severity = Severity::kNote;
  };
  std::optional<Demotion> demote;
  // A list of evidence items: strings (paths) or objects with path/layer
  // (facts entries); the analysis resolves layers to created_by.
  std::optional<Expression> evidence;
  OnUnknown on_unknown = OnUnknown::kWarning;
  // Among failures of the same stage, the one a user meets first has the
  // lowest priority (e.g. a stub libcuda, 34, hides everything else at cuInit).
  int priority = 100;
  // Which images the rule checks, by facts.gpu.workload: `workloads: gpu`
  // (false) = GPU images only ("nvidia", or facts without the section; the
  // built-in CUDA rules, so a Node service is not checked against driver and
  // kernel rules it cannot break); `workloads: any` (true) = every image. The
  // rule loader defaults to any, as before the setting existed.
  bool any_workload = false;
  bool enabled = true;
  std::string file;  // rule file it came from
  int line = 0;
};

// What `imagelint rules` and SARIF rule tables show.
struct RuleInfo {
  std::string id, name, title, summary, docs, file;
  Severity severity = Severity::kError;  // effective (after overrides)
  Scope scope = Scope::kPool;
  bool enabled = true;
  std::vector<int> error_codes;          // CUDA codes it can predict (0 = requirement)
  std::vector<std::string> error_names;
};

// A rule's row in the report's `rules[]` table and in `imagelint rules
// --format json`: id, name, title, summary, severity, scope, enabled, docs.
nlohmann::json RuleInfoToJson(const RuleInfo& info);

// A change requested by configuration (.imagelint.yaml) or the command line.
// `rule` is an id ("IL003") or a name ("forward-compat-unsupported-gpu").
struct RuleOverride {
  std::string rule;
  std::optional<Severity> severity;
  bool disabled = false;
};

class RuleSet {
 public:
  const std::vector<Rule>& rules() const { return rules_; }
  const Rule* Find(std::string_view id_or_name) const;

  // Adds rules; a duplicate id or name is an error naming both files.
  Status Add(std::vector<Rule> rules);
  // Unknown rule names are errors (a typo must not silently keep a rule on).
  Status ApplyOverrides(const std::vector<RuleOverride>& overrides);
  // Every function a rule calls must exist; errors name file:line:column.
  Status CheckFunctions(const FunctionRegistry& functions) const;

  std::vector<RuleInfo> List() const;

 private:
  std::vector<Rule> rules_;
};

// Limits on rule files (hostile input): size, rule count, expression size.
struct RuleFileLimits {
  size_t max_file_bytes = 1 << 20;
  size_t max_rules = 1000;
  size_t max_expression_bytes = 16 * 1024;
};

// Parses one rule file's text ("rules:" list). `file` names it in errors.
// With a `cache_dir`, a text that once passed the YAML limit check (aliases,
// depth) is not checked again (common/yaml.h YamlCheckMemo).
Result<std::vector<Rule>> ParseRuleFile(std::string_view text, const std::string& file,
                                        const RuleFileLimits& limits = {}, const std::string& cache_dir = "");
Result<std::vector<Rule>> LoadRuleFile(const std::string& path, const RuleFileLimits& limits = {},
                                       const std::string& cache_dir = "");

// Directory of the built-in rule files of a data directory (a checkout, or an
// installed share/imagelint): <data_dir>/rules. The caller decides the data
// directory (the command line: $IMAGELINT_RULES_DIR or its own location).
std::string BuiltinRulesDir(const std::filesystem::path& data_dir);
// Built-in rules (every <builtin_dir>/*.yaml, sorted) plus `extra_files` in order.
Result<RuleSet> LoadRuleSet(const std::filesystem::path& builtin_dir,
                            const std::vector<std::string>& extra_files = {}, const std::string& cache_dir = "");

}  // namespace imagelint::rules
