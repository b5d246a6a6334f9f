// Rule files: loading, positions of errors, overrides, the rule table, the
// built-in rule file.
#include <doctest/doctest.h>

#include "imagelint/rules.h"
#include "support/test_support.h"

using namespace imagelint::rules;

namespace {

std::string LoadError(const std::string& yaml) {
  auto rules = ParseRuleFile(yaml, "bad.yaml");
  REQUIRE_MESSAGE(!rules.ok(), yaml);
  return rules.error().ToString();
}

const char* kMinimal = R"(rules:
  - id: X001
    name: minimal-rule
    title: minimal
    severity: warning
    scope: image
    condition: true
    message: hello
)";

}  // namespace

TEST_CASE("a minimal rule and its defaults") {
  auto rules = ParseRuleFile(kMinimal, "min.yaml");
  REQUIRE_MESSAGE(rules.ok(), imagelint::testing::ErrorText(rules));
  REQUIRE(rules->size() == 1);
  const Rule& rule = (*rules)[0];
  CHECK(rule.id == "X001");
  CHECK(rule.severity == Severity::kWarning);
  CHECK(rule.scope == Scope::kImage);
  CHECK(rule.docs == "docs/rules/X001.md");
  CHECK(rule.on_unknown == OnUnknown::kWarning);
  CHECK(rule.priority == 100);
  CHECK(rule.enabled);
  CHECK(rule.line == 2);
  CHECK(rule.file == "min.yaml");
}

TEST_CASE("rule-file errors carry file:line:column") {
  // A bad expression inside a block scalar: line of the content, its column.
  CHECK(LoadError(R"(rules:
  - id: X001
    name: a-rule
    title: t
    severity: error
    scope: pool
    condition: |
      pool.driver >= '450' and
        pool.brand = 'geforce'
    message: m
)") == "bad.yaml:9:20: '=' is not an operator; compare with '=='");
  // A plain scalar: the column after the key.
  CHECK(LoadError(R"(rules:
  - id: X001
    name: a-rule
    title: t
    severity: error
    scope: pool
    condition: pool.driver >=
    message: m
)") == "bad.yaml:7:30: expected a value, found end of expression");
  // A quoted scalar: one more for the quote.
  CHECK(LoadError(R"(rules:
  - id: X001
    name: a-rule
    title: t
    severity: error
    scope: pool
    condition: "(true"
    message: m
)") == "bad.yaml:7:22: expected ')' to close '(', found 'end of expression'");
  // Templates.
  CHECK(LoadError(R"(rules:
  - id: X001
    name: a-rule
    title: t
    severity: error
    scope: pool
    condition: "true"
    message: "x {{ 1 + }}"
)") == "bad.yaml:8:24: expected a value, found end of expression");
  std::string bad_name = kMinimal;
  bad_name.replace(bad_name.find("minimal-rule"), 12, "Bad_Name");
  CHECK(LoadError(bad_name) == "bad.yaml:3:11: rule name 'Bad_Name' must be kebab-case");
  CHECK(LoadError("rules:\n  - id: X001\n    nmae: x\n") == "bad.yaml:3:5: unknown key 'nmae' in a rule");
  CHECK(LoadError("rules:\n  - id: X001\n    name: a\n") == "bad.yaml:2:5: a rule needs 'title'");
  CHECK(LoadError("rules: [1, 2") .find("bad.yaml:1:") == 0);
  CHECK(LoadError("other: 1\n") == "bad.yaml: a rule file is a map with a 'rules:' list");
  CHECK(LoadError(std::string(kMinimal) + "    severity2: x\n") == "bad.yaml:9:5: unknown key 'severity2' in a rule");
  std::string bad_severity = kMinimal;
  bad_severity.replace(bad_severity.find("warning"), 7, "fatal");
  CHECK(LoadError(bad_severity) == "bad.yaml:5:15: severity must be error, warning or note");
  std::string bad_stage = std::string(kMinimal) + "    predicts:\n      code: 1\n      name: x\n      stage: boot\n";
  CHECK(LoadError(bad_stage) ==
        "bad.yaml:12:14: stage must be container-start, process-start, cuInit, kernel-load or runtime");
  std::string bad_foreach = std::string(kMinimal) + "    foreach: binaries\n";
  CHECK(LoadError(bad_foreach) == "bad.yaml:9:14: 'foreach' is written 'name in list-expression'");
  std::string bad_foreach_expr = std::string(kMinimal) + "    foreach: b in (binaries\n";
  CHECK(LoadError(bad_foreach_expr) == "bad.yaml:9:28: expected ')' to close '(', found 'end of expression'");
  for (const char* head : {"1b in binaries", "b inbinaries", "b in", "bin binaries", "in binaries"}) {
    CAPTURE(head);
    CHECK(LoadError(std::string(kMinimal) + "    foreach: \"" + head + "\"\n").find("'foreach' is written") !=
          std::string::npos);
  }
  // Names are checked by scanners, not std::regex: long names are errors, not stack overflows.
  std::string long_id = kMinimal;
  long_id.replace(long_id.find("X001") != std::string::npos ? long_id.find("X001") : 0, 0, std::string(200000, 'A'));
  CHECK(LoadError(long_id).find("must look like IL001") != std::string::npos);
  std::string long_name = kMinimal;
  long_name.replace(long_name.find("minimal-rule"), 12, std::string(100000, 'a'));
  CHECK(LoadError(long_name).find("must be kebab-case") != std::string::npos);
  for (const char* name : {"a--b", "-a", "a-", "a-b-c-d-e-f-g-h-i-j-k-l-m-n-o-p-q"}) {
    std::string bad = kMinimal;
    bad.replace(bad.find("minimal-rule"), 12, name);
    CAPTURE(name);
    CHECK(LoadError(bad).find("must be kebab-case") != std::string::npos);
  }
  for (const char* var : {"x-y", "1x", "\"\""}) {
    CAPTURE(var);
    CHECK(LoadError(std::string(kMinimal) + "    let:\n      " + var + ": 1\n").find("is not a variable name") !=
          std::string::npos);
  }
}

TEST_CASE("hostile rule files hit limits") {
  std::string big(2 << 20, '#');
  CHECK(LoadError(big).find("larger than") != std::string::npos);
  std::string many = "rules:\n";
  for (int i = 0; i < 1001; ++i) many += "  - 1\n";
  CHECK(LoadError(many).find("more than 1000 rules") != std::string::npos);
  std::string deep = std::string(kMinimal);
  deep.replace(deep.find("condition: true"), 15, "condition: " + std::string(300, '(') + "1" + std::string(300, ')'));
  CHECK(LoadError(deep).find("nested too deeply") != std::string::npos);
  // Aliases that repeat a large node: refused before any rule is read.
  std::string aliased = "x: &big [" + std::string(1, 'a');
  for (int i = 0; i < 5000; ++i) aliased += ", a" + std::to_string(i);
  aliased += "]\nrules:\n";
  for (int i = 0; i < 300; ++i) aliased += "  - *big\n";
  std::string error = LoadError(aliased);
  CHECK(error.rfind("bad.yaml:", 0) == 0);
  CHECK(error.find("aliases expand the document") != std::string::npos);
  CHECK(LoadError("rules: &r [*r]\n").find("cycle") != std::string::npos);
}

TEST_CASE("rule sets: duplicates, overrides, the table, unknown functions") {
  RuleSet set;
  auto rules = ParseRuleFile(kMinimal, "a.yaml");
  REQUIRE(rules.ok());
  REQUIRE(set.Add(*rules).ok());
  auto again = set.Add(*rules);
  REQUIRE(!again.ok());
  CHECK(again.error().ToString() == "a.yaml:2: rule X001 (minimal-rule) is already defined at a.yaml:2");
  REQUIRE(set.ApplyOverrides({{"minimal-rule", Severity::kError, false}}).ok());
  auto table = set.List();
  REQUIRE(table.size() == 1);
  CHECK(table[0].severity == Severity::kError);
  CHECK(table[0].summary == "minimal");
  REQUIRE(set.ApplyOverrides({{"X001", std::nullopt, true}}).ok());
  CHECK(!set.List()[0].enabled);

  auto with_call = ParseRuleFile(R"(rules:
  - id: Y001
    name: calls
    title: t
    severity: error
    scope: pool
    condition: |
      len(binaries) > 0 and
        frobnicate(pool)
    message: m
)", "c.yaml");
  REQUIRE(with_call.ok());
  RuleSet calls;
  REQUIRE(calls.Add(*with_call).ok());
  auto check = calls.CheckFunctions(BuiltinFunctions());
  REQUIRE(!check.ok());
  CHECK(check.error().ToString() == "c.yaml:9:9: rule Y001: unknown function 'frobnicate'");
}

TEST_CASE("the built-in rules load: sixteen rules with docs pages") {
  namespace fs = std::filesystem;
  auto rules = LoadRuleFile((imagelint::testing::SourceDir() / "rules" / "cuda.yaml").string());
  REQUIRE_MESSAGE(rules.ok(), imagelint::testing::ErrorText(rules));
  REQUIRE(rules->size() == 20);  // IL017 version assumed, IL018 Jetson image, IL019 install not read, IL020 tables behind the fleet
  for (size_t i = 0; i < rules->size(); ++i) {
    const Rule& rule = (*rules)[i];
    char id[8];
    std::snprintf(id, sizeof id, "IL%03zu", i + 1);
    CHECK(rule.id == id);
    CHECK(!rule.summary.empty());
    CHECK(rule.fix.has_value());
    CHECK_MESSAGE(fs::exists(imagelint::testing::SourceDir() / rule.docs), rule.docs);
  }
  auto set = LoadRuleSet(BuiltinRulesDir(imagelint::testing::SourceDir()));
  REQUIRE_MESSAGE(set.ok(), imagelint::testing::ErrorText(set));
  CHECK(set->Find("forward-compat-unsupported-gpu")->id == "IL003");
  CHECK(set->Find("IL007")->predicts[0].code == 209);
}

TEST_CASE("demote: a map with 'when' and a severity; anything else is an error at its line") {
  auto rules = ParseRuleFile(std::string(kMinimal) + "    demote:\n      when: not true\n      severity: note\n", "d.yaml");
  REQUIRE_MESSAGE(rules.ok(), rules.error().ToString());
  REQUIRE(rules->at(0).demote.has_value());
  CHECK(rules->at(0).demote->severity == Severity::kNote);
  CHECK(LoadError(std::string(kMinimal) + "    demote: note\n").find("demote is a map with 'when' and 'severity'") !=
        std::string::npos);
  CHECK(LoadError(std::string(kMinimal) + "    demote:\n      when: true\n      severity: low\n")
            .find("severity must be error, warning or note") != std::string::npos);
}
