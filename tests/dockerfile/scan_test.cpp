// End to end: Dockerfile facts through the built-in rules (rules/cuda.yaml),
// the real knowledge files and a fleet — the verdicts a pull request gets.
#include <doctest/doctest.h>

#include "analysis/rules_fixture.h"
#include "dockerfile_fixture.h"
#include "imagelint/dockerfile.h"
#include "imagelint/report.h"
#include "report/sample_report.h"
#include "support/test_support.h"

using namespace imagelint;
using imagelint::testing::rules_fixture::Findings;
using imagelint::testing::rules_fixture::Run;
using imagelint::testing::rules_fixture::TestKnowledge;
using imagelint::testing::rules_fixture::Verdict;
using nlohmann::json;

namespace {

const char* kScanFleet = R"(pools:
  - name: rtx3090-460
    gpu: NVIDIA GeForce RTX 3090
    driver: "460.67"
    container_toolkit: "1.4.0"
    runtime: docker-gpus
  - name: a100-460
    gpu: NVIDIA A100-SXM4-40GB
    driver: "460.32.03"
    container_toolkit: "1.4.0"
    runtime: docker-gpus
  - name: rtx4090-535
    gpu: NVIDIA GeForce RTX 4090
    driver: "535.104.05"
    container_toolkit: "1.13.5"
    runtime: docker-gpus
)";

json ScanFacts(const std::string& text) {
  dockerfile::DockerfileOptions options;
  options.knowledge = &TestKnowledge();
  auto analysis = dockerfile::AnalyzeDockerfileText(text, "Dockerfile", options);
  REQUIRE_MESSAGE(analysis.ok(), imagelint::testing::ErrorText(analysis));
  imagelint::testing::dockerfile_fixture::RecordFacts(analysis->facts);
  return analysis->facts;
}

const char* kTrap =
    "FROM nvidia/cuda:11.3.0-cudnn8-devel-ubuntu20.04\n"
    "RUN pip install torch==1.12.1+cu113 --extra-index-url https://download.pytorch.org/whl/cu113\n";

}  // namespace

TEST_CASE("compat trap from a Dockerfile: 804 on the GeForce pool, evidence at the FROM line") {
  json report = Run({ScanFacts(kTrap)}, kScanFleet);
  json geforce = Verdict(report, 0, "rtx3090-460");
  CHECK(geforce["status"] == "fail");
  REQUIRE(geforce["predicted_error"].is_object());
  CHECK(geforce["predicted_error"]["code"] == 804);
  json il003 = Findings(report, 0, "IL003");
  REQUIRE(il003.size() == 1);
  REQUIRE(il003[0]["evidence"].size() >= 1);
  CHECK(il003[0]["evidence"][0]["path"] == "/usr/local/cuda-11.3/compat/libcuda.so.465.19.01");
  CHECK(il003[0]["evidence"][0]["dockerfile_line"] == 1);
  CHECK(Verdict(report, 0, "a100-460")["status"] != "fail");
}

TEST_CASE("the fix in the Dockerfile (rm -rf the compat directory) clears the 804") {
  json report = Run({ScanFacts(std::string(kTrap) + "RUN rm -rf /usr/local/cuda/compat\n")}, kScanFleet);
  json geforce = Verdict(report, 0, "rtx3090-460");
  CHECK(geforce["status"] != "fail");
  CHECK(geforce["predicted_error"].is_null());
  CHECK(Findings(report, 0, "IL003").empty());
}

TEST_CASE("torch 1.12.1 from PyPI (cu102, sm_37..sm_70) on an A100: no kernel image (209) at the RUN line") {
  json report = Run({ScanFacts("FROM nvidia/cuda:10.2-base-ubuntu18.04\n"
                           "RUN apt-get update && apt-get install -y python3-pip\n"
                           "RUN pip3 install torch==1.12.1\n")},
                    kScanFleet);
  json a100 = Verdict(report, 0, "a100-460");
  CHECK(a100["status"] == "fail");
  REQUIRE(a100["predicted_error"].is_object());
  CHECK(a100["predicted_error"]["code"] == 209);
  json il007 = Findings(report, 0, "IL007");
  REQUIRE(il007.size() >= 1);
  CHECK(il007[0]["evidence"][0]["dockerfile_line"] == 3);
}

// nvidia/cuda 13.4.1: its cudart and compat package are recorded, its
// NVIDIA_REQUIRE_CUDA brand clauses are not (require_unread). The start check
// is then undecided, never the legacy CUDA_VERSION rule the missing variable
// would mean; later-stage failures still decide a pool.
TEST_CASE("a base whose NVIDIA_REQUIRE_CUDA is not recorded: the start check is undecided, not guessed") {
  json facts = ScanFacts("FROM nvidia/cuda:13.4.1-runtime-ubuntu24.04\n");
  CHECK(facts["cuda"]["requirements"]["complete"] == false);
  CHECK_FALSE(facts["image"]["env"].contains("NVIDIA_REQUIRE_CUDA"));
  CHECK(facts["image"]["env"]["CUDA_VERSION"] == "13.4.1");
  CHECK_FALSE(facts["cuda"]["requirements"].contains("legacy"));
  const char* fleet = R"(pools:
  - name: h100-590
    gpu: NVIDIA H100 80GB HBM3
    driver: "590.48.01"
    container_toolkit: "1.17.4"
    runtime: docker-gpus
  - name: rtx3090-460
    gpu: NVIDIA GeForce RTX 3090
    driver: "460.67"
    container_toolkit: "1.4.0"
    runtime: docker-gpus
)";
  json report = Run({facts}, fleet);
  // Only the requirement could fail on h100-590 (R590 < the 13.4 branch; the compat package runs there).
  json h100 = Verdict(report, 0, "h100-590");
  CHECK(h100["status"] == "undecided");
  for (const json& finding : Findings(report, 0, "IL001")) {
    CAPTURE(finding.dump());
    CHECK(finding["unknown"] == true);
  }
  // The 804 of the compat package on a GeForce pool is certain whatever the requirement says.
  CHECK(Verdict(report, 0, "rtx3090-460")["status"] == "fail");
  // A recorded requirement is still checked: 13.3.1 lists no R460 clause.
  json recorded = Run({ScanFacts("FROM nvidia/cuda:13.3.1-runtime-ubuntu24.04\n")}, fleet);
  REQUIRE_FALSE(Findings(recorded, 0, "IL001").empty());
  CHECK(Findings(recorded, 0, "IL001")[0]["severity"] == "error");
}

TEST_CASE("a base whose CUDA release is only bounded below: 35 where every release of the range fails, else undecided") {
  json facts = ScanFacts("FROM vllm/vllm-openai:latest\nCMD [\"python3\", \"-m\", \"vllm.entrypoints.openai.api_server\"]\n");
  json report = Run({facts}, kScanFleet);
  // GeForce on R460: below CUDA 12's floor, and no compat library helps a GeForce GPU.
  json geforce = Verdict(report, 0, "rtx3090-460");
  CHECK(geforce["status"] == "fail");
  CHECK(geforce["predicted_error"]["code"] == 35);
  auto il002 = Findings(report, 0, "IL002");
  REQUIRE_FALSE(il002.empty());
  CHECK(il002[0]["message"].get<std::string>().find("CUDA 12.1 or later") != std::string::npos);
  // A100 on R460: a compat library of the unknown image could make it run.
  CHECK(Verdict(report, 0, "a100-460")["status"] == "undecided");
  // GeForce on R535 meets CUDA 12's floor but not 13's: cannot tell.
  CHECK(Verdict(report, 0, "rtx4090-535")["status"] == "undecided");
}

TEST_CASE("an unknown base gives no verdict of failure from missing facts") {
  json report = Run({ScanFacts("FROM python:3.11-slim\nRUN pip install numpy\n")}, kScanFleet);
  for (const char* pool : {"rtx3090-460", "a100-460", "rtx4090-535"}) {
    CAPTURE(pool);
    CHECK(Verdict(report, 0, pool)["predicted_error"].is_null());
  }
}

TEST_CASE("golden SARIF of a Dockerfile scan: results point at Dockerfile lines") {
  auto analysis = dockerfile::AnalyzeDockerfileText(
      std::string(kTrap) + "# imagelint ignore=IL010 minor-version compatibility is fine here\nRUN true\n",
      "services/train/Dockerfile", [] {
        dockerfile::DockerfileOptions o;
        o.knowledge = &TestKnowledge();
        return o;
      }());
  REQUIRE(analysis.ok());
  auto wheel = dockerfile::AnalyzeDockerfileText(
      "FROM nvidia/cuda:10.2-base-ubuntu18.04\nRUN apt-get update && apt-get install -y python3-pip\n"
      "RUN pip3 install torch==1.12.1\n",
      "services/infer/Dockerfile", [] {
        dockerfile::DockerfileOptions o;
        o.knowledge = &TestKnowledge();
        return o;
      }());
  REQUIRE(wheel.ok());
  imagelint::testing::dockerfile_fixture::RecordFacts(analysis->facts);
  imagelint::testing::dockerfile_fixture::RecordFacts(wheel->facts);
  // Many Dockerfiles, one report: each image entry names its Dockerfile (as
  // the scan command does), so locations point into the right file.
  json report = Run({analysis->facts, wheel->facts}, kScanFleet);
  report["images"][0]["dockerfile"] = "services/train/Dockerfile";
  report["images"][1]["dockerfile"] = "services/infer/Dockerfile";
  report = testing::Finalized(report);
  report::RenderOptions options;
  options.docs_dir = "/nonexistent";  // keep rule docs text out of the golden
  json sarif = json::parse(report::RenderSarif(testing::Typed(report), report::RulesFromReport(testing::Typed(report)), options));
  REQUIRE(sarif["runs"].size() == 1);
  json results = json::array();
  for (const auto& result : sarif["runs"][0]["results"]) {
    json slim = {{"ruleId", result.value("ruleId", "")}, {"level", result.value("level", "")}};
    json lines = json::array();
    for (const auto& location : result.value("locations", json::array())) {
      const json& physical = location.value("physicalLocation", json::object());
      if (!physical.contains("region")) continue;
      lines.push_back(physical["artifactLocation"].value("uri", "") + ":" +
                      std::to_string(physical["region"].value("startLine", 0)));
    }
    slim["locations"] = lines;
    results.push_back(slim);
  }
  // Every result of this Dockerfile has a line in it.
  for (const auto& result : results) CHECK_FALSE(result["locations"].empty());
  imagelint::testing::CheckGolden("dockerfile/golden/compat-trap.sarif-results.json", results.dump(2) + "\n");
}

TEST_CASE("imagelint scan applies inline `# imagelint ignore=` comments and counts them") {
  imagelint::testing::TempDir dir;
  imagelint::testing::WriteFileText(dir / "fleet.yaml", kScanFleet);
  imagelint::testing::WriteFileText(dir / "Dockerfile", kTrap);
  imagelint::testing::WriteFileText(
      dir / "suppressed" / "Dockerfile",
      std::string("# imagelint ignore=IL003 GeForce pool is being retired this week\n") + kTrap);
  std::vector<std::string> env = {"XDG_CONFIG_HOME=" + (dir / "xdg").string()};

  auto plain = imagelint::testing::RunImagelint(
      {(dir / "Dockerfile").string(), "--fleet", (dir / "fleet.yaml").string(), "--no-config", "--format", "json"}, "",
      env);
  INFO(plain.err);
  CHECK(plain.exit_code == 1);

  auto suppressed = imagelint::testing::RunImagelint({(dir / "suppressed" / "Dockerfile").string(), "--fleet",
                                                      (dir / "fleet.yaml").string(), "--no-config", "--format", "json"},
                                                     "", env);
  INFO(suppressed.err);
  CHECK(suppressed.exit_code == 0);
  json report = json::parse(suppressed.out);
  REQUIRE(report["images"].size() == 1);
  bool il003_suppressed = false;
  for (const auto& finding : report["images"][0].value("suppressed", json::array()))
    il003_suppressed = il003_suppressed || finding.value("rule", "") == "IL003";
  CHECK(il003_suppressed);
  for (const auto& finding : report["images"][0]["findings"]) CHECK(finding.value("rule", "") != "IL003");

  auto ignored = imagelint::testing::RunImagelint(
      {(dir / "suppressed" / "Dockerfile").string(), "--fleet", (dir / "fleet.yaml").string(), "--no-config",
       "--no-inline-ignores", "--format", "json"},
      "", env);
  CHECK(ignored.exit_code == 1);
}
