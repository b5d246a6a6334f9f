// Shared by the Dockerfile tests: the knowledge of the checkout
// (rules/knowledge, loaded once), facts of a Dockerfile text, and lookups in them.
#pragma once

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "imagelint/dockerfile.h"
#include "imagelint/knowledge.h"
#include "support/test_support.h"

namespace imagelint::testing::dockerfile_fixture {

using nlohmann::json;

inline const Knowledge& CheckoutKnowledge() {
  static const Knowledge knowledge = [] {
    auto loaded = Knowledge::Load(SourceDir() / "rules" / "knowledge");
    REQUIRE_MESSAGE(loaded.ok(), imagelint::testing::ErrorText(loaded));
    return std::move(*loaded);
  }();
  return knowledge;
}

// Options with the checkout's knowledge (DockerfileOptions::knowledge is required).
inline imagelint::dockerfile::DockerfileOptions Options(imagelint::dockerfile::DockerfileOptions options = {}) {
  if (options.knowledge == nullptr) options.knowledge = &CheckoutKnowledge();
  return options;
}

// When IMAGELINT_TEST_FACTS_DIR is set (output_test.cpp's schema check runs
// this test binary so), every facts document a test makes is written there.
inline void RecordFacts(const json& facts) {
  static const char* dir = std::getenv("IMAGELINT_TEST_FACTS_DIR");
  static int count = 0;
  if (dir == nullptr || *dir == '\0') return;
  WriteFileText(std::filesystem::path(dir) / ("facts-" + std::to_string(count++) + ".json"), facts.dump());
}

inline imagelint::Result<imagelint::dockerfile::DockerfileAnalysis> Analyze(
    const std::string& text, imagelint::dockerfile::DockerfileOptions options = {}) {
  auto analysis = imagelint::dockerfile::AnalyzeDockerfileText(text, "Dockerfile", Options(std::move(options)));
  if (analysis.ok()) RecordFacts(analysis->facts);
  return analysis;
}

inline json Facts(const std::string& text, imagelint::dockerfile::DockerfileOptions options = {}) {
  auto analysis = Analyze(text, std::move(options));
  if (!analysis.ok()) FAIL("analysis failed: " << analysis.error().ToString());
  return analysis->facts;
}

inline const json* Find(const json& rows, const std::string& key, const std::string& value) {
  if (!rows.is_array()) return nullptr;
  for (const auto& row : rows)
    if (row.is_object() && row.contains(key) && row[key] == value) return &row;
  return nullptr;
}

inline const json* Driver(const json& facts, const std::string& kind) {
  if (!facts["cuda"].contains("drivers")) return nullptr;
  return Find(facts["cuda"]["drivers"], "kind", kind);
}

inline bool HasUnknown(const json& facts, const std::string& fact) {
  return Find(facts["dockerfile"]["unknown"], "fact", fact) != nullptr;
}

// The field report behind Error 804 (CUDA 11.3 compat libcuda on GeForce hosts).
inline const char* kCompatTrap =
    "FROM nvidia/cuda:11.3.0-cudnn8-devel-ubuntu20.04\n"
    "RUN pip install --no-cache-dir torch==1.12.1+cu113 torchvision==0.13.1+cu113 \\\n"
    "      --extra-index-url https://download.pytorch.org/whl/cu113\n"
    "CMD [\"python\", \"train.py\"]\n";

}  // namespace imagelint::testing::dockerfile_fixture
