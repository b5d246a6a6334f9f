// A report as analysis::Analyze writes it (imagelint.report/v1), composed by
// hand so that the reporters can be tested without the rule engine.
#pragma once

#include <nlohmann/json.hpp>

namespace imagelint::testing {

inline nlohmann::json SampleFinding(const std::string& rule, const std::string& name, const std::string& severity,
                                    const std::string& message, nlohmann::json pools, nlohmann::json evidence,
                                    nlohmann::json predicted = nullptr, const std::string& scope = "pool") {
  nlohmann::json finding = {{"rule", rule},
                            {"name", name},
                            {"title", name + " title"},
                            {"docs", "docs/rules/" + rule + ".md"},
                            {"severity", severity},
                            {"message", message},
                            {"pools", pools},
                            {"evidence", evidence},
                            {"predicted_error", predicted},
                            {"unknown", false},
                            {"scope", scope}};
  return finding;
}

// Two images, three pools. Image 1 (a docker-archive built from a
// Dockerfile) fails on the GeForce pool with 804 and warns elsewhere; image 2
// (a registry reference) passes everywhere but carries a note.
inline nlohmann::json SampleReport() {
  using nlohmann::json;
  json predicted_804 = {{"code", 804},
                        {"name", "cudaErrorCompatNotSupportedOnDevice"},
                        {"stage", "cuInit"},
                        {"message", "forward compatibility was attempted on non supported HW"}};
  json compat_evidence = json::array(
      {{{"path", "usr/local/cuda-12.4/compat/libcuda.so.550.54.15"},
        {"layer", 2},
        {"layer_digest", "sha256:2222222222222222222222222222222222222222222222222222222222222222"},
        {"created_by", "/bin/sh -c apt-get update && apt-get install -y cuda-compat-12-4 # buildkit"},
        {"dockerfile_line", 7}}});
  json arch_evidence = json::array(
      {{{"path", "opt/app/lib/libkernels.so"},
        {"layer", 3},
        {"created_by", "COPY build/libkernels.so /opt/app/lib/ # buildkit"},
        {"detail", "SASS sm_80, sm_90; PTX compute_90"}},
       {{"path", "opt/app/lib/libextra.so"}, {"layer", 3}}});
  json il003 = SampleFinding("IL003", "forward-compat-unsupported-gpu", "error",
                             "The image ships the CUDA forward-compatibility libcuda 550.54.15 and puts it first on "
                             "the loader path; GeForce GPUs do not support forward compatibility.",
                             json::array({"rtx3090-460"}), compat_evidence, predicted_804);
  il003["fix"] = "Remove cuda-compat-12-4 from the image, or schedule it only on data-center GPU pools.";
  json il010 = SampleFinding("IL010", "no-sass-for-gpu", "warning",
                             "No SASS for sm_86 in libkernels.so; the driver JIT-compiles compute_90 PTX at first launch.",
                             json::array({"rtx3090-460", "a100-535"}), arch_evidence);
  il010["fix"] = "Build with -gencode arch=compute_86,code=sm_86 (CMAKE_CUDA_ARCHITECTURES=\"80;86;90\").";
  json image1 = {
      {"ref", "build/app.tar"},
      {"digest", "sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"},
      {"platform", "linux/amd64"},
      {"status", "fail"},
      {"findings",
       json::array(
           {il003, il010,
            SampleFinding("IL020", "cuda-version-label-mismatch", "note",
                          "CUDA_VERSION says 12.4.1 but libcudart is 12.4.127 | pipes & <tags> survive escaping.",
                          json::array({"rtx3090-460", "a100-535", "h100-550"}), json::array(), nullptr, "image")})},
      {"verdicts",
       json::array({{{"pool", "rtx3090-460"},
                     {"status", "fail"},
                     {"predicted_error",
                      {{"code", 804},
                       {"name", "cudaErrorCompatNotSupportedOnDevice"},
                       {"stage", "cuInit"},
                       {"rule", "IL003"}}},
                     {"rules", {"IL003", "IL010", "IL020"}},
                     {"undetermined", json::array()}},
                    {{"pool", "a100-535"},
                     {"status", "warn"},
                     {"predicted_error", nullptr},
                     {"rules", {"IL010", "IL020"}},
                     {"undetermined", json::array()}},
                    {{"pool", "h100-550"},
                     {"status", "pass"},
                     {"predicted_error", nullptr},
                     {"rules", {"IL020"}},
                     {"undetermined", json::array()}}})}};
  json image2 = {
      {"ref", "nvcr.io/nvidia/pytorch:24.01-py3"},
      {"digest", "sha256:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"},
      {"platform", "linux/amd64"},
      {"status", "pass"},
      {"findings", json::array({SampleFinding("IL020", "cuda-version-label-mismatch", "note",
                                              "CUDA_VERSION is unset; the toolkit version comes from libcudart only.",
                                              json::array({"rtx3090-460", "a100-535", "h100-550"}),
                                              json::array({{{"path", "usr/local/cuda/lib64/libcudart.so.12"}}}), nullptr,
                                              "image")})},
      {"verdicts", json::array({{{"pool", "rtx3090-460"}, {"status", "pass"}, {"predicted_error", nullptr},
                                 {"rules", {"IL020"}}, {"undetermined", json::array()}},
                                {{"pool", "a100-535"}, {"status", "pass"}, {"predicted_error", nullptr},
                                 {"rules", {"IL020"}}, {"undetermined", json::array()}},
                                {{"pool", "h100-550"}, {"status", "pass"}, {"predicted_error", nullptr},
                                 {"rules", {"IL020"}}, {"undetermined", json::array()}}})}};
  json rules = json::array(
      {{{"id", "IL003"}, {"name", "forward-compat-unsupported-gpu"},
        {"title", "Forward-compatibility libcuda on a GPU that does not support it"},
        {"summary", "cuda-compat only works on data-center GPUs; elsewhere cuInit fails with 804."},
        {"severity", "error"}, {"scope", "pool"}, {"enabled", true}, {"docs", "docs/rules/IL003.md"}},
       {{"id", "IL010"}, {"name", "no-sass-for-gpu"}, {"title", "No SASS for the pool's GPU architecture"},
        {"summary", "Kernels without SASS for the GPU are JIT-compiled from PTX, or fail to load."},
        {"severity", "warning"}, {"scope", "pool"}, {"enabled", true}, {"docs", "docs/rules/IL010.md"}},
       {{"id", "IL020"}, {"name", "cuda-version-label-mismatch"}, {"title", "CUDA_VERSION disagrees with libcudart"},
        {"summary", "The CUDA_VERSION variable does not match the runtime library in the image."},
        {"severity", "note"}, {"scope", "image"}, {"enabled", true}, {"docs", "docs/rules/IL020.md"}}});
  json pools = json::array({{{"name", "rtx3090-460"}, {"gpu", "NVIDIA GeForce RTX 3090"}, {"driver", "460.67"}},
                            {{"name", "a100-535"}, {"gpu", "NVIDIA A100-SXM4-80GB"}, {"driver", "535.161.08"}},
                            {{"name", "h100-550"}, {"gpu", "NVIDIA H100 80GB HBM3"}, {"driver", "550.54.15"}}});
  return {{"schema", "imagelint.report/v1"},
          {"tool", {{"name", "imagelint"}, {"version", "0.1.0"}}},
          {"fleet", {{"source", "fleet.yaml"}, {"pools", pools}}},
          {"rules", rules},
          {"images", json::array({image1, image2})}};
}

}  // namespace imagelint::testing
