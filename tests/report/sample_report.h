// A report as analysis::Analyze writes it (imagelint.report/v1), composed by
// hand so that the reporters can be tested without the rule engine.
#pragma once

#include <stdexcept>

#include <nlohmann/json.hpp>

#include "imagelint/analysis.h"
#include "imagelint/config.h"
#include "imagelint/report_document.h"

namespace imagelint::testing {

// DeriveVerdicts on a report image the tests composed as JSON: read by the
// report's reader (the fields derivation computes default to an underived
// verdict's), derived, written back. Errors: the reader's, naming the field;
// the image is then left as it was.
inline Status DeriveJson(nlohmann::json& image) {
  nlohmann::json input = image;
  const nlohmann::json defaults = {{"status", "pass"}, {"rules", nlohmann::json::array()},
                                   {"undetermined", nlohmann::json::array()}};
  if (input.is_object()) {
    if (!input.contains("status")) input["status"] = "pass";
    if (input.contains("verdicts") && input["verdicts"].is_array())
      for (auto& verdict : input["verdicts"])
        if (verdict.is_object())
          for (const auto& [key, value] : defaults.items())
            if (!verdict.contains(key)) verdict[key] = value;
  }
  auto typed = analysis::ReadImageReport(input, "report image");
  if (!typed.ok()) return typed.error();
  analysis::DeriveVerdicts(*typed);
  image = analysis::WriteImageReport(*typed);
  return OkStatus();
}

// The verdicts of a report image the tests composed (it is always a report
// image: a failure is the test's error, thrown so doctest names it).
inline void Derive(nlohmann::json& image) {
  if (auto status = DeriveJson(image); !status.ok()) throw std::runtime_error(status.error().ToString());
}


// A report document the tests composed, as the typed report (a document
// the reader refuses is the test's error, thrown so doctest names it).
inline analysis::Report Typed(const nlohmann::json& document) {
  auto report = analysis::ReadReport(document, "test report");
  if (!report.ok()) throw std::runtime_error(report.error().ToString());
  return std::move(*report);
}
// analysis::Finalize and config::ApplySuppressions on such a document, written back.
inline nlohmann::json Finalized(const nlohmann::json& document, const analysis::FinalizeOptions& options = {},
                                const analysis::GateOptions& gate = {}) {
  return analysis::WriteReport(analysis::Finalize(Typed(document), options, gate));
}

inline nlohmann::json Suppress(const nlohmann::json& report, const std::vector<config::Suppression>& suppressions,
                               const std::string& today) {
  analysis::Report typed = Typed(report);
  config::ApplySuppressions(typed, suppressions, today);
  return analysis::WriteReport(typed);
}

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

// The knowledge bundle a report names (a fresh one), and an old one that
// adds the note (imagelint::KnowledgeBundleJson writes both).
inline nlohmann::json SampleKnowledge() {
  return {{"schema_version", 1},
          {"revision", "2026.11.27"},
          {"date", "2026-11-27"},
          {"digest", "sha256:" + std::string(64, 'c')},
          {"age_days", 0},
          {"stale", false}};
}
inline nlohmann::json StaleKnowledge() {
  return {{"schema_version", 1},
          {"revision", "2026.8.1"},
          {"date", "2026-08-01"},
          {"digest", "sha256:" + std::string(64, 'd')},
          {"age_days", 118},
          {"stale", true},
          {"note", "The knowledge tables are 118 days old (as of 2026-08-01, revision 2026.8.1): releases since then "
                   "are unknown to them; run `imagelint knowledge update`."}};
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
          {"knowledge", SampleKnowledge()},
          {"fleet", {{"source", "fleet.yaml"}, {"pools", pools}}},
          {"rules", rules},
          {"images", json::array({image1, image2})}};
}

// A Dockerfile whose base image imagelint does not know: the CUDA rules
// cannot decide on the GPU pools (undecided, as analysis::Analyze writes
// them: severity warning, `unknown`, `missing` in user terms), IL013 fails
// the arm64 pool and IL010 is a real warning on the A100 pool. Every format
// must keep the undecided verdicts apart from warnings.
inline nlohmann::json UndecidedReport() {
  using nlohmann::json;
  const std::string base = "the base image `registry.corp/ml/base:2024.06`";
  const std::string reason = "base image registry.corp/ml/base:2024.06 is not in base-images.yaml: its CUDA facts are unknown";
  const std::string hint = "scan the built image instead of the Dockerfile (docker save IMAGE -o image.tar)";
  auto undecided = [&](const std::string& rule, const std::string& name, const std::string& title,
                       const std::string& fact, const std::string& subject) {
    json missing = {{"fact", fact}, {"subject", subject}, {"owner", base},
                    {"text", subject + " of " + base + " is unknown"}, {"reason", reason},
                    {"dockerfile_line", 3}, {"hint", hint}};
    json finding = SampleFinding(rule, name, "warning",
                                 "cannot tell whether this applies (" + title + "): " + subject + " of " + base +
                                     " is unknown",
                                 json::array({"rtx3090-460", "a100-535"}),
                                 json::array({{{"detail", reason}, {"dockerfile_line", 3}}}));
    finding["title"] = title;
    finding["unknown"] = true;
    finding["missing_facts"] = json::array({fact});
    finding["missing"] = json::array({missing});
    finding["fix"] = "To decide it: " + hint + ".";
    return finding;
  };
  json il013 = SampleFinding("IL013", "platform-mismatch", "error",
                             "The image is linux/amd64 but the hosts of gh200-arm64 are linux/arm64: the container's "
                             "first process fails with \"exec format error\".",
                             json::array({"gh200-arm64"}),
                             json::array({{{"detail", "FROM registry.corp/ml/base:2024.06 (linux/amd64)"},
                                           {"dockerfile_line", 3}}}),
                             json{{"code", 0}, {"name", "exec-format-error"}, {"stage", "container-start"},
                                  {"message", "exec format error"}});
  il013["fix"] = "Build and push a linux/arm64 variant of the image, or keep the workload off gh200-arm64.";
  json il010 = SampleFinding("IL010", "minor-version-compatibility-only", "warning",
                             "CUDA 12.4 runs on a100-535's driver 535.104.05 only through minor-version compatibility.",
                             json::array({"a100-535"}), json::array({{{"detail", "pip install nvidia-cuda-runtime-cu12==12.4.127"},
                                                                     {"dockerfile_line", 5}}}));
  json image = {{"ref", "services/train/Dockerfile"},
                {"digest", ""},
                {"dockerfile", "services/train/Dockerfile"},
                {"findings",
                 json::array({undecided("IL002", "driver-too-old", "The host driver is too old for the image's CUDA runtime",
                                        "cuda.runtimes", "the CUDA runtime (libcudart)"),
                              undecided("IL007", "no-kernel-image", "No kernel image for the pool's GPU", "binaries",
                                        "the GPU code (SASS/PTX) of the binaries"),
                              il010, il013})},
                {"verdicts", json::array({{{"pool", "rtx3090-460"}}, {{"pool", "a100-535"}}, {{"pool", "gh200-arm64"}}})}};
  Derive(image);
  json report = SampleReport();
  report["fleet"]["pools"].push_back({{"name", "gh200-arm64"}, {"gpu", "NVIDIA GH200 480GB"}, {"driver", "580.126.20"},
                                      {"platform", "linux/arm64"}});
  report["fleet"]["pools"].erase(2);  // h100-550
  report["rules"] = json::array(
      {{{"id", "IL002"}, {"name", "driver-too-old"}, {"title", "The host driver is too old for the image's CUDA runtime"},
        {"summary", "A CUDA runtime needs a driver at least as new as its toolkit's."}, {"severity", "error"},
        {"scope", "pool"}, {"enabled", true}, {"docs", "docs/rules/IL002.md"}},
       {{"id", "IL007"}, {"name", "no-kernel-image"}, {"title", "No kernel image for the pool's GPU"},
        {"summary", "GPU code runs only with SASS or PTX for the GPU."}, {"severity", "error"}, {"scope", "pool"},
        {"enabled", true}, {"docs", "docs/rules/IL007.md"}},
       {{"id", "IL010"}, {"name", "minor-version-compatibility-only"},
        {"title", "The image runs only through minor-version compatibility"},
        {"summary", "The driver is older than the toolkit but meets the minor-version floor."}, {"severity", "warning"},
        {"scope", "pool"}, {"enabled", true}, {"docs", "docs/rules/IL010.md"}},
       {{"id", "IL013"}, {"name", "platform-mismatch"}, {"title", "The image's platform does not match the pool's"},
        {"summary", "An image for one CPU architecture cannot start on hosts of another."}, {"severity", "error"},
        {"scope", "pool"}, {"enabled", true}, {"docs", "docs/rules/IL013.md"}}});
  report["images"] = json::array({image});
  report["knowledge"] = StaleKnowledge();
  return report;
}

}  // namespace imagelint::testing
