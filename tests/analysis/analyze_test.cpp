// Verdicts from findings: merge across pools, first failure a user meets,
// unknown facts as "cannot tell", evidence with layers; what a report shows
// (--min-severity), the gate (--fail-on), the one severity fallback; the text
// rendering of an analysed report.
#include <doctest/doctest.h>

#include "imagelint/analysis.h"
#include "imagelint/config.h"
#include "imagelint/report.h"
#include "report/sample_report.h"
#include "support/test_support.h"

using namespace imagelint;
using namespace imagelint::rules;
using nlohmann::json;

namespace {

Fleet TwoPools() {
  Fleet fleet;
  fleet.source = "fleet.yaml";
  Pool geforce;
  geforce.name = "rtx3090-460";
  geforce.gpu = "NVIDIA GeForce RTX 3090";
  geforce.brand = "geforce";
  geforce.compute_capability = "8.6";
  geforce.driver = "460.67";
  geforce.container_toolkit = "1.4.0";
  Pool a100;
  a100.name = "a100-535";
  a100.compute_capability = "8.0";
  a100.driver = "535.104.05";
  fleet.pools = {geforce, a100};
  return fleet;
}

json SeedFactsJson() {
  return json::parse(R"({
    "schema": "imagelint.facts/v1",
    "image": {"ref": "app:1", "digest": "sha256:0123456789abcdef0123", "os": "linux", "architecture": "amd64",
              "env": {"CUDA_VERSION": "11.3.1"},
              "layers": [{"digest": "sha256:l0", "created_by": "/bin/sh -c #(nop) ADD file:abc in /"},
                         {"digest": "sha256:l1", "created_by": "/bin/sh -c apt-get install -y cuda-compat-11-3"}]},
    "cuda": {"drivers": [{"path": "/usr/local/cuda-11.3/compat/libcuda.so.465.19.01", "layer": 1,
                          "kind": "compat", "version": "465.19.01"}]},
    "binaries": [{"path": "/app/k.so", "layer": 0, "sass": ["sm_70"]},
                 {"path": "/app/j.so", "layer": 1, "sass": ["sm_80", "sm_86"]}]
  })");
}

RuleSet Rules(const std::string& yaml) {
  auto parsed = ParseRuleFile(yaml, "test-rules.yaml");
  REQUIRE_MESSAGE(parsed.ok(), imagelint::testing::ErrorText(parsed));
  RuleSet set;
  REQUIRE(set.Add(std::move(*parsed)).ok());
  return set;
}

json RunRules(const RuleSet& set, const Fleet& fleet = TwoPools(), std::vector<json> facts = {SeedFactsJson()}) {
  auto report = analysis::Analyze(facts, fleet, set, BuiltinFunctions());
  REQUIRE_MESSAGE(report.ok(), imagelint::testing::ErrorText(report));
  return *report;
}

const char* kRules = R"(rules:
  - id: T001
    name: compat-newer
    title: compat libcuda newer than the host
    severity: error
    scope: pool
    let:
      compat: |
        first(d in cuda.drivers: d.kind == 'compat')
    condition: compat is not null and compat.version > pool.driver and pool.brand == 'geforce'
    message: "compat {{ compat.version }} over {{ pool.driver }}"
    predicts:
      code: 804
      name: cudaErrorCompatNotSupportedOnDevice
      stage: cuInit
    fix: delete {{ dirname(compat.path) }}
    evidence: "[compat]"
  - id: T002
    name: no-kernel
    title: no kernel image
    severity: error
    scope: pool
    foreach: b in binaries
    condition: ("sm_" + replace_dot(pool.compute_capability)) not in b.sass
    message: "{{ b.path }} has no SASS for {{ pool.compute_capability }}"
    predicts:
      code: 209
      name: cudaErrorNoKernelImageForDevice
      stage: kernel-load
  - id: T003
    name: image-note
    title: an image-level note
    severity: note
    scope: image
    condition: env.CUDA_VERSION is known
    message: CUDA_VERSION is {{ env.CUDA_VERSION }}
)";

FunctionRegistry WithReplaceDot() {
  FunctionRegistry functions = BuiltinFunctions();
  functions.Register(FunctionSpec{"replace_dot", 1, 1, false, "", [](const Arguments& args) -> Result<Value> {
                                    std::string s = args[0].json.get<std::string>();
                                    s.erase(std::remove(s.begin(), s.end(), '.'), s.end());
                                    return Value::Of(s);
                                  }});
  return functions;
}

}  // namespace

TEST_CASE("verdicts: first failure a user meets, merged findings, evidence") {
  RuleSet set = Rules(kRules);
  auto report = analysis::Analyze({SeedFactsJson()}, TwoPools(), set, WithReplaceDot());
  REQUIRE_MESSAGE(report.ok(), imagelint::testing::ErrorText(report));
  CHECK((*report)["schema"] == "imagelint.report/v1");
  const json& image = (*report)["images"][0];
  CHECK(image["ref"] == "app:1");
  CHECK(image["status"] == "fail");
  const json& findings = image["findings"];
  REQUIRE(findings.size() == 4);
  // T001 only on the GeForce pool, with the layer resolved to created_by.
  CHECK(findings[0]["rule"] == "T001");
  CHECK(findings[0]["pools"] == json::array({"rtx3090-460"}));
  CHECK(findings[0]["message"] == "compat 465.19.01 over 460.67");
  CHECK(findings[0]["fix"] == "delete /usr/local/cuda-11.3/compat");
  CHECK(findings[0]["evidence"][0]["path"] == "/usr/local/cuda-11.3/compat/libcuda.so.465.19.01");
  CHECK(findings[0]["evidence"][0]["layer"] == 1);
  CHECK(findings[0]["evidence"][0]["layer_digest"] == "sha256:l1");
  CHECK(findings[0]["evidence"][0]["created_by"] == "/bin/sh -c apt-get install -y cuda-compat-11-3");
  // T002 per binary: k.so lacks both 8.6 and 8.0 -> one finding on both pools.
  CHECK(findings[1]["rule"] == "T002");
  CHECK(findings[1]["message"] == "/app/k.so has no SASS for 8.6");
  CHECK(findings[1]["evidence"][0]["path"] == "/app/k.so");
  CHECK(findings[2]["message"] == "/app/k.so has no SASS for 8.0");
  CHECK(findings[2]["pools"] == json::array({"a100-535"}));
  CHECK(findings[3]["rule"] == "T003");
  CHECK(findings[3]["scope"] == "image");
  CHECK(findings[3]["pools"] == json::array({"rtx3090-460", "a100-535"}));

  const json& verdicts = image["verdicts"];
  REQUIRE(verdicts.size() == 2);
  CHECK(verdicts[0]["pool"] == "rtx3090-460");
  CHECK(verdicts[0]["status"] == "fail");
  // cuInit (804) comes before kernel load (209).
  CHECK(verdicts[0]["predicted_error"]["code"] == 804);
  CHECK(verdicts[0]["predicted_error"]["name"] == "cudaErrorCompatNotSupportedOnDevice");
  CHECK(verdicts[0]["predicted_error"]["rule"] == "T001");
  CHECK(verdicts[0]["rules"] == json::array({"T001", "T002", "T003"}));
  CHECK(verdicts[1]["predicted_error"]["code"] == 209);

  CHECK(analysis::HasFindingsAtOrAbove(testing::Typed(*report), Severity::kError));
  CHECK(!analysis::HasFindingsAtOrAbove(testing::Typed(*report), std::nullopt));

  std::string text = report::RenderText(testing::Typed(testing::Finalized(*report)));
  CHECK(text.find("IMAGE app:1 (sha256:0123456789ab)") != std::string::npos);
  CHECK(text.find("  rtx3090-460  fail     804 cudaErrorCompatNotSupportedOnDevice (cuInit)") != std::string::npos);
  CHECK(text.find("  a100-535     fail     209 cudaErrorNoKernelImageForDevice (kernel-load)") != std::string::npos);
  CHECK(text.find("  evidence: /usr/local/cuda-11.3/compat/libcuda.so.465.19.01 (layer 1:") != std::string::npos);
  CHECK(text.find("(layer 1: RUN\n    apt-get install") != std::string::npos);
  CHECK(text.find("cuda-compat-11-3)") != std::string::npos);
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    CHECK_MESSAGE(end - start <= 80, text.substr(start, end - start));
    start = end + 1;
  }
}

TEST_CASE("missing facts give a 'cannot tell' finding, never a silent pass") {
  RuleSet set = Rules(kRules);
  Fleet fleet = TwoPools();
  fleet.pools[0].brand.reset();  // brand unknown: the 804 rule cannot decide
  auto report = analysis::Analyze({SeedFactsJson()}, fleet, set, WithReplaceDot());
  REQUIRE(report.ok());
  const json& first = (*report)["images"][0]["findings"][0];
  CHECK(first["rule"] == "T001");
  CHECK(first["unknown"] == true);
  CHECK(first["severity"] == "warning");
  CHECK(first["missing_facts"] == json::array({"pool.brand"}));
  CHECK(first["message"] == "cannot tell whether this applies (compat libcuda newer than the host): the GPU brand of pool "
        "`rtx3090-460` is unknown");  // in user terms, the field stays in missing_facts
  const json& verdict = (*report)["images"][0]["verdicts"][0];
  CHECK(verdict["undetermined"] == json::array({"T001"}));
  CHECK(verdict["predicted_error"]["code"] == 209);  // the next failure still shows
}

TEST_CASE("overrides: disabled rules and changed severities") {
  RuleSet set = Rules(kRules);
  REQUIRE(set.ApplyOverrides({{"no-kernel", std::nullopt, true}, {"T001", Severity::kWarning, false}}).ok());
  auto report = analysis::Analyze({SeedFactsJson()}, TwoPools(), set, WithReplaceDot());
  REQUIRE(report.ok());
  const json& image = (*report)["images"][0];
  REQUIRE(image["findings"].size() == 2);
  CHECK(image["findings"][0]["severity"] == "warning");
  CHECK(image["verdicts"][0]["status"] == "warn");
  CHECK(image["verdicts"][0]["predicted_error"].is_null());  // a warning does not decide the verdict
  CHECK(image["verdicts"][1]["status"] == "pass");
  CHECK(!analysis::HasFindingsAtOrAbove(testing::Typed(*report), Severity::kError));
  CHECK(analysis::HasFindingsAtOrAbove(testing::Typed(*report), Severity::kWarning));
  auto bad = set.ApplyOverrides({{"IL999", Severity::kNote, false}});
  REQUIRE(!bad.ok());
  CHECK(bad.error().message.find("no rule named 'IL999'") != std::string::npos);
}

TEST_CASE("predictions with conditions and severities") {
  RuleSet set = Rules(R"(rules:
  - id: T010
    name: baked
    title: driver baked in
    severity: warning
    scope: pool
    condition: len(cuda.drivers) > 0
    message: baked
    predicts:
      - when: pool.driver < '465'
        code: 803
        name: cudaErrorSystemDriverMismatch
        stage: cuInit
        severity: error
        message: driver {{ pool.driver }}
)");
  json report = RunRules(set);
  const json& verdicts = report["images"][0]["verdicts"];
  CHECK(verdicts[0]["status"] == "fail");
  CHECK(verdicts[0]["predicted_error"]["code"] == 803);
  CHECK(verdicts[0]["predicted_error"]["message"] == "driver 460.67");
  CHECK(verdicts[1]["status"] == "warn");
  CHECK(verdicts[1]["predicted_error"].is_null());
}

TEST_CASE("rule errors are tool errors with the rule's position") {
  RuleSet set = Rules(R"(rules:
  - id: T020
    name: broken
    title: broken
    severity: error
    scope: pool
    condition: pool.driver and true
    message: x
)");
  auto report = analysis::Analyze({SeedFactsJson()}, TwoPools(), set, BuiltinFunctions());
  REQUIRE(!report.ok());
  CHECK(report.error().ToString() ==
        "test-rules.yaml:7:21: rule T020: 'and' needs a boolean, got string (pool rtx3090-460)");
}

TEST_CASE("no fleet: image rules only, no verdicts") {
  RuleSet set = Rules(kRules);
  auto report = analysis::Analyze({SeedFactsJson()}, Fleet{}, set, WithReplaceDot());
  REQUIRE(report.ok());
  const json& image = (*report)["images"][0];
  CHECK(image["verdicts"].empty());
  REQUIRE(image["findings"].size() == 1);
  CHECK(image["findings"][0]["rule"] == "T003");
  CHECK(report::RenderText(testing::Typed(testing::Finalized(*report))).find("pass --fleet FILE") != std::string::npos);
}

TEST_CASE("pools as the language sees them") {
  json pool = analysis::PoolToJson(TwoPools().pools[1]);
  CHECK(pool["name"] == "a100-535");
  CHECK(pool["driver"] == "535.104.05");
  CHECK(!pool.contains("brand"));  // unset -> absent -> unknown in rules
  CHECK(!pool.contains("container_toolkit"));
  CHECK(pool["platform"] == "linux/amd64");
}

// A foreach rule is a function of each element and what it reads outside
// it: elements that found nothing on one pool are not evaluated again on a
// pool that reads the same (same compute capability), and the findings of
// the others still name each pool.
TEST_CASE("foreach rules: pools that read the same share the elements that found nothing") {
  RuleSet set = Rules(R"yaml(rules:
  - id: T010
    name: no-sass
    title: no SASS for the pool
    severity: error
    scope: pool
    foreach: b in binaries
    let:
      want: "'sm_' + replace_dot(pool.compute_capability)"
      has: counted(want in b.sass)
    condition: not has
    message: "{{ b.path }} lacks {{ want }} on {{ pool.name }}"
)yaml");
  Fleet fleet;
  fleet.source = "fleet.yaml";
  for (const auto& [name, cc] : std::vector<std::pair<std::string, std::string>>{
           {"a100-a", "8.0"}, {"v100", "7.0"}, {"a100-b", "8.0"}, {"a100-c", "8.0"}}) {
    Pool pool;
    pool.name = name;
    pool.compute_capability = cc;
    pool.driver = "535.104.05";
    pool.runtime = "docker-legacy";
    fleet.pools.push_back(pool);
  }
  // counted(x) is x; it counts the element evaluations.
  int evaluations = 0;
  FunctionRegistry functions = WithReplaceDot();
  functions.Register(FunctionSpec{"counted", 1, 1, false, "", [&evaluations](const Arguments& args) -> Result<Value> {
                                    ++evaluations;
                                    return Value::Of(args[0].json);
                                  }});
  analysis::AnalyzeOptions options;
  options.jobs = 1;
  auto report = analysis::Analyze({SeedFactsJson()}, fleet, set, functions, options);
  REQUIRE_MESSAGE(report.ok(), imagelint::testing::ErrorText(report));
  // a100-a and v100: both binaries; a100-b and a100-c: k.so only (j.so has
  // sm_80 and found nothing on a100-a).
  CHECK(evaluations == 6);
  std::map<std::string, std::vector<std::string>> pools_of;  // message -> pools
  for (const auto& finding : (*report)["images"][0]["findings"])
    pools_of[finding["message"].get<std::string>()] = finding["pools"].get<std::vector<std::string>>();
  CHECK(pools_of.size() == 4);
  CHECK(pools_of["/app/k.so lacks sm_80 on a100-a"] == std::vector<std::string>{"a100-a"});
  CHECK(pools_of["/app/k.so lacks sm_80 on a100-b"] == std::vector<std::string>{"a100-b"});
  CHECK(pools_of["/app/k.so lacks sm_80 on a100-c"] == std::vector<std::string>{"a100-c"});
  CHECK(pools_of["/app/j.so lacks sm_70 on v100"] == std::vector<std::string>{"v100"});
}

// --- after the rules: --min-severity, --fail-on ---------------------------------

int Gate(const json& report, std::optional<Severity> fail_on) {
  return analysis::HasFindingsAtOrAbove(testing::Typed(report), fail_on) ? 1 : 0;
}

TEST_CASE("gate: --fail-on is separate from --min-severity") {
  using testing::Finalized;
  using imagelint::testing::SampleReport;
  json full = Finalized(SampleReport());
  CHECK(Gate(full, Severity::kError) == 1);
  CHECK(Gate(full, Severity::kNote) == 1);
  CHECK(Gate(full, std::nullopt) == 0);

  // Only errors shown; the warning and notes are hidden but still gate.
  json errors_only = Finalized(SampleReport(), {.min_severity = Severity::kError});
  CHECK(errors_only["summary"]["hidden"]["warning"] == 1);
  CHECK(errors_only["summary"]["hidden"]["note"] == 2);
  CHECK(errors_only["summary"]["findings"]["error"] == 1);
  CHECK(errors_only["images"][0]["findings"].size() == 1);
  CHECK(errors_only["images"][1]["findings"].empty());
  json no_errors = SampleReport();
  no_errors["images"][0]["findings"].erase(0);
  json hidden = Finalized(no_errors, {.min_severity = Severity::kError});
  CHECK(Gate(hidden, Severity::kError) == 0);
  CHECK(Gate(hidden, Severity::kWarning) == 1);
  CHECK(Gate(hidden, Severity::kNote) == 1);
  // Finalize twice keeps what was hidden the first time.
  CHECK(Gate(Finalized(hidden), Severity::kWarning) == 1);

  // Suppressed findings do not gate.
  config::Suppression s;
  s.rule = "IL003";
  s.reason = "accepted";
  json suppressed = Finalized(testing::Suppress(SampleReport(), {s}, "2026-01-01"));
  CHECK(Gate(suppressed, Severity::kError) == 0);
  CHECK(Gate(suppressed, Severity::kWarning) == 1);
}

TEST_CASE("--fail-on values") {
  CHECK(analysis::ParseThreshold("none").ok());
  CHECK_FALSE(analysis::ParseThreshold("none")->has_value());
  CHECK(**analysis::ParseThreshold("warning") == Severity::kWarning);
  auto fatal = analysis::ParseThreshold("fatal");
  REQUIRE_FALSE(fatal.ok());
  CHECK(fatal.error().message == "'fatal' is not one of error, warning, note, none");
}

TEST_CASE("a severity that cannot be ranked is refused by the typed report, naming the field") {
  json report = imagelint::testing::SampleReport();
  json& image = report["images"][1];  // passes everywhere with a note
  image["findings"][0]["severity"] = "critical";
  // Verdicts are derived from typed findings: the reader refuses the value
  // and names it, and the image is left as it was.
  json before = image;
  auto derived = imagelint::testing::DeriveJson(image);
  REQUIRE_FALSE(derived.ok());
  CHECK(derived.error().message ==
        "findings[0].severity: expected \"error\", \"warning\" or \"note\", got \"critical\"");
  CHECK(image == before);
  // The report as a whole is typed too: Finalize, the gate and every
  // reporter read it through the document's reader, which refuses the value.
  auto read = analysis::ReadReport(report, "report.json");
  REQUIRE_FALSE(read.ok());
  CHECK(read.error().ToString() ==
        "report.json: images[1].findings[0].severity: expected \"error\", \"warning\" or \"note\", got \"critical\"");
}

TEST_CASE("typed report: AnalyzeImages is what Analyze writes; the reader reads it back; the platform keeps its variant") {
  RuleSet set = Rules(kRules);
  json facts = SeedFactsJson();
  facts["image"]["architecture"] = "arm";
  facts["image"]["variant"] = "v7";
  auto typed = analysis::AnalyzeImages({&facts}, {}, TwoPools(), set, WithReplaceDot());
  REQUIRE_MESSAGE(typed.ok(), imagelint::testing::ErrorText(typed));
  REQUIRE(typed->size() == 1);
  const analysis::ImageReport& image = (*typed)[0];
  REQUIRE(image.platform);
  CHECK(image.platform->ToString() == "linux/arm/v7");
  CHECK(image.status == analysis::Outcome::kFail);
  REQUIRE(image.verdicts.size() == 2);
  CHECK(image.verdicts[0].pool == "rtx3090-460");
  REQUIRE(image.verdicts[0].predicted_error);
  CHECK(image.verdicts[0].predicted_error->code == 804);
  CHECK(image.verdicts[0].predicted_error->rule == "T001");

  auto document = analysis::Analyze({facts}, TwoPools(), set, WithReplaceDot());
  REQUIRE(document.ok());
  CHECK((*document)["images"][0] == analysis::WriteImageReport(image));
  auto read = analysis::ReadImageReport((*document)["images"][0], "report.json");
  REQUIRE_MESSAGE(read.ok(), imagelint::testing::ErrorText(read));
  CHECK(*read == image);

  // What the model does not have, or a value of the wrong type, is an error naming the field.
  json extra = (*document)["images"][0];
  extra["verdicts"][1]["colour"] = "red";
  auto unknown = analysis::ReadImageReport(extra, "report.json");
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().ToString() == "report.json: verdicts[1].colour: unknown field");
  json wrong = (*document)["images"][0];
  wrong["findings"][0]["evidence"][0]["layer"] = "two";
  auto mistyped = analysis::ReadImageReport(wrong, "report.json");
  REQUIRE_FALSE(mistyped.ok());
  CHECK(mistyped.error().ToString() == "report.json: findings[0].evidence[0].layer: expected a whole number, got a string");
}
