// Imports with a small GPU table of the test's own, so that grouping, label
// generations, MIG, sharing and error handling are checked independently of
// the knowledge files (knowledge_test.cpp uses the real ones).
#include <doctest/doctest.h>

#include <map>

#include "fleet_import/xml.h"
#include "imagelint/fleet_import.h"
#include "imagelint/knowledge.h"
#include "support/test_support.h"

namespace fi = imagelint::fleet_import;
using imagelint::testing::ReadFileText;
using imagelint::testing::SourceDir;

namespace {

std::string Fixture(const std::string& name) {
  return ReadFileText(SourceDir() / "tests/fleet_import/fixtures" / name);
}

// The NVML brands of the knowledge files (the brands are NVIDIA's, not the
// test's: nvml-brands.yaml).
std::vector<fi::BrandNames> KnowledgeBrands() {
  static const std::vector<fi::BrandNames> brands = [] {
    auto knowledge = imagelint::Knowledge::Load(SourceDir() / "rules/knowledge");
    REQUIRE_MESSAGE(knowledge.ok(), imagelint::testing::ErrorText(knowledge));
    return fi::BrandNamesFromKnowledge(*knowledge);
  }();
  return brands;
}

// Test-only product table: a few products with the facts NVIDIA publishes for them.
fi::GpuResolver TestGpus() {
  static const std::map<std::string, fi::GpuFacts> table = {
      {"nvidia-a100-sxm4-80gb", {"NVIDIA A100-SXM4-80GB", "8.0", "nvidia", true}},
      {"nvidia-a100-sxm4-40gb", {"NVIDIA A100-SXM4-40GB", "8.0", "nvidia", true}},
      {"nvidia-geforce-rtx-3090", {"NVIDIA GeForce RTX 3090", "8.6", "geforce", false}},
      {"tesla-t4", {"Tesla T4", "7.5", "tesla", true}},
      {"nvidia-l4", {"NVIDIA L4", "8.9", "nvidia", true}},
      {"tesla-v100-sxm2-16gb", {"Tesla V100-SXM2-16GB", "7.0", "tesla", true}},
  };
  auto find = [](std::string_view product) -> std::optional<fi::GpuFacts> {
    std::string key;
    for (char c : fi::SanitiseLabelValue(product)) key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    auto it = table.find(key);
    if (it == table.end()) it = table.find("nvidia-" + key);
    if (it == table.end()) return std::nullopt;
    return it->second;
  };
  return fi::GpuResolver{find, KnowledgeBrands()};
}

const fi::ImportedPool* FindPool(const fi::ImportResult& result, const std::string& name) {
  for (const auto& p : result.pools)
    if (p.pool.name == name) return &p;
  return nullptr;
}

std::string PoolNames(const fi::ImportResult& result) {
  std::string out;
  for (const auto& p : result.pools) out += p.pool.name + " ";
  return out;
}

}  // namespace

TEST_CASE("GFD sanitise matches the labeler") {
  CHECK(fi::SanitiseLabelValue("NVIDIA A100-SXM4-80GB") == "NVIDIA-A100-SXM4-80GB");
  CHECK(fi::SanitiseLabelValue("NVIDIA GeForce RTX 3090") == "NVIDIA-GeForce-RTX-3090");
  CHECK(fi::SanitiseLabelValue("NVIDIA H100 80GB HBM3") == "NVIDIA-H100-80GB-HBM3");
  CHECK(fi::SanitiseLabelValue("GeForce 9800 GTX/9800 GTX+") == "GeForce-9800-GTX9800-GTX");
  CHECK(fi::SanitiseLabelValue("  A  B  ") == "A-B");
}

TEST_CASE("input kind is detected from content") {
  CHECK(fi::DetectInputKind("{\"items\": []}") == fi::InputKind::kKubernetesNodes);
  CHECK(fi::DetectInputKind("\n  [ ]") == fi::InputKind::kKubernetesNodes);
  CHECK(fi::DetectInputKind("<?xml version=\"1.0\" ?>\n<nvidia_smi_log/>") == fi::InputKind::kNvidiaSmiXml);
  CHECK(fi::DetectInputKind("# host: a\nNVRM version,CUDA version\n") == fi::InputKind::kContainerCliCsv);
  CHECK(fi::DetectInputKind("# my fleet\npools:\n  - name: x\n") == fi::InputKind::kFleetYaml);
  CHECK(fi::DetectInputKind(Fixture("nodes-mixed.json")) == fi::InputKind::kKubernetesNodes);
  CHECK(fi::DetectInputKind(Fixture("nvidia-smi-hosts.xml")) == fi::InputKind::kNvidiaSmiXml);
  CHECK(fi::DetectInputKind(Fixture("container-cli-hosts.csv")) == fi::InputKind::kContainerCliCsv);
}

TEST_CASE("k8s: a mixed cluster of current-generation labels becomes several pools") {
  auto result = fi::ImportKubernetesNodes(Fixture("nodes-mixed.json"), "nodes-mixed.json", TestGpus());
  REQUIRE_MESSAGE(result.ok(), imagelint::testing::ErrorText(result));
  CHECK(result->hosts_seen == 9);
  REQUIRE(result->skipped.size() == 1);
  CHECK(result->skipped[0] == "cpu-1");
  INFO(PoolNames(*result));
  REQUIRE(result->pools.size() == 6);

  const auto* a100 = FindPool(*result, "a100-sxm4-80gb-550.107.02");
  REQUIRE(a100);
  CHECK(a100->hosts == std::vector<std::string>{"gpu-a100-1", "gpu-a100-2"});
  CHECK(a100->pool.count == 2);
  CHECK(a100->gpus_per_host == 8);
  CHECK(a100->pool.gpu == "NVIDIA A100-SXM4-80GB");
  CHECK(a100->pool.driver == "550.107.02");
  CHECK(a100->pool.compute_capability == "8.0");
  CHECK(a100->pool.brand == "nvidia");
  CHECK(a100->pool.datacenter == true);
  CHECK(a100->pool.runtime == "k8s-device-plugin");
  CHECK(a100->pool.platform.ToString() == "linux/amd64");
  CHECK(a100->cuda_version == "12.4");
  CHECK_FALSE(a100->brand_guessed);
  // The current names win over their deprecated duplicates.
  CHECK(a100->pool.selector_labels == std::map<std::string, std::string>{
                                          {"kubernetes.io/arch", "amd64"},
                                          {"nvidia.com/cuda.driver-version.full", "550.107.02"},
                                          {"nvidia.com/gpu.count", "8"},
                                          {"nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB"}});

  const auto* rtx = FindPool(*result, "geforce-rtx-3090-460.67");
  REQUIRE(rtx);
  CHECK(rtx->pool.brand == "geforce");
  CHECK(rtx->pool.datacenter == false);
  CHECK(rtx->pool.driver == "460.67");

  // Shared GPUs: the -SHARED suffix is stripped for the lookup, kept in the
  // selector, and makes its own pool.
  const auto* t4 = FindPool(*result, "tesla-t4-470.256.02");
  const auto* t4_shared = FindPool(*result, "tesla-t4-shared-470.256.02");
  REQUIRE(t4);
  REQUIRE(t4_shared);
  CHECK(t4->pool.count == 2);
  CHECK(t4_shared->pool.count == 1);
  CHECK(t4_shared->pool.gpu == "Tesla T4");
  CHECK(t4_shared->sharing == "time-slicing");
  CHECK(t4_shared->pool.selector_labels.at("nvidia.com/gpu.product") == "Tesla-T4-SHARED");

  // MIG: the parent product is looked up, the profile recorded.
  const auto* mig = FindPool(*result, "a100-sxm4-40gb-mig-1g.5gb-535.104.05");
  REQUIRE(mig);
  CHECK(mig->pool.gpu == "NVIDIA A100-SXM4-40GB");
  CHECK(mig->mig_profile == "1g.5gb");
  CHECK(mig->gpus_per_host == 7);
  CHECK(mig->pool.compute_capability == "8.0");

  // Not in the (test) table: compute capability from the labels, brand guessed
  // or unknown, and the import says so.
  const auto* gh200 = FindPool(*result, "gh200-480gb-550.54.15");
  REQUIRE(gh200);
  CHECK(gh200->pool.platform.ToString() == "linux/arm64");
  CHECK_FALSE(gh200->in_knowledge);
  CHECK(gh200->pool.compute_capability == "9.0");
  CHECK_FALSE(gh200->pool.brand.has_value());
  CHECK(gh200->pool.selector_labels.at("kubernetes.io/arch") == "arm64");
  REQUIRE_FALSE(result->warnings.empty());
  CHECK(result->warnings[0].find("NVIDIA-GH200-480GB") != std::string::npos);
}

TEST_CASE("k8s: deprecated label generation (GFD <= v0.8.2)") {
  auto result = fi::ImportKubernetesNodes(Fixture("nodes-legacy.json"), "nodes-legacy.json", TestGpus());
  REQUIRE_MESSAGE(result.ok(), imagelint::testing::ErrorText(result));
  CHECK(result->hosts_seen == 5);
  CHECK(result->skipped == std::vector<std::string>{"old-cpu-1", "old-cpu-2"});
  INFO(PoolNames(*result));
  REQUIRE(result->pools.size() == 2);
  const auto* v100 = FindPool(*result, "tesla-v100-sxm2-16gb-418.87.01");
  REQUIRE(v100);
  CHECK(v100->pool.driver == "418.87.01");
  CHECK(v100->cuda_version == "10.1");
  CHECK(v100->pool.brand == "tesla");
  CHECK(v100->pool.selector_labels == std::map<std::string, std::string>{
                                          {"kubernetes.io/arch", "amd64"},
                                          {"nvidia.com/cuda.driver.major", "418"},
                                          {"nvidia.com/cuda.driver.minor", "87"},
                                          {"nvidia.com/cuda.driver.rev", "01"},
                                          {"nvidia.com/gpu.count", "8"},
                                          {"nvidia.com/gpu.product", "Tesla-V100-SXM2-16GB"}});
  // A GeForce name from before the "NVIDIA " prefix, not in the test table:
  // the brand is guessed, and the import says so.
  const auto* rtx = FindPool(*result, "geforce-rtx-2080-ti-450.80.02");
  REQUIRE(rtx);
  CHECK(rtx->brand_guessed);
  CHECK(rtx->pool.brand == "geforce");
  CHECK(rtx->pool.compute_capability == "7.5");
  std::string yaml = fi::RenderFleetYaml(*result);
  CHECK(yaml.find("brand: \"geforce\"  # guessed from the product name") != std::string::npos);
  CHECK(yaml.find("only the deprecated nvidia.com/cuda.driver.* labels") != std::string::npos);
}

TEST_CASE("k8s: pools that differ only by GPUs per node get distinct names") {
  std::string json = R"({"items": [
    {"metadata": {"name": "a", "labels": {"nvidia.com/gpu.product": "Tesla-T4", "nvidia.com/gpu.count": "1",
      "nvidia.com/cuda.driver-version.full": "470.256.02"}}},
    {"metadata": {"name": "b", "labels": {"nvidia.com/gpu.product": "Tesla-T4", "nvidia.com/gpu.count": "4",
      "nvidia.com/cuda.driver-version.full": "470.256.02"}}}]})";
  auto result = fi::ImportKubernetesNodes(json, "n.json", TestGpus());
  REQUIRE_MESSAGE(result.ok(), imagelint::testing::ErrorText(result));
  REQUIRE(result->pools.size() == 2);
  CHECK(result->pools[0].pool.name == "tesla-t4-470.256.02-1gpu");
  CHECK(result->pools[1].pool.name == "tesla-t4-470.256.02-4gpu");
}

TEST_CASE("k8s: malformed input is an error naming the node or line") {
  auto import = [](const std::string& text) { return fi::ImportKubernetesNodes(text, "bad.json", TestGpus()); };
  SUBCASE("JSON syntax error carries line and column") {
    auto r = import("{\"items\": [\n  {\"metadata\": {\"name\": \"x\",}}\n]}");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().subject == "bad.json");
    CHECK(r.error().line == 2);
  }
  SUBCASE("product without a driver label") {
    auto r = import(R"({"items": [{"metadata": {"name": "gpu-7", "labels": {"nvidia.com/gpu.product": "Tesla-T4"}}}]})");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().ToString().find("node \"gpu-7\"") != std::string::npos);
    CHECK(r.error().ToString().find("no driver version label") != std::string::npos);
  }
  SUBCASE("a driver major label without its minor, in either label generation") {
    for (const char* major : {"nvidia.com/cuda.driver-version.major", "nvidia.com/cuda.driver.major"}) {
      CAPTURE(major);
      auto r = import(std::string(R"({"items": [{"metadata": {"name": "gpu-6", "labels": {"nvidia.com/gpu.product": "Tesla-T4", ")") +
                      major + R"(": "470"}}}]})");
      REQUIRE_FALSE(r.ok());
      CHECK(r.error().ToString().find("node \"gpu-6\": has " + std::string(major) + " but no ") != std::string::npos);
    }
  }
  SUBCASE("driver label that is not a version") {
    auto r = import(R"({"items": [{"metadata": {"name": "gpu-8", "labels": {"nvidia.com/gpu.product": "Tesla-T4",
        "nvidia.com/cuda.driver-version.full": "latest"}}}]})");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().ToString().find("gpu-8") != std::string::npos);
    CHECK(r.error().ToString().find("\"latest\"") != std::string::npos);
  }
  SUBCASE("count that is not a number") {
    auto r = import(R"({"items": [{"metadata": {"name": "gpu-9", "labels": {"nvidia.com/gpu.product": "Tesla-T4",
        "nvidia.com/cuda.driver-version.full": "470.1", "nvidia.com/gpu.count": "-1"}}}]})");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().ToString().find("gpu-9") != std::string::npos);
  }
  SUBCASE("compute capability label that is not a number") {
    auto r = import(R"({"items": [{"metadata": {"name": "gpu-10", "labels": {"nvidia.com/gpu.product": "Tesla-T4",
        "nvidia.com/cuda.driver-version.full": "470.1", "nvidia.com/gpu.compute.major": "seven"}}}]})");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().ToString().find("gpu-10") != std::string::npos);
  }
  SUBCASE("label value that is not a string") {
    auto r = import(R"({"items": [{"metadata": {"name": "gpu-11", "labels": {"nvidia.com/gpu.count": 8}}}]})");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().ToString().find("gpu-11") != std::string::npos);
  }
  SUBCASE("not a node list") {
    CHECK_FALSE(import("{\"kind\": \"PodList\"}").ok());
    CHECK_FALSE(import("{\"items\": 3}").ok());
    CHECK_FALSE(import("42").ok());
  }
  SUBCASE("a number no double holds (1E400): file:line:column, not an internal error") {
    auto r = import("{\"items\": [\n  {\"metadata\": {\"name\": \"n\", \"x\": 1E400}}]}");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().line == 2);
    CHECK(r.error().column > 1);
    CHECK(r.error().message.find("number overflow parsing '1E400'") != std::string::npos);
  }
  SUBCASE("bytes that are not UTF-8 inside a string: file:line:column") {
    auto r = import("{\"items\": [{\"metadata\": {\"name\": \"n\\xff\xff\"}}]}");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().line == 1);
    CHECK(r.error().message.find("not valid JSON") != std::string::npos);
  }
  SUBCASE("nesting bomb is refused before parsing") {
    std::string deep(100000, '[');
    auto r = import(deep);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message.find("nested deeper") != std::string::npos);
  }
  SUBCASE("size limit") {
    fi::ImportLimits limits;
    limits.max_input_bytes = 10;
    CHECK_FALSE(fi::ImportKubernetesNodes("{\"items\": []}", "big.json", TestGpus(), limits).ok());
  }
}

TEST_CASE("nvidia-smi XML: several hosts, brand from the output, one pool per model") {
  auto result = fi::ImportNvidiaSmiXml(Fixture("nvidia-smi-hosts.xml"), "smi.xml", TestGpus());
  REQUIRE_MESSAGE(result.ok(), imagelint::testing::ErrorText(result));
  CHECK(result->hosts_seen == 5);
  CHECK(result->skipped == std::vector<std::string>{"empty-1"});
  INFO(PoolNames(*result));
  REQUIRE(result->pools.size() == 4);
  const auto* a100 = FindPool(*result, "a100-sxm4-80gb-535.104.05");
  REQUIRE(a100);
  CHECK(a100->hosts == std::vector<std::string>{"dgx-1", "dgx-2"});
  CHECK(a100->gpus_per_host == 2);
  CHECK(a100->pool.brand == "nvidia");
  CHECK(a100->cuda_version == "12.2");
  CHECK(a100->pool.selector_labels.empty());
  // Old driver spelling without "NVIDIA ", brand from nvidia-smi itself.
  const auto* rtx = FindPool(*result, "geforce-rtx-3090-460.67");
  REQUIRE(rtx);
  CHECK(rtx->pool.gpu == "NVIDIA GeForce RTX 3090");
  CHECK(rtx->pool.brand == "geforce");
  CHECK_FALSE(rtx->brand_guessed);
  // A host with two models lands in two pools.
  const auto* l4 = FindPool(*result, "l4-550.54.15");
  const auto* t4 = FindPool(*result, "tesla-t4-550.54.15");
  REQUIRE(l4);
  REQUIRE(t4);
  CHECK(l4->hosts == std::vector<std::string>{"infer-1"});
  CHECK(l4->pool.compute_capability == "8.9");
  CHECK(t4->pool.brand == "nvidia");  // what nvidia-smi said wins over the table's "tesla"
}

TEST_CASE("nvidia-smi XML: malformed and hostile input") {
  auto import = [](const std::string& text) { return fi::ImportNvidiaSmiXml(text, "smi.xml", TestGpus()); };
  SUBCASE("unterminated element, with line") {
    auto r = import("<nvidia_smi_log>\n<driver_version>535.1</driver_version>\n<gpu>\n");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().line == 4);
    CHECK(r.error().message.find("unterminated") != std::string::npos);
  }
  SUBCASE("mismatched end tag") {
    auto r = import("<nvidia_smi_log>\n  <driver_version>535.1</driver>\n</nvidia_smi_log>");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().line == 2);
  }
  SUBCASE("entity declarations are refused") {
    auto r = import("<!DOCTYPE x [<!ENTITY a \"aaaa\">]>\n<nvidia_smi_log>&a;</nvidia_smi_log>");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message.find("internal subset") != std::string::npos);
    auto r2 = import("<nvidia_smi_log>&a;</nvidia_smi_log>");
    REQUIRE_FALSE(r2.ok());
    CHECK(r2.error().message.find("unknown entity") != std::string::npos);
  }
  SUBCASE("depth limit") {
    std::string deep;
    for (int i = 0; i < 100; ++i) deep += "<a>";
    auto r = import("<nvidia_smi_log>" + deep);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message.find("deeper") != std::string::npos);
  }
  SUBCASE("wrong root") {
    auto r = import("<html></html>");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message.find("nvidia_smi_log") != std::string::npos);
  }
  SUBCASE("gpu without a product name names the host and line") {
    auto r = import("<!-- host: n1 -->\n<nvidia_smi_log>\n<driver_version>535.104.05</driver_version>\n<gpu id=\"0\">\n</gpu>\n</nvidia_smi_log>");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().line == 4);
    CHECK(r.error().message.find("n1") != std::string::npos);
  }
  SUBCASE("bad driver version") {
    auto r = import("<nvidia_smi_log><driver_version>abc</driver_version><gpu><product_name>Tesla T4</product_name></gpu></nvidia_smi_log>");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message.find("abc") != std::string::npos);
  }
}

TEST_CASE("xml reader decodes entities and character references") {
  auto doc = fi::ParseXml("<r a=\"x&amp;y\"><t>&lt;&#65;&#x42;&gt;</t><![CDATA[<raw>]]></r>", "t.xml");
  REQUIRE_MESSAGE(doc.ok(), imagelint::testing::ErrorText(doc));
  const auto& root = *doc->roots.at(0);
  CHECK(root.Attribute("a") == "x&y");
  CHECK(root.ChildText("t") == "<AB>");
  CHECK(root.text == "<raw>");
  CHECK_FALSE(fi::ParseXml("<r>&#0;</r>", "t.xml").ok());
  CHECK_FALSE(fi::ParseXml("<r>&#x110000;</r>", "t.xml").ok());
  CHECK_FALSE(fi::ParseXml("text", "t.xml").ok());
}

TEST_CASE("container-cli CSV: hosts, brands, unknown brand of old libnvidia-container") {
  auto result = fi::ImportContainerCliCsv(Fixture("container-cli-hosts.csv"), "cli.csv", TestGpus());
  REQUIRE_MESSAGE(result.ok(), imagelint::testing::ErrorText(result));
  CHECK(result->hosts_seen == 4);
  CHECK(result->skipped.empty());
  INFO(PoolNames(*result));
  REQUIRE(result->pools.size() == 3);
  const auto* t4 = FindPool(*result, "tesla-t4-470.256.02");
  REQUIRE(t4);
  CHECK(t4->hosts == std::vector<std::string>{"cli-t4-1", "cli-t4-2"});
  CHECK(t4->pool.brand == "tesla");
  CHECK(t4->pool.compute_capability == "7.5");
  const auto* a6000 = FindPool(*result, "rtx-a6000-525.85.12");
  REQUIRE(a6000);
  CHECK(a6000->gpus_per_host == 2);
  CHECK(a6000->pool.brand == "nvidiartx");  // from the CSV; not in the test table
  CHECK_FALSE(a6000->brand_guessed);
  CHECK(a6000->pool.compute_capability == "8.6");
  const auto* h100 = FindPool(*result, "h100-80gb-hbm3-535.104.05");
  REQUIRE(h100);
  CHECK(h100->hosts == std::vector<std::string>{"cli-old-lnc"});
  CHECK(h100->pool.brand == "unknown");
}

TEST_CASE("container-cli CSV: malformed input names the line") {
  auto import = [](const std::string& text) { return fi::ImportContainerCliCsv(text, "cli.csv", TestGpus()); };
  auto r1 = import("NVRM version,CUDA version\n470.256.02,11.4\n\nDevice Index,Device Minor,Model,Brand,GPU UUID,Bus Location,Architecture\n0,0,Tesla T4,Tesla\n");
  REQUIRE_FALSE(r1.ok());
  CHECK(r1.error().line == 5);
  auto r2 = import("NVRM version,CUDA version\nnot-a-version,11.4\n");
  REQUIRE_FALSE(r2.ok());
  CHECK(r2.error().line == 2);
  auto r3 = import("NVRM version,CUDA version\n470.256.02,11.4\n\nDevice Index,Device Minor,Model,Brand,GPU UUID,Bus Location,Architecture\n0,0,Tesla T4,Tesla,GPU-1,00:04.0,sm75\n");
  REQUIRE_FALSE(r3.ok());
  CHECK(r3.error().line == 5);
  auto r4 = import("hello\n");
  REQUIRE_FALSE(r4.ok());
  CHECK(r4.error().line == 1);
  auto r5 = import("NVRM version,CUDA version\n");
  REQUIRE_FALSE(r5.ok());
  auto r6 = import("NVRM version,CUDA version\n470.256.02,11.4\nstray line\n");
  REQUIRE_FALSE(r6.ok());
  CHECK(r6.error().line == 3);
}

TEST_CASE("fleet YAML of an import: comments per pool, quoted versions, selector labels") {
  auto result = fi::ImportKubernetesNodes(Fixture("nodes-mixed.json"), "nodes-mixed.json", TestGpus());
  REQUIRE(result.ok());
  std::string yaml = fi::RenderFleetYaml(*result);
  CHECK(yaml.find("# 9 nodes read: 8 in 6 pools; 1 without GPU information skipped (cpu-1).") != std::string::npos);
  CHECK(yaml.find("  # from 2 nodes: gpu-a100-1, gpu-a100-2\n") != std::string::npos);
  CHECK(yaml.find("    driver: \"550.107.02\"\n") != std::string::npos);
  CHECK(yaml.find("      \"nvidia.com/gpu.product\": \"NVIDIA-A100-SXM4-80GB\"\n") != std::string::npos);
  // Known product: only `gpu`; unknown: explicit compute capability.
  CHECK(yaml.find("    gpu: \"NVIDIA A100-SXM4-80GB\"\n    driver:") != std::string::npos);
  CHECK(yaml.find("    gpu: \"NVIDIA-GH200-480GB\"\n    compute_capability: \"9.0\"\n") != std::string::npos);
  imagelint::testing::CheckGolden("fleet_import/golden/nodes-mixed.fleet.yaml", yaml);
}
