// The local Docker engine (tests/support/docker_engine.h: Debian's dockerd on
// a private socket): `imagelint app:dev` reads a locally built image through
// the Engine API, with the verdicts of its `docker save`; a Dockerfile FROM a
// locally built image resolves through the engine.
#include <doctest/doctest.h>

#include <chrono>

#include <nlohmann/json.hpp>

#include "base_resolution/base_fixture.h"
#include "support/docker_engine.h"

using namespace imagelint::testing;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// The paths and versions of a facts list (provenance differs between inputs).
std::vector<std::string> Rows(const json& rows) {
  std::vector<std::string> out;
  for (const json& row : rows) out.push_back(row.value("path", "") + " " + row.value("version", json()).dump());
  return out;
}

double SecondsSince(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

}  // namespace

TEST_CASE("imagelint app:dev reads the engine's image; a Dockerfile FROM a local image resolves through it") {
  std::string why;
  DockerEngine* engine = DockerEngine::Shared(&why);
  if (!NeedExternal("docker engine", engine != nullptr, why)) return;
  if (!NeedExternal("imagelint binary", fs::exists(ImagelintBinary()), "build the imagelint target first")) return;
  TestImage base;
  if (!NeedExternal("NVIDIA packages", MakeCudaBase(&base, &why), why)) return;
  base.ref = "imagelint-test/cuda-base:1";
  TempDir dir;
  WriteImage(base, ImageKind::kDockerArchive, dir / "base.tar");
  auto loaded = engine->Docker({"load", "-i", (dir / "base.tar").string()});
  INFO(loaded.out << loaded.err);
  REQUIRE(loaded.exit_code == 0);
  fs::create_directories(dir / "ctx");
  WriteFileText(dir / "ctx" / "marker.txt", "app\n");
  WriteFileText(dir / "ctx" / "Dockerfile",
                "FROM imagelint-test/cuda-base:1\nCOPY marker.txt /opt/app/marker.txt\nENV APP=dev\n");
  auto built = engine->Docker({"build", "--network", "none", "-t", "app:dev", (dir / "ctx").string()});
  INFO(built.out << built.err);
  REQUIRE(built.exit_code == 0);
  auto saved = engine->Docker({"save", "-o", (dir / "app.tar").string(), "app:dev"});
  REQUIRE(saved.exit_code == 0);
  const std::vector<std::string> env = {"DOCKER_HOST=" + engine->Host(), "IMAGELINT_BASE_FROM=auto"};
  const std::string cache = (dir / "cache").string();

  // The reference straight from the engine, equal to its docker save.
  int code = 0, saved_code = 0;
  std::string err;
  const auto from_save = Verdicts({(dir / "app.tar").string(), "--no-cache"}, env, &saved_code, &err);
  REQUIRE(!from_save.empty());
  auto cold_start = std::chrono::steady_clock::now();
  const auto from_engine = Verdicts({"app:dev", "--image-src", "docker", "--cache-dir", cache}, env, &code, &err);
  const double cold_s = SecondsSince(cold_start);
  INFO(err);
  REQUIRE(!from_engine.empty());
  CHECK(code == saved_code);
  CHECK(from_engine == from_save);
  const json facts = json::parse(FactsOut({"app:dev", "--cache-dir", cache}, env));
  CHECK(facts.at("image").at("kind") == "docker-engine");
  CHECK(facts.at("image").at("layers").size() == 2);
  CHECK(facts.at("image").at("env").at("APP") == "dev");
  CHECK(facts.at("cuda").at("runtimes").size() >= 1);
  const json saved_facts = json::parse(FactsOut({(dir / "app.tar").string(), "--no-cache"}, env));
  CHECK(Rows(facts.at("cuda").at("runtimes")) == Rows(saved_facts.at("cuda").at("runtimes")));
  CHECK(Rows(facts.at("cuda").at("drivers")) == Rows(saved_facts.at("cuda").at("drivers")));
  auto warm_start = std::chrono::steady_clock::now();
  Verdicts({"app:dev", "--image-src", "docker", "--cache-dir", cache}, env, &code, &err);
  MESSAGE("engine image app:dev: cold " << cold_s << " s, warm " << SecondsSince(warm_start) << " s");

  // Only the engine asked: a name it does not hold is an error naming it.
  auto absent = RunImagelint({"scan", "app:absent", "--image-src", "docker", "--no-cache"}, "", env);
  CHECK(absent.exit_code == 2);
  CHECK(absent.err.find("no image app:absent") != std::string::npos);

  // Dockerfile mode: FROM the locally built base, read through the engine.
  WriteFileText(dir / "Dockerfile", "FROM imagelint-test/cuda-base:1\nENV APP=dev\n");
  const json predicted = json::parse(FactsOut({(dir / "Dockerfile").string(), "--cache-dir", cache}, env));
  const json& from = predicted.at("image").at("base");
  CHECK(from.at("resolved_from") == "docker");
  CHECK(from.at("platform") == "linux/amd64");
  CHECK(predicted.at("cuda").at("drivers") .size() >= 1);
  const auto dockerfile = Verdicts({(dir / "Dockerfile").string(), "--cache-dir", cache}, env, &code, &err);
  CHECK(code == saved_code);
  CHECK(dockerfile == from_save);  // COPY of a marker file changes no verdict
}
