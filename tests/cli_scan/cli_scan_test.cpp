// `imagelint [scan]` end to end through the binary: facts files and (when the
// image module's builder is there) image tarballs, exit codes, formats.
#include <doctest/doctest.h>

#include "analysis/rules_fixture.h"
#include "support/test_support.h"

using imagelint::testing::ReadFileText;
using imagelint::testing::RunImagelint;
using imagelint::testing::TempDir;
using imagelint::testing::WriteFileText;
using imagelint::testing::rules_fixture::BaseFacts;
using nlohmann::json;

namespace {

const char* kFleet = R"(pools:
  - name: rtx3090-460
    gpu: NVIDIA GeForce RTX 3090
    driver: "460.67"
    container_toolkit: "1.4.0"
    runtime: docker-gpus
  - name: a100-460
    gpu: NVIDIA A100-SXM4-40GB
    driver: "460.32.03"
    container_toolkit: "1.4.0"
)";

}  // namespace

TEST_CASE("scan a facts file: text matrix, exit 1 on an error, --fail-on none") {
  TempDir dir;
  WriteFileText(dir / "seed.json", BaseFacts().dump());
  WriteFileText(dir / "fleet.yaml", kFleet);
  auto result = RunImagelint({(dir / "seed.json").string(), "--fleet", (dir / "fleet.yaml").string()});
  CHECK_MESSAGE(result.exit_code == 1, result.err);
  CHECK(result.out.find("IMAGE seed:11.3") != std::string::npos);
  CHECK(result.out.find("  rtx3090-460  fail     804 cudaErrorCompatNotSupportedOnDevice (cuInit)") !=
        std::string::npos);
  CHECK(result.out.find("  a100-460     pass     -") != std::string::npos);
  CHECK(result.out.find("error IL003 forward-compat-unsupported-gpu [rtx3090-460]") != std::string::npos);
  CHECK(result.out.find("  fix: Delete the compat library") != std::string::npos);
  size_t start = 0;
  while (start < result.out.size()) {
    size_t end = result.out.find('\n', start);
    if (end == std::string::npos) end = result.out.size();
    CHECK_MESSAGE(end - start <= 80, result.out.substr(start, end - start));
    start = end + 1;
  }
  auto none = RunImagelint({"scan", (dir / "seed.json").string(), "--fleet", (dir / "fleet.yaml").string(),
                            "--fail-on", "none"});
  CHECK(none.exit_code == 0);
}

TEST_CASE("scan --format json --output: the report schema; the fixed image passes") {
  TempDir dir;
  json fixed = BaseFacts();
  fixed["cuda"]["drivers"] = json::array();
  WriteFileText(dir / "fixed.json", fixed.dump());
  WriteFileText(dir / "seed.json", BaseFacts().dump());
  WriteFileText(dir / "fleet.yaml", kFleet);
  auto result = RunImagelint({"scan", (dir / "seed.json").string(), (dir / "fixed.json").string(), "--fleet",
                              (dir / "fleet.yaml").string(), "--format", "json", "--output",
                              (dir / "report.json").string()});
  CHECK_MESSAGE(result.exit_code == 1, result.err);
  json report = json::parse(ReadFileText(dir / "report.json"));
  CHECK(report["schema"] == "imagelint.report/v1");
  REQUIRE(report["images"].size() == 2);
  CHECK(report["images"][0]["verdicts"][0]["predicted_error"]["code"] == 804);
  CHECK(report["images"][1]["verdicts"][0]["predicted_error"].is_null());
  CHECK(report["images"][1]["verdicts"][0]["status"] == "warn");
  // Only the fixed image: warnings only, exit 0 with the default --fail-on error, 1 with warning.
  auto ok = RunImagelint({(dir / "fixed.json").string(), "--fleet", (dir / "fleet.yaml").string()});
  CHECK_MESSAGE(ok.exit_code == 0, ok.out << ok.err);
  auto strict = RunImagelint({(dir / "fixed.json").string(), "--fleet", (dir / "fleet.yaml").string(),
                              "--fail-on", "warning"});
  CHECK(strict.exit_code == 1);
}

TEST_CASE("scan: tool errors exit 2 with a message") {
  TempDir dir;
  WriteFileText(dir / "seed.json", BaseFacts().dump());
  WriteFileText(dir / "fleet.yaml", kFleet);
  auto missing = RunImagelint({(dir / "nope.tar").string(), "--fleet", (dir / "fleet.yaml").string()});
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find("imagelint: ") != std::string::npos);
  WriteFileText(dir / "bad-rules.yaml", "rules:\n  - id: X1\n    name: x\n    title: t\n    severity: error\n"
                                        "    scope: pool\n    condition: pool.driver = 1\n    message: m\n");
  auto bad_rules = RunImagelint({(dir / "seed.json").string(), "--fleet", (dir / "fleet.yaml").string(), "--rules",
                                 (dir / "bad-rules.yaml").string()});
  CHECK(bad_rules.exit_code == 2);
  CHECK(bad_rules.err.find("bad-rules.yaml:7:28: '=' is not an operator") != std::string::npos);
  WriteFileText(dir / "not-facts.json", "{\"hello\": 1}");
  auto not_facts = RunImagelint({(dir / "not-facts.json").string()});
  CHECK(not_facts.exit_code == 2);
  WriteFileText(dir / "bad-fleet.yaml", "pools:\n  - name: x\n");
  auto bad_fleet = RunImagelint({(dir / "seed.json").string(), "--fleet", (dir / "bad-fleet.yaml").string()});
  CHECK(bad_fleet.exit_code == 2);
}

TEST_CASE("scan --rules: a user rule file adds findings") {
  TempDir dir;
  WriteFileText(dir / "seed.json", BaseFacts().dump());
  WriteFileText(dir / "fleet.yaml", kFleet);
  WriteFileText(dir / "team.yaml", R"(rules:
  - id: TEAM001
    name: no-devel-images
    title: Devel images in production
    severity: warning
    scope: image
    condition: |
      any(l in image.layers: 'cuda-compat' in default(l.created_by, ''))
    message: "compat package installed by a layer"
)");
  auto result = RunImagelint({(dir / "seed.json").string(), "--rules", (dir / "team.yaml").string(), "--fail-on",
                              "warning"});
  CHECK(result.exit_code == 1);
  CHECK(result.out.find("warning TEAM001 no-devel-images [image]") != std::string::npos);
}

TEST_CASE("scan a Dockerfile: --build-arg (value or from the environment) and --target reach the prediction") {
  TempDir dir;
  WriteFileText(dir / "Dockerfile",
                "ARG CUDA=12.4.1\n"
                "FROM nvidia/cuda:${CUDA}-runtime-ubuntu22.04 AS app\n"
                "ENV APP=1\n"
                "FROM ubuntu:22.04 AS other\n"
                "RUN true\n");
  WriteFileText(dir / "fleet.yaml", kFleet);
  const std::string dockerfile = (dir / "Dockerfile").string(), fleet = (dir / "fleet.yaml").string();
  // The requirement string of the predicted base image, from IL001's evidence.
  auto requirement = [](const json& report) {
    for (const auto& finding : report["images"][0]["findings"]) {
      if (finding.dump().find("IL001") == std::string::npos) continue;
      return finding["evidence"][0]["detail"].get<std::string>();
    }
    return std::string();
  };
  auto scan = [&](std::vector<std::string> extra, std::vector<std::string> env = {}) {
    std::vector<std::string> args = {dockerfile, "--fleet", fleet, "--format", "json"};
    args.insert(args.end(), extra.begin(), extra.end());
    return RunImagelint(args, "", env);
  };

  auto defaults = scan({"--target", "app"});
  REQUIRE(defaults.exit_code == 1);  // CUDA 12.4 on 460 drivers: IL001
  json report = json::parse(defaults.out);
  CHECK(report["images"][0]["ref"] == dockerfile + "#app");
  CHECK(requirement(report).find("cuda>=12.4") != std::string::npos);

  auto overridden = scan({"--target", "app", "--build-arg", "CUDA=11.8.0"});
  REQUIRE(overridden.exit_code == 1);
  CHECK(requirement(json::parse(overridden.out)).find("cuda>=11.8") != std::string::npos);

  auto from_env = scan({"--target", "app", "--build-arg", "CUDA"}, {"CUDA=12.6.3"});
  REQUIRE(from_env.exit_code == 1);
  CHECK(requirement(json::parse(from_env.out)).find("cuda>=12.6") != std::string::npos);

  auto other = scan({"--target", "other"});  // the last stage (named like the file): no CUDA at all
  CHECK(json::parse(other.out)["images"][0]["ref"] == dockerfile);
  CHECK(requirement(json::parse(other.out)).empty());

  auto missing = scan({"--target", "nope"});
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find("target stage \"nope\" not found") != std::string::npos);
  auto malformed = scan({"--build-arg", "=x"});
  CHECK(malformed.exit_code == 2);
  CHECK(malformed.err == "imagelint: --build-arg: expected NAME=VALUE, got \"=x\"\n");
}
