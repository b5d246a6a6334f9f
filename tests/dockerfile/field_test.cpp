// Patterns of widely used public Dockerfiles that the
// Dockerfile mode misread (each reduced to the smallest text that shows it).
#include <doctest/doctest.h>

#include <chrono>

#include "dockerfile_fixture.h"

using nlohmann::json;
using namespace imagelint::dockerfile;
using namespace imagelint::testing::dockerfile_fixture;

TEST_CASE("pytorch/pytorch base followed by RUN rm -rf: facts, no internal error") {
  auto analysis = Analyze(
      "FROM pytorch/pytorch:2.1.0-cuda12.1-cudnn8-runtime\n"
      "RUN apt-get update && apt-get install -y git && rm -rf /var/lib/apt/lists/* /tmp/*\n");
  REQUIRE_MESSAGE(analysis.ok(), imagelint::testing::ErrorText(analysis));
  CHECK(analysis->facts["gpu"]["workload"] == "nvidia");
}

TEST_CASE("legacy LABEL key = \"value\" parses as BuildKit does: the value keeps '= '") {
  json facts = Facts("FROM ubuntu:22.04\nLABEL maintainer = \"someone here\"\nENV LEGACY some value\n");
  CHECK(facts["image"]["labels"]["maintainer"] == "= someone here");
  CHECK(facts["image"]["env"]["LEGACY"] == "some value");
  auto bare = Analyze("FROM ubuntu:22.04\nLABEL lonely\n");
  REQUIRE_FALSE(bare.ok());
  CHECK(bare.error().message.find("LABEL lonely has no value") != std::string::npos);
}

TEST_CASE("quotes inside ${V:+word} and ${V:-word} are removed, as BuildKit's lexer does") {
  const char* text =
      "ARG CUDA=12.4.1\n"
      "ARG BASE=${CUDA:+\"nvidia/cuda:${CUDA}-runtime-ubuntu22.04\"}\n"
      "ARG BASE=${BASE:-\"ubuntu:22.04\"}\n"
      "FROM ${BASE}\n";
  json facts = Facts(text);
  CHECK(facts["image"]["base"]["ref"] == "nvidia/cuda:12.4.1-runtime-ubuntu22.04");
  CHECK(facts["image"]["base"]["kind"] == "nvidia/cuda");
  DockerfileOptions cpu;
  cpu.build_args["CUDA"] = "";
  json plain = Facts(text, cpu);
  CHECK(plain["image"]["base"]["ref"] == "ubuntu:22.04");
  CHECK(plain["gpu"]["workload"] == "none");
  auto word = ExpandWord("${V:+'a b'}x", {{"V", "1"}});
  REQUIRE(word.ok());
  CHECK(word->value == "a bx");
}

TEST_CASE("ARG doubling chains stop at the expansion budget with an error naming it") {
  std::string text = "ARG A0=" + std::string(64, 'a') + "\n";
  for (int i = 1; i <= 40; ++i)
    text += "ARG A" + std::to_string(i) + "=${A" + std::to_string(i - 1) + "}${A" + std::to_string(i - 1) + "}\n";
  text += "FROM ubuntu:${A40}\n";
  auto start = std::chrono::steady_clock::now();
  auto analysis = Analyze(text);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  REQUIRE_FALSE(analysis.ok());
  CHECK(analysis.error().message.find("over the limit of 1048576 bytes") != std::string::npos);
  CHECK(analysis.error().line > 0);
  CHECK(seconds < 1.0);
}

TEST_CASE("pip -f / --find-links with a variant page decides the torch CUDA variant") {
  json facts = Facts(
      "FROM nvidia/cuda:11.1.1-cudnn8-runtime-ubuntu20.04\n"
      "RUN pip install torch==1.10.0 -f https://download.pytorch.org/whl/cu111/torch_stable.html\n");
  const json* torch = Find(facts["frameworks"], "name", "torch");
  REQUIRE(torch != nullptr);
  CHECK((*torch)["variant"] == "cu111");
  CHECK((*torch)["cuda"] == "11.1");
  CHECK((*torch)["cuda_source"].get<std::string>().find("--find-links") == 0);
  json long_form = Facts(
      "FROM nvidia/cuda:11.1.1-cudnn8-runtime-ubuntu20.04\n"
      "RUN pip install --find-links=https://download.pytorch.org/whl/cu111/torch_stable.html torch==1.10.0\n");
  CHECK((*Find(long_form["frameworks"], "name", "torch"))["variant"] == "cu111");
}

TEST_CASE("torch installed into a venv in a builder stage follows COPY --from into the final stage") {
  json facts = Facts(
      "FROM python:3.11 AS build\n"
      "RUN python -m venv /opt/venv && /opt/venv/bin/pip install torch==2.4.0 "
      "--index-url https://download.pytorch.org/whl/cu124\n"
      "FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\n"
      "COPY --from=build /opt/venv /opt/venv\n"
      "ENV PATH=/opt/venv/bin:$PATH\n");
  const json* torch = Find(facts["frameworks"], "name", "torch");
  REQUIRE(torch != nullptr);
  CHECK((*torch)["variant"] == "cu124");
  CHECK((*torch)["dockerfile_line"] == 4);
  // A copy of something else brings nothing.
  json other = Facts(
      "FROM python:3.11 AS build\n"
      "RUN python -m venv /opt/venv && /opt/venv/bin/pip install torch==2.4.0 "
      "--index-url https://download.pytorch.org/whl/cu124\n"
      "FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\n"
      "COPY --from=build /app /app\n");
  CHECK(Find(other["frameworks"], "name", "torch") == nullptr);
  // ENV PATH makes a plain `pip` the venv's; site-packages copies count too.
  json path_venv = Facts(
      "FROM python:3.11-slim AS build\n"
      "ENV PATH=/venv/bin:$PATH\n"
      "RUN python -m venv /venv && pip install torch==2.1.0 --extra-index-url https://download.pytorch.org/whl/cu118\n"
      "FROM nvidia/cuda:11.8.0-runtime-ubuntu22.04\n"
      "COPY --from=0 /venv /venv\n");
  CHECK((*Find(path_venv["frameworks"], "name", "torch"))["variant"] == "cu118");
}

TEST_CASE("torch named through a shell variable of the same RUN") {
  json facts = Facts(
      "FROM nvidia/cuda:12.1.1-runtime-ubuntu22.04\n"
      "ARG TORCH=2.3\n"
      "RUN V='torch=='$TORCH'.*'; pip install $V --extra-index-url https://download.pytorch.org/whl/cu121\n");
  const json* torch = Find(facts["frameworks"], "name", "torch");
  REQUIRE(torch != nullptr);
  CHECK((*torch)["variant"] == "cu121");
  // A variable set from a command substitution is not known.
  json unknown = Facts(
      "FROM nvidia/cuda:12.1.1-runtime-ubuntu22.04\n"
      "RUN V=$(cat pin.txt) && pip install torch==$V\n");
  const json* guessed = Find(unknown["frameworks"], "name", "torch");
  CHECK((guessed == nullptr || !guessed->contains("version") || (*guessed)["version"].is_null()));
}

TEST_CASE("conda pytorch-cuda=12 (no minor) is an unknown variant, not an exception") {
  auto analysis = Analyze("FROM continuumio/miniconda3\nRUN conda install -y pytorch pytorch-cuda=12 -c pytorch -c nvidia\n");
  REQUIRE_MESSAGE(analysis.ok(), imagelint::testing::ErrorText(analysis));
}
