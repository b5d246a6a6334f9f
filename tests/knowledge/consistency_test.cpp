// One fact in one place: where two tables both state a fact, they agree
// (KnowledgeDisagreements); and each table's newest row is reported.
#include <doctest/doctest.h>

#include <filesystem>

#include "imagelint/knowledge_bundle.h"
#include "support/checkout_knowledge.h"
#include "support/test_support.h"

namespace fs = std::filesystem;
using imagelint::Knowledge;
using namespace imagelint::testing;

namespace {

// The disagreements of a copy of the checkout's tables with one text replaced.
std::vector<std::string> WithEdit(const std::string& file, const std::string& from, const std::string& to) {
  TempDir dir;
  for (const auto& entry : fs::directory_iterator(SourceDir() / "rules" / "knowledge"))
    if (entry.path().extension() == ".yaml") fs::copy_file(entry.path(), dir / entry.path().filename().string());
  std::string text = ReadFileText(dir / file);
  const size_t at = text.find(from);
  REQUIRE_MESSAGE(at != std::string::npos, from);
  text.replace(at, from.size(), to);
  WriteFileText(dir / file, text);
  auto knowledge = Knowledge::Load(dir.path());
  REQUIRE_MESSAGE(knowledge.ok(), ErrorText(knowledge));
  return imagelint::KnowledgeDisagreements(*knowledge);
}

bool Mentions(const std::vector<std::string>& found, const std::string& text) {
  for (const auto& one : found)
    if (one.find(text) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("the checkout's tables agree with each other") {
  auto found = imagelint::KnowledgeDisagreements(CheckoutKnowledge());
  for (const auto& one : found) MESSAGE(one);
  CHECK(found.empty());
}

TEST_CASE("a fact stated differently by two tables is found, with both places") {
  SUBCASE("PyPI's default torch CUDA without a build of it") {
    auto found = WithEdit("packages.yaml", "{package: torch, release: \"2.12\", python_min: \"3.10\", cuda: \"13.0\"",
                          "{package: torch, release: \"2.12\", python_min: \"3.10\", cuda: \"12.8\"");
    CHECK(Mentions(found, "PyPI's torch 2.12 is built for CUDA 12.8, but pytorch.yaml has no 2.12+cu128 build"));
  }
  SUBCASE("a GPU whose architecture is not its compute capability's") {
    auto found = WithEdit("gpus.yaml", "architecture: Ampere", "architecture: Hopper");
    CHECK(Mentions(found, "in gpus.yaml, but compute capability"));
    CHECK(Mentions(found, "in architectures.yaml ("));
    CHECK(Mentions(found, "architectures.yaml:"));
  }
  SUBCASE("a companion paired with a torch release the tables do not list") {
    auto found = WithEdit("packages.yaml", "{package: torchaudio, release: \"2.9\", torch: \"2.9\"",
                          "{package: torchaudio, release: \"2.9\", torch: \"7.9\"");
    CHECK(Mentions(found, "pairs torchaudio 2.9 with torch 7.9"));
  }
  SUBCASE("an nvidia/cuda image whose cudart is not its toolkit's") {
    auto found = WithEdit("base-images.yaml", "{cuda: \"13.3.1\", cudart: \"13.3.29\"", "{cuda: \"13.3.1\", cudart: \"13.3.30\"");
    CHECK(Mentions(found, "nvidia/cuda 13.3.1 images have cudart 13.3.30, but toolkits.yaml"));
  }
}

TEST_CASE("the table summary names each table's newest row and its dates") {
  auto summary = imagelint::KnowledgeTableSummary(CheckoutKnowledge());
  for (const auto& info : imagelint::KnowledgeTables()) {
    CAPTURE(info.kind);
    REQUIRE(summary.contains(info.kind));
    CHECK(summary[info.kind]["rows"].get<size_t>() == CheckoutKnowledge().Table(info.kind).size());
  }
  // The highest version, not the last row: pytorch.yaml lists variants per release.
  CHECK(summary["pytorch"]["newest"].get<std::string>().rfind("2.14+", 0) == 0);
  CHECK(summary["toolkits"]["newest"] == "13.5.0");
  CHECK(summary["pytorch"].contains("released"));
}
