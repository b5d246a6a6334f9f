// What the integrations read: GitHub annotations aggregated and
// capped, SARIF identities that survive new tags and digests, no link to a
// home imagelint does not have, GitLab's Code Quality shape, and a text
// report with one block per root cause.
#include <set>
#include <sstream>

#include <doctest/doctest.h>

#include "imagelint/analysis.h"
#include "imagelint/report.h"
#include "report/sample_report.h"
#include "report/util.h"
#include "support/test_support.h"

namespace imagelint::report {
namespace {

using testing::Finalized;
using nlohmann::json;
using testing::Typed;
using testing::SampleFinding;
using testing::SampleReport;

json Image(const std::string& ref, json findings, const std::vector<std::string>& pools) {
  json image = {{"ref", ref}, {"digest", ""}, {"findings", findings}, {"verdicts", json::array()}};
  for (const auto& pool : pools) image["verdicts"].push_back({{"pool", pool}});
  testing::Derive(image);
  return image;
}

json Report(json images) {
  json report = {{"schema", "imagelint.report/v1"}, {"rules", json::array()}, {"images", images}};
  return Finalized(report);
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

TEST_CASE("github: one annotation per rule and location, file-located first, at most 10 plus a count") {
  json line7 = json::array({{{"path", "usr/local/cuda/compat/libcuda.so.1"}, {"dockerfile_line", 7}}});
  json predicted = {{"code", 804}, {"name", "cudaErrorCompatNotSupportedOnDevice"}, {"stage", "cuInit"}};
  json images = json::array();
  // Three images from one Dockerfile: IL003 at line 7 on two pools each (16
  // annotations before, one per rule x pool x image).
  for (const std::string ref : {"app:1", "app-gpu:1", "app-train:1"}) {
    json findings = json::array();
    for (const std::string pool : {"rtx3090-460", "rtx4090-535"}) {
      findings.push_back(SampleFinding("IL003", "forward-compat-unsupported-gpu", "error",
                                       "compat libcuda on " + pool, json::array({pool}), line7, predicted));
    }
    images.push_back(Image(ref, findings, {"rtx3090-460", "rtx4090-535"}));
  }
  // Fourteen more rules without a file.
  json many = json::array();
  for (int i = 1; i <= 14; ++i) {
    std::string id = "T1" + std::string(i < 10 ? "0" : "") + std::to_string(i);
    many.push_back(SampleFinding(id, "rule-" + id, i % 2 ? "warning" : "error", "message " + id,
                                 json::array({"rtx3090-460"}), json::array()));
  }
  images.push_back(Image("other:2", many, {"rtx3090-460", "rtx4090-535"}));
  RenderOptions options;
  options.dockerfile = "Dockerfile";
  for (auto& image : images) image["dockerfile"] = "Dockerfile";
  auto lines = Lines(RenderGithub(Typed(Report(images)), options));
  REQUIRE(lines.size() == kGithubMaxAnnotations + 1);
  CHECK_MESSAGE(lines[0].rfind("::error file=Dockerfile,line=7,title=IL003 forward-compat-unsupported-gpu (app%3A1%2C "
                               "app-gpu%3A1 +1)::compat libcuda on rtx3090-460",
                               0) == 0,
                lines[0]);
  CHECK(lines[0].find("%0AImages and pools: app:1 (rtx3090-460, rtx4090-535); app-gpu:1 (rtx3090-460, rtx4090-535); "
                      "app-train:1 (rtx3090-460, rtx4090-535)") != std::string::npos);
  // Then by severity: the seven errors before the warnings.
  CHECK(lines[1].rfind("::error title=T102", 0) == 0);
  CHECK(lines[8].rfind("::warning title=T101", 0) == 0);
  CHECK(lines[10] ==
        "::notice title=imagelint::5 more annotations not shown (GitHub shows 10 per step); see the text, SARIF or "
        "HTML report");
  size_t il003 = 0;
  for (const auto& line : lines) il003 += line.find("title=IL003") != std::string::npos ? 1 : 0;
  CHECK(il003 == 1);
}

TEST_CASE("sarif identity: the same across tags and digests of one image, and across Dockerfile edits") {
  auto sarif_of = [](const std::string& ref, int line, const std::string& message) {
    json evidence = json::array({{{"detail", "ENV NVIDIA_REQUIRE_CUDA=cuda>=12.4"}, {"dockerfile_line", line}}});
    json finding = SampleFinding("IL001", "requirement-unsatisfied", "error", message, json::array({"old-470"}), evidence,
                                 json{{"code", 0}, {"name", "requirement-unsatisfied"}, {"stage", "container-start"}});
    json image = Image(ref, json::array({finding}), {"old-470"});
    image["dockerfile"] = "services/train/Dockerfile";
    return json::parse(RenderSarif(Typed(Report(json::array({image}))), {}));
  };
  json push1 = sarif_of("registry.example.com/team/train:3f2a1c9", 4, "needs CUDA 12.4; driver 470 has 11.4");
  json push2 = sarif_of("registry.example.com/team/train:8b7d0e1@sha256:" + std::string(64, 'e'), 9,
                        "needs CUDA 12.4 (reworded); driver 470 has 11.4");
  const json& run1 = push1["runs"][0];
  const json& run2 = push2["runs"][0];
  CHECK(run1["automationDetails"]["id"] == "imagelint/registry.example.com/team/train/");
  CHECK(run1["automationDetails"] == run2["automationDetails"]);
  CHECK(run1["results"][0]["partialFingerprints"] == run2["results"][0]["partialFingerprints"]);
  // The Dockerfile line moved: the location follows, the identity stays.
  CHECK(run2["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] == 9);
  // A registry port is part of the name, not a tag.
  json with_port = sarif_of("localhost:5000/team/train:1", 4, "m");
  CHECK(with_port["runs"][0]["automationDetails"]["id"] == "imagelint/localhost:5000/team/train/");
  // Another image, rule or pool is another identity.
  json other = sarif_of("registry.example.com/team/serve:3f2a1c9", 4, "m");
  CHECK(other["runs"][0]["results"][0]["partialFingerprints"] != run1["results"][0]["partialFingerprints"]);
  // A Dockerfile across runs: the base image's tag bumped and lines added
  // above the finding; the path (written with or without ./), rule, pool and
  // logical location are what identify it.
  auto dockerfile_run = [](const std::string& ref, const std::string& from, int line) {
    json evidence = json::array({{{"detail", "FROM " + from + " (linux/amd64)"}, {"dockerfile_line", line}}});
    json finding = SampleFinding("IL013", "platform-mismatch", "error", "linux/amd64 on linux/arm64",
                                 json::array({"gh200-arm64"}), evidence);
    json image = Image(ref, json::array({finding}), {"gh200-arm64"});
    return json::parse(RenderSarif(Typed(Report(json::array({image}))), {}))["runs"][0];
  };
  json monday = dockerfile_run("services/train/Dockerfile#app", "nvidia/cuda:12.4.1-runtime-ubuntu22.04", 3);
  json tuesday = dockerfile_run("./services/train/Dockerfile#app", "nvidia/cuda:12.6.3-runtime-ubuntu24.04", 11);
  CHECK(monday["automationDetails"]["id"] == "imagelint/services/train/Dockerfile#app/");
  CHECK(monday["automationDetails"] == tuesday["automationDetails"]);
  CHECK(monday["results"][0]["partialFingerprints"] == tuesday["results"][0]["partialFingerprints"]);
  json other_file = dockerfile_run("services/serve/Dockerfile#app", "nvidia/cuda:12.4.1-runtime-ubuntu22.04", 3);
  CHECK(other_file["results"][0]["partialFingerprints"] != monday["results"][0]["partialFingerprints"]);

  const analysis::ImageReport a = Typed(SampleReport()).images[0];
  analysis::ImageReport b = a;
  b.findings[0].pools = {"a100-535"};
  CHECK(FindingFingerprint(a, a.findings[0]) != FindingFingerprint(b, b.findings[0]));
}

TEST_CASE("no link points at a home imagelint does not have; --docs-url sets one") {
  json report = Finalized(SampleReport());
  auto rules = RulesFromReport(Typed(report));
  RenderOptions options;
  options.docs_dir = (testing::SourceDir() / "docs").string();
  for (Format format : {Format::kText, Format::kJson, Format::kSarif, Format::kJunit, Format::kGithub,
                        Format::kMarkdown, Format::kGitlab, Format::kHtml}) {
    std::string out = Render(Typed(report), format, rules, options);
    CHECK_MESSAGE(out.find("github.com/imagelint") == std::string::npos, FormatName(format));
    CHECK_MESSAGE(out.find("helpUri") == std::string::npos, FormatName(format));
  }
  json sarif = json::parse(RenderSarif(Typed(report), rules, options));
  const json& rule = sarif["runs"][0]["tool"]["driver"]["rules"][0];
  CHECK(rule["help"]["markdown"].get<std::string>().find("# IL003") == 0);  // the page itself, embedded
  CHECK(rule["help"]["text"].get<std::string>().find("IL003") == 0);
  CHECK(rule["help"]["text"].get<std::string>().find('`') == std::string::npos);

  options.docs_base_uri = "https://git.example.com/tools/imagelint/-/blob/main/";
  sarif = json::parse(RenderSarif(Typed(report), rules, options));
  CHECK(sarif["runs"][0]["tool"]["driver"]["rules"][0]["helpUri"] ==
        "https://git.example.com/tools/imagelint/-/blob/main/docs/rules/IL003.md");
  CHECK(RenderMarkdown(Typed(report), rules, options)
            .find("[IL003](https://git.example.com/tools/imagelint/-/blob/main/docs/rules/IL003.md)") !=
        std::string::npos);
  CHECK(RenderHtml(Typed(report), rules, options).find("href=\"https://git.example.com/tools/imagelint/-/blob/main/docs/rules/IL003.md\"") !=
        std::string::npos);

  // Nor do the project's own files (docs, rules, sources; examples/ are the
  // integrations' own and are checked with them).
  for (const auto& dir : {"docs", "src", "include", "rules"}) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(testing::SourceDir() / dir)) {
      if (!entry.is_regular_file()) continue;
      CHECK_MESSAGE(testing::ReadFileText(entry.path()).find("github.com/imagelint/imagelint") == std::string::npos,
                    entry.path().string());
    }
  }
  CHECK(testing::ReadFileText(testing::SourceDir() / "README.md").find("github.com/imagelint/imagelint") ==
        std::string::npos);
}

bool HaveJsonschemaModule() {
  return testing::RunCommand({"python3", "-c", "import jsonschema"}, "", 60).exit_code == 0;
}

TEST_CASE("gitlab: GitLab's Code Quality shape") {
  json report = Finalized(SampleReport());
  RenderOptions options;
  options.dockerfile = "./docker/Dockerfile";
  json issues = json::parse(RenderGitlab(Typed(report), options));
  REQUIRE(issues.is_array());
  REQUIRE(issues.size() == 4);  // every shown finding
  std::set<std::string> fingerprints;
  for (const auto& issue : issues) {
    CHECK_FALSE(issue["description"].get<std::string>().empty());
    CHECK_FALSE(issue["check_name"].get<std::string>().empty());
    fingerprints.insert(issue["fingerprint"].get<std::string>());
    std::string severity = issue["severity"];
    CHECK(std::set<std::string>{"info", "minor", "major", "critical", "blocker"}.count(severity) == 1);
    CHECK(issue["location"]["path"].is_string());
    CHECK(issue["location"]["lines"]["begin"].get<int>() >= 1);
  }
  CHECK(fingerprints.size() == issues.size());  // GitLab keeps one issue per fingerprint
  CHECK(issues[0]["check_name"] == "IL003");
  CHECK(issues[0]["severity"] == "critical");
  CHECK(issues[0]["location"]["path"] == "docker/Dockerfile");
  CHECK(issues[0]["location"]["lines"]["begin"] == 7);
  CHECK(issues[1]["severity"] == "major");
  // Two tags of one image: still one issue each.
  json twice = SampleReport();
  twice["images"][1] = twice["images"][0];
  twice["images"][1]["ref"] = "build/app-v2.tar";
  twice["images"][0]["ref"] = "registry.example.com/app:1";
  twice["images"][1]["ref"] = "registry.example.com/app:2";
  json both = json::parse(RenderGitlab(Typed(Finalized(twice)), options));
  std::set<std::string> distinct;
  for (const auto& issue : both) distinct.insert(issue["fingerprint"].get<std::string>());
  CHECK(distinct.size() == both.size());

  // And against a JSON schema of the documented format.
  if (!testing::NeedExternal("python3-jsonschema", HaveJsonschemaModule(), "validates the GitLab report's shape")) return;
  testing::TempDir dir;
  testing::WriteFileText(dir / "gl.json", RenderGitlab(Typed(report), options));
  const char* script =
      "import json, sys, jsonschema\n"
      "jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))\n"
      "print('valid')\n";
  auto result = testing::RunCommand(
      {"python3", "-c", script, (testing::SourceDir() / "tests/report/gitlab-codequality.schema.json").string(),
       (dir / "gl.json").string()},
      "", 120);
  CHECK_MESSAGE(result.exit_code == 0, (result.out + result.err));
}

TEST_CASE("text: one block per root cause, long requirement lists shortened, the terminal's width") {
  std::string requirement = "cuda>=12.4";
  for (int branch : {470, 525, 535}) {
    for (const std::string brand : {"tesla", "unknown", "nvidia", "nvidiartx", "geforce", "geforcertx", "quadro",
                                    "quadrortx", "titan", "titanrtx"})
      requirement += " brand=" + brand + ",driver>=" + std::to_string(branch) + ",driver<" + std::to_string(branch + 1);
  }
  json evidence = json::array({{{"detail", "ENV NVIDIA_REQUIRE_CUDA=" + requirement}}});
  json predicted = {{"code", 0}, {"name", "requirement-unsatisfied"}, {"stage", "container-start"}};
  json findings = json::array();
  for (const std::string pool : {"rtx3090-460", "a100-460", "v100-450"}) {
    json finding = SampleFinding("IL001", "requirement-unsatisfied", "error",
                                 "On " + pool + " the container does not start: unsatisfied condition: cuda>=12.4",
                                 json::array({pool}), evidence, predicted);
    finding["fix"] = "Upgrade the driver of " + pool + " to one that satisfies \"" + requirement + "\".";
    findings.push_back(finding);
  }
  json report = Report(json::array({Image("app:1", findings, {"rtx3090-460", "a100-460", "v100-450", "h100-550"})}));
  std::string text = RenderText(Typed(report));
  size_t blocks = 0;
  for (size_t at = text.find("error IL001"); at != std::string::npos; at = text.find("error IL001", at + 1)) ++blocks;
  CHECK(blocks == 1);
  CHECK(text.find("error IL001 requirement-unsatisfied [rtx3090-460, a100-460, v100-450]") != std::string::npos);
  CHECK(text.find("(shown for rtx3090-460; the same cause on a100-460, v100-450)") != std::string::npos);
  CHECK(text.find("evidence: ENV NVIDIA_REQUIRE_CUDA=cuda>=12.4 … 30 more clauses") != std::string::npos);
  std::string unwrapped;
  for (const auto& line : Lines(text)) unwrapped += " " + line.substr(line.find_first_not_of(' ') == std::string::npos ? 0 : line.find_first_not_of(' '));
  CHECK_MESSAGE(unwrapped.find("satisfies \"cuda>=12.4 … 30 more clauses\".") != std::string::npos, text);
  CHECK(text.find("brand=tesla") == std::string::npos);
  // The heading counts findings, as the summary line does, and names the one root cause.
  CHECK(text.find("ERRORS (3 findings, 1 root cause)\n") != std::string::npos);

  RenderOptions wide;
  wide.width = 140;
  std::string wide_text = RenderText(Typed(report), wide);
  size_t longest = 0;
  for (const auto& line : Lines(wide_text)) {
    size_t columns = 0;
    for (unsigned char c : line) columns += (c & 0xC0) != 0x80;
    longest = std::max(longest, columns);
    CHECK(columns <= 140);
  }
  CHECK(longest > 80);
  CHECK(Lines(wide_text).size() < Lines(text).size());
  // The shortening keeps what decides: a clause the message names.
  CHECK(internal::ShortenRequirements("NVIDIA_REQUIRE_CUDA=" + requirement, "needs brand=geforce,driver>=535,driver<536") ==
        "NVIDIA_REQUIRE_CUDA=cuda>=12.4 brand=geforce,driver>=535,driver<536 … 29 more clauses");
  CHECK(internal::ShortenRequirements("cuda>=12.4 driver>=450", "") == "cuda>=12.4 driver>=450");
}

}  // namespace
}  // namespace imagelint::report
