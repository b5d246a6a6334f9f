// The command line of the report engineer's parts: `rules`, `explain`, config
// and flag errors (exit 2 with file:line:column), and the exit codes of
// --fail-on / --min-severity / --format / --output on a real scan.
#include <filesystem>
#include <sstream>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "support/test_support.h"

namespace imagelint {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// A rule directory with two rules that always fire on any image, so exit
// codes do not depend on the built-in rules.
struct TestRules {
  testing::TempDir dir;
  TestRules() {
    fs::create_directories(dir / "rules");
    fs::create_directories(dir / "docs" / "rules");
    testing::WriteFileText(dir / "rules" / "test.yaml", R"(version: 1
rules:
  - id: T001
    name: always-warn
    title: Always warns
    summary: A test rule that fires on every image.
    severity: warning
    scope: image
    condition: "true"
    message: "always warns"
    fix: "nothing to fix"
    docs: docs/rules/T001.md
  - id: T002
    name: always-note
    title: Always notes
    summary: Another test rule.
    severity: note
    scope: image
    condition: "true"
    message: "always notes"
    docs: docs/rules/T002.md
)");
    testing::WriteFileText(dir / "docs" / "rules" / "T001.md", "# T001 always-warn\n\nFires on every image.\n");
    testing::WriteFileText(dir / "docs" / "rules" / "T002.md", "# T002 always-note\n");
    fs::create_directories(dir / "rootfs" / "etc");
    testing::WriteFileText(dir / "rootfs" / "etc" / "os-release", "ID=debian\n");
  }
  std::vector<std::string> Env() const {
    return {"IMAGELINT_RULES_DIR=" + (dir / "rules").string(), "IMAGELINT_DOCS_DIR=" + (dir / "docs").string(),
            "NO_COLOR=1", "XDG_CONFIG_HOME=" + (dir / "xdg").string()};
  }
};

testing::CommandResult RunCli(const TestRules& t, std::vector<std::string> args) {
  return testing::RunImagelint(args, "", t.Env());
}

TEST_CASE("imagelint rules: id, severity, scope, one-line summary") {
  TestRules t;
  auto result = RunCli(t, {"rules", "--no-config"});
  REQUIRE_MESSAGE(result.exit_code == 0, result.err);
  CHECK(result.out.find("T001   warning   image  Always warns") != std::string::npos);
  CHECK(result.out.find("T002   note      image  Always notes") != std::string::npos);
  std::istringstream lines(result.out);
  std::string line;
  while (std::getline(lines, line)) CHECK(line.size() <= 80);

  auto json_out = RunCli(t, {"rules", "--no-config", "--severity", "T001=error", "--disable", "T002", "--format", "json"});
  REQUIRE_MESSAGE(json_out.exit_code == 0, json_out.err);
  json list = json::parse(json_out.out);
  REQUIRE(list.size() == 2);
  CHECK(list[0]["severity"] == "error");
  CHECK(list[1]["enabled"] == false);

  auto unknown = RunCli(t, {"rules", "--no-config", "--severity", "T999=error"});
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.err.find("T999") != std::string::npos);
}

TEST_CASE("imagelint rules: the config file applies; its errors name file:line:column") {
  TestRules t;
  testing::WriteFileText(t.dir / "good.yaml", "severity:\n  T002: error\n");
  auto good = RunCli(t, {"rules", "--config", (t.dir / "good.yaml").string()});
  REQUIRE_MESSAGE(good.exit_code == 0, good.err);
  CHECK(good.out.find("T002   error") != std::string::npos);

  testing::WriteFileText(t.dir / "bad.yaml", "fleet: a.yaml\nfail_on: error\n");
  auto bad = RunCli(t, {"rules", "--config", (t.dir / "bad.yaml").string()});
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("bad.yaml:2:1: unknown setting 'fail_on'") != std::string::npos);

  auto missing = RunCli(t, {"rules", "--config", (t.dir / "absent.yaml").string()});
  CHECK(missing.exit_code == 2);
}

TEST_CASE("imagelint explain: prints the docs page, by id or name") {
  TestRules t;
  auto by_id = RunCli(t, {"explain", "T001", "--no-config"});
  REQUIRE_MESSAGE(by_id.exit_code == 0, by_id.err);
  CHECK(by_id.out == "# T001 always-warn\n\nFires on every image.\n");
  auto by_name = RunCli(t, {"explain", "always-warn", "--no-config"});
  CHECK(by_name.out == by_id.out);
  auto lower = RunCli(t, {"explain", "t001", "--no-config"});
  CHECK(lower.out == by_id.out);
  auto unknown = RunCli(t, {"explain", "T404", "--no-config"});
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.err.find("T404: no such rule") != std::string::npos);
  fs::remove(t.dir / "docs" / "rules" / "T002.md");
  auto undocumented = RunCli(t, {"explain", "T002", "--no-config"});
  CHECK(undocumented.exit_code == 2);
  CHECK(undocumented.err.find("no documentation page") != std::string::npos);
}

TEST_CASE("built-in rules: `imagelint explain` works for every listed rule") {
  auto list = testing::RunImagelint({"rules", "--no-config", "--format", "json"});
  REQUIRE_MESSAGE(list.exit_code == 0, list.err);
  for (const auto& rule : json::parse(list.out)) {
    auto page = testing::RunImagelint({"explain", rule["id"].get<std::string>(), "--no-config"});
    CHECK_MESSAGE(page.exit_code == 0, (rule["id"].get<std::string>() + ": " + page.err));
  }
}

TEST_CASE("scan: exit codes of --fail-on, --min-severity, --ignore, --format") {
  TestRules t;
  std::string rootfs = (t.dir / "rootfs").string();
  auto plain = RunCli(t, {"scan", rootfs, "--no-config", "--no-cache"});
  CHECK_MESSAGE(plain.exit_code == 0, plain.err);  // a warning and a note; --fail-on error
  CHECK(plain.out.find("T001") != std::string::npos);
  auto warn = RunCli(t, {"scan", rootfs, "--no-config", "--no-cache", "--fail-on", "warning"});
  CHECK(warn.exit_code == 1);
  // Hidden below --min-severity, still gating.
  auto hidden = RunCli(t, {"scan", rootfs, "--no-config", "--no-cache", "--fail-on", "note", "--min-severity", "error"});
  CHECK(hidden.exit_code == 1);
  CHECK(hidden.out.find("below --min-severity error") != std::string::npos);
  auto none = RunCli(t, {"scan", rootfs, "--no-config", "--no-cache", "--fail-on", "none"});
  CHECK(none.exit_code == 0);
  auto ignored = RunCli(t, {"scan", rootfs, "--no-config", "--no-cache", "--fail-on", "warning", "--ignore",
                         "T001=accepted in this test"});
  CHECK_MESSAGE(ignored.exit_code == 0, ignored.err);
  CHECK(ignored.out.find("1 suppressed") != std::string::npos);
  auto files = RunCli(t, {"scan", rootfs, "--no-config", "--no-cache", "--format",
                       "json=" + (t.dir / "r.json").string(), "--format", "sarif=" + (t.dir / "r.sarif").string(),
                       "--format", "junit"});
  CHECK_MESSAGE(files.exit_code == 0, files.err);
  CHECK(files.out.find("<testsuites") != std::string::npos);
  json report = json::parse(testing::ReadFileText(t.dir / "r.json"));
  CHECK(report["schema"] == "imagelint.report/v1");
  CHECK(report["summary"]["findings"]["warning"] == 1);
  json sarif = json::parse(testing::ReadFileText(t.dir / "r.sarif"));
  CHECK(sarif["runs"][0]["results"].size() == 2);
  // A typo in --ignore is an error, as the same typo in --severity is.
  auto typo = RunCli(t, {"scan", rootfs, "--no-config", "--no-cache", "--ignore", "T01=typo"});
  CHECK(typo.exit_code == 2);
  CHECK_MESSAGE(typo.err.find("--ignore: no rule named 'T01' (did you mean T001?)") != std::string::npos, typo.err);
  auto pages = RunCli(t, {"scan", rootfs, "--no-config", "--no-cache", "--format", "html=" + (t.dir / "r.html").string(),
                       "--format", "gitlab", "--fail-on-undecided"});
  CHECK_MESSAGE(pages.exit_code == 0, pages.err);
  CHECK(testing::ReadFileText(t.dir / "r.html").rfind("<!DOCTYPE html>", 0) == 0);
  json quality = json::parse(pages.out);
  REQUIRE(quality.is_array());
  CHECK(quality.size() == 2);
  auto two_stdout = RunCli(t, {"scan", rootfs, "--no-config", "--no-cache", "--format", "json", "--format", "text"});
  CHECK(two_stdout.exit_code == 2);
  auto bad_level = RunCli(t, {"scan", rootfs, "--no-config", "--no-cache", "--fail-on", "fatal"});
  CHECK(bad_level.exit_code == 2);
  testing::WriteFileText(t.dir / "strict.yaml", "fail-on: warning\n");
  auto from_config = RunCli(t, {"scan", rootfs, "--no-cache", "--config", (t.dir / "strict.yaml").string()});
  CHECK(from_config.exit_code == 1);
  auto flag_wins = RunCli(t, {"scan", rootfs, "--no-cache", "--config", (t.dir / "strict.yaml").string(), "--fail-on", "error"});
  CHECK(flag_wins.exit_code == 0);
}

TEST_CASE("--help documents every report flag with an example") {
  for (const char* command : {"rules", "explain"}) {
    auto help = testing::RunImagelint({command, "--help"});
    CHECK(help.exit_code == 0);
    CHECK(help.out.find("--config") != std::string::npos);
    CHECK(help.out.find("Example") != std::string::npos);
  }
}

}  // namespace
}  // namespace imagelint
