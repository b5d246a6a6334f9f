// Imports against the real knowledge files (rules/knowledge/gpus.yaml) and
// the fleet YAML loader: brand from the product name, guesses, any-format loading.
#include <doctest/doctest.h>

#include "fleet_import/hosts.h"
#include "imagelint/fleet.h"
#include "imagelint/fleet_import.h"
#include "imagelint/knowledge.h"
#include "support/test_support.h"

namespace fi = imagelint::fleet_import;
using imagelint::testing::ReadFileText;
using imagelint::testing::SourceDir;
using imagelint::testing::TempDir;
using imagelint::testing::WriteFileText;

namespace {

const imagelint::Knowledge& TheKnowledge() {
  static const imagelint::Knowledge knowledge = [] {
    auto loaded = imagelint::Knowledge::Load(SourceDir() / "rules/knowledge");
    REQUIRE_MESSAGE(loaded.ok(), imagelint::testing::ErrorText(loaded));
    return std::move(*loaded);
  }();
  return knowledge;
}

std::string FixturePath(const std::string& name) { return (SourceDir() / "tests/fleet_import/fixtures" / name).string(); }

const imagelint::Pool* FindKnowledgePool(const imagelint::Fleet& fleet, const std::string& name) {
  for (const auto& p : fleet.pools)
    if (p.name == name) return &p;
  return nullptr;
}

}  // namespace

TEST_CASE("the knowledge resolver reads GFD label values and old spellings") {
  auto gpus = fi::ResolverFromKnowledge(TheKnowledge());
  auto a100 = gpus("NVIDIA-A100-SXM4-80GB");
  REQUIRE(a100);
  CHECK(a100->name == "NVIDIA A100-SXM4-80GB");
  CHECK(a100->compute_capability == "8.0");
  auto old_a100 = gpus("A100-SXM4-40GB");  // label of a driver that printed no "NVIDIA " prefix
  REQUIRE(old_a100);
  CHECK(old_a100->name == "NVIDIA A100-SXM4-40GB");
  auto rtx = gpus("NVIDIA-GeForce-RTX-3090");
  REQUIRE(rtx);
  CHECK(rtx->brand == "geforce");
  CHECK(rtx->datacenter == false);
  auto t4 = gpus("Tesla T4");
  REQUIRE(t4);
  CHECK(t4->brand == "tesla");
  CHECK_FALSE(gpus("NVIDIA-Imaginary-9000").has_value());
}

TEST_CASE("k8s import with the GPU knowledge file: brand from the product, guesses flagged") {
  std::string json = R"({"items": [
    {"metadata": {"name": "n1", "labels": {"nvidia.com/gpu.product": "NVIDIA-GeForce-RTX-3090", "nvidia.com/gpu.count": "2",
      "nvidia.com/cuda.driver-version.full": "460.67"}}},
    {"metadata": {"name": "n2", "labels": {"nvidia.com/gpu.product": "NVIDIA-GeForce-RTX-9090", "nvidia.com/gpu.count": "1",
      "nvidia.com/gpu.compute.major": "13", "nvidia.com/gpu.compute.minor": "0",
      "nvidia.com/cuda.driver-version.full": "600.10"}}}]})";
  auto result = fi::ImportKubernetesNodes(json, "n.json", fi::ResolverFromKnowledge(TheKnowledge()));
  REQUIRE_MESSAGE(result.ok(), imagelint::testing::ErrorText(result));
  REQUIRE(result->pools.size() == 2);
  const auto& known = result->pools[0];
  CHECK(known.in_knowledge);
  CHECK(known.pool.gpu == "NVIDIA GeForce RTX 3090");
  CHECK(known.pool.brand == "geforce");
  CHECK(known.pool.compute_capability == "8.6");
  CHECK_FALSE(known.brand_guessed);
  const auto& guessed = result->pools[1];
  CHECK_FALSE(guessed.in_knowledge);
  CHECK(guessed.brand_guessed);
  CHECK(guessed.pool.brand == "geforce");
  CHECK(guessed.pool.compute_capability == "13.0");
  std::string yaml = fi::RenderFleetYaml(*result);
  CHECK(yaml.find("brand \"geforce\" guessed from the product name") != std::string::npos);
  CHECK(yaml.find("# warning: GPU \"NVIDIA-GeForce-RTX-9090\" is not in the GPU knowledge file") != std::string::npos);
}

TEST_CASE("LoadFleetAnyFormat: Kubernetes nodes become the same fleet the YAML loader builds") {
  auto fleet = fi::LoadFleetAnyFormat(FixturePath("nodes-mixed.json"), TheKnowledge());
  REQUIRE_MESSAGE(fleet.ok(), imagelint::testing::ErrorText(fleet));
  CHECK(fleet->source == FixturePath("nodes-mixed.json"));
  REQUIRE(fleet->pools.size() == 6);
  const auto* rtx = FindKnowledgePool(*fleet, "geforce-rtx-3090-460.67");
  REQUIRE(rtx);
  CHECK(rtx->gpu == "NVIDIA GeForce RTX 3090");
  CHECK(rtx->brand == "geforce");
  CHECK(rtx->datacenter == false);
  CHECK(rtx->compute_capability == "8.6");
  CHECK(rtx->architecture == "Ampere");
  CHECK(rtx->driver == "460.67");
  CHECK(rtx->runtime == "k8s-device-plugin");
  CHECK(rtx->count == 1);
  CHECK(rtx->source.find("gpu-rtx-1") != std::string::npos);
  CHECK(rtx->selector_labels.at("nvidia.com/gpu.product") == "NVIDIA-GeForce-RTX-3090");
  const auto* gh200 = FindKnowledgePool(*fleet, "gh200-480gb-550.54.15");
  REQUIRE(gh200);
  CHECK(gh200->gpu == "NVIDIA GH200 480GB");
  CHECK(gh200->platform.ToString() == "linux/arm64");
  CHECK(gh200->compute_capability == "9.0");
}

TEST_CASE("LoadFleetAnyFormat: legacy labels, nvidia-smi XML, container-cli CSV") {
  auto legacy = fi::LoadFleetAnyFormat(FixturePath("nodes-legacy.json"), TheKnowledge());
  REQUIRE_MESSAGE(legacy.ok(), imagelint::testing::ErrorText(legacy));
  REQUIRE(legacy->pools.size() == 2);
  const auto* rtx = FindKnowledgePool(*legacy, "geforce-rtx-2080-ti-450.80.02");
  REQUIRE(rtx);
  CHECK(rtx->brand == "geforce");
  CHECK(rtx->compute_capability == "7.5");

  auto smi = fi::LoadFleetAnyFormat(FixturePath("nvidia-smi-hosts.xml"), TheKnowledge());
  REQUIRE_MESSAGE(smi.ok(), imagelint::testing::ErrorText(smi));
  REQUIRE(smi->pools.size() == 4);
  const auto* l4 = FindKnowledgePool(*smi, "l4-550.54.15");
  REQUIRE(l4);
  CHECK(l4->compute_capability == "8.9");
  CHECK(l4->runtime.has_value());  // defaulted by the fleet loader

  auto cli = fi::LoadFleetAnyFormat(FixturePath("container-cli-hosts.csv"), TheKnowledge());
  REQUIRE_MESSAGE(cli.ok(), imagelint::testing::ErrorText(cli));
  REQUIRE(cli->pools.size() == 3);
  const auto* a6000 = FindKnowledgePool(*cli, "rtx-a6000-525.85.12");
  REQUIRE(a6000);
  CHECK(a6000->gpu == "NVIDIA RTX A6000");
  CHECK(a6000->brand == "nvidiartx");
  // libnvidia-container < 1.9.0 printed Unknown; the knowledge file knows better.
  const auto* h100 = FindKnowledgePool(*cli, "h100-80gb-hbm3-535.104.05");
  REQUIRE(h100);
  CHECK(h100->brand != "unknown");
  CHECK(h100->brand.has_value());
}

TEST_CASE("LoadFleetAnyFormat: a fleet YAML file goes to the fleet loader; errors stay errors") {
  TempDir dir;
  WriteFileText(dir / "fleet.yaml",
                "# hand-written\npools:\n  - name: t4\n    gpu: Tesla T4\n    driver: \"470.256.02\"\n");
  auto fleet = fi::LoadFleetAnyFormat((dir / "fleet.yaml").string(), TheKnowledge());
  REQUIRE_MESSAGE(fleet.ok(), imagelint::testing::ErrorText(fleet));
  REQUIRE(fleet->pools.size() == 1);
  CHECK(fleet->pools[0].brand == "tesla");

  WriteFileText(dir / "bad.json",
                R"({"items": [{"metadata": {"name": "gpu-9", "labels": {"nvidia.com/gpu.product": "Tesla-T4"}}}]})");
  auto bad = fi::LoadFleetAnyFormat((dir / "bad.json").string(), TheKnowledge());
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().ToString().find("gpu-9") != std::string::npos);

  CHECK_FALSE(fi::LoadFleetAnyFormat((dir / "missing.json").string(), TheKnowledge()).ok());

  // An unknown product without a compute capability cannot be judged.
  WriteFileText(dir / "unknown.csv",
                "# host: lab-7\nNVRM version,CUDA version\n550.54.15,12.4\n\n"
                "Device Index,Device Minor,Model,Brand,GPU UUID,Bus Location,Architecture\n"
                "0,0,NVIDIA Imaginary 9000,Nvidia,GPU-1,00000000:01:00.0,\n");
  auto unknown = fi::LoadFleetAnyFormat((dir / "unknown.csv").string(), TheKnowledge());
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().ToString().find("NVIDIA Imaginary 9000") != std::string::npos);
  CHECK(unknown.error().ToString().find("lab-7") != std::string::npos);
}

TEST_CASE("brands an input prints, and brands guessed from names, come from nvml-brands.yaml") {
  auto brands = fi::BrandNamesFromKnowledge(TheKnowledge());
  CHECK(brands.size() == TheKnowledge().Table("nvml_brands").size());
  // NVML names and the longer names nvidia-smi prints for vGPU brands.
  CHECK(fi::NormaliseBrand("GeForce", brands) == "geforce");
  CHECK(fi::NormaliseBrand("NVIDIA RTX", brands) == "nvidiartx");
  CHECK(fi::NormaliseBrand("Quadro RTX", brands) == "quadrortx");
  CHECK(fi::NormaliseBrand("NVIDIA Virtual Compute Server", brands) == "vcs");
  CHECK(fi::NormaliseBrand("NVIDIA RTX Virtual Workstation", brands) == "vws");
  CHECK(fi::NormaliseBrand("nvidia_cloud-gaming", brands) == "cloudgaming");
  CHECK(fi::NormaliseBrand("Radeon", brands) == "unknown");
  CHECK(fi::NormaliseBrand("  ", brands).empty());
  // Product words, tried in file order.
  CHECK(fi::GuessBrandFromName("NVIDIA TITAN RTX", brands) == std::optional<std::string>("titan"));
  CHECK(fi::GuessBrandFromName("Quadro RTX 6000", brands) == std::optional<std::string>("quadro"));
  CHECK(fi::GuessBrandFromName("NVIDIA GeForce GTX TITAN X", brands) == std::optional<std::string>("geforce"));
  CHECK(fi::GuessBrandFromName("NVIDIA RTX A6000", brands) == std::optional<std::string>("nvidiartx"));
  CHECK(fi::GuessBrandFromName("Tesla K80", brands) == std::optional<std::string>("tesla"));
  CHECK_FALSE(fi::GuessBrandFromName("NVIDIA H100 80GB HBM3", brands).has_value());
  // Without brand knowledge nothing is known or guessed.
  CHECK(fi::NormaliseBrand("GeForce", {}) == "unknown");
  CHECK_FALSE(fi::GuessBrandFromName("GeForce RTX 3090", {}).has_value());
}

TEST_CASE("a brand added to nvml-brands.yaml is read by the import with no C++ change") {
  TempDir dir;
  auto out = dir / "knowledge";
  std::filesystem::create_directories(out);
  for (const auto& entry : std::filesystem::directory_iterator(SourceDir() / "rules/knowledge"))
    std::filesystem::copy_file(entry.path(), out / entry.path().filename());
  WriteFileText(out / "nvml-brands.yaml",
                ReadFileText(out / "nvml-brands.yaml") +
                    "  - id: 17\n    name: NVIDIA DLA\n    requirement: nvidiadla\n    forward_compat: unknown\n"
                    "    spellings: [\"NVIDIA Deep Learning Accelerator\"]\n    product_words: [dla]\n    source: S20\n");
  auto knowledge = imagelint::Knowledge::Load(out);
  REQUIRE_MESSAGE(knowledge.ok(), imagelint::testing::ErrorText(knowledge));
  auto brands = fi::BrandNamesFromKnowledge(*knowledge);
  CHECK(fi::NormaliseBrand("NVIDIA Deep Learning Accelerator", brands) == "nvidiadla");
  CHECK(fi::GuessBrandFromName("NVIDIA DLA Test Part", brands) == std::optional<std::string>("nvidiadla"));
}

TEST_CASE("an input's Unknown brand is explained by the brand's since_lnc in nvml-brands.yaml") {
  auto result = fi::ImportContainerCliCsv(ReadFileText(FixturePath("container-cli-hosts.csv")), "cli.csv",
                                          fi::ResolverFromKnowledge(TheKnowledge()));
  REQUIRE_MESSAGE(result.ok(), imagelint::testing::ErrorText(result));
  const fi::ImportedPool* h100 = nullptr;
  for (const auto& pool : result->pools)
    if (pool.pool.gpu == "NVIDIA H100 80GB HBM3") h100 = &pool;
  REQUIRE(h100);
  REQUIRE(h100->pool.brand.has_value());
  const auto* row = TheKnowledge().FindBrand(*h100->pool.brand);
  REQUIRE(row);
  REQUIRE(row->contains("since_lnc"));
  std::string expected = "libnvidia-container before " + row->at("since_lnc").get<std::string>() + " prints " +
                         *h100->pool.brand + " as Unknown";
  bool found = false;
  for (const auto& note : h100->notes) found |= note.find(expected) != std::string::npos;
  CHECK(found);
}
