// The fleet YAML: lookups, defaults, and errors that name pool, field and line.
#include <doctest/doctest.h>

#include <filesystem>
#include <functional>

#include "imagelint/fleet.h"
#include "imagelint/knowledge.h"
#include "support/test_support.h"

using imagelint::Fleet;
using imagelint::Knowledge;

namespace {
const Knowledge& K() {
  static const Knowledge knowledge = [] {
    auto k = Knowledge::Load(imagelint::testing::SourceDir() / "rules" / "knowledge");
    if (!k.ok()) FAIL(k.error().ToString());
    return *k;
  }();
  return knowledge;
}
imagelint::Result<Fleet> Parse(const std::string& text) { return imagelint::ParseFleet(text, "fleet.yaml", K()); }
}  // namespace

TEST_CASE("the example fleet loads with every pool of the worked examples") {
  auto fleet = imagelint::LoadFleetFile((imagelint::testing::SourceDir() / "examples" / "fleet.yaml").string(), K());
  REQUIRE_MESSAGE(fleet.ok(), imagelint::testing::ErrorText(fleet));
  REQUIRE(fleet->pools.size() == 7);
  const auto& rtx = fleet->pools[0];
  CHECK(rtx.name == "rtx3090-460");
  CHECK(rtx.gpu == "NVIDIA GeForce RTX 3090");
  CHECK(rtx.compute_capability == std::optional<std::string>("8.6"));
  CHECK(rtx.brand == std::optional<std::string>("geforce"));
  CHECK(rtx.datacenter == std::optional<bool>(false));
  CHECK(rtx.driver == "460.67");
  CHECK(rtx.container_toolkit == std::optional<std::string>("1.4.0"));
  CHECK(rtx.runtime == std::optional<std::string>("docker-gpus"));  // from defaults:
  CHECK(rtx.count == 8);
  CHECK(rtx.line > 0);
  const auto& gh = fleet->pools[6];
  CHECK(gh.platform.ToString() == "linux/arm64");
  CHECK(gh.compute_capability == std::optional<std::string>("9.0"));
  CHECK(gh.datacenter == std::optional<bool>(true));
  CHECK(gh.runtime == std::optional<std::string>("cdi"));
}

TEST_CASE("defaults are documented values and recorded as defaulted") {
  auto fleet = Parse("pools:\n  - name: p\n    gpu: Tesla T4\n    driver: \"470.57.02\"\n");
  REQUIRE(fleet.ok());
  const auto& pool = fleet->pools[0];
  CHECK(pool.runtime == std::optional<std::string>("docker-gpus"));
  CHECK(pool.container_toolkit == std::optional<std::string>(K().NewestContainerToolkit()));
  CHECK(pool.platform.ToString() == "linux/amd64");
  CHECK(pool.defaulted == std::vector<std::string>{"container_toolkit", "runtime", "platform"});
  CHECK_FALSE(pool.cuda_compat_mode.has_value());
}

TEST_CASE("a pool that names no runtime may use every launch path its toolkit offers") {
  auto fleet = Parse(
      "pools:\n"
      "  - {name: newest, gpu: Tesla T4, driver: \"470.57.02\"}\n"
      "  - {name: before-cdi, gpu: Tesla T4, driver: \"470.57.02\", container_toolkit: \"1.11.0\"}\n"
      "  - {name: first-cdi, gpu: Tesla T4, driver: \"470.57.02\", container_toolkit: \"1.12.0\"}\n"
      "  - {name: named, gpu: Tesla T4, driver: \"470.57.02\", runtime: nvidia-runtime}\n");
  REQUIRE_MESSAGE(fleet.ok(), imagelint::testing::ErrorText(fleet));
  using Runtimes = std::vector<std::string>;
  // docker-gpus is the one assumed (`runtime`); k8s-device-plugin is the
  // nvidia runtime's launch path again.
  CHECK(fleet->pools[0].runtime_alternatives == Runtimes{"nvidia-runtime", "cdi"});
  CHECK(fleet->pools[1].runtime_alternatives == Runtimes{"nvidia-runtime"});  // CDI from toolkit 1.12.0
  CHECK(fleet->pools[2].runtime_alternatives == Runtimes{"nvidia-runtime", "cdi"});
  CHECK(fleet->pools[3].runtime_alternatives.empty());
  auto defaults = Parse("defaults:\n  runtime: cdi\npools:\n  - {name: p, gpu: Tesla T4, driver: \"470.57.02\"}\n");
  REQUIRE(defaults.ok());
  CHECK(defaults->pools[0].runtime_alternatives.empty());
}

TEST_CASE("explicit facts instead of (or over) a product name") {
  auto fleet = Parse(
      "pools:\n  - name: custom\n    compute_capability: \"8.9\"\n    brand: GeForce\n    datacenter: false\n"
      "    driver: \"550.54.15\"\n    cuda_compat_mode: mount\n  - name: override\n    gpu: NVIDIA RTX A6000\n"
      "    datacenter: true\n    driver: \"535.104.05\"\n");
  REQUIRE_MESSAGE(fleet.ok(), imagelint::testing::ErrorText(fleet));
  CHECK(fleet->pools[0].gpu.empty());
  CHECK(fleet->pools[0].brand == std::optional<std::string>("geforce"));
  CHECK(fleet->pools[0].architecture == std::optional<std::string>("Ada Lovelace"));
  CHECK(fleet->pools[0].cuda_compat_mode == std::optional<std::string>("mount"));
  CHECK(fleet->pools[1].datacenter == std::optional<bool>(true));  // the fleet knows its NGC-ready SKU
  CHECK(fleet->pools[1].compute_capability == std::optional<std::string>("8.6"));
}

TEST_CASE("unknown GPU: the pool keeps the name and no GPU facts; the rest of the fleet is read as usual") {
  auto fleet = Parse("pools:\n  - name: new\n    gpu: NVIDIA GeForce RTX 6090\n    driver: \"580.95.05\"\n"
                     "  - name: given\n    gpu: NVIDIA GeForce RTX 6090\n    compute_capability: \"12.0\"\n"
                     "    brand: geforce\n    driver: \"580.95.05\"\n"
                     "  - name: known\n    gpu: NVIDIA A100-SXM4-80GB\n    driver: \"580.95.05\"\n");
  REQUIRE_MESSAGE(fleet.ok(), imagelint::testing::ErrorText(fleet));
  REQUIRE(fleet->pools.size() == 3);
  CHECK(fleet->pools[0].gpu == "NVIDIA GeForce RTX 6090");  // no such product in the tables
  CHECK_FALSE(fleet->pools[0].compute_capability);
  CHECK_FALSE(fleet->pools[0].brand);
  CHECK_FALSE(fleet->pools[0].architecture);
  CHECK(fleet->pools[1].compute_capability == std::optional<std::string>("12.0"));
  CHECK(fleet->pools[1].brand == std::optional<std::string>("geforce"));
  CHECK(fleet->pools[2].compute_capability == std::optional<std::string>("8.0"));
}

TEST_CASE("validation errors name pool and field") {
  struct Case {
    const char* yaml;
    const char* expect;
    int line;
  };
  const Case cases[] = {
      {"pools:\n  - name: a\n    gpu: Tesla T4\n", "pool 'a': missing required field 'driver'", 2},
      {"pools:\n  - name: a\n    gpu: Tesla T4\n    driver: latest\n", "pool 'a': field 'driver' must be a driver version", 4},
      {"pools:\n  - name: a\n    gpu: Tesla T4\n    driver: \"470.57.02\"\n    runtime: podman\n",
       "pool 'a': field 'runtime' must be one of", 5},
      {"pools:\n  - name: a\n    gpu: Tesla T4\n    driver: \"470.57.02\"\n    container_toolkit: new\n",
       "pool 'a': field 'container_toolkit'", 5},
      {"pools:\n  - name: a\n    gpu: Tesla T4\n    driver: \"470.57.02\"\n    gpus: 8\n", "pool 'a': unknown field 'gpus'", 5},
      {"pools:\n  - name: a\n    driver: \"470.57.02\"\n", "pool 'a': give 'gpu'", 2},
      {"pools:\n  - gpu: Tesla T4\n    driver: \"470.57.02\"\n", "pool #1: missing required field 'name'", 2},
      {"pools:\n  - name: a\n    gpu: Tesla T4\n    driver: \"470.57.02\"\n  - name: a\n    gpu: Tesla T4\n    driver: "
       "\"470.57.02\"\n",
       "pool 'a': name used by an earlier pool", 5},
      {"pools:\n  - name: a\n    compute_capability: eight\n    driver: \"470.57.02\"\n", "field 'compute_capability'", 3},
      {"pools:\n  - name: a\n    compute_capability: \"8.0\"\n    brand: radeon\n    driver: \"470.57.02\"\n",
       "unknown brand 'radeon'", 4},
      {"pools:\n  - name: a\n    gpu: Tesla T4\n    driver: \"470.57.02\"\n    count: -3\n", "field 'count'", 5},
      {"pools:\n  - name: a\n    gpu: Tesla T4\n    driver: \"470.57.02\"\n    platform: windows/amd64\n", "field 'platform'", 5},
      {"pools:\n  - name: a\n    gpu: Tesla T4\n    driver: \"470.57.02\"\n    platform: linux//amd64\n",
       "pool 'a': field 'platform' must be a Linux os/arch[/variant] such as linux/amd64 or linux/arm64, got 'linux//amd64'",
       5},
      {"pools:\n  - name: a\n    gpu: Tesla T4\n    driver: \"470.57.02\"\n    platform: linux/arm64/v8/x\n",
       "pool 'a': field 'platform' must be a Linux os/arch[/variant]", 5},
      {"pools:\n  - name: a\n    gpu: Tesla T4\n    driver: \"470.57.02\"\n    datacenter: sometimes\n", "field 'datacenter'", 5},
      {"pools:\n  - name: a\n    gpu: Tesla T4\n    driver: \"470.57.02\"\n    cuda_compat_mode: auto\n",
       "field 'cuda_compat_mode'", 5},
      {"pool:\n  - name: a\n", "unknown top-level key 'pool'", 1},
      {"pools: {}\n", "'pools' must be a list", 1},
      {"pools: [\n", "YAML syntax error", 2},
      {"- a\n", "a fleet file is a mapping", 1},
  };
  for (const auto& c : cases) {
    CAPTURE(c.yaml);
    auto fleet = Parse(c.yaml);
    REQUIRE_FALSE(fleet.ok());
    CHECK(fleet.error().message.find(c.expect) != std::string::npos);
    CHECK(fleet.error().line == c.line);
    CHECK(fleet.error().subject == "fleet.yaml");
  }
}

namespace {
// A copy of the knowledge files with one file's text changed by `edit`.
Knowledge EditedKnowledge(const imagelint::testing::TempDir& dir, const std::string& file,
                          const std::function<std::string(std::string)>& edit) {
  namespace fs = std::filesystem;
  fs::path out = dir / "knowledge";
  fs::create_directories(out);
  for (const auto& entry : fs::directory_iterator(imagelint::testing::SourceDir() / "rules" / "knowledge"))
    fs::copy_file(entry.path(), out / entry.path().filename());
  imagelint::testing::WriteFileText(out / file, edit(imagelint::testing::ReadFileText(out / file)));
  auto k = Knowledge::Load(out);
  if (!k.ok()) FAIL(k.error().ToString());
  return *k;
}
}  // namespace

TEST_CASE("brands and cuda-compat modes a pool may name are the knowledge files'") {
  auto one = [](const std::string& field) {
    return "pools:\n  - name: a\n    compute_capability: \"8.0\"\n    driver: \"470.57.02\"\n    " + field + "\n";
  };
  // Brands: nvml-brands.yaml, any case, stored as requirements spell them.
  auto fleet = Parse(one("brand: GeForce"));
  REQUIRE(fleet.ok());
  CHECK(fleet->pools[0].brand == std::optional<std::string>("geforce"));
  fleet = Parse(one("brand: NvidiaRTX"));
  REQUIRE(fleet.ok());
  CHECK(fleet->pools[0].brand == std::optional<std::string>("nvidiartx"));
  auto bad = Parse(one("brand: radeon"));
  REQUIRE_FALSE(bad.ok());
  for (const auto& row : K().Table("nvml_brands"))
    CHECK(bad.error().message.find(row.at("requirement").get<std::string>()) != std::string::npos);
  // cuda-compat-mode values: container-toolkit.yaml.
  auto mode = Parse(one("cuda_compat_mode: hook"));
  REQUIRE(mode.ok());
  CHECK(mode->pools[0].cuda_compat_mode == std::optional<std::string>("hook"));
  auto bad_mode = Parse(one("cuda_compat_mode: auto"));
  REQUIRE_FALSE(bad_mode.ok());
  CHECK(bad_mode.error().message.find("must be one of ldconfig, mount, hook, disabled, got 'auto'") != std::string::npos);

  // Changing the data changes what a fleet may say, with no C++ change.
  imagelint::testing::TempDir dir;
  SUBCASE("a new brand") {
    Knowledge k = EditedKnowledge(dir, "nvml-brands.yaml", [](std::string text) {
      return text + "  - id: 17\n    name: NVIDIA DLA\n    requirement: nvidiadla\n    forward_compat: unknown\n"
                    "    source: S20\n";
    });
    auto with_dla = imagelint::ParseFleet(one("brand: nvidiadla"), "fleet.yaml", k);
    REQUIRE(with_dla.ok());
    CHECK(with_dla->pools[0].brand == std::optional<std::string>("nvidiadla"));
  }
  SUBCASE("a mode no toolkit row lists any more") {
    Knowledge k = EditedKnowledge(dir, "container-toolkit.yaml", [](std::string text) {
      for (size_t at; (at = text.find("mount, hook, disabled]")) != std::string::npos;)
        text.replace(at, 22, "mount, disabled]");
      return text;
    });
    auto without_hook = imagelint::ParseFleet(one("cuda_compat_mode: hook"), "fleet.yaml", k);
    REQUIRE_FALSE(without_hook.ok());
    CHECK(without_hook.error().message.find("must be one of ldconfig, mount, disabled") != std::string::npos);
  }
}

TEST_CASE("a missing fleet file is an error, not a crash") {
  auto fleet = imagelint::LoadFleetFile("/nonexistent/fleet.yaml", K());
  REQUIRE_FALSE(fleet.ok());
  CHECK(fleet.error().subject == "/nonexistent/fleet.yaml");
}

TEST_CASE("an anchored label map aliased by 1,000 pools is refused, naming the alias limit") {
  std::string text = "pools:\n";
  for (int i = 0; i < 1000; ++i) {
    text += "  - name: p" + std::to_string(i) + "\n    gpu: NVIDIA A100-SXM4-80GB\n    driver: \"535.54.03\"\n";
    if (i > 0) {
      text += "    selector_labels: *labels\n";
      continue;
    }
    text += "    selector_labels: &labels\n";
    for (int l = 0; l < 2000; ++l) text += "      label" + std::to_string(l) + ": \"value-" + std::to_string(l) + "\"\n";
  }
  auto fleet = Parse(text);
  REQUIRE_FALSE(fleet.ok());
  CHECK(fleet.error().subject == "fleet.yaml");
  CHECK(fleet.error().line > 2000);
  CHECK(fleet.error().message.find("aliases expand the document by more than") == 0);
  // A few aliases of a small map are fine.
  std::string small = "pools:\n  - {name: a, gpu: NVIDIA A100-SXM4-80GB, driver: \"535.54.03\", selector_labels: &l {a: b}}\n"
                      "  - {name: b, gpu: NVIDIA A100-SXM4-80GB, driver: \"535.54.03\", selector_labels: *l}\n";
  auto fine = Parse(small);
  REQUIRE_MESSAGE(fine.ok(), imagelint::testing::ErrorText(fine));
  CHECK(fine->pools[1].selector_labels.at("a") == "b");
}

TEST_CASE("pool platforms are parsed once, normalised, and grouped in fleet order") {
  auto fleet = Parse(
      "pools:\n"
      "  - name: gh200\n    gpu: Tesla T4\n    driver: \"550.54.15\"\n    platform: linux/arm64/v8\n"
      "  - name: x86\n    gpu: Tesla T4\n    driver: \"550.54.15\"\n"
      "  - name: grace\n    gpu: Tesla T4\n    driver: \"550.54.15\"\n    platform: aarch64\n"
      "  - name: arm32\n    gpu: Tesla T4\n    driver: \"550.54.15\"\n    platform: linux/arm/v7\n"
      "  - name: arm32b\n    gpu: Tesla T4\n    driver: \"550.54.15\"\n    platform: linux/ARM\n");
  REQUIRE_MESSAGE(fleet.ok(), imagelint::testing::ErrorText(fleet));
  CHECK(fleet->pools[0].platform == imagelint::Platform{"linux", "arm64", ""});
  CHECK(fleet->pools[1].platform == imagelint::Platform{"linux", "amd64", ""});
  CHECK(fleet->pools[2].platform == imagelint::Platform{"linux", "arm64", ""});
  CHECK(fleet->pools[3].platform == imagelint::Platform{"linux", "arm", "v7"});
  CHECK(fleet->pools[4].platform == imagelint::Platform{"linux", "arm", "v7"});
  const imagelint::PoolsByPlatform groups = imagelint::GroupPoolsByPlatform(*fleet);
  REQUIRE(groups.groups.size() == 3);
  CHECK(groups.groups[0].platform.ToString() == "linux/arm64");
  CHECK(groups.groups[0].pools == std::vector<size_t>{0, 2});
  CHECK(groups.groups[1].platform.ToString() == "linux/amd64");
  CHECK(groups.groups[1].pools == std::vector<size_t>{1});
  CHECK(groups.groups[2].platform.ToString() == "linux/arm/v7");
  CHECK(groups.groups[2].pools == std::vector<size_t>{3, 4});
  std::vector<std::string> platforms;
  for (const auto& platform : groups.Platforms()) platforms.push_back(platform.ToString());
  CHECK(platforms == std::vector<std::string>{"linux/arm64", "linux/amd64", "linux/arm/v7"});
  CHECK(groups.Find(imagelint::Platform{"linux", "aarch64", "v8"}.Normalized()) == &groups.groups[0]);
  CHECK(groups.Find(imagelint::Platform{"linux", "s390x", ""}) == nullptr);
}
