// The command line against a loopback registry: exit codes, messages, the
// cache making a warm scan independent of blob downloads, credentials from
// --password-stdin never echoed.
#include <doctest/doctest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "registry/registry_fixture.h"

using namespace imagelint::testing;

namespace {

bool NeedCli() {
  return NeedExternal("docker-registry + skopeo", HaveRegistryTools(),
                      "registry CLI tests run Debian's docker-registry on loopback") &&
         NeedExternal("imagelint binary", std::filesystem::exists(ImagelintBinary()),
                      "build the imagelint target before the registry tests");
}

void Push(LocalRegistry& registry, const TestImage& image, const std::string& repo_tag) {
  TempDir dir;
  WriteImage(image, ImageKind::kOciLayout, dir / "layout");
  auto pushed = registry.Push(dir / "layout", repo_tag);
  INFO(pushed.err);
  REQUIRE(pushed.exit_code == 0);
}

}  // namespace

TEST_CASE("imagelint facts REF: registry facts, then a warm scan that downloads no blob") {
  if (!NeedCli()) return;
  LocalRegistry registry;
  Push(registry, SampleImage("cli"), "test/img:v1");
  TempDir cache;
  const std::string ref = registry.host() + "/test/img:v1";

  auto cold = RunImagelint({"facts", ref, "--cache-dir", cache.path().string()});
  INFO(cold.err);
  REQUIRE(cold.exit_code == 0);
  auto facts = nlohmann::json::parse(cold.out);
  CHECK(facts["image"]["kind"] == "registry");
  CHECK(facts["image"]["ref"] == ref);
  CHECK(facts["image"]["layers"].size() == 2);

  // Every layer blob now fails (manifest and config still come through).
  FaultProxy layers_fail(registry.port(), {{"/blobs/" + facts["image"]["layers"][0]["digest"].get<std::string>(),
                                            Fault::kStatus500, -1},
                                           {"/blobs/" + facts["image"]["layers"][1]["digest"].get<std::string>(),
                                            Fault::kStatus500, -1}});
  const std::string via = layers_fail.host() + "/test/img:v1";
  auto warm = RunImagelint({"facts", via, "--cache-dir", cache.path().string()});
  INFO(warm.err);
  CHECK(warm.exit_code == 0);
  CHECK(layers_fail.faults_applied() == 0);
  auto warm_facts = nlohmann::json::parse(warm.out);
  CHECK(warm_facts["image"]["layers"] == facts["image"]["layers"]);

  // Without the cache the same proxy makes it a tool error naming the reference.
  auto uncached = RunImagelint({"facts", via, "--no-cache"});
  CHECK(uncached.exit_code == 2);
  CHECK(uncached.err.find(via) != std::string::npos);
  CHECK(uncached.err.find("HTTP 500") != std::string::npos);
  CHECK(uncached.out.empty());
}

TEST_CASE("imagelint facts REF: 404 and auth errors are exit 2 naming the reference") {
  if (!NeedCli()) return;
  if (!NeedExternal("htpasswd", HaveProgram("htpasswd"), "makes the registry's bcrypt password file")) return;
  LocalRegistry registry(RegistryAuth::kHtpasswd, "", "erin", "erin-Pa55");
  Push(registry, SampleImage("auth", 4096), "private/img:v1");
  const std::string ref = registry.host() + "/private/img:v1";
  const std::vector<std::string> no_config = {"DOCKER_CONFIG=/nonexistent", "REGISTRY_AUTH_FILE=/nonexistent"};

  auto anonymous = RunImagelint({"facts", ref, "--no-cache"}, "", no_config);
  CHECK(anonymous.exit_code == 2);
  CHECK(anonymous.err.find(ref) != std::string::npos);
  CHECK(anonymous.err.find("authentication required") != std::string::npos);

  auto wrong = RunImagelint({"facts", ref, "--no-cache", "--username", "erin", "--password-stdin"}, "bad-Pa55-xyz\n",
                            no_config);
  CHECK(wrong.exit_code == 2);
  CHECK(wrong.err.find("authentication failed") != std::string::npos);
  CHECK(wrong.err.find("bad-Pa55-xyz") == std::string::npos);

  auto right = RunImagelint({"facts", ref, "--no-cache", "--username", "erin", "--password-stdin"}, "erin-Pa55\n",
                            no_config);
  INFO(right.err);
  CHECK(right.exit_code == 0);
  CHECK(right.out.find("erin-Pa55") == std::string::npos);
  CHECK(right.err.find("erin-Pa55") == std::string::npos);

  auto missing = RunImagelint({"facts", registry.host() + "/private/img:nope", "--no-cache", "--username", "erin",
                               "--password-stdin"},
                              "erin-Pa55\n", no_config);
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find(registry.host() + "/private/img:nope") != std::string::npos);
  CHECK(missing.err.find("not found") != std::string::npos);
}

TEST_CASE("imagelint facts REF: a corrupted blob is exit 2, never facts") {
  if (!NeedCli()) return;
  LocalRegistry registry;
  Push(registry, SampleImage("corrupt"), "test/img:v1");
  FaultProxy proxy(registry.port(), {{"/blobs/sha256:", Fault::kCorrupt, -1}});
  auto result = RunImagelint({"facts", proxy.host() + "/test/img:v1", "--no-cache"});
  CHECK(result.exit_code == 2);
  CHECK(result.out.empty());
  CHECK(result.err.find("digest mismatch") != std::string::npos);
}

TEST_CASE("imagelint REF --fleet: a verdict for a registry image") {
  if (!NeedCli()) return;
  LocalRegistry registry;
  Push(registry, SampleImage("scan", 4096), "test/img:v1");
  TempDir cache;
  const std::string ref = registry.host() + "/test/img:v1";
  auto result = RunImagelint({ref, "--fleet", (SourceDir() / "examples" / "fleet.yaml").string(), "--format", "json",
                              "--fail-on", "none", "--cache-dir", cache.path().string()});
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  auto report = nlohmann::json::parse(result.out);
  REQUIRE(report["images"].size() == 1);
  CHECK(report["images"][0]["ref"] == ref);
  CHECK_FALSE(report["images"][0]["verdicts"].empty());

  auto missing = RunImagelint({registry.host() + "/test/img:gone", "--fleet",
                               (SourceDir() / "examples" / "fleet.yaml").string(), "--no-cache"});
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find(registry.host() + "/test/img:gone") != std::string::npos);
}

TEST_CASE("imagelint facts REF over verified TLS: --ca-file and --connect-to") {
  if (!NeedCli()) return;
  if (!NeedExternal("openssl", HaveProgram("openssl"), "the TLS test makes its certificates with openssl")) return;
  const std::string name = "registry.imagelint.test";
  TempDir dir;
  TestTlsFiles tls = MakeTestTls(dir / "tls", name);
  LocalRegistry registry(RegistryAuth::kNone, "", "", "", &tls);
  Push(registry, SampleImage("cli-tls"), "test/img:v1");
  const std::string port = std::to_string(registry.port());
  const std::string ref = name + ":" + port + "/test/img:v1";
  const std::string connect = name + ":" + port + ":127.0.0.1:" + port;

  auto refused = RunImagelint({"facts", ref, "--no-cache", "--connect-to", connect});
  CHECK(refused.exit_code == 2);
  CHECK(refused.err.find(ref) != std::string::npos);
  CHECK(refused.err.find("certificate") != std::string::npos);
  CHECK(refused.out.empty());

  auto trusted =
      RunImagelint({"facts", ref, "--no-cache", "--connect-to", connect, "--ca-file", tls.ca_cert.string()});
  INFO(trusted.err);
  REQUIRE(trusted.exit_code == 0);
  CHECK(nlohmann::json::parse(trusted.out)["image"]["ref"] == ref);

  auto malformed = RunImagelint({"facts", ref, "--no-cache", "--connect-to", "nonsense"});
  CHECK(malformed.exit_code == 2);
  CHECK(malformed.err.find("--connect-to") != std::string::npos);
}
