// Pulls from Debian's docker-registry on loopback (started here), with
// anonymous, Bearer (silly) and htpasswd Basic auth, indexes, missing things,
// and a fault-injecting proxy in between.
#include <doctest/doctest.h>

#include <cstdlib>

#include "imagelint/registry.h"
#include "registry/registry_fixture.h"
#include "imagelint/scan.h"

using namespace imagelint;
using namespace imagelint::testing;

namespace {

bool NeedRegistry() {
  return NeedExternal("docker-registry + skopeo", HaveRegistryTools(),
                      "registry tests run Debian's docker-registry on loopback and push with skopeo");
}

registry::RegistryOptions FastOptions() {
  registry::RegistryOptions options;
  options.backoff_initial_ms = 20;
  options.backoff_max_ms = 100;
  options.connect_timeout_seconds = 5;
  options.idle_timeout_seconds = 10;
  return options;
}

// Pushes `image` (OCI layout) to host/repo_tag; fails the test on error.
void PushImage(LocalRegistry& registry, const TestImage& image, const std::string& repo_tag) {
  TempDir dir;
  WriteImage(image, ImageKind::kOciLayout, dir / "layout");
  auto pushed = registry.Push(dir / "layout", repo_tag);
  INFO(pushed.err);
  REQUIRE(pushed.exit_code == 0);
}

Result<ScannedImage> Pull(const std::string& reference, const registry::RegistryOptions& options,
                          OpenOptions open = {}) {
  auto ref = registry::ParseReference(reference);
  if (!ref.ok()) return ref.error();
  auto source = registry::OpenRegistryImage(*ref, open, options);
  if (!source.ok()) return source.error();
  ScanOptions scan;
  scan.jobs = 2;
  return ScanImage(**source, {}, scan);
}

const LayerEntry* FindEntry(const ScannedImage& image, const std::string& path) {
  for (const auto& layer : image.layers) {
    for (const auto& entry : layer.entries) {
      if (entry.info.path == path) return &entry;
    }
  }
  return nullptr;
}

std::string EnvOf(const ScannedImage& image) { return image.metadata.config["config"]["Env"].dump(); }

}  // namespace

TEST_CASE("anonymous pull by tag and by digest") {
  if (!NeedRegistry()) return;
  LocalRegistry registry;
  PushImage(registry, SampleImage("anonymous"), "test/img:v1");
  auto image = Pull(registry.host() + "/test/img:v1", FastOptions());
  INFO((image.ok() ? std::string() : image.error().ToString()));
  REQUIRE(image.ok());
  CHECK(image->metadata.kind == "registry");
  CHECK(image->metadata.ref == registry.host() + "/test/img:v1");
  CHECK(image->metadata.platform.ToString() == "linux/amd64");
  REQUIRE(image->layers.size() == 2);
  CHECK(EnvOf(*image).find("MARKER=anonymous") != std::string::npos);
  const LayerEntry* big = FindEntry(*image, "usr/lib/big.bin");
  REQUIRE(big != nullptr);
  CHECK(big->info.size == 300 * 1024);
  REQUIRE(FindEntry(*image, "usr/lib/link") != nullptr);
  CHECK(FindEntry(*image, "usr/lib/link")->info.link_target == "big.bin");
  CHECK(image->layers[1].blob_bytes > 300 * 1024);  // incompressible content, streamed whole

  // The same image pinned by its manifest digest; a wrong digest is refused.
  std::string digest = image->metadata.digest;
  REQUIRE(digest.starts_with("sha256:"));
  auto pinned = Pull(registry.host() + "/test/img@" + digest, FastOptions());
  REQUIRE(pinned.ok());
  CHECK(pinned->metadata.digest == digest);
  std::string wrong = "sha256:" + std::string(64, '0');
  auto missing = Pull(registry.host() + "/test/img@" + wrong, FastOptions());
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().ToString().find("not found") != std::string::npos);
}

TEST_CASE("multi-platform index: --platform picks the image, unknown platforms are listed") {
  if (!NeedRegistry()) return;
  LocalRegistry registry;
  TestImage amd = SampleImage("amd64", 4096);
  TestImage arm = SampleImage("arm64", 4096);
  arm.architecture = "arm64";
  TempDir dir;
  WriteOptions write;
  write.nested_index = true;  // index.json -> one index: skopeo copies it whole with --all
  WriteMultiPlatform({amd, arm}, ImageKind::kOciLayout, dir / "layout", write);
  auto pushed = registry.Push(dir / "layout", "multi/img:latest", true);
  INFO(pushed.err);
  REQUIRE(pushed.exit_code == 0);

  auto by_default = Pull(registry.host() + "/multi/img", FastOptions());
  REQUIRE(by_default.ok());
  CHECK(by_default->metadata.platform.architecture == "amd64");
  CHECK(EnvOf(*by_default).find("MARKER=amd64") != std::string::npos);

  OpenOptions open;
  open.platform = *Platform::Parse("linux/arm64");
  open.platform_explicit = true;
  auto arm_image = Pull(registry.host() + "/multi/img", FastOptions(), open);
  REQUIRE(arm_image.ok());
  CHECK(arm_image->metadata.platform.architecture == "arm64");
  CHECK(EnvOf(*arm_image).find("MARKER=arm64") != std::string::npos);
  CHECK(arm_image->metadata.digest != by_default->metadata.digest);

  open.platform = *Platform::Parse("linux/s390x");
  auto none = Pull(registry.host() + "/multi/img", FastOptions(), open);
  REQUIRE_FALSE(none.ok());
  std::string message = none.error().ToString();
  CHECK(message.find("linux/s390x") != std::string::npos);
  CHECK(message.find("linux/arm64") != std::string::npos);
}

TEST_CASE("missing repository, tag and blob are errors naming the reference") {
  if (!NeedRegistry()) return;
  LocalRegistry registry;
  PushImage(registry, SampleImage("missing", 4096), "test/img:v1");

  auto no_repo = Pull(registry.host() + "/nobody/here:v1", FastOptions());
  REQUIRE_FALSE(no_repo.ok());
  CHECK(no_repo.error().subject == registry.host() + "/nobody/here:v1");
  CHECK(no_repo.error().message.find("not found (HTTP 404") != std::string::npos);

  auto no_tag = Pull(registry.host() + "/test/img:v2", FastOptions());
  REQUIRE_FALSE(no_tag.ok());
  CHECK(no_tag.error().subject == registry.host() + "/test/img:v2");
  CHECK(no_tag.error().message.find("manifest v2 not found") != std::string::npos);

  auto ref = registry::ParseReference(registry.host() + "/test/img:v1");
  auto source = registry::OpenRegistryImage(*ref, {}, FastOptions());
  REQUIRE(source.ok());
  std::string blob = (*source)->Metadata().layers[1].digest;
  registry.DeleteBlob(blob);
  auto scanned = ScanImage(**source, {});
  REQUIRE_FALSE(scanned.ok());
  std::string message = scanned.error().ToString();
  CHECK(message.find(blob) != std::string::npos);
  CHECK(message.find("not found") != std::string::npos);
}

TEST_CASE("Bearer token flow against the registry's silly auth") {
  if (!NeedRegistry()) return;
  const std::string token = "tok-7f3a-SECRET-token";
  TokenServer tokens(token);
  LocalRegistry registry(RegistryAuth::kSilly, tokens.realm());
  PushImage(registry, SampleImage("bearer", 4096), "secure/img:v1");

  auto image = Pull(registry.host() + "/secure/img:v1", FastOptions());
  INFO((image.ok() ? std::string() : image.error().ToString()));
  REQUIRE(image.ok());
  CHECK(EnvOf(*image).find("MARKER=bearer") != std::string::npos);
  auto requests = tokens.Requests();
  REQUIRE_FALSE(requests.empty());
  CHECK(requests[0].target.find("service=imagelint-test") != std::string::npos);
  CHECK(requests[0].target.find("scope=repository%3Asecure%2Fimg%3Apull") != std::string::npos);
  CHECK(requests[0].headers.count("authorization") == 0);  // anonymous

  // With credentials, the token server gets them as Basic.
  auto options = FastOptions();
  options.credentials = registry::Credentials{"carol", "carol-password", false};
  auto with_creds = Pull(registry.host() + "/secure/img:v1", options);
  REQUIRE(with_creds.ok());
  requests = tokens.Requests();
  CHECK(requests.back().headers["authorization"] == "Basic Y2Fyb2w6Y2Fyb2wtcGFzc3dvcmQ=");

  // A token server that refuses: exit-2 style error, no secrets in it.
  TokenServer refusing("never", true);
  LocalRegistry locked(RegistryAuth::kSilly, refusing.realm());
  auto refused = Pull(locked.host() + "/secure/img:v1", options);
  REQUIRE_FALSE(refused.ok());
  std::string message = refused.error().ToString();
  CHECK(message.find("authentication failed") != std::string::npos);
  CHECK(message.find(locked.host() + "/secure/img:v1") != std::string::npos);
  CHECK(message.find("carol-password") == std::string::npos);
}

TEST_CASE("htpasswd Basic auth: none, wrong, right, and from REGISTRY_AUTH_FILE") {
  if (!NeedRegistry()) return;
  if (!NeedExternal("htpasswd", HaveProgram("htpasswd"), "makes the registry's bcrypt password file")) return;
  LocalRegistry registry(RegistryAuth::kHtpasswd, "", "dave", "dave-pw-42");
  PushImage(registry, SampleImage("basic", 4096), "private/img:v1");
  const std::string reference = registry.host() + "/private/img:v1";

  auto anonymous = Pull(reference, FastOptions());  // no credential stores: anonymous
  REQUIRE_FALSE(anonymous.ok());
  CHECK(anonymous.error().subject == reference);
  CHECK(anonymous.error().message.find("authentication required") != std::string::npos);

  auto options = FastOptions();
  options.credentials = registry::Credentials{"dave", "wrong-password-x", false};
  auto wrong = Pull(reference, options);
  REQUIRE_FALSE(wrong.ok());
  CHECK(wrong.error().message.find("authentication failed") != std::string::npos);
  CHECK(wrong.error().ToString().find("wrong-password-x") == std::string::npos);

  options.credentials = registry::Credentials{"dave", "dave-pw-42", false};
  auto right = Pull(reference, options);
  REQUIRE(right.ok());
  CHECK(EnvOf(*right).find("MARKER=basic") != std::string::npos);

  TempDir dir;
  WriteFileText(dir / "auth.json", "{\"auths\":{\"" + registry.host() + "\":{\"auth\":\"ZGF2ZTpkYXZlLXB3LTQy\"}}}");
  auto stored = FastOptions();
  stored.credential_stores.registry_auth_file = (dir / "auth.json").string();
  auto from_file = Pull(reference, stored);
  INFO((from_file.ok() ? std::string() : from_file.error().ToString()));
  REQUIRE(from_file.ok());
}

TEST_CASE("faults between imagelint and the registry") {
  if (!NeedRegistry()) return;
  LocalRegistry registry;
  PushImage(registry, SampleImage("faults"), "test/img:v1");
  auto ref = registry::ParseReference(registry.host() + "/test/img:v1");
  auto probe = registry::OpenRegistryImage(*ref, {}, FastOptions());
  REQUIRE(probe.ok());
  const std::string big_blob = "/blobs/" + (*probe)->Metadata().layers[1].digest;
  const std::string expected_digest = (*probe)->Metadata().digest;

  auto through = [&](FaultProxy& proxy) { return Pull(proxy.host() + "/test/img:v1", FastOptions()); };
  auto ranged = [](const FaultProxy& proxy, const std::string& blob) {
    int count = 0;
    for (const auto& request : proxy.Requests()) {
      if (request.target.find(blob) != std::string::npos && request.headers.count("range")) ++count;
    }
    return count;
  };

  SUBCASE("connection reset mid-blob: resumed with Range") {
    FaultProxy proxy(registry.port(), {{big_blob, Fault::kReset, 1}});
    auto image = through(proxy);
    INFO((image.ok() ? std::string() : image.error().ToString()));
    REQUIRE(image.ok());
    CHECK(proxy.faults_applied() == 1);
    CHECK(ranged(proxy, big_blob) == 1);
    CHECK(image->metadata.digest == expected_digest);
    CHECK(FindEntry(*image, "usr/lib/big.bin") != nullptr);
  }
  SUBCASE("truncated body: resumed with Range") {
    FaultProxy proxy(registry.port(), {{big_blob, Fault::kTruncate, 2}});
    auto image = through(proxy);
    INFO((image.ok() ? std::string() : image.error().ToString()));
    REQUIRE(image.ok());
    CHECK(proxy.faults_applied() == 2);
    CHECK(ranged(proxy, big_blob) == 2);
  }
  SUBCASE("500 then success, 429 then success") {
    FaultProxy proxy(registry.port(), {{"/manifests/", Fault::kStatus500, 2}, {big_blob, Fault::kStatus429, 1},
                                       {"/blobs/", Fault::kStatus500, 1}});
    auto image = through(proxy);
    INFO((image.ok() ? std::string() : image.error().ToString()));
    REQUIRE(image.ok());
    CHECK(proxy.faults_applied() == 4);
  }
  SUBCASE("500 forever: gives up with a clear error") {
    FaultProxy proxy(registry.port(), {{big_blob, Fault::kStatus500, -1}});
    auto image = through(proxy);
    REQUIRE_FALSE(image.ok());
    std::string message = image.error().ToString();
    CHECK(message.find("HTTP 500") != std::string::npos);
    CHECK(message.find("gave up after 5 attempts") != std::string::npos);
    CHECK(message.find(big_blob.substr(7)) != std::string::npos);
  }
  SUBCASE("reset every time: bounded retries, then an error") {
    FaultProxy proxy(registry.port(), {{big_blob, Fault::kReset, -1}});
    auto image = through(proxy);
    REQUIRE_FALSE(image.ok());
    CHECK(image.error().ToString().find(big_blob.substr(7)) != std::string::npos);
    CHECK(proxy.faults_applied() <= 60);
  }
  SUBCASE("wrong blob digest: refused, never scanned into a result") {
    FaultProxy proxy(registry.port(), {{big_blob, Fault::kCorrupt, -1}});
    auto image = through(proxy);
    REQUIRE_FALSE(image.ok());
    std::string message = image.error().ToString();
    INFO(message);
    CHECK(message.find("digest mismatch") != std::string::npos);
    CHECK(message.find(big_blob.substr(7)) != std::string::npos);
  }
  SUBCASE("wrong manifest bytes: refused") {
    FaultProxy proxy(registry.port(), {{"/manifests/", Fault::kCorrupt, -1}});
    auto image = through(proxy);
    REQUIRE_FALSE(image.ok());
    std::string message = image.error().ToString();
    CHECK((message.find("digest mismatch") != std::string::npos || message.find("not valid JSON") != std::string::npos));
  }
}

TEST_CASE("blob redirects to another host do not carry the registry's Authorization") {
  if (!NeedRegistry()) return;
  const std::string token = "registry-only-token-99";
  TokenServer tokens(token);
  LocalRegistry registry(RegistryAuth::kSilly, tokens.realm());
  PushImage(registry, SampleImage("redirect", 4096), "test/img:v1");
  FaultProxy proxy(registry.port(), {{"/blobs/", Fault::kRedirect, -1}});
  auto image = Pull(proxy.host() + "/test/img:v1", FastOptions());
  INFO((image.ok() ? std::string() : image.error().ToString()));
  REQUIRE(image.ok());
  int redirected = 0;
  bool registry_saw_token = false;
  for (const auto& request : proxy.Requests()) {
    if (request.target.starts_with("/__redirected")) {
      ++redirected;
      CHECK(request.headers.count("authorization") == 0);
    } else if (request.headers.count("authorization")) {
      registry_saw_token = registry_saw_token || request.headers.at("authorization") == "Bearer " + token;
    }
  }
  CHECK(redirected >= 3);  // config + 2 layers
  CHECK(registry_saw_token);
}

TEST_CASE("TLS: certificates are verified by default; --ca-file trusts a private CA") {
  if (!NeedRegistry()) return;
  if (!NeedExternal("openssl", HaveProgram("openssl"), "the TLS test makes its certificates with openssl")) return;
  // A registry name that is not loopback, so imagelint insists on verified
  // HTTPS; CONNECT_TO sends its connections to the local registry while TLS
  // still checks the certificate against that name.
  const std::string name = "registry.imagelint.test";
  TempDir dir;
  TestTlsFiles tls = MakeTestTls(dir / "tls", name);
  TestTlsFiles other = MakeTestTls(dir / "other", name);  // same name, another CA
  LocalRegistry registry(RegistryAuth::kNone, "", "", "", &tls);
  PushImage(registry, SampleImage("tls"), "test/img:v1");
  const std::string port = std::to_string(registry.port());
  const std::string reference = name + ":" + port + "/test/img:v1";
  registry::RegistryOptions options = FastOptions();
  options.max_attempts = 1;
  options.connect_to = {name + ":" + port + ":127.0.0.1:" + port};

  auto untrusted = Pull(reference, options);  // system CAs do not know ours
  REQUIRE_FALSE(untrusted.ok());
  std::string message = untrusted.error().ToString();
  INFO(message);
  CHECK(message.find(name) != std::string::npos);
  CHECK((message.find("certificate") != std::string::npos || message.find("SSL") != std::string::npos));

  options.ca_file = other.ca_cert.string();  // a CA that did not sign it
  CHECK_FALSE(Pull(reference, options).ok());

  options.ca_file = tls.ca_cert.string();
  auto trusted = Pull(reference, options);
  INFO((trusted.ok() ? std::string() : trusted.error().ToString()));
  REQUIRE(trusted.ok());
  CHECK(EnvOf(*trusted).find("MARKER=tls") != std::string::npos);

  // --insecure-registry for that name: HTTPS without verification works too.
  registry::RegistryOptions insecure = FastOptions();
  insecure.connect_to = options.connect_to;
  insecure.insecure_registries = {name + ":" + port};
  CHECK(Pull(reference, insecure).ok());
}
