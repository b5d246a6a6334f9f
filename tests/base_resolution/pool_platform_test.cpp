// Each pool's platform where the Dockerfile leaves it open: a
// multi-platform base in the loopback registry whose amd64 image carries
// the compat package and whose arm64 image does not (NVIDIA's Ubuntu arm64
// images before CUDA 12.5.1), scanned as a Dockerfile against an amd64 and
// an arm64 pool of A100s on an R470 driver (CUDA 11.4; arm64 servers such as
// Ampere Altra carry A100s): each pool gets the verdict that scanning the image built for its own
// platform gives. Pinning FROM --platform, or pools of one platform, keeps
// one build.
#include <doctest/doctest.h>

#include <set>

#include <nlohmann/json.hpp>

#include "base_resolution/base_fixture.h"
#include "registry/registry_fixture.h"

using namespace imagelint::testing;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const char* kFleet = R"(pools:
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

// A registry holding team/multi-cuda:12.4 (amd64 + arm64), both images also
// written as docker-save tarballs (the images a build with only ENV on top
// holds, file for file).
struct MultiPlatformBase {
  LocalRegistry registry;
  TempDir dir;
  fs::path amd64_tar, arm64_tar, fleet;
};

bool Make(MultiPlatformBase* out) {
  if (!NeedExternal("docker-registry + skopeo", HaveRegistryTools(), "runs Debian's docker-registry on loopback") ||
      !NeedExternal("imagelint binary", fs::exists(ImagelintBinary()), "build the imagelint target first"))
    return false;
  TestImage amd64, arm64;
  std::string why;
  if (!NeedExternal("NVIDIA packages", MakeCudaBase(&amd64, &why) && MakeCudaBase(&arm64, &why, "arm64"), why))
    return false;
  WriteOptions write;
  write.nested_index = true;  // index.json -> one index: skopeo copies it whole with --all
  WriteMultiPlatform({amd64, arm64}, ImageKind::kOciLayout, out->dir / "layout", write);
  auto pushed = out->registry.Push(out->dir / "layout", "team/multi-cuda:12.4", true);
  INFO(pushed.err);
  REQUIRE(pushed.exit_code == 0);
  out->amd64_tar = out->dir / "amd64.tar";
  out->arm64_tar = out->dir / "arm64.tar";
  WriteImage(amd64, ImageKind::kDockerArchiveOci, out->amd64_tar);
  WriteImage(arm64, ImageKind::kDockerArchiveOci, out->arm64_tar);
  out->fleet = out->dir / "fleet.yaml";
  WriteFileText(out->fleet, kFleet);
  return true;
}

json Report(const std::vector<std::string>& args, const fs::path& fleet, int* exit_code) {
  std::vector<std::string> argv = {"scan"};
  argv.insert(argv.end(), args.begin(), args.end());
  for (const std::string& extra : {std::string("--fleet"), fleet.string(), std::string("--format"), std::string("json"),
                                   std::string("--no-config")})
    argv.push_back(extra);
  auto result = RunImagelint(argv);
  *exit_code = result.exit_code;
  INFO(result.err);
  REQUIRE((result.exit_code == 0 || result.exit_code == 1));
  return json::parse(result.out);
}

const json& VerdictOf(const json& report, const std::string& pool) {
  for (const json& verdict : report.at("images").at(0).at("verdicts"))
    if (verdict.at("pool") == pool) return verdict;
  FAIL("no verdict for " << pool);
  static const json none;
  return none;
}

// A verdict without the platform a Dockerfile built per pool records on it.
json Judged(json verdict) {
  verdict.erase("platform");
  return verdict;
}

// "status[/error name]", as a user compares two verdicts.
std::string Shown(const json& verdict) {
  std::string shown = verdict.at("status").get<std::string>();
  if (verdict.at("predicted_error").is_object()) shown += "/" + verdict["predicted_error"].value("name", "");
  return shown;
}

// Image manifests (by digest) the scan fetched through the proxy: one per
// platform a base was looked up for.
std::set<std::string> ManifestsByDigest(const FaultProxy& proxy) {
  std::set<std::string> out;
  for (const SeenRequest& request : proxy.Requests())
    if (request.method == "GET" && request.target.find("/manifests/sha256:") != std::string::npos) out.insert(request.target);
  return out;
}

}  // namespace

TEST_CASE("FROM a multi-platform base, pools of two platforms: each pool is judged by its own platform's image") {
  MultiPlatformBase base;
  if (!Make(&base)) return;
  FaultProxy proxy(base.registry.port(), {});
  WriteFileText(base.dir / "Dockerfile", "FROM " + proxy.host() + "/team/multi-cuda:12.4\nENV APP=1\n");
  const std::string cache = (base.dir / "cache").string();
  int code = 0;
  const json amd64_image = Report({base.amd64_tar.string(), "--no-cache"}, base.fleet, &code);
  const json arm64_image = Report({base.arm64_tar.string(), "--no-cache"}, base.fleet, &code);
  const json report =
      Report({(base.dir / "Dockerfile").string(), "--base-from", "registry", "--cache-dir", cache}, base.fleet, &code);
  CHECK(code == 1);
  // Each pool as its own platform's built image says.
  CHECK(Judged(VerdictOf(report, "a100-r470")) == VerdictOf(amd64_image, "a100-r470"));
  CHECK(Judged(VerdictOf(report, "a100-r470-arm64")) == VerdictOf(arm64_image, "a100-r470-arm64"));
  // ...which differ here: the amd64 image runs through its compat libcuda,
  // the arm64 one has none, and CUDA 12.4 cannot initialise on an R470 (11.4) driver.
  CHECK(VerdictOf(report, "a100-r470").at("status") != "fail");
  CHECK(Shown(VerdictOf(report, "a100-r470-arm64")) == "fail/cudaErrorInsufficientDriver");
  CHECK(VerdictOf(report, "a100-r470").at("platform") == "linux/amd64");
  CHECK(VerdictOf(report, "a100-r470-arm64").at("platform") == "linux/arm64");

  // The report names both builds, each with the base image read for it.
  const json& image = report.at("images").at(0);
  CHECK(!image.contains("platform"));
  REQUIRE(image.at("platforms").size() == 2);
  const json& amd = image["platforms"][0];
  const json& arm = image["platforms"][1];
  CHECK(amd.at("platform") == "linux/amd64");
  CHECK(amd.at("pools") == json::array({"a100-r470"}));
  CHECK(amd.at("platform_source") == "pool");
  CHECK(amd.at("base").at("resolved_from") == "registry");
  CHECK(amd.at("base").at("platform") == "linux/amd64");
  CHECK(arm.at("platform") == "linux/arm64");
  CHECK(arm.at("pools") == json::array({"a100-r470-arm64"}));
  CHECK(arm.at("base").at("platform") == "linux/arm64");
  CHECK(arm.at("base").at("digest") != amd.at("base").at("digest"));
  CHECK(image.at("base") == amd.at("base"));
  // One lookup per platform: each platform's image manifest fetched once.
  CHECK(ManifestsByDigest(proxy).size() == 2);

  // The text report says which pools got which build.
  auto text = RunImagelint({"scan", (base.dir / "Dockerfile").string(), "--fleet", base.fleet.string(), "--base-from",
                            "registry", "--cache-dir", cache, "--no-config"});
  INFO(text.out);
  CHECK(text.out.find("built for linux/arm64 (a100-r470-arm64)") != std::string::npos);
  CHECK(text.out.find("built for linux/amd64 (a100-r470)") != std::string::npos);

  // The knowledge tables answer per platform as well (nvidia/cuda's Ubuntu
  // arm64 images before 12.5.1 carry no compat package): the same verdicts.
  WriteFileText(base.dir / "cuda.Dockerfile", "FROM nvidia/cuda:12.4.1-base-ubuntu22.04\nENV APP=1\n");
  const json tables = Report({(base.dir / "cuda.Dockerfile").string(), "--base-from", "knowledge"}, base.fleet, &code);
  CHECK(Shown(VerdictOf(tables, "a100-r470-arm64")) == "fail/cudaErrorInsufficientDriver");
  CHECK(VerdictOf(tables, "a100-r470").at("status") != "fail");
  CHECK(tables.at("images").at(0).at("platforms").size() == 2);
}

TEST_CASE("FROM --platform=linux/amd64, or pools of one platform: one build, the amd64 image for every pool") {
  MultiPlatformBase base;
  if (!Make(&base)) return;
  const std::string cache = (base.dir / "cache").string();
  int code = 0;
  const json amd64_image = Report({base.amd64_tar.string(), "--no-cache"}, base.fleet, &code);

  FaultProxy pinned_proxy(base.registry.port(), {});
  WriteFileText(base.dir / "pinned.Dockerfile",
                "FROM --platform=linux/amd64 " + pinned_proxy.host() + "/team/multi-cuda:12.4\nENV APP=1\n");
  const json pinned = Report({(base.dir / "pinned.Dockerfile").string(), "--base-from", "registry", "--cache-dir", cache},
                             base.fleet, &code);
  CHECK(code == 1);
  // Both pools see the amd64 image: the arm64 pool cannot start it (IL013), as for the built image.
  CHECK(VerdictOf(pinned, "a100-r470") == VerdictOf(amd64_image, "a100-r470"));
  CHECK(Shown(VerdictOf(pinned, "a100-r470-arm64")) == "fail/exec-format-error");
  CHECK(Shown(VerdictOf(amd64_image, "a100-r470-arm64")) == "fail/exec-format-error");
  const json& image = pinned.at("images").at(0);
  CHECK(!image.contains("platforms"));
  CHECK(image.at("platform") == "linux/amd64");
  CHECK(!VerdictOf(pinned, "a100-r470").contains("platform"));
  CHECK(ManifestsByDigest(pinned_proxy).size() == 1);

  // The usual fleet (every pool linux/amd64): one lookup, no per-pool fields.
  FaultProxy amd64_proxy(base.registry.port(), {});
  WriteFileText(base.dir / "Dockerfile", "FROM " + amd64_proxy.host() + "/team/multi-cuda:12.4\nENV APP=1\n");
  const json usual =
      Report({(base.dir / "Dockerfile").string(), "--base-from", "registry", "--cache-dir", cache}, FleetFile(), &code);
  CHECK(!usual.at("images").at(0).contains("platforms"));
  CHECK(usual.at("images").at(0).at("platform") == "linux/amd64");
  CHECK(usual.at("images").at(0).at("base").at("platform") == "linux/amd64");
  CHECK(ManifestsByDigest(amd64_proxy).size() == 1);
  const json facts = json::parse(FactsOut({(base.dir / "Dockerfile").string(), "--base-from", "registry", "--cache-dir", cache}, {}));
  CHECK(facts.at("image").at("platform_source") == "builder");  // `imagelint facts`: no fleet, as before
}
