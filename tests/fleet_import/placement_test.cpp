// Placement advice (report::RenderPlacementAdvice) from a typed report and a fleet.
#include <doctest/doctest.h>
#include <yaml-cpp/yaml.h>

#include <set>

#include "imagelint/fleet_import.h"
#include "imagelint/report.h"
#include "support/test_support.h"

namespace fi = imagelint::fleet_import;
namespace an = imagelint::analysis;
using imagelint::report::RenderPlacementAdvice;
using imagelint::testing::ReadFileText;
using imagelint::testing::SourceDir;

namespace {

fi::GpuResolver NoGpus() {
  return fi::GpuResolver{[](std::string_view) -> std::optional<fi::GpuFacts> { return std::nullopt; }, {}};
}

an::Verdict MakeVerdict(const std::string& pool, const std::string& status, int code = 0, const std::string& name = "",
                        std::vector<std::string> rules = {}) {
  an::Verdict v;
  v.pool = pool;
  v.status = *an::ParseOutcome(status);
  v.rules = std::move(rules);
  if (code) {
    an::PredictedError error;
    error.code = code;
    error.name = name;
    v.predicted_error = error;
  }
  return v;
}

an::Finding MakeFinding(const std::string& rule, const std::string& message, std::vector<std::string> pools) {
  an::Finding finding;
  finding.rule = rule;
  finding.message = message;
  finding.pools = std::move(pools);
  return finding;
}

an::ImageReport MakeImage(const std::string& ref, std::vector<an::Verdict> verdicts) {
  an::ImageReport image;
  image.ref = ref;
  image.verdicts = std::move(verdicts);
  return image;
}

an::Report MakeReport(std::vector<an::ImageReport> images) {
  an::Report report;
  report.images = std::move(images);
  return report;
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
  an::ImageReport image = MakeImage("registry.example/train:1.0", {
      MakeVerdict("a100-sxm4-80gb-550.107.02", "pass"),
      MakeVerdict("geforce-rtx-3090-460.67", "fail", 804, "cudaErrorCompatNotSupportedOnDevice", {"IL003"}),
      MakeVerdict("tesla-t4-470.256.02", "fail", 209, "cudaErrorNoKernelImageForDevice", {"IL007"}),
      MakeVerdict("tesla-t4-shared-470.256.02", "fail", 209, "cudaErrorNoKernelImageForDevice", {"IL007"}),
      MakeVerdict("a100-sxm4-40gb-mig-1g.5gb-535.104.05", "warn", 0, "", {"IL010"}),
      MakeVerdict("gh200-480gb-550.54.15", "pass"),
  });
  image.digest = "sha256:abc";
  image.findings = {
      MakeFinding("IL003", "forward-compat libcuda on a GeForce GPU\nsecond line", {"geforce-rtx-3090-460.67"}),
      MakeFinding("IL007", "no SASS for sm_75", {"tesla-t4-470.256.02", "tesla-t4-shared-470.256.02"}),
  };
  const an::Report report = MakeReport({image});

  auto advice = RenderPlacementAdvice(report, fleet);
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

  const an::Report report = MakeReport({MakeImage(
      "img", {MakeVerdict("a100", "pass"), MakeVerdict("a100-old-toolkit", "fail", 804, "cudaErrorCompatNotSupportedOnDevice"),
              MakeVerdict("l4", "pass")})});
  auto advice = RenderPlacementAdvice(report, fleet);
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
  const an::Report report = MakeReport({MakeImage("a", {MakeVerdict("t4", "fail", 35, "cudaErrorInsufficientDriver")}),
                                        MakeImage("b", {MakeVerdict("t4", "pass")})});
  auto advice = RenderPlacementAdvice(report, fleet);
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

TEST_CASE("placement advice needs a fleet") {
  imagelint::Fleet fleet;
  CHECK_FALSE(RenderPlacementAdvice(MakeReport({}), fleet).ok());
  auto advice = RenderPlacementAdvice(MakeReport({MakeImage("a", {MakeVerdict("t4", "pass")})}), fleet);
  REQUIRE_FALSE(advice.ok());
  CHECK(advice.error().message.find("needs a fleet") != std::string::npos);
}
