// Placement advice from a report (imagelint.report/v1) and a fleet.
#include <doctest/doctest.h>
#include <yaml-cpp/yaml.h>

#include <set>

#include "imagelint/fleet_import.h"
#include "support/test_support.h"

namespace fi = imagelint::fleet_import;
using imagelint::testing::ReadFileText;
using imagelint::testing::SourceDir;

namespace {

fi::GpuResolver NoGpus() {
  return fi::GpuResolver{[](std::string_view) -> std::optional<fi::GpuFacts> { return std::nullopt; }, {}};
}

nlohmann::json MakeVerdict(const std::string& pool, const std::string& status, int code = 0, const std::string& name = "",
                       std::vector<std::string> rules = {}) {
  nlohmann::json v = {{"pool", pool}, {"status", status}, {"rules", rules}};
  v["predicted_error"] = code ? nlohmann::json{{"code", code}, {"name", name}} : nlohmann::json(nullptr);
  return v;
}

// The pools each nodeSelectorTerm admits: a term admits a pool when every
// matchExpression's key has one of its values among the pool's labels.
std::set<std::string> AdmittedPools(const YAML::Node& doc, const imagelint::Fleet& fleet) {
  std::set<std::string> admitted;
  YAML::Node terms = doc["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"];
  REQUIRE(terms.IsSequence());
  for (const auto& pool : fleet.pools) {
    for (const auto& term : terms) {
      bool all = true;
      for (const auto& expression : term["matchExpressions"]) {
        REQUIRE(expression["operator"].as<std::string>() == "In");
        auto it = pool.selector_labels.find(expression["key"].as<std::string>());
        bool hit = false;
        if (it != pool.selector_labels.end())
          for (const auto& value : expression["values"]) hit |= value.as<std::string>() == it->second;
        all &= hit;
      }
      if (all) admitted.insert(pool.name);
    }
  }
  return admitted;
}

}  // namespace

TEST_CASE("placement advice excludes exactly the failing pools of a mixed cluster") {
  auto imported = fi::ImportKubernetesNodes(
      ReadFileText(SourceDir() / "tests/fleet_import/fixtures/nodes-mixed.json"), "nodes-mixed.json", NoGpus());
  REQUIRE_MESSAGE(imported.ok(), imagelint::testing::ErrorText(imported));
  imagelint::Fleet fleet = fi::ToFleet(*imported);
  REQUIRE(fleet.pools.size() == 6);

  // A report as the scan writes it: the image runs on the A100 pools and on
  // the GH200, fails on the GeForce pool (804) and the T4 pools (209), warns on MIG.
  nlohmann::json report = {{"schema", "imagelint.report/v1"}};
  nlohmann::json image = {{"ref", "registry.example/train:1.0"}, {"digest", "sha256:abc"}};
  image["verdicts"] = {
      MakeVerdict("a100-sxm4-80gb-550.107.02", "pass"),
      MakeVerdict("geforce-rtx-3090-460.67", "fail", 804, "cudaErrorCompatNotSupportedOnDevice", {"IL003"}),
      MakeVerdict("tesla-t4-470.256.02", "fail", 209, "cudaErrorNoKernelImageForDevice", {"IL007"}),
      MakeVerdict("tesla-t4-shared-470.256.02", "fail", 209, "cudaErrorNoKernelImageForDevice", {"IL007"}),
      MakeVerdict("a100-sxm4-40gb-mig-1g.5gb-535.104.05", "warn", 0, "", {"IL010"}),
      MakeVerdict("gh200-480gb-550.54.15", "pass"),
  };
  image["findings"] = {
      {{"rule", "IL003"}, {"severity", "error"}, {"message", "forward-compat libcuda on a GeForce GPU\nsecond line"},
       {"pools", {"geforce-rtx-3090-460.67"}}},
      {{"rule", "IL007"}, {"severity", "error"}, {"message", "no SASS for sm_75"},
       {"pools", {"tesla-t4-470.256.02", "tesla-t4-shared-470.256.02"}}},
  };
  report["images"] = {image};

  auto advice = fi::RenderPlacementAdvice(report, fleet);
  REQUIRE_MESSAGE(advice.ok(), imagelint::testing::ErrorText(advice));
  INFO(*advice);
  YAML::Node doc = YAML::Load(*advice);
  CHECK(AdmittedPools(doc, fleet) == std::set<std::string>{"a100-sxm4-80gb-550.107.02", "gh200-480gb-550.54.15"});
  CHECK(advice->find("#   geforce-rtx-3090-460.67: fail, predicted cudaErrorCompatNotSupportedOnDevice (804); rules: IL003\n"
                     "#       forward-compat libcuda on a GeForce GPU second line\n") != std::string::npos);
  CHECK(advice->find("#   tesla-t4-470.256.02: fail, predicted cudaErrorNoKernelImageForDevice (209)") != std::string::npos);
  CHECK(advice->find("#   a100-sxm4-40gb-mig-1g.5gb-535.104.05: warn; rules: IL010") != std::string::npos);
  CHECK(advice->find("# imagelint placement advice for registry.example/train:1.0 (sha256:abc)") != std::string::npos);
  imagelint::testing::CheckGolden("fleet_import/golden/placement-mixed.yaml", *advice);
}

TEST_CASE("placement advice for hand-written pools derives labels and refuses ambiguous ones") {
  imagelint::Fleet fleet;
  fleet.source = "fleet.yaml";
  imagelint::Pool a;
  a.name = "a100";
  a.gpu = "NVIDIA A100-SXM4-80GB";
  a.driver = "535.104.05";
  a.count = 4;
  imagelint::Pool b = a;  // same GPU and driver, differs by toolkit only
  b.name = "a100-old-toolkit";
  b.container_toolkit = "1.4.0";
  imagelint::Pool c;
  c.name = "l4";
  c.gpu = "NVIDIA L4";
  c.driver = "550.54.15";
  fleet.pools = {a, b, c};

  nlohmann::json image = {{"ref", "img"}};
  image["verdicts"] = {MakeVerdict("a100", "pass"), MakeVerdict("a100-old-toolkit", "fail", 804, "cudaErrorCompatNotSupportedOnDevice"),
                       MakeVerdict("l4", "pass")};
  nlohmann::json report = {{"images", {image}}};
  auto advice = fi::RenderPlacementAdvice(report, fleet);
  REQUIRE_MESSAGE(advice.ok(), imagelint::testing::ErrorText(advice));
  INFO(*advice);
  // a100 cannot be told apart from the failing a100-old-toolkit by labels.
  CHECK(advice->find("a100: pass, but left out because its node labels do not tell it apart from excluded pool "
                     "a100-old-toolkit") != std::string::npos);
  YAML::Node doc = YAML::Load(*advice);
  auto terms = doc["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"];
  REQUIRE(terms.size() == 1);
  std::map<std::string, std::string> expressions;
  for (const auto& e : terms[0]["matchExpressions"]) expressions[e["key"].as<std::string>()] = e["values"][0].as<std::string>();
  CHECK(expressions == std::map<std::string, std::string>{{"nvidia.com/cuda.driver-version.full", "550.54.15"},
                                                          {"nvidia.com/gpu.product", "NVIDIA-L4"}});
  CHECK(advice->find("derived") != std::string::npos);
}

TEST_CASE("placement advice when nothing passes, and for several images") {
  imagelint::Fleet fleet;
  imagelint::Pool p;
  p.name = "t4";
  p.gpu = "Tesla T4";
  p.driver = "470.256.02";
  p.selector_labels = {{"nvidia.com/gpu.product", "Tesla-T4"}};
  fleet.pools = {p};
  nlohmann::json failing = {{"ref", "a"}, {"verdicts", {MakeVerdict("t4", "fail", 35, "cudaErrorInsufficientDriver")}}};
  nlohmann::json passing = {{"ref", "b"}, {"verdicts", {MakeVerdict("t4", "pass")}}};
  nlohmann::json report = {{"images", {failing, passing}}};
  auto advice = fi::RenderPlacementAdvice(report, fleet);
  REQUIRE(advice.ok());
  INFO(*advice);
  auto docs = YAML::LoadAll(*advice);
  REQUIRE(docs.size() == 2);
  // Nothing passes: a term no node matches (every node has a hostname).
  auto none = docs[0]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"];
  REQUIRE(none.size() == 1);
  CHECK(none[0]["matchExpressions"][0]["key"].as<std::string>() == "kubernetes.io/hostname");
  CHECK(none[0]["matchExpressions"][0]["operator"].as<std::string>() == "DoesNotExist");
  CHECK(advice->find("# No pool can be admitted") != std::string::npos);
  CHECK(docs[1]["affinity"]["nodeAffinity"]);
}

TEST_CASE("placement advice rejects a report without images and an empty fleet") {
  imagelint::Fleet fleet;
  CHECK_FALSE(fi::RenderPlacementAdvice(nlohmann::json::object(), fleet).ok());
  CHECK_FALSE(fi::RenderPlacementAdvice(nlohmann::json{{"images", nlohmann::json::array()}}, fleet).ok());
}
