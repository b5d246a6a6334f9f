// A Dockerfile that leaves its platform open, scanned against pools of
// several platforms (docs/dockerfile.md "Platform"): the facts are built once
// per distinct pool platform, each from that platform's base image and
// knowledge-table answers, and each pool is evaluated with its own; a
// Dockerfile that fixes its platform, or pools of one platform, keep one build.
// The resolver here records every lookup (it keeps no memo, unlike the
// scan's), so each facts build shows as one lookup of its FROM.
#include <map>

#include "analysis/rules_fixture.h"
#include "dockerfile/dockerfile_fixture.h"

using namespace imagelint;
using namespace imagelint::testing::dockerfile_fixture;
using imagelint::testing::rules_fixture::Findings;
using imagelint::testing::rules_fixture::Verdict;

namespace {

const char* kBase = "registry.corp.example/ml/base-cuda:2024.06";

// Each platform's image of a multi-platform base: the amd64 one carries the
// compat libcuda and the x86_64 runtime, the arm64 one neither compat nor
// the same runtime (as NVIDIA's Ubuntu arm64 images before 12.5.1).
class RecordingResolver final : public dockerfile::BaseResolver {
 public:
  std::vector<std::string> asked;
  Result<dockerfile::BaseLookup> Resolve(const std::string& ref, const std::string& platform) override {
    asked.push_back(ref + " " + platform);
    dockerfile::BaseLookup out;
    if (ref != kBase) {
      out.note = "registry: offline";
      return out;
    }
    dockerfile::ResolvedBase base;
    base.resolved_from = BaseSource::kRegistry;
    bool arm = platform == "linux/arm64";
    base.digest = "sha256:" + std::string(64, arm ? 'b' : 'a');
    base.platform = platform;
    facts::Facts& f = base.facts;
    f.image.os = "linux";
    f.image.architecture = arm ? "arm64" : "amd64";
    f.image.env = {{"CUDA_VERSION", "12.4.1"}, {"NVIDIA_REQUIRE_CUDA", "cuda>=12.4"}};
    facts::Runtime runtime;
    runtime.path = std::string("/usr/local/cuda-12.4/targets/") + (arm ? "sbsa-linux" : "x86_64-linux") +
                   "/lib/libcudart.so.12.4.127";
    runtime.version = "12.4.127";
    f.cuda.emplace().runtimes = std::vector<facts::Runtime>{runtime};
    if (!arm) {
      facts::Driver compat;
      compat.path = "/usr/local/cuda-12.4/compat/libcuda.so.550.54.15";
      compat.version = "550.54.15";
      compat.kind = "compat";
      f.cuda->drivers = std::vector<facts::Driver>{compat};
    } else {
      f.cuda->drivers = std::vector<facts::Driver>{};
    }
    out.base = std::move(base);
    return out;
  }
};

dockerfile::DockerfileOptions WithPools(RecordingResolver* resolver, std::vector<std::string> platforms) {
  dockerfile::DockerfileOptions options = Options();
  options.base_resolver = resolver;
  for (const std::string& platform : platforms) options.pool_platforms.push_back(*Platform::Parse(platform));
  return options;
}

json DriversOf(const json& facts) { return facts["cuda"].value("drivers", json::array()); }

}  // namespace

TEST_CASE("platform: pools of two platforms, platform left open -> one build per platform, one lookup each") {
  RecordingResolver resolver;
  const std::string text = std::string("FROM ") + kBase + "\nENV APP=1\n";
  auto analysis = Analyze(text, WithPools(&resolver, {"linux/amd64", "linux/arm64", "linux/amd64"}));
  REQUIRE(analysis.ok());
  CHECK(resolver.asked == std::vector<std::string>{std::string(kBase) + " linux/amd64", std::string(kBase) + " linux/arm64"});
  CHECK(analysis->platform == Platform{"linux", "amd64", ""});
  const json& amd = analysis->facts;
  CHECK(amd["image"]["architecture"] == "amd64");
  CHECK(amd["image"]["platform_source"] == "pool");
  CHECK(amd["image"]["base"]["platform"] == "linux/amd64");
  CHECK(DriversOf(amd).size() == 1);
  REQUIRE(analysis->other_platforms.size() == 1);
  CHECK(analysis->other_platforms[0].platform.ToString() == "linux/arm64");
  const json& arm = analysis->other_platforms[0].facts;
  RecordFacts(arm);
  CHECK(arm["image"]["architecture"] == "arm64");
  CHECK(arm["image"]["platform_source"] == "pool");
  CHECK(arm["image"]["base"]["platform"] == "linux/arm64");
  CHECK(arm["image"]["base"]["digest"] == "sha256:" + std::string(64, 'b'));
  CHECK(arm["image"]["env"]["APP"] == "1");  // the Dockerfile's own instructions on top of each
  CHECK(DriversOf(arm).empty());
}

TEST_CASE("platform: pools of one platform -> one build, as without a fleet") {
  const std::string text = std::string("FROM ") + kBase + "\n";
  RecordingResolver none;
  auto alone = Analyze(text, WithPools(&none, {}));
  REQUIRE(alone.ok());
  RecordingResolver same;
  auto amd64 = Analyze(text, WithPools(&same, {"linux/amd64", "linux/amd64"}));
  REQUIRE(amd64.ok());
  CHECK(same.asked.size() == 1);
  CHECK_FALSE(amd64->platform);
  CHECK(amd64->other_platforms.empty());
  CHECK(amd64->facts == alone->facts);  // today's facts: platform_source "builder"
  CHECK(amd64->facts["image"]["platform_source"] == "builder");
  // Only arm64 pools: the one build is theirs.
  RecordingResolver arm;
  auto arm64 = Analyze(text, WithPools(&arm, {"linux/arm64"}));
  REQUIRE(arm64.ok());
  CHECK(arm.asked == std::vector<std::string>{std::string(kBase) + " linux/arm64"});
  CHECK(arm64->platform == Platform{"linux", "arm64", ""});
  CHECK(arm64->other_platforms.empty());
  CHECK(arm64->facts["image"]["architecture"] == "arm64");
  CHECK(arm64->facts["image"]["platform_source"] == "pool");
}

TEST_CASE("platform: a Dockerfile that fixes its platform keeps one build for every pool") {
  const std::vector<std::string> mixed = {"linux/amd64", "linux/arm64"};
  RecordingResolver pinned;
  auto from = Analyze(std::string("FROM --platform=linux/amd64 ") + kBase + "\n", WithPools(&pinned, mixed));
  REQUIRE(from.ok());
  CHECK(pinned.asked.size() == 1);
  CHECK_FALSE(from->platform);
  CHECK(from->other_platforms.empty());
  CHECK(from->facts["image"]["platform_source"] == "FROM --platform");

  RecordingResolver flag;
  auto options = WithPools(&flag, mixed);
  options.platform = "linux/arm64";
  options.platform_explicit = true;
  auto explicit_platform = Analyze(std::string("FROM ") + kBase + "\n", options);
  REQUIRE(explicit_platform.ok());
  CHECK(flag.asked == std::vector<std::string>{std::string(kBase) + " linux/arm64"});
  CHECK(explicit_platform->other_platforms.empty());
  CHECK(explicit_platform->facts["image"]["platform_source"] == "--platform");

  // A final stage FROM --platform=$BUILDPLATFORM is the builder's (amd64) image whatever the pools.
  RecordingResolver build;
  auto built = Analyze(std::string("FROM --platform=$BUILDPLATFORM ") + kBase + "\n", WithPools(&build, mixed));
  REQUIRE(built.ok());
  CHECK(build.asked.size() == 1);
  CHECK(built->other_platforms.empty());
  CHECK(built->facts["image"]["platform_source"] == "builder");
}

TEST_CASE("platform: $BUILDPLATFORM is the builder's platform (--build-platform), linux/amd64 by default") {
  const std::string text = std::string("FROM --platform=$BUILDPLATFORM ") + kBase +
                           "\nARG BUILDARCH\nARG BUILDOS\nENV BUILT_ON=$BUILDOS-$BUILDARCH\n";
  RecordingResolver amd;
  auto default_builder = Analyze(text, WithPools(&amd, {}));
  REQUIRE(default_builder.ok());
  CHECK(amd.asked == std::vector<std::string>{std::string(kBase) + " linux/amd64"});
  CHECK(default_builder->facts["image"]["env"]["BUILT_ON"] == "linux-amd64");

  // An arm64 runner: the stage reads the arm64 image of its base, the target stays amd64.
  RecordingResolver arm;
  auto options = WithPools(&arm, {});
  options.build_platform = "linux/arm64";
  auto arm_builder = Analyze(text, options);
  REQUIRE(arm_builder.ok());
  CHECK(arm.asked == std::vector<std::string>{std::string(kBase) + " linux/arm64"});
  CHECK(arm_builder->facts["image"]["architecture"] == "arm64");
  CHECK(arm_builder->facts["image"]["env"]["BUILT_ON"] == "linux-arm64");
  CHECK(arm_builder->facts["image"]["platform_source"] == "builder");
}

TEST_CASE("platform: the chain's first stage decides; $TARGETPLATFORM and COPY --from=<image> follow each pool") {
  RecordingResolver resolver;
  const std::string text = std::string("FROM --platform=$TARGETPLATFORM ") + kBase +
                           " AS runtime\n"
                           "FROM --platform=$BUILDPLATFORM golang:1.22 AS build\n"
                           "FROM runtime\n"
                           "COPY --from=nvidia/cuda:12.4.1-runtime-ubuntu22.04 /usr/local/cuda /usr/local/cuda\n";
  auto analysis = Analyze(text, WithPools(&resolver, {"linux/arm64", "linux/amd64"}));
  REQUIRE(analysis.ok());
  CHECK(analysis->platform == Platform{"linux", "arm64", ""});
  REQUIRE(analysis->other_platforms.size() == 1);
  CHECK(analysis->facts["image"]["architecture"] == "arm64");
  CHECK(analysis->facts["image"]["platform_source"] == "pool");
  CHECK(analysis->other_platforms[0].facts["image"]["architecture"] == "amd64");
  std::vector<std::string> expected = {std::string(kBase) + " linux/arm64",
                                       "nvidia/cuda:12.4.1-runtime-ubuntu22.04 linux/arm64",
                                       std::string(kBase) + " linux/amd64",
                                       "nvidia/cuda:12.4.1-runtime-ubuntu22.04 linux/amd64"};
  CHECK(resolver.asked == expected);
}

// The knowledge tables answer per platform too: nvidia/cuda's Ubuntu arm64
// images carry no compat package before CUDA 12.5.1 (base-images.yaml
// cuda_image_architectures), so on an A100 with an R470 driver (CUDA 11.4;
// arm64 servers such as Ampere Altra carry A100s too) the amd64 image runs
// through forward compatibility and the arm64 one cannot initialise (35).
TEST_CASE("platform: knowledge-table bases per platform; each pool gets the verdict of its own platform's image") {
  const char* fleet = R"(pools:
  - name: a100-r470
    gpu: NVIDIA A100-SXM4-80GB
    driver: "470.256.02"
    container_toolkit: "1.13.5"
  - name: a100-r470-arm64
    gpu: NVIDIA A100-SXM4-80GB
    driver: "470.256.02"
    container_toolkit: "1.13.5"
    platform: linux/arm64
)";
  // The script leaves the GPU code undecided on both platforms: one finding for both pools.
  const std::string text = "FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\nENV APP=1\nRUN ./setup.sh\n";
  dockerfile::DockerfileOptions options = Options();
  options.pool_platforms = {Platform{"linux", "amd64", ""}, Platform{"linux", "arm64", ""}};
  auto analysis = Analyze(text, options);
  REQUIRE(analysis.ok());
  REQUIRE(analysis->other_platforms.size() == 1);
  const json& arm_facts = analysis->other_platforms[0].facts;
  RecordFacts(arm_facts);
  CHECK(DriversOf(analysis->facts).size() == 1);  // cuda-compat-12-4 on amd64
  CHECK(DriversOf(arm_facts).empty());
  CHECK(arm_facts["cuda"]["runtimes"][0]["path"].get<std::string>().find("/targets/sbsa-linux/") != std::string::npos);

  // Each platform's image alone, as --platform would build it.
  auto alone = [&](const std::string& platform) {
    dockerfile::DockerfileOptions one = Options();
    one.platform = platform;
    one.platform_explicit = true;
    return imagelint::testing::rules_fixture::Run({Facts(text, one)}, fleet);
  };
  const json amd64_image = alone("linux/amd64");
  const json arm64_image = alone("linux/arm64");

  const Knowledge& knowledge = imagelint::testing::rules_fixture::TestKnowledge();
  auto pools = ParseFleet(fleet, "fleet.yaml", knowledge);
  REQUIRE(pools.ok());
  auto rule_set = rules::LoadRuleSet(rules::BuiltinRulesDir(imagelint::testing::SourceDir()));
  REQUIRE(rule_set.ok());
  auto functions = analysis::DefaultFunctions(knowledge);
  std::vector<std::vector<analysis::PoolFacts>> by_pool(1);
  const PoolsByPlatform by_platform = GroupPoolsByPlatform(*pools);
  const PlatformPools* arm64_pools = by_platform.Find(Platform{"linux", "arm64", ""});
  REQUIRE(arm64_pools != nullptr);
  CHECK(arm64_pools->pools.size() == 1);
  by_pool[0].push_back({arm64_pools->platform, arm64_pools->pools, arm_facts});
  auto report = analysis::Analyze({analysis->facts}, by_pool, *pools, *rule_set, functions);
  REQUIRE(report.ok());

  json amd = Verdict(*report, 0, "a100-r470");
  json arm = Verdict(*report, 0, "a100-r470-arm64");
  CHECK(amd == Verdict(amd64_image, 0, "a100-r470"));
  CHECK(arm == Verdict(arm64_image, 0, "a100-r470-arm64"));
  CHECK(amd["status"] != "fail");
  CHECK(arm["status"] == "fail");
  CHECK(arm["predicted_error"]["code"] == 35);
  CHECK(Findings(*report, 0, "IL013").empty());  // each pool saw its own platform's image
  // What one amd64 build said of the arm64 pool: no failure of its own, only the IL013 note.
  json builder = imagelint::testing::rules_fixture::Run({Facts(text)}, fleet);
  CHECK(Verdict(builder, 0, "a100-r470-arm64")["status"] != "fail");
  // Findings equal on both pools stay one finding, its pools in fleet order.
  size_t shared = 0;
  for (const json& finding : (*report)["images"][0]["findings"])
    if (finding["pools"].size() == 2) {
      ++shared;
      CHECK(finding["pools"] == json::array({"a100-r470", "a100-r470-arm64"}));
    }
  CHECK(shared > 0);
}
