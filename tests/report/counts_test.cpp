// One scan, every format: the numbers each prints (verdicts by status,
// findings by kind) are the same numbers, the JSON report's summary. Several
// Dockerfiles against the example fleet of seven pools, so that verdicts are
// undecided, failing and passing, and findings share root causes.
#include <regex>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "support/test_support.h"

namespace imagelint {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

int64_t Match(const std::string& text, const std::string& pattern, int group = 1) {
  std::smatch match;
  if (!std::regex_search(text, match, std::regex(pattern)) || !match[group].matched) return 0;
  return std::stoll(match[group].str());
}

// The sum of every "(N" after a heading, over all images: "ERRORS (5 findings, 4 root causes)".
int64_t HeadingTotal(const std::string& text, const std::string& heading) {
  int64_t total = 0;
  std::regex pattern("\n" + heading + " \\((\\d+)");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), pattern); it != std::sregex_iterator(); ++it)
    total += std::stoll((*it)[1].str());
  return total;
}

// Wrapped lines joined back ("...; 1 error, 2\n  undecided" -> "...; 1 error, 2 undecided").
std::string Unwrapped(std::string text) {
  for (size_t at = text.find("\n  "); at != std::string::npos; at = text.find("\n  ", at)) text.replace(at, 3, " ");
  return text;
}

}  // namespace

TEST_CASE("counts: text, Markdown, JUnit, SARIF, GitLab and the summary line agree with the JSON summary") {
  testing::TempDir dir;
  // A CUDA 12.4 runtime: fails the old-driver pools; an unknown base: undecided;
  // a base from the knowledge tables with an old toolkit.
  testing::WriteFileText(dir / "new.Dockerfile", "FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\nCMD [\"python3\"]\n");
  // (a GPU image by its NVIDIA_* variable; without it the unknown base is a plain service)
  testing::WriteFileText(dir / "unknown.Dockerfile",
                         "FROM registry.example.com/ml/base:2024.06\nENV NVIDIA_VISIBLE_DEVICES=all\nCMD [\"train\"]\n");
  testing::WriteFileText(dir / "old.Dockerfile", "FROM nvidia/cuda:11.4.3-runtime-ubuntu20.04\n");
  std::vector<std::string> args = {(dir / "new.Dockerfile").string(), (dir / "unknown.Dockerfile").string(),
                                    (dir / "old.Dockerfile").string(), "--fleet",
                                    (testing::SourceDir() / "examples/fleet.yaml").string(), "--no-config",
                                    "--no-cache", "--color", "never"};
  for (const char* format : {"json", "text", "markdown", "junit", "sarif", "gitlab"})
    args.push_back(std::string("--format=") + format + "=" + (dir / (std::string("report.") + format)).string());
  auto scan = testing::RunImagelint(args);
  REQUIRE_MESSAGE((scan.exit_code == 0 || scan.exit_code == 1), scan.err);

  json report = json::parse(testing::ReadFileText(dir / "report.json"));
  const json& verdicts = report["summary"]["verdicts"];
  const json& findings = report["summary"]["findings"];
  const int64_t fail = verdicts["fail"], undecided = verdicts["undecided"], warn = verdicts["warn"],
                pass = verdicts["pass"];
  const int64_t cells = fail + undecided + warn + pass;
  const int64_t errors = findings["error"], warnings = findings["warning"], notes = findings["note"],
                undecided_findings = findings["undecided"];
  const int64_t total_findings = errors + warnings + notes + undecided_findings;
  // The scan is the one the test means: every status and kind is there.
  REQUIRE(cells == 3 * static_cast<int64_t>(report["fleet"]["pools"].size()));
  REQUIRE(fail > 0);
  REQUIRE(undecided > 0);
  REQUIRE(pass + warn > 0);
  REQUIRE(errors > 0);
  REQUIRE(undecided_findings > 0);
  int64_t listed = 0, verdict_rows = 0;
  for (const auto& image : report["images"]) {
    listed += static_cast<int64_t>(image["findings"].size());
    verdict_rows += static_cast<int64_t>(image["verdicts"].size());
  }
  CHECK(listed == total_findings);
  CHECK(verdict_rows == cells);

  SUBCASE("text: the summary line and the headings") {
    std::string text = testing::ReadFileText(dir / "report.text");
    CAPTURE(text);
    std::string line = Unwrapped(text.substr(text.rfind("\nimagelint: ") + 1));
    CHECK(Match(line, "(\\d+) fail, ") == fail);
    CHECK(Match(line, "fail, (\\d+) undecided, ") == undecided);
    CHECK(Match(line, "(\\d+) warn, ") == warn);
    CHECK(Match(line, "(\\d+) pass; ") == pass);
    CHECK(Match(line, "(\\d+) errors?, ") == errors);
    CHECK(Match(line, "errors?, (\\d+) undecided, ") == undecided_findings);
    CHECK(Match(line, "(\\d+) warnings?, ") == warnings);
    CHECK(Match(line, "(\\d+) notes?;") == notes);
    CHECK(HeadingTotal(text, "ERRORS") == errors);
    CHECK(HeadingTotal(text, "UNDECIDED") == undecided_findings);
    CHECK(HeadingTotal(text, "WARNINGS") == warnings);
    CHECK(HeadingTotal(text, "NOTES") == notes);
  }
  SUBCASE("Markdown: the heading and the findings line") {
    std::string md = testing::ReadFileText(dir / "report.markdown");
    CAPTURE(md);
    CHECK(Match(md, "### imagelint: (\\d+) of \\d+ image × pool combinations fail") == fail);
    CHECK(Match(md, "### imagelint: \\d+ of (\\d+) image × pool combinations fail") == cells);
    CHECK(Match(md, "combinations fail, (\\d+) undecided") == undecided);
    CHECK(Match(md, "\\*\\*Findings\\*\\*: (\\d+) errors?") == errors);
    CHECK(Match(md, "\\*\\*Findings\\*\\*: \\d+ errors?, (\\d+) undecided") == undecided_findings);
    CHECK(Match(md, "(\\d+) warnings?, \\d+ notes?") == warnings);
    CHECK(Match(md, "warnings?, (\\d+) notes?") == notes);
  }
  SUBCASE("JUnit: one test per image and pool, failures the failing pools, skipped the undecided ones") {
    std::string xml = testing::ReadFileText(dir / "report.junit");
    CHECK(Match(xml, "<testsuites [^>]*tests=\"(\\d+)\"") == cells);
    CHECK(Match(xml, "<testsuites [^>]*failures=\"(\\d+)\"") == fail);
    CHECK(Match(xml, "<testsuites [^>]*skipped=\"(\\d+)\"") == undecided);
  }
  SUBCASE("SARIF and GitLab: one result per finding") {
    json sarif = json::parse(testing::ReadFileText(dir / "report.sarif"));
    int64_t results = 0;
    for (const auto& result : sarif["runs"][0]["results"]) results += result.contains("suppressions") ? 0 : 1;
    CHECK(results == total_findings);
    json gitlab = json::parse(testing::ReadFileText(dir / "report.gitlab"));
    CHECK(static_cast<int64_t>(gitlab.size()) == total_findings);
  }
}

}  // namespace imagelint
