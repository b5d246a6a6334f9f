// Runtimes that arrive without a CUDA base: a framework's CUDA build brings
// its own libcudart (framework_runtimes in packages.yaml), and COPY --from of
// a stage or an image brings the libcudart and libcuda files under the copied
// path. Bases with no CUDA at all (the no-cuda family) are known, not unknown.
#include <doctest/doctest.h>

#include "dockerfile_fixture.h"

using nlohmann::json;
using namespace imagelint::testing::dockerfile_fixture;

namespace {

const json* Runtime(const json& facts, const std::string& version) {
  if (!facts["cuda"].contains("runtimes")) return nullptr;
  return Find(facts["cuda"]["runtimes"], "version", version);
}

}  // namespace

TEST_CASE("operating-system, language and conda bases are known to carry no CUDA") {
  for (const char* base : {"ubuntu:22.04", "python:3.11-slim", "docker.io/library/debian:12", "continuumio/miniconda3"}) {
    json facts = Facts(std::string("FROM ") + base + "\n");
    INFO(base);
    CHECK(facts["image"]["base"]["known"] == true);
    CHECK(facts["image"]["base"]["kind"] == "no-cuda");
    CHECK(facts["image"]["base"]["resolved_from"] == "knowledge");
    CHECK(facts["cuda"]["runtimes_complete"] == true);
    CHECK(facts["cuda"]["drivers_complete"] == true);
    CHECK(facts["cuda"]["runtimes"].empty());
  }
}

TEST_CASE("a CUDA torch wheel brings the runtime of its variant; a CPU wheel brings none") {
  json wheel = Facts(
      "FROM ubuntu:22.04\n"
      "RUN pip3 install torch==2.4.0 --index-url https://download.pytorch.org/whl/cu124\n");
  const json* runtime = Runtime(wheel, "12.4");
  REQUIRE(runtime != nullptr);
  CHECK((*runtime)["path"] == "<site-packages>/nvidia/cuda_runtime/lib/libcudart.so.12");
  CHECK((*runtime)["soname"] == "libcudart.so.12");
  CHECK((*runtime)["package"] == "torch");
  CHECK((*runtime)["version_precision"] == "major.minor");
  CHECK((*runtime)["dockerfile_line"] == 2);
  CHECK(wheel["cuda"]["runtimes"].size() == 1);

  json old_wheel = Facts("FROM python:3.9\nRUN pip install torch==1.10.0+cu111 -f https://download.pytorch.org/whl/torch_stable.html\n");
  REQUIRE(Runtime(old_wheel, "11.1") != nullptr);
  CHECK((*Runtime(old_wheel, "11.1"))["hashed_copy"] == true);

  json cpu = Facts("FROM python:3.11\nRUN pip install torch==2.4.0 --index-url https://download.pytorch.org/whl/cpu\n");
  CHECK(cpu["cuda"]["runtimes"].empty());

  // A second install of the same major replaces the file's row, not adds one.
  json twice = Facts(
      "FROM python:3.11\n"
      "RUN pip install torch==2.4.0 --index-url https://download.pytorch.org/whl/cu121\n"
      "RUN pip install torch==2.5.0 --index-url https://download.pytorch.org/whl/cu124\n");
  REQUIRE(twice["cuda"]["runtimes"].size() == 1);
  CHECK(twice["cuda"]["runtimes"][0]["version"] == "12.4");
}

TEST_CASE("conda: pytorch-cuda pins the runtime's release, a major-only pin its major") {
  json minor = Facts("FROM continuumio/miniconda3\nRUN conda install -y pytorch==2.1.0 pytorch-cuda=12.1 -c pytorch -c nvidia\n");
  REQUIRE(Runtime(minor, "12.1") != nullptr);
  CHECK((*Runtime(minor, "12.1"))["path"] == "<conda-prefix>/lib/libcudart.so.12");
  json major = Facts("FROM continuumio/miniconda3\nRUN conda install -y pytorch pytorch-cuda=12 -c pytorch -c nvidia\n");
  REQUIRE(Runtime(major, "12") != nullptr);
  CHECK((*Runtime(major, "12"))["version_precision"] == "major");
  json unpinned = Facts("FROM continuumio/miniconda3\nRUN conda install -y pytorch -c pytorch\n");
  CHECK(unpinned["cuda"]["runtimes"].empty());
}

TEST_CASE("COPY --from of an image's CUDA tree brings its runtime and compat libcuda") {
  json facts = Facts(
      "FROM ubuntu:22.04\n"
      "COPY --from=nvidia/cuda:12.4.1-runtime-ubuntu22.04 /usr/local/cuda /usr/local/cuda\n");
  CHECK(facts["cuda"]["runtimes_complete"] == true);
  const json* runtime = Runtime(facts, "12.4.127");
  REQUIRE(runtime != nullptr);
  CHECK((*runtime)["path"].get<std::string>().rfind("/usr/local/cuda/", 0) == 0);
  CHECK((*runtime)["dockerfile_line"] == 2);
  const json* compat = Driver(facts, "compat");
  REQUIRE(compat != nullptr);
  CHECK((*compat)["path"].get<std::string>().rfind("/usr/local/cuda/compat/libcuda.so.", 0) == 0);
  CHECK((*compat)["copied_from_stage"] == "nvidia/cuda:12.4.1-runtime-ubuntu22.04");

  // Another path of the image brings nothing CUDA.
  json other = Facts("FROM ubuntu:22.04\nCOPY --from=nvidia/cuda:12.4.1-runtime-ubuntu22.04 /etc/os-release /x\n");
  CHECK(other["cuda"]["runtimes"].empty());
  // An image the tables do not know: not followed, so unknown, never guessed.
  json unknown = Facts("FROM ubuntu:22.04\nCOPY --from=registry.corp.example/cuda:1 /usr/local/cuda /usr/local/cuda\n");
  CHECK(HasUnknown(unknown, "cuda.runtimes"));
}

TEST_CASE("COPY --from=<stage> of libcudart files: a glob, a single file, the venv of a CUDA wheel") {
  json glob = Facts(
      "FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04 AS cuda\n"
      "FROM ubuntu:22.04\n"
      "COPY --from=cuda /usr/local/cuda-12.4/targets/x86_64-linux/lib/libcudart.so* /opt/app/lib/\n");
  const json* runtime = Runtime(glob, "12.4.127");
  REQUIRE(runtime != nullptr);
  CHECK((*runtime)["path"].get<std::string>().rfind("/opt/app/lib/libcudart.so.12", 0) == 0);
  CHECK_FALSE(HasUnknown(glob, "cuda.runtimes"));

  json venv = Facts(
      "FROM python:3.11 AS build\n"
      "RUN python -m venv /venv && /venv/bin/pip install torch==2.4.0 --index-url https://download.pytorch.org/whl/cu124\n"
      "FROM python:3.11-slim\n"
      "COPY --from=build /venv /venv\n");
  REQUIRE(Runtime(venv, "12.4") != nullptr);
  CHECK((*Runtime(venv, "12.4"))["dockerfile_line"] == 4);
}
