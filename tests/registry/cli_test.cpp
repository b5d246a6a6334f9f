// The command line against a loopback registry: exit codes, messages, the
// cache making a warm scan independent of blob downloads, credentials from
// --password-stdin never echoed.
#include <doctest/doctest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "imagelint/registry.h"
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

// `scan REGISTRY/REPO --all-tags`: 50 tags (one image pushed with skopeo,
// the other tags PUT as copies of its manifest) and one tag whose stored
// manifest was altered in the registry's storage: one report, 50 images
// scanned, the broken tag an error entry, exit 2 because an image could not
// be read; --tags filters.
TEST_CASE("scan --all-tags: 50 tags and a broken one, one report, an error entry, exit 2") {
  if (!NeedCli()) return;
  if (!NeedExternal("curl", HaveProgram("curl"), "tags are added with manifest PUTs")) return;
  LocalRegistry registry;
  Push(registry, SampleImage("tags"), "test/app:t00");
  Push(registry, SampleImage("broken"), "test/app:zz-broken");
  const std::string base = "http://" + registry.host() + "/v2/test/app/manifests/";
  const std::string accept = "Accept: application/vnd.oci.image.manifest.v1+json";
  auto manifest = RunCommand({"curl", "-sf", "-H", accept, base + "t00"});
  REQUIRE(manifest.exit_code == 0);
  for (int i = 1; i < 50; ++i) {
    std::string tag = (i < 10 ? "t0" : "t") + std::to_string(i);
    auto put = RunCommand({"curl", "-sf", "-X", "PUT", "-H", "Content-Type: application/vnd.oci.image.manifest.v1+json",
                           "--data-binary", "@-", base + tag},
                          manifest.out);
    REQUIRE_MESSAGE(put.exit_code == 0, put.err);
  }
  // The broken tag: its stored manifest no longer matches its digest.
  auto head = RunCommand({"curl", "-sfI", "-H", accept, base + "zz-broken"});
  size_t at = head.out.find("sha256:");
  REQUIRE(at != std::string::npos);
  std::string hex = head.out.substr(at + 7, 64);
  auto data = registry.storage() / "docker/registry/v2/blobs/sha256" / hex.substr(0, 2) / hex / "data";
  REQUIRE(std::filesystem::exists(data));
  WriteFileText(data, ReadFileText(data) + "\n ");

  TempDir cache;
  const std::string repo = registry.host() + "/test/app";
  auto all = RunImagelint({"scan", repo, "--all-tags", "--format", "json", "--cache-dir", cache.path().string()});
  INFO(all.err);
  CHECK(all.exit_code == 2);
  auto report = nlohmann::json::parse(all.out);
  REQUIRE(report["images"].size() == 51);
  CHECK(report["summary"]["images"] == 51);
  CHECK(report["summary"]["unreadable"] == 1);
  size_t errors = 0;
  for (const auto& image : report["images"]) {
    if (image["status"] == "error") {
      ++errors;
      CHECK(image["ref"] == repo + ":zz-broken");
      CHECK(image["error"].get<std::string>().find("digest") != std::string::npos);
    } else {
      CHECK(image["digest"].get<std::string>().rfind("sha256:", 0) == 0);
    }
  }
  CHECK(errors == 1);
  CHECK(report["images"][0]["ref"] == repo + ":t00");
  // The report with its error entry is a valid imagelint.report/v1.
  WriteFileText(cache / "report.json", all.out);
  auto valid = RunCommand({"python3", (SourceDir() / "tests/support/validate_json_schema.py").string(),
                           (SourceDir() / "docs/report-schema.json").string(), (cache / "report.json").string()});
  CHECK_MESSAGE(valid.exit_code == 0, valid.out << valid.err);
  // Every output format holds the error entry.
  auto text = RunImagelint({"scan", repo, "--all-tags", "--tags", "^zz-|^t0[0-2]$", "--cache-dir",
                            cache.path().string(), "-f", "text", "-f", "sarif=" + (cache / "out.sarif").string(),
                            "-f", "markdown=" + (cache / "out.md").string(), "-f",
                            "html=" + (cache / "out.html").string(), "-f", "junit=" + (cache / "out.xml").string()});
  CHECK(text.exit_code == 2);
  CHECK(text.out.find("could not be read") != std::string::npos);
  CHECK(text.out.find("4 images") != std::string::npos);
  auto sarif = nlohmann::json::parse(ReadFileText(cache / "out.sarif"));
  const auto& invocation = sarif["runs"][0]["invocations"][0];
  CHECK(invocation["executionSuccessful"] == false);
  CHECK(invocation["toolExecutionNotifications"].size() == 1);
  CHECK(ReadFileText(cache / "out.md").find("could not be read") != std::string::npos);
  CHECK(ReadFileText(cache / "out.html").find("could not be read") != std::string::npos);
  CHECK(ReadFileText(cache / "out.xml").find("could not be read") != std::string::npos);
  // Flags that do not go together, a bad pattern, a tag given: exit 2.
  CHECK(RunImagelint({"scan", repo, "--tags", "x"}).exit_code == 2);
  CHECK(RunImagelint({"scan", repo, "--all-tags", "--tags", "("}).exit_code == 2);
  CHECK(RunImagelint({"scan", repo + ":t00", "--all-tags"}).exit_code == 2);
}

// The tag list's Link header pagination, against a loopback server that
// answers like a registry with pages of two tags.
TEST_CASE("tag lists follow Link rel=next pages and stay on the registry") {
  LoopbackServer server([](int fd, const SeenRequest& request) {
    std::string body, link;
    if (request.target == "/v2/") {
      body = "{}";
    } else if (request.target == "/v2/team/app/tags/list?n=1000") {
      body = R"({"name":"team/app","tags":["a","b"]})";
      link = "Link: </v2/team/app/tags/list?n=2&last=b>; rel=\"next\"\r\n";
    } else if (request.target == "/v2/team/app/tags/list?n=2&last=b") {
      body = R"({"name":"team/app","tags":["c","d"]})";
      link = "Link: <http://elsewhere.example/v2/team/app/tags/list?n=2&last=d>; rel=\"next\"\r\n";
    } else if (request.target == "/v2/team/app/tags/list?n=2&last=d") {
      body = R"({"name":"team/app","tags":["e"]})";
    } else if (request.target == "/v2/team/loop/tags/list?n=1000") {
      body = R"({"name":"team/loop","tags":["x"]})";
      link = "Link: </v2/team/loop/tags/list?n=1000>; rel=\"next\"\r\n";
    } else if (request.target == "/v2/team/escape/tags/list?n=1000") {
      body = R"({"name":"team/escape","tags":["x"]})";
      link = "Link: </v2/other/repo/tags/list?n=1000>; rel=\"next\"\r\n";
    } else if (request.target == "/v2/team/bad/tags/list?n=1000") {
      body = R"({"name":"team/bad","tags":["../x"]})";
    } else {
      WriteAllTo(fd, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
      return;
    }
    WriteAllTo(fd, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n" + link +
                       "Content-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body);
  });
  const std::string host = "127.0.0.1:" + std::to_string(server.port());
  auto list = [&](const std::string& repo) {
    auto ref = imagelint::registry::ParseReference(host + "/" + repo);
    REQUIRE(ref.ok());
    return imagelint::registry::ListTags(*ref, {});
  };
  auto tags = list("team/app");
  INFO((tags.ok() ? "" : tags.error().ToString()));
  REQUIRE(tags.ok());
  CHECK(*tags == std::vector<std::string>{"a", "b", "c", "d", "e"});
  for (const char* hostile : {"team/loop", "team/escape", "team/bad"}) {
    INFO(hostile);
    CHECK_FALSE(list(hostile).ok());
  }
}

// A registry whose Bearer challenge names a realm that is not a URL: the scan
// ends with an error naming the token server, not an exception (the realm's
// origin is empty and used to be sliced past its end).
TEST_CASE("a Bearer realm that is not a URL is an error, not a crash") {
  LoopbackServer server([](int fd, const SeenRequest& request) {
    WriteAllTo(fd,
               "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer realm=\"http://[not-an-address/token\",service=\"x\"\r\n"
               "Content-Length: 0\r\nConnection: close\r\n\r\n");
  });
  const std::string host = "127.0.0.1:" + std::to_string(server.port());
  auto ref = imagelint::registry::ParseReference(host + "/team/app");
  REQUIRE(ref.ok());
  imagelint::registry::RegistryOptions options;
  options.insecure_registries = {host};
  auto tags = imagelint::registry::ListTags(*ref, options);
  REQUIRE_FALSE(tags.ok());
  CAPTURE(tags.error().ToString());
  CHECK(tags.error().ToString().find("token server") != std::string::npos);
}
