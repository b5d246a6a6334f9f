// The Dockerfile gate end to end: Dockerfile facts through the built-in
// rules against a fleet with an arm64 pool and several launch paths.
#include <doctest/doctest.h>

#include "analysis/rules_fixture.h"
#include "dockerfile_fixture.h"
#include "support/checkout_knowledge.h"
#include "imagelint/dockerfile.h"

using namespace imagelint;
using imagelint::testing::rules_fixture::Findings;
using imagelint::testing::rules_fixture::Run;
using imagelint::testing::rules_fixture::TestKnowledge;
using imagelint::testing::rules_fixture::Verdict;
using nlohmann::json;

namespace {

const char* kGateFleet = R"(pools:
  - name: t4-r470
    gpu: Tesla T4
    driver: "470.256.02"
  - name: a100-r535-k8s
    gpu: NVIDIA A100-SXM4-80GB
    driver: "535.247.01"
    runtime: k8s-device-plugin
  - name: h100-r550-cdi
    gpu: NVIDIA H100 80GB HBM3
    driver: "550.163.01"
    runtime: cdi
  - name: gh200-r570-arm64
    gpu: NVIDIA GH200 480GB
    driver: "570.172.08"
    platform: linux/arm64
)";

json GateFacts(const std::string& text, dockerfile::DockerfileOptions options = {}) {
  options.knowledge = &TestKnowledge();
  auto analysis = dockerfile::AnalyzeDockerfileText(text, "Dockerfile", options);
  REQUIRE_MESSAGE(analysis.ok(), imagelint::testing::ErrorText(analysis));
  imagelint::testing::dockerfile_fixture::RecordFacts(analysis->facts);
  return analysis->facts;
}

void CheckClean(const json& report) {
  const json& image = report["images"][0];
  CHECK(image["status"] == "pass");
  for (const auto& verdict : image["verdicts"]) {
    CHECK(verdict["status"] == "pass");
    CHECK(verdict["undetermined"].empty());
  }
  REQUIRE(image["findings"].size() == 1);
  CHECK(image["findings"][0]["rule"] == "IL016");
  CHECK(image["findings"][0]["severity"] == "note");
}

}  // namespace

TEST_CASE("a Node service is not a GPU image: one note, every pool passes, the arm64 one too") {
  json facts = GateFacts("FROM node:20-alpine\nWORKDIR /app\nCOPY . .\nRUN npm ci\nCMD [\"node\", \"server.js\"]\n");
  CHECK(facts["gpu"]["workload"] == "none");
  CHECK(facts["gpu"]["signals"].empty());
  CHECK(facts["image"]["platform_source"] == "builder");
  CheckClean(Run({facts}, kGateFleet));
}

TEST_CASE("an opaque requirements file keeps a service plain, with the caveat named") {
  json facts = GateFacts("FROM python:3.11-slim\nCOPY requirements.txt .\nRUN pip install -r requirements.txt\n");
  CHECK(facts["gpu"]["workload"] == "none");
  REQUIRE(facts["gpu"].contains("caveats"));
  CHECK(facts["gpu"]["caveats"][0].get<std::string>().find("requirements.txt") != std::string::npos);
  CheckClean(Run({facts}, kGateFleet));
}

TEST_CASE("GPU evidence makes a GPU image: NVIDIA variables, CUDA bases, torch, ROCm") {
  CHECK(GateFacts("FROM ubuntu:22.04\nENV NVIDIA_VISIBLE_DEVICES=all\n")["gpu"]["workload"] == "nvidia");
  CHECK(GateFacts("FROM ubuntu:22.04\nENV NVIDIA_VISIBLE_DEVICES=void\n")["gpu"]["workload"] == "none");
  CHECK(GateFacts("FROM nvidia/cuda:12.4.1-base-ubuntu22.04\n")["gpu"]["workload"] == "nvidia");
  CHECK(GateFacts("FROM python:3.11\nRUN pip install torch==2.4.0\n")["gpu"]["workload"] == "nvidia");
  CHECK(GateFacts("FROM python:3.11\nRUN pip install torch==2.4.0 --index-url https://download.pytorch.org/whl/cpu\n")
            ["gpu"]["workload"] == "none");
  CHECK(GateFacts("FROM rocm/pytorch:rocm6.1_ubuntu22.04_py3.10_pytorch_2.1.2\n")["gpu"]["workload"] == "rocm");
  // An unresolved base is checked as a GPU image (it may be one).
  CHECK(GateFacts("ARG BASE\nFROM ${BASE}\n")["gpu"]["workload"] == "nvidia");
}

TEST_CASE("platform: a Dockerfile fixes it only with FROM --platform or --platform") {
  const char* cuda = "FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\n";
  json open = Run({GateFacts(cuda)}, kGateFleet);
  for (const auto& finding : Findings(open, 0, "IL013")) CHECK(finding["severity"] == "note");
  CHECK(Verdict(open, 0, "gh200-r570-arm64")["status"] != "fail");
  json pinned = Run({GateFacts("FROM --platform=linux/amd64 nvidia/cuda:12.4.1-runtime-ubuntu22.04\n")}, kGateFleet);
  REQUIRE(Findings(pinned, 0, "IL013").size() == 1);
  CHECK(Findings(pinned, 0, "IL013")[0]["severity"] == "error");
  CHECK(Verdict(pinned, 0, "gh200-r570-arm64")["status"] == "fail");
  dockerfile::DockerfileOptions explicit_platform;
  explicit_platform.platform_explicit = true;
  json flag = Run({GateFacts(cuda, explicit_platform)}, kGateFleet);
  REQUIRE(Findings(flag, 0, "IL013").size() == 1);
  CHECK(Findings(flag, 0, "IL013")[0]["severity"] == "error");
  // A build-platform stage does not fix the final image's platform.
  json go = Run({GateFacts("FROM --platform=$BUILDPLATFORM golang:1.22 AS build\nRUN go build -o /s .\n"
                       "FROM gcr.io/distroless/static-debian12\nCOPY --from=build /s /s\n")},
                kGateFleet);
  CHECK(Findings(go, 0, "IL013").empty());
}

TEST_CASE("TensorFlow's z-cuda-stubs.conf: the host driver comes first on every launch path, same severity") {
  json facts = GateFacts(
      "FROM nvidia/cuda:11.8.0-cudnn8-devel-ubuntu22.04\n"
      "RUN ln -s /usr/local/cuda/lib64/stubs/libcuda.so /usr/local/cuda/lib64/stubs/libcuda.so.1 \\\n"
      "    && echo \"/usr/local/cuda/lib64/stubs\" > /etc/ld.so.conf.d/z-cuda-stubs.conf && ldconfig\n");
  json report = Run({facts}, kGateFleet);
  json il005 = Findings(report, 0, "IL005");
  REQUIRE(il005.size() == 1);  // one finding: the same severity on every pool
  CHECK(il005[0]["severity"] == "warning");
  CHECK(il005[0]["pools"].size() == 4);
  for (const char* pool : {"t4-r470", "a100-r535-k8s", "h100-r550-cdi"}) {
    CAPTURE(pool);
    json verdict = Verdict(report, 0, pool);
    CHECK((verdict["predicted_error"].is_null() || verdict["predicted_error"]["rule"] != "IL005"));
  }
}

TEST_CASE("a stub directory in a conf file that sorts before 00-nvcr-*.conf wins on CDI paths only") {
  json facts = GateFacts(
      "FROM nvidia/cuda:11.8.0-cudnn8-devel-ubuntu22.04\n"
      "RUN ln -s /usr/local/cuda/lib64/stubs/libcuda.so /usr/local/cuda/lib64/stubs/libcuda.so.1 \\\n"
      "    && echo \"/usr/local/cuda/lib64/stubs\" > /etc/ld.so.conf.d/00-cuda-stubs.conf\n");
  json report = Run({facts}, kGateFleet);
  json legacy = Verdict(report, 0, "t4-r470");  // docker --gpus: the driver dirs are ldconfig arguments
  CHECK((legacy["predicted_error"].is_null() || legacy["predicted_error"]["rule"] != "IL005"));
  json cdi = Verdict(report, 0, "h100-r550-cdi");
  CHECK(cdi["status"] == "fail");
  REQUIRE(cdi["predicted_error"].is_object());
  CHECK(cdi["predicted_error"]["code"] == 34);
}

TEST_CASE("a built plain image: only the note and IL013 (its platform is a fact)") {
  facts::Facts image;
  image.image.ref = "registry.example.com/web:1";
  image.image.kind = "docker-archive";
  image.image.os = "linux";
  image.image.architecture = "amd64";
  image.image.env = {{"PATH", "/usr/local/bin:/usr/bin:/bin"}, {"NODE_VERSION", "20.11.0"}};
  image.gpu = facts::GpuFromFacts(image, imagelint::testing::CheckoutKnowledge().GpuSignals());
  CHECK(image.gpu->workload == "none");
  json report = imagelint::testing::rules_fixture::RunFacts({image}, kGateFleet);
  for (const char* pool : {"t4-r470", "a100-r535-k8s", "h100-r550-cdi"}) CHECK(Verdict(report, 0, pool)["status"] == "pass");
  json gh200 = Verdict(report, 0, "gh200-r570-arm64");
  CHECK(gh200["status"] == "fail");
  CHECK(gh200["predicted_error"]["name"] == "exec-format-error");
  CHECK(Findings(report, 0, "IL016").size() == 1);
  CHECK(report["images"][0]["findings"].size() == 2);
}

TEST_CASE("a GPU Dockerfile without a fixed platform: a note on the arm64 pool says what decides it") {
  json report = Run({GateFacts("FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\n")}, kGateFleet);
  json il013 = Findings(report, 0, "IL013");
  REQUIRE(il013.size() == 1);
  CHECK(il013[0]["severity"] == "note");
  CHECK(il013[0]["message"].get<std::string>().find("Pin FROM --platform") != std::string::npos);
  CHECK(Verdict(report, 0, "gh200-r570-arm64")["predicted_error"].is_null());
}
