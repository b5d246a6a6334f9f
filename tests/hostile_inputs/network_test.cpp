// Servers that answer a byte at a time, slowly enough that no single read
// times out: a registry behind a Dockerfile's base (--base-timeout bounds the
// whole exchange, body included) and the shared cache on Redis (a request
// budget and a budget per run; on trouble the scan goes on without it).
#include <doctest/doctest.h>

#include "hostile_inputs/hostile_support.h"
#include "support/image_builder.h"

using namespace imagelint::testing;
namespace fs = std::filesystem;

TEST_CASE("a registry that drips its answer: --base-timeout 3 bounds the whole exchange") {
  TempDir dir;
  const std::string body(4000, ' ');
  DripServer registry("HTTP/1.1 200 OK\r\nContent-Type: application/vnd.oci.image.manifest.v1+json\r\n"
                      "Docker-Distribution-API-Version: registry/2.0\r\nContent-Length: 4000\r\n\r\n",
                      body, 400);
  const std::string ref = "127.0.0.1:" + std::to_string(registry.port()) + "/team/base:1";
  WriteFileText(dir / "Dockerfile", "FROM " + ref + "\nENV NVIDIA_VISIBLE_DEVICES=all\n");
  auto run = RunBounded({"scan", (dir / "Dockerfile").string(), "--no-cache", "--base-from", "registry",
                         "--base-timeout", "3", "--insecure-registry", "127.0.0.1:" + std::to_string(registry.port())},
                        {"HOME=" + dir.path().string(), "DOCKER_CONFIG=" + (dir / "docker").string(),
                         "REGISTRY_AUTH_FILE=", "DOCKER_AUTH_CONFIG="});
  CAPTURE(run.result.out.substr(0, 3000));
  CAPTURE(run.result.err.substr(0, 3000));
  CHECK(registry.connections() > 0);
  CHECK(run.result.exit_code >= 0);
  CHECK(run.result.exit_code <= 2);
  CHECK(run.seconds < 3 + 7);  // the budget, plus the process under a loaded CI machine
}

TEST_CASE("a Redis server that drips its answers: the scan goes on without the shared cache, said once") {
  TempDir dir;
  TestImage image;
  image.Layer().File("etc/os-release", "ID=debian\n");
  image.Layer().File("usr/bin/tool", "x");
  WriteImage(image, ImageKind::kOciArchive, dir / "image.tar");
  DripServer redis("", "$10\r\n0123456789\r\n", 1500);  // a byte every 1.5 s: under the 2 s per read
  auto run = RunBounded({"scan", (dir / "image.tar").string(), "--cache-dir", (dir / "cache").string(),
                         "--cache-backend", "redis://127.0.0.1:" + std::to_string(redis.port())});
  CAPTURE(run.result.err.substr(0, 3000));
  CHECK(redis.connections() > 0);
  CHECK(run.result.exit_code <= 1);
  // The 5 s request budget, then local work only (without it: 28 s per request).
  CHECK(run.seconds < kHostileSeconds + 2);
  size_t warnings = 0;
  for (size_t at = run.result.err.find("shared cache not used"); at != std::string::npos;
       at = run.result.err.find("shared cache not used", at + 1))
    ++warnings;
  CHECK(warnings == 1);
  CHECK(run.result.err.find("no whole reply within 5000 ms") != std::string::npos);
}
