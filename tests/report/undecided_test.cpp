// Undecided is not a warning in disguise: a verdict whose deciding
// rule could not be evaluated is told apart from a real warning in every
// format, names the missing fact in user terms, and fails only the strict
// gate (--fail-on-undecided). And the gate is what JUnit shows as failed.
#include <doctest/doctest.h>

#include "imagelint/analysis.h"
#include "imagelint/report.h"
#include "report/sample_report.h"
#include "support/test_support.h"

namespace imagelint::report {
namespace {

using testing::Finalized;
using analysis::GateOptions;
using nlohmann::json;
using testing::Typed;
using testing::SampleReport;
using testing::UndecidedReport;

RenderOptions UndecidedOptions() {
  RenderOptions options;
  options.docs_dir = "/nonexistent";
  return options;
}

const json* Result(const json& sarif, const std::string& rule) {
  for (const auto& result : sarif["runs"][0]["results"]) {
    if (result["ruleId"] == rule) return &result;
  }
  return nullptr;
}

TEST_CASE("undecided verdicts: their own status and counts, never a warning") {
  json report = Finalized(UndecidedReport());
  const json& verdicts = report["images"][0]["verdicts"];
  CHECK(verdicts[0]["status"] == "undecided");  // only undecided findings
  CHECK(verdicts[0]["undetermined"] == json::array({"IL002", "IL007"}));
  CHECK(verdicts[1]["status"] == "undecided");  // a real warning does not hide that it cannot tell
  CHECK(verdicts[1]["rules"] == json::array({"IL010"}));
  CHECK(verdicts[2]["status"] == "fail");
  CHECK(report["images"][0]["status"] == "fail");
  CHECK(report["summary"]["verdicts"]["undecided"] == 2);
  CHECK(report["summary"]["verdicts"]["warn"] == 0);
  CHECK(report["summary"]["findings"]["undecided"] == 2);
  CHECK(report["summary"]["findings"]["warning"] == 1);  // IL010 only
}

TEST_CASE("undecided in every format, with the missing fact in user terms") {
  json report = Finalized(UndecidedReport());
  auto rules = RulesFromReport(Typed(report));
  const std::string missing =
      "the CUDA runtime (libcudart) and the GPU code (SASS/PTX) of the binaries of the base image "
      "`registry.corp/ml/base:2024.06` are unknown";

  std::string text = RenderText(Typed(report), UndecidedOptions());
  CHECK(text.find("  rtx3090-460  undecided  cannot tell: IL002, IL007\n") != std::string::npos);
  CHECK(text.find("UNDECIDED (2 findings, 1 root cause): imagelint cannot tell; these are not warnings") != std::string::npos);
  CHECK(text.find("warning IL002") == std::string::npos);
  CHECK(text.find("WARNINGS (1)\nwarning IL010") != std::string::npos);
  std::string flat;  // the text unwrapped
  for (char c : text) {
    if (c != '\n') flat += c;
  }
  std::string squeezed;
  for (char c : flat) {
    if (!(c == ' ' && !squeezed.empty() && squeezed.back() == ' ')) squeezed += c;
  }
  CHECK(squeezed.find("cannot tell: " + missing) != std::string::npos);
  CHECK(squeezed.find("why: base image registry.corp/ml/base:2024.06 is not in base-images.yaml") != std::string::npos);
  CHECK(text.find("cuda.runtimes") == std::string::npos);  // no internal field names

  json sarif = json::parse(RenderSarif(Typed(report), rules, UndecidedOptions()));
  const json* il002 = Result(sarif, "IL002");
  REQUIRE(il002 != nullptr);
  CHECK((*il002)["kind"] == "review");
  CHECK((*il002)["level"] == "none");
  CHECK((*il002)["message"]["text"].get<std::string>().rfind("Undecided: cannot tell", 0) == 0);
  CHECK((*il002)["properties"]["undecided"] == true);
  const json* il010 = Result(sarif, "IL010");
  REQUIRE(il010 != nullptr);
  CHECK((*il010)["kind"] == "fail");
  CHECK((*il010)["level"] == "warning");

  std::string xml = RenderJunit(Typed(report));
  CHECK(xml.find("name=\"rtx3090-460\">\n      <skipped message=\"undecided: imagelint cannot tell (IL002, IL007)\"/>") !=
        std::string::npos);
  CHECK(xml.find("<testsuites name=\"imagelint\" tests=\"3\" failures=\"1\" errors=\"0\" skipped=\"2\">") !=
        std::string::npos);

  RenderOptions located = UndecidedOptions();
  std::string github = RenderGithub(Typed(report), located);
  CHECK(github.find("::notice file=services/train/Dockerfile,line=3,title=IL002 driver-too-old undecided") !=
        std::string::npos);
  CHECK(github.find("::warning file=services/train/Dockerfile,line=3,title=IL002") == std::string::npos);

  std::string md = RenderMarkdown(Typed(report), rules, UndecidedOptions());
  CHECK(md.find("❔ undecided (cannot tell: IL002, IL007)") != std::string::npos);
  CHECK(md.find("- ❔ **undecided IL002, IL007**") != std::string::npos);

  json gitlab = json::parse(RenderGitlab(Typed(report), UndecidedOptions()));
  bool found = false;
  for (const auto& issue : gitlab) {
    if (issue["check_name"] != "IL002") continue;
    found = true;
    CHECK(issue["severity"] == "info");
    CHECK(issue["description"].get<std::string>().rfind("Undecided: ", 0) == 0);
  }
  CHECK(found);

  std::string html = RenderHtml(Typed(report), rules, UndecidedOptions());
  CHECK(html.find("<td class=\"verdict verdict-undecided\" data-image=\"services/train/Dockerfile\" "
                  "data-pool=\"rtx3090-460\" data-status=\"undecided\">") != std::string::npos);
  CHECK(html.find("<div class=\"card undecided\"") != std::string::npos);

  // The JSON report is the analysis' own: undecided findings keep `unknown`
  // and say what is missing.
  const json& finding = report["images"][0]["findings"][0];
  CHECK(finding["unknown"] == true);
  CHECK(finding["missing"][0]["text"] ==
        "the CUDA runtime (libcudart) of the base image `registry.corp/ml/base:2024.06` is unknown");

  testing::CheckGolden("report/golden/undecided.txt", text);
  testing::CheckGolden("report/golden/undecided.sarif", RenderSarif(Typed(report), rules, UndecidedOptions()));
  testing::CheckGolden("report/golden/undecided.junit.xml", xml);
  testing::CheckGolden("report/golden/undecided.github.txt", github);
  testing::CheckGolden("report/golden/undecided.md", md);
  testing::CheckGolden("report/golden/undecided.gitlab.json", RenderGitlab(Typed(report), UndecidedOptions()));
  testing::CheckGolden("report/golden/undecided.html", html);
}

TEST_CASE("gate: undecided findings fail only --fail-on-undecided, shown or hidden") {
  json only_undecided = UndecidedReport();
  json& findings = only_undecided["images"][0]["findings"];
  findings.erase(3);  // IL013
  findings.erase(2);  // IL010
  testing::Derive(only_undecided["images"][0]);

  CHECK_FALSE(analysis::GateFailed(testing::Typed(Finalized(only_undecided))));
  // Not a warning: --fail-on warning (and note) let it pass.
  CHECK_FALSE(analysis::GateFailed(testing::Typed(Finalized(only_undecided, {}, GateOptions{rules::Severity::kWarning, false}))));
  CHECK_FALSE(analysis::GateFailed(testing::Typed(Finalized(only_undecided, {}, GateOptions{rules::Severity::kNote, false}))));
  CHECK_FALSE(analysis::HasFindingsAtOrAbove(testing::Typed(Finalized(only_undecided)), rules::Severity::kWarning));
  // The strict gate fails on it, even when --min-severity hides it.
  json strict = Finalized(only_undecided, {}, GateOptions{rules::Severity::kError, true});
  CHECK(analysis::GateFailed(testing::Typed(strict)));
  CHECK(strict["summary"]["gate"] == json({{"fail_on", "error"}, {"fail_on_undecided", true}, {"failed", true}}));
  json hidden = Finalized(only_undecided, {.min_severity = rules::Severity::kError}, GateOptions{rules::Severity::kError, true});
  CHECK(hidden["images"][0]["findings"].empty());
  CHECK(hidden["summary"]["hidden"]["undecided"] == 2);
  CHECK(analysis::GateFailed(testing::Typed(hidden)));
  // JUnit follows the gate: undecided pools are failures under the strict gate.
  std::string xml = RenderJunit(Typed(strict));
  CHECK(xml.find("<failure message=\"undecided: cannot tell (IL002, IL007); --fail-on-undecided\"") !=
        std::string::npos);
  CHECK(xml.find("<skipped") == std::string::npos);
}

TEST_CASE("junit: with --fail-on warning the warn pool is a failure, as the exit code says") {
  json report = Finalized(SampleReport(), {}, GateOptions{rules::Severity::kWarning, false});
  CHECK(analysis::GateFailed(Typed(report)));
  std::string xml = RenderJunit(Typed(report));
  // build/app.tar: rtx3090 fails (804); before the suppression a100-535 warned (IL010).
  json unsuppressed = Finalized(SampleReport(), {}, GateOptions{rules::Severity::kWarning, false});
  CHECK(unsuppressed["images"][0]["verdicts"][1]["status"] == "warn");
  CHECK(unsuppressed["images"][0]["verdicts"][1]["gate"] == "fail");
  std::string with_warning = RenderJunit(Typed(unsuppressed));
  CHECK(with_warning.find("name=\"a100-535\">\n      <failure message=\"warn (--fail-on warning)\" type=\"fail\">warning "
                          "IL010:") != std::string::npos);
  CHECK(with_warning.find("<testsuite name=\"build/app.tar\" tests=\"3\" failures=\"2\"") != std::string::npos);
  // The default gate: the same pool passes.
  std::string by_default = RenderJunit(Typed(Finalized(SampleReport())));
  CHECK(by_default.find("<testsuite name=\"build/app.tar\" tests=\"3\" failures=\"1\"") != std::string::npos);
  CHECK(xml.find("failures=\"2\"") != std::string::npos);
}

}  // namespace
}  // namespace imagelint::report
