// Versions as pip resolves them against the knowledge tables (PEP 440
// specifiers, companion pins, index variants), stated as assumptions; the
// knowledge rows behind old torch builds and Jetson bases; reading RUNs under
// a conda SHELL and CUDA meta-packages from apt.
#include <doctest/doctest.h>

#include "analysis/rules_fixture.h"
#include "dockerfile/resolve.h"
#include "dockerfile_fixture.h"

using nlohmann::json;
using namespace imagelint::dockerfile;
using imagelint::testing::dockerfile_fixture::Facts;
using imagelint::testing::dockerfile_fixture::Find;
using imagelint::testing::rules_fixture::Findings;
using imagelint::testing::rules_fixture::Run;
using imagelint::testing::rules_fixture::Verdict;

namespace {

const char* kResolveFleet = R"(pools:
  - name: rtx3090-r470
    gpu: NVIDIA GeForce RTX 3090
    driver: "470.256.02"
  - name: a100-r535
    gpu: NVIDIA A100-SXM4-80GB
    driver: "535.247.01"
  - name: h100-r550
    gpu: NVIDIA H100 80GB HBM3
    driver: "550.163.01"
  - name: gh200-r570-arm64
    gpu: NVIDIA GH200 480GB
    driver: "570.172.08"
    platform: linux/arm64
  - name: rtx5090-r570
    gpu: NVIDIA GeForce RTX 5090
    driver: "570.172.08"
)";

const json& Torch(const json& facts) {
  const json* torch = Find(facts["frameworks"], "name", "torch");
  REQUIRE_MESSAGE(torch != nullptr, facts["frameworks"].dump());
  return *torch;
}

}  // namespace

TEST_CASE("PEP 440 specifiers against release series") {
  CHECK(SeriesSatisfies("1.13", "~=1.8") == true);
  CHECK(SeriesSatisfies("2.0", "~=1.8") == false);
  CHECK(SeriesSatisfies("1.8", "~=1.8.0") == true);
  CHECK(SeriesSatisfies("1.9", "~=1.8.0") == false);
  CHECK(SeriesSatisfies("2.2", ">=2.1,<2.3") == true);
  CHECK(SeriesSatisfies("2.3", ">=2.1,<2.3") == false);
  CHECK(SeriesSatisfies("2.1", ">=2.1.5") == true);  // 2.1.5+ are in the series
  CHECK(SeriesSatisfies("2.1", "==2.1.*") == true);
  CHECK(SeriesSatisfies("2.10", "==2.1.*") == false);
  CHECK(SeriesSatisfies("2.2", "!=2.2.*") == false);
  CHECK(SeriesSatisfies("2.4", "") == true);
  CHECK_FALSE(SeriesSatisfies("2.4", "===2.4.0").has_value());  // arbitrary equality: not assumed
}

TEST_CASE("unpinned torch from a cu126 index on a 12.4 runtime: decided with the stated assumption, no crash") {
  json facts = Facts("FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\n"
                     "RUN pip install torch --index-url https://download.pytorch.org/whl/cu126\n");
  const json& torch = Torch(facts);
  CHECK(torch["variant"] == "cu126");
  CHECK(torch["cuda"] == "12.6");
  REQUIRE(torch.contains("version_assumed"));
  std::string why = torch["version_assumed"];
  CHECK(why.find("torch is not pinned: assumed torch " + torch["version"].get<std::string>()) == 0);
  CHECK(why.find("pin it") != std::string::npos);
  json report = Run({facts}, kResolveFleet);
  json assumed = Findings(report, 0, "IL017");
  REQUIRE(assumed.size() == 1);
  CHECK(assumed[0]["evidence"][0]["dockerfile_line"] == 2);
  CHECK(Verdict(report, 0, "rtx3090-r470")["status"] == "fail");
  CHECK(Verdict(report, 0, "a100-r535")["status"] != "fail");  // 12.6 on R535: minor-version compatibility
  CHECK(Verdict(report, 0, "rtx5090-r570")["status"] == "fail");  // cu126 builds have no sm_120
}

TEST_CASE("ranges, companions and extra indexes resolve as pip does") {
  CHECK(Torch(Facts("FROM python:3.9\nRUN pip install 'torch~=1.8'\n"))["version"] == "1.13");
  CHECK(Torch(Facts("FROM python:3.11\nRUN pip install 'torch>=2.1,<2.3'\n"))["version"] == "2.2");
  json audio = Facts("FROM python:3.11\nRUN pip install torchaudio==2.5.1\n");
  CHECK(Torch(audio)["version"] == "2.5");
  CHECK(Torch(audio)["version_assumed"].get<std::string>().find("torchaudio 2.5.1 requires torch 2.5") == 0);
  json vision = Facts("FROM python:3.11\nRUN pip install torchvision==0.20.1 --index-url https://download.pytorch.org/whl/cu124\n");
  CHECK(Torch(vision)["version"] == "2.5");
  CHECK(Torch(vision)["variant"] == "cu124");
  // An installed torch that satisfies the companion stays.
  json kept = Facts("FROM python:3.11\nRUN pip install torch==2.5.1\nRUN pip install torchvision==0.20.1\n");
  CHECK(Torch(kept)["version"] == "2.5.1");
  CHECK_FALSE(Torch(kept).contains("version_assumed"));
  // An old variant page as an extra source: PyPI's newer torch wins.
  json extra = Facts("FROM python:3.11\nRUN pip install torch -f https://download.pytorch.org/whl/cu111/torch_stable.html\n");
  CHECK(Torch(extra)["variant"] != "cu111");
  // uv searches the extra index first.
  json uv = Facts("FROM python:3.11\nRUN uv pip install --system torch --extra-index-url https://download.pytorch.org/whl/cu118\n");
  CHECK(Torch(uv)["variant"] == "cu118");
}

TEST_CASE("torch 1.6.0+cu101 on an RTX 3090: no sm_86, a certain 209") {
  json facts = Facts("FROM python:3.8\nRUN pip install torch==1.6.0+cu101 -f https://download.pytorch.org/whl/torch_stable.html\n");
  CHECK(Torch(facts)["arch_list"] == "3.7;5.0;6.0;7.0;7.5");
  json report = Run({facts}, kResolveFleet);
  json verdict = Verdict(report, 0, "rtx3090-r470");
  CHECK(verdict["status"] == "fail");
  REQUIRE(verdict["predicted_error"].is_object());
  CHECK(verdict["predicted_error"]["code"] == 209);
}

TEST_CASE("L4T bases fail on every discrete-GPU pool, amd64 and arm64") {
  json facts = Facts("FROM nvcr.io/nvidia/l4t-pytorch:r32.5.0-pth1.7-py3\nRUN pip3 install numpy\n");
  CHECK(facts["image"]["base"]["kind"] == "l4t");
  CHECK(facts["gpu"]["workload"] == "nvidia");
  json report = Run({facts}, kResolveFleet);
  for (const char* pool : {"rtx3090-r470", "a100-r535", "h100-r550", "gh200-r570-arm64", "rtx5090-r570"}) {
    CAPTURE(pool);
    json verdict = Verdict(report, 0, pool);
    CHECK(verdict["status"] == "fail");
  }
  CHECK(Verdict(report, 0, "a100-r535")["predicted_error"]["name"] == "exec-format-error");
  CHECK(Verdict(report, 0, "gh200-r570-arm64")["predicted_error"]["code"] == 209);
  json jetson = Run({facts}, "pools:\n  - name: orin\n    gpu: Jetson AGX Orin\n    driver: \"540.3.0\"\n    integrated: true\n"
                              "    platform: linux/arm64\n");
  CHECK(Findings(jetson, 0, "IL018").empty());
}

TEST_CASE("RUN under SHELL [conda, run, ..., bash, -c] is read; a non-POSIX SHELL makes the lists incomplete") {
  json conda = Facts("FROM continuumio/miniconda3\nSHELL [\"conda\", \"run\", \"-n\", \"env\", \"/bin/bash\", \"-c\"]\n"
                     "RUN pip install torch==2.4.1\n");
  CHECK(Torch(conda)["version"] == "2.4.1");
  json pwsh = Facts("FROM ubuntu:22.04\nSHELL [\"pwsh\", \"-Command\"]\nRUN pip install torch==2.4.1\n");
  CHECK(pwsh["frameworks_complete"] == false);
  CHECK(pwsh["cuda"]["runtimes_complete"] == false);
}

TEST_CASE("apt-get install cuda-toolkit-12-4 / cuda-runtime-12-4 install the 12.4 cudart") {
  for (const char* package : {"cuda-toolkit-12-4", "cuda-runtime-12-4=12.4.1-1", "cuda-libraries-12-4"}) {
    CAPTURE(package);
    json facts = Facts(std::string("FROM ubuntu:22.04\nRUN apt-get update && apt-get install -y ") + package + "\n");
    REQUIRE(facts["cuda"]["runtimes"].size() == 1);
    const json& runtime = facts["cuda"]["runtimes"][0];
    CHECK(runtime["version"].get<std::string>().rfind("12.4", 0) == 0);
  }
}
