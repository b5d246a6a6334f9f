// Dockerfile mode reading FROM from a real registry (Debian's docker-registry
// on loopback): a base no knowledge table knows gives the verdicts of the
// image itself, the warm run is served from the layer cache, a multi-platform
// base picks the build's platform, and --base-image reads a local archive.
#include <doctest/doctest.h>

#include <chrono>

#include <nlohmann/json.hpp>

#include "base_resolution/base_fixture.h"
#include "registry/registry_fixture.h"

using namespace imagelint::testing;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

bool NeedRegistryBase(TestImage* base) {
  std::string why;
  if (!NeedExternal("docker-registry + skopeo", HaveRegistryTools(), "runs Debian's docker-registry on loopback") ||
      !NeedExternal("imagelint binary", fs::exists(ImagelintBinary()), "build the imagelint target first"))
    return false;
  return NeedExternal("NVIDIA packages", MakeCudaBase(base, &why), why);
}

int BlobRequests(const FaultProxy& proxy) {
  int count = 0;
  for (const SeenRequest& request : proxy.Requests())
    if (request.method == "GET" && request.target.find("/blobs/") != std::string::npos) ++count;
  return count;
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

}  // namespace

TEST_CASE("FROM a registry base no knowledge table knows: the image's own verdicts, then from the cache") {
  TestImage base;
  if (!NeedRegistryBase(&base)) return;
  LocalRegistry registry;
  TempDir dir;
  WriteImage(base, ImageKind::kOciLayout, dir / "layout");
  auto pushed = registry.Push(dir / "layout", "team/base-cuda:2024.06");
  INFO(pushed.err);
  REQUIRE(pushed.exit_code == 0);
  WriteImage(base, ImageKind::kDockerArchiveOci, dir / "built.tar");
  // A recording proxy: which blobs each run fetched.
  FaultProxy proxy(registry.port(), {});
  const std::string ref = proxy.host() + "/team/base-cuda:2024.06";
  // No RUN, COPY or ADD: the built image holds exactly the base's files.
  WriteFileText(dir / "Dockerfile", "FROM " + ref + "\nENV APP=1\nCMD [\"python3\"]\n");
  const std::string cache = (dir / "cache").string();

  int code = 0;
  std::string err;
  const auto built = Verdicts({(dir / "built.tar").string(), "--no-cache"}, {}, &code, &err);
  INFO(err);
  REQUIRE(!built.empty());
  const int built_code = code;
  const auto knowledge = Verdicts({(dir / "Dockerfile").string(), "--base-from", "knowledge"}, {}, &code, &err);
  REQUIRE(!knowledge.empty());

  auto cold_start = std::chrono::steady_clock::now();
  const auto cold = Verdicts({(dir / "Dockerfile").string(), "--base-from", "registry", "--cache-dir", cache}, {}, &code, &err);
  const double cold_s = Seconds(cold_start);
  REQUIRE(!cold.empty());
  CHECK(code == built_code);
  for (const auto& [pool, verdict] : built) {
    INFO(pool);
    CHECK(cold.at(pool) == verdict);
  }
  // The knowledge tables cannot tell this base: the read changed something.
  CHECK(knowledge != cold);
  const int cold_blobs = BlobRequests(proxy);
  CHECK(cold_blobs == 2);  // the config and the one layer

  const auto warm = Verdicts({(dir / "Dockerfile").string(), "--base-from", "registry", "--cache-dir", cache}, {}, &code, &err);
  CHECK(warm == cold);
  CHECK(BlobRequests(proxy) - cold_blobs == 1);  // the config only: the layer came from the cache

  // Timings straight against the registry (the recording proxy answers no
  // TLS probe, which costs the client its probe timeout): the same cache.
  WriteFileText(dir / "direct.Dockerfile", "FROM " + registry.host() + "/team/base-cuda:2024.06\nENV APP=1\n");
  auto warm_start = std::chrono::steady_clock::now();
  const auto direct = Verdicts({(dir / "direct.Dockerfile").string(), "--base-from", "registry", "--cache-dir", cache}, {}, &code, &err);
  const double warm_s = Seconds(warm_start);
  auto knowledge_start = std::chrono::steady_clock::now();
  Verdicts({(dir / "direct.Dockerfile").string(), "--base-from", "knowledge"}, {}, &code, &err);
  const double knowledge_s = Seconds(knowledge_start);
  CHECK(direct == cold);
  MESSAGE("registry base: cold (via proxy) " << cold_s << " s, warm " << warm_s << " s, knowledge-only " << knowledge_s
                                             << " s: a warm base adds " << (warm_s - knowledge_s) * 1000 << " ms");

  // The facts say where the base came from, and the text report shows it.
  const json facts = json::parse(FactsOut({(dir / "Dockerfile").string(), "--base-from", "registry", "--cache-dir", cache}, {}));
  const json& from = facts.at("image").at("base");
  CHECK(from.at("resolved_from") == "registry");
  CHECK(from.at("platform") == "linux/amd64");
  CHECK(from.at("digest").get<std::string>().rfind("sha256:", 0) == 0);
  CHECK(from.at("known") == true);
  CHECK(facts.at("cuda").at("runtimes").size() >= 1);
  CHECK(facts.at("image").at("env").at("APP") == "1");
  auto text = RunImagelint({"scan", (dir / "Dockerfile").string(), "--fleet", FleetFile().string(), "--base-from",
                            "registry", "--cache-dir", cache, "--no-config"});
  INFO(text.out);
  CHECK(text.out.find("read from registry") != std::string::npos);
}

TEST_CASE("FROM a multi-platform registry base: the build's platform is read") {
  TestImage amd64;
  if (!NeedRegistryBase(&amd64)) return;
  TestImage arm64 = amd64;
  arm64.architecture = "arm64";
  arm64.labels = {{"platform", "arm64"}};
  amd64.labels = {{"platform", "amd64"}};
  LocalRegistry registry;
  TempDir dir;
  WriteOptions write;
  write.nested_index = true;  // index.json -> one index: skopeo copies it whole with --all
  WriteMultiPlatform({amd64, arm64}, ImageKind::kOciLayout, dir / "layout", write);
  auto pushed = registry.Push(dir / "layout", "team/multi:1", true);
  INFO(pushed.err);
  REQUIRE(pushed.exit_code == 0);
  WriteFileText(dir / "Dockerfile", "FROM " + registry.host() + "/team/multi:1\n");
  const std::string cache = (dir / "cache").string();
  const json facts = json::parse(FactsOut({(dir / "Dockerfile").string(), "--base-from", "registry", "--cache-dir", cache}, {}));
  CHECK(facts.at("image").at("base").at("platform") == "linux/amd64");
  CHECK(facts.at("image").at("labels").at("platform") == "amd64");
  const json arm = json::parse(FactsOut(
      {(dir / "Dockerfile").string(), "--base-from", "registry", "--platform", "linux/arm64", "--cache-dir", cache}, {}));
  CHECK(arm.at("image").at("base").at("platform") == "linux/arm64");
  CHECK(arm.at("image").at("labels").at("platform") == "arm64");
  CHECK(arm.at("image").at("architecture") == "arm64");
}

TEST_CASE("--base-image REF=PATH reads FROM from a local docker-save tarball") {
  TestImage base;
  if (!NeedRegistryBase(&base)) return;
  TempDir dir;
  WriteImage(base, ImageKind::kDockerArchiveOci, dir / "base.tar");
  WriteFileText(dir / "Dockerfile", "ARG BASE=registry.corp.example/ml/base-cuda:2024.06\nFROM ${BASE}\n");
  const json facts = json::parse(FactsOut({(dir / "Dockerfile").string(), "--base-image",
                                           "registry.corp.example/ml/base-cuda:2024.06=" + (dir / "base.tar").string(),
                                           "--base-from", "knowledge", "--no-cache"},
                                          {}));
  CHECK(facts.at("image").at("base").at("resolved_from") == "local");
  CHECK(facts.at("cuda").at("drivers").size() >= 1);  // the compat libcuda
  // A --base-image that cannot be read is the user's error: exit 2, naming it.
  auto missing = RunImagelint({"facts", (dir / "Dockerfile").string(), "--base-image",
                               "registry.corp.example/ml/base-cuda:2024.06=" + (dir / "nope.tar").string()});
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find("--base-image") != std::string::npos);
}

// A PyTorch-like base: the framework's CUDA library carries kernels for
// sm_90 only (built here by nvcc, static CUDA runtime), so what a pool gets
// depends on the base's fatbins, which no knowledge table can know.
TEST_CASE("FROM a PyTorch-like base: its fatbins decide (209 on the L4), as scanning the base itself says") {
  const std::string nvcc = "/usr/local/cuda/bin/nvcc";
  if (!NeedExternal("nvcc", fs::exists(nvcc), "CUDA toolkit in /usr/local/cuda")) return;
  TempDir dir;
  WriteFileText(dir / "k.cu", "__global__ void k(int* p) { p[0] = 1; }\n"
                              "extern \"C\" void launch(int* p) { k<<<1, 1>>>(p); }\n");
  auto built = RunCommand({nvcc, "-shared", "-Xcompiler", "-fPIC", "-cudart=static", "-gencode",
                           "arch=compute_90,code=sm_90", "-o", (dir / "libtorch_cuda.so").string(),
                           (dir / "k.cu").string()},
                          "", 300);
  REQUIRE_MESSAGE(built.exit_code == 0, built.err);
  const std::string torch = "usr/local/lib/python3.10/dist-packages/torch";
  TestImage base;
  base.ref = "registry.corp.example/ml/torch-sm90:2.5";
  base.Layer().File("etc/debian_version", "12.5\n");
  base.Layer()
      .File(torch + "/lib/libtorch_cuda.so", ReadFileText(dir / "libtorch_cuda.so"), 0755)
      .File(torch + "/version.py", "__version__ = '2.5.0+cu130'\ncuda = '13.0'\n");
  WriteImage(base, ImageKind::kDockerArchive, dir / "torch-base.tar");
  WriteFileText(dir / "Dockerfile", "FROM registry.corp.example/ml/torch-sm90:2.5\nCOPY app.py /app/app.py\n");

  int image_exit = 0, dockerfile_exit = 0;
  std::string err;
  auto from_image = Verdicts({(dir / "torch-base.tar").string(), "--no-cache"}, {}, &image_exit, &err);
  REQUIRE_MESSAGE(!from_image.empty(), err);
  auto from_dockerfile = Verdicts({(dir / "Dockerfile").string(), "--base-image",
                                   "registry.corp.example/ml/torch-sm90:2.5=" + (dir / "torch-base.tar").string(),
                                   "--no-cache"},
                                  {}, &dockerfile_exit, &err);
  REQUIRE_MESSAGE(!from_dockerfile.empty(), err);
  CHECK(from_dockerfile == from_image);
  CHECK(dockerfile_exit == image_exit);
  CHECK(from_image["l4-r580"] == "fail/209");  // sm_89: no kernel image for it
  // The knowledge tables alone cannot know that.
  auto from_tables = Verdicts({(dir / "Dockerfile").string(), "--base-from", "knowledge", "--no-cache"}, {},
                              &dockerfile_exit, &err);
  CHECK(from_tables["l4-r580"] != "fail/209");
}
