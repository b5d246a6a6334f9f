// --dockerfile with a built image: history `created_by` back to lines.
#include <doctest/doctest.h>

#include "imagelint/dockerfile.h"

using nlohmann::json;
using namespace imagelint::dockerfile;

namespace {

Dockerfile ParseOk(const std::string& text) {
  auto parsed = ParseDockerfile(text, "Dockerfile");
  REQUIRE(parsed.ok());
  return *parsed;
}

const char* kDockerfile =
    "ARG CUDA=11.3.0\n"                                                   // 1
    "FROM nvidia/cuda:${CUDA}-cudnn8-devel-ubuntu20.04 AS build\n"        // 2
    "RUN apt-get update && apt-get install -y python3-pip\n"              // 3
    "FROM build\n"                                                        // 4
    "ENV PIP_NO_CACHE_DIR=1\n"                                            // 5
    "RUN pip install torch==1.12.1+cu113 \\\n"                            // 6
    "    --extra-index-url https://download.pytorch.org/whl/cu113\n"      // 7
    "COPY app/ /app/\n"                                                   // 8
    "RUN rm -rf /usr/local/cuda-11.3/compat\n";                           // 9

}  // namespace

TEST_CASE("BuildKit history maps to the target chain's lines; base layers to FROM") {
  json facts = {
      {"image",
       {{"layers",
         json::array({{{"created_by", "/bin/sh -c #(nop) ADD file:abc in / "}},
                      {{"created_by", "RUN /bin/sh -c apt-get update && apt-get install -y cuda-compat-11-3 # buildkit"}},
                      {{"created_by", "RUN /bin/sh -c apt-get update && apt-get install -y python3-pip # buildkit"}},
                      {{"created_by",
                        "RUN /bin/sh -c pip install torch==1.12.1+cu113     --extra-index-url "
                        "https://download.pytorch.org/whl/cu113 # buildkit"}},
                      {{"created_by", "COPY app/ /app/ # buildkit"}},
                      {{"created_by", "RUN /bin/sh -c rm -rf /usr/local/cuda-11.3/compat # buildkit"}}})}}},
      {"cuda",
       {{"drivers", json::array({{{"path", "/usr/local/cuda-11.3/compat/libcuda.so.465.19.01"}, {"layer", 1}}})},
        {"runtimes", json::array({{{"path", "/x/libcudart.so.11.0"}, {"layer", 0}}})}}},
      {"frameworks", json::array({{{"name", "torch"}, {"layer", 3}}})},
      {"binaries", json::array({{{"path", "/app/kernel.so"}, {"layer", 4}}, {{"path", "/weird"}, {"layer", 99}}})}};
  size_t matched = AnnotateImageFacts(facts, ParseOk(kDockerfile));
  CHECK(matched == 4);
  CHECK(facts["image"]["dockerfile"] == "Dockerfile");
  const json& layers = facts["image"]["layers"];
  CHECK(layers[0]["dockerfile_line"] == 2);  // base image layers -> the chain's FROM
  CHECK(layers[0]["dockerfile_origin"] == "base-image");
  CHECK(layers[1]["dockerfile_line"] == 2);
  CHECK(layers[2]["dockerfile_line"] == 3);
  CHECK(layers[2]["dockerfile_origin"] == "instruction");
  CHECK(layers[3]["dockerfile_line"] == 6);
  CHECK(layers[4]["dockerfile_line"] == 8);
  CHECK(layers[5]["dockerfile_line"] == 9);
  CHECK(facts["cuda"]["drivers"][0]["dockerfile_line"] == 2);
  CHECK(facts["cuda"]["drivers"][0]["dockerfile_origin"] == "base-image");
  CHECK(facts["frameworks"][0]["dockerfile_line"] == 6);
  CHECK(facts["binaries"][0]["dockerfile_line"] == 8);
  CHECK(facts["binaries"][0]["dockerfile"] == "Dockerfile");
  CHECK_FALSE(facts["binaries"][1].contains("dockerfile_line"));  // layer index out of range
}

TEST_CASE("legacy builder history: #(nop) and |N build-arg prefixes") {
  json facts = {{"image",
                 {{"layers",
                   json::array({{{"created_by", "/bin/sh -c #(nop) ADD file:abc in / "}},
                                {{"created_by", "|1 CUDA=11.3.0 /bin/sh -c apt-get update && apt-get install -y python3-pip"}},
                                {{"created_by",
                                  "|1 CUDA=11.3.0 /bin/sh -c pip install torch==1.12.1+cu113     --extra-index-url "
                                  "https://download.pytorch.org/whl/cu113"}},
                                {{"created_by", "/bin/sh -c #(nop) COPY dir:0123 in /app/ "}},
                                {{"created_by", "/bin/sh -c rm -rf /usr/local/cuda-11.3/compat"}}})}}}};
  CHECK(AnnotateImageFacts(facts, ParseOk(kDockerfile)) == 4);
  const json& layers = facts["image"]["layers"];
  CHECK(layers[1]["dockerfile_line"] == 3);
  CHECK(layers[2]["dockerfile_line"] == 6);
  CHECK(layers[3]["dockerfile_line"] == 8);
  CHECK(layers[4]["dockerfile_line"] == 9);
}

TEST_CASE("an unrelated Dockerfile matches nothing and attributes everything to FROM") {
  json facts = {{"image", {{"layers", json::array({{{"created_by", "RUN /bin/sh -c make # buildkit"}}})}}}};
  CHECK(AnnotateImageFacts(facts, ParseOk("FROM alpine\nRUN apk add curl\n")) == 0);
  CHECK(facts["image"]["layers"][0]["dockerfile_line"] == 1);
  json empty = json::object();
  CHECK(AnnotateImageFacts(empty, ParseOk("FROM alpine\n")) == 0);
}

TEST_CASE("hostile history: huge build-arg prefixes and created_by texts, read in one pass") {
  std::string args;
  for (int i = 0; i < 20000; ++i) args += "A" + std::to_string(i) + "=" + std::string(10, 'v') + " ";
  std::string value(200 * 1024, '1');
  json facts = {{"image",
                 {{"layers",
                   json::array({{{"created_by", "|20000 " + args + "/bin/sh -c apt-get update && apt-get install -y python3-pip"}},
                                {{"created_by", "|1 __version__=" + value + " /bin/sh -c pip install torch==1.12.1+cu113"}},
                                {{"created_by", "|1 =x /bin/sh -c rm -rf /usr/local/cuda-11.3/compat"}},
                                {{"created_by", "|" + std::string(100 * 1024, '9')}},
                                {{"created_by", std::string(300 * 1024, ' ')}}})}}}};
  size_t matched = AnnotateImageFacts(facts, ParseOk(kDockerfile));
  CHECK(matched >= 2);
  CHECK(facts["image"]["layers"][0]["dockerfile_line"] == 3);
  CHECK(facts["image"]["layers"][1]["dockerfile_line"] == 6);
}
