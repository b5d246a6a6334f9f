// References, WWW-Authenticate parsing and credential stores: no network.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>

#include "imagelint/registry.h"
#include "registry/auth.h"
#include "registry/http.h"
#include "support/test_support.h"

using namespace imagelint;
using namespace imagelint::registry;
using imagelint::testing::TempDir;
using imagelint::testing::WriteFileText;

TEST_CASE("references are normalised like Docker") {
  struct Case {
    const char* text;
    const char* registry;
    const char* repository;
    const char* tag;
    const char* digest;
  };
  const std::string d = "sha256:" + std::string(64, 'a');
  Case cases[] = {
      {"ubuntu", "docker.io", "library/ubuntu", "latest", ""},
      {"ubuntu:22.04", "docker.io", "library/ubuntu", "22.04", ""},
      {"nvidia/cuda:12.4.1-base-ubuntu22.04", "docker.io", "nvidia/cuda", "12.4.1-base-ubuntu22.04", ""},
      {"index.docker.io/library/busybox", "docker.io", "library/busybox", "latest", ""},
      {"nvcr.io/nvidia/pytorch:24.01-py3", "nvcr.io", "nvidia/pytorch", "24.01-py3", ""},
      {"localhost/foo", "localhost", "foo", "latest", ""},
      {"localhost:5000/team/train:1.4", "localhost:5000", "team/train", "1.4", ""},
      {"127.0.0.1:5055/a/b-c__d.e", "127.0.0.1:5055", "a/b-c__d.e", "latest", ""},
      {"[::1]:5000/x", "[::1]:5000", "x", "latest", ""},
      {"foo/bar/baz", "docker.io", "foo/bar/baz", "latest", ""},
  };
  for (const auto& c : cases) {
    std::string spelled = c.text;
    CAPTURE(spelled);
    auto ref = ParseReference(c.text);
    REQUIRE(ref.ok());
    CHECK(ref->registry == c.registry);
    CHECK(ref->repository == c.repository);
    CHECK(ref->tag == c.tag);
    CHECK(ref->digest == c.digest);
  }
  auto pinned = ParseReference("ghcr.io/org/img@" + d);
  REQUIRE(pinned.ok());
  CHECK(pinned->tag.empty());
  CHECK(pinned->digest == d);
  CHECK(pinned->ManifestIdentifier() == d);
  auto both = ParseReference("ghcr.io/org/img:v1@" + d);
  REQUIRE(both.ok());
  CHECK(both->tag == "v1");
  CHECK(both->ManifestIdentifier() == d);
  CHECK(both->ToString() == "ghcr.io/org/img:v1@" + d);

  auto hub = ParseReference("ubuntu");
  CHECK(hub->ApiHost() == "registry-1.docker.io");
  CHECK(hub->CredentialKey() == "https://index.docker.io/v1/");
  CHECK(ParseReference("ghcr.io/a/b")->ApiHost() == "ghcr.io");
}

TEST_CASE("invalid references are errors, not guesses") {
  for (const char* text : {"", "Ubuntu", "foo/Bar", "foo:", "foo@sha256:abc", "foo bar", "/abs/path.tar",
                           "./img.tar", "foo//bar", "-foo", "foo:-bad", "a/b:c:d", "-x.com/a", "a..b/c"}) {
    std::string spelled = text;
    CAPTURE(spelled);
    CHECK_FALSE(ParseReference(text).ok());
  }
  CHECK(ParseReference("foo/Bar").error().message.find("lowercase") != std::string::npos);
}

TEST_CASE("loopback hosts") {
  CHECK(IsLoopbackHost("localhost:5000"));
  CHECK(IsLoopbackHost("127.0.0.1"));
  CHECK(IsLoopbackHost("127.3.2.1:80"));
  CHECK(IsLoopbackHost("[::1]:5000"));
  CHECK_FALSE(IsLoopbackHost("128.0.0.1"));
  CHECK_FALSE(IsLoopbackHost("registry.example.com:5000"));
  CHECK_FALSE(IsLoopbackHost("localhost.example.com"));
}

TEST_CASE("WWW-Authenticate challenges") {
  auto challenges = ParseChallenges(
      "Bearer realm=\"https://auth.docker.io/token\",service=\"registry.docker.io\","
      "scope=\"repository:library/ubuntu:pull,push\"");
  REQUIRE(challenges.size() == 1);
  CHECK(challenges[0].scheme == "bearer");
  CHECK(challenges[0].params["realm"] == "https://auth.docker.io/token");
  CHECK(challenges[0].params["service"] == "registry.docker.io");
  CHECK(challenges[0].params["scope"] == "repository:library/ubuntu:pull,push");

  auto two = ParseChallenges("Basic realm=\"a \\\"quoted\\\" realm\", Bearer realm=x,service=y");
  REQUIRE(two.size() == 2);
  CHECK(two[0].scheme == "basic");
  CHECK(two[0].params["realm"] == "a \"quoted\" realm");
  CHECK(two[1].scheme == "bearer");
  CHECK(two[1].params["realm"] == "x");
  CHECK(two[1].params["service"] == "y");
  CHECK(ParseChallenges("").empty());
}

TEST_CASE("base64 round trip") {
  for (std::string text : {"", "a", "ab", "abc", "user:pa:ss\xff"}) {
    auto decoded = Base64Decode(Base64Encode(text));
    REQUIRE(decoded.ok());
    CHECK(*decoded == text);
  }
  CHECK(Base64Encode("user:secret") == "dXNlcjpzZWNyZXQ=");
}

TEST_CASE("URL helpers") {
  CHECK(UrlOrigin("http://Example.com/v2/") == "http://example.com:80");
  CHECK(UrlOrigin("https://example.com:5000/x") == "https://example.com:5000");
  CHECK(UrlOrigin("http://127.0.0.1:80/x") == UrlOrigin("http://127.0.0.1/y"));
  CHECK(UrlOrigin("http://localhost:5000/") != UrlOrigin("http://127.0.0.1:5000/"));
  auto relative = ResolveUrl("http://a:1/v2/x/blobs/sha256:1", "/other/path?x=1");
  REQUIRE(relative.ok());
  CHECK(*relative == "http://a:1/other/path?x=1");
  auto absolute = ResolveUrl("http://a:1/v2/", "https://cdn.example.com/blob");
  REQUIRE(absolute.ok());
  CHECK(*absolute == "https://cdn.example.com/blob");
  CHECK_FALSE(ResolveUrl("http://a/", "file:///etc/passwd").ok());
  CHECK(UrlEscape("repository:a/b:pull") == "repository%3Aa%2Fb%3Apull");
}

TEST_CASE("credentials from docker config.json and auth.json") {
  auto ref = *ParseReference("registry.example.com:5000/team/train:1.4");
  std::string user_pass = Base64Encode("alice:s3cr:et");
  std::string config = R"({"auths":{"registry.example.com:5000":{"auth":")" + user_pass + R"("}}})";
  auto found = CredentialsFromConfig(config, "config.json", ref);
  REQUIRE(found.ok());
  REQUIRE(found->has_value());
  CHECK((*found)->username == "alice");
  CHECK((*found)->password == "s3cr:et");  // split at the first ':'
  CHECK_FALSE((*found)->identity_token);

  // containers auth.json: a namespace key is more specific than the host.
  std::string ns = R"({"auths":{"registry.example.com:5000":{"auth":")" + Base64Encode("host:h") +
                   R"("},"registry.example.com:5000/team":{"auth":")" + Base64Encode("team:t") + R"("}}})";
  auto specific = CredentialsFromConfig(ns, "auth.json", ref);
  REQUIRE(specific.ok());
  CHECK((*specific)->username == "team");

  // Docker Hub's historic key; identity tokens.
  auto hub = *ParseReference("nvidia/cuda:12.4.1-base-ubuntu22.04");
  std::string hub_config = R"({"auths":{"https://index.docker.io/v1/":{"auth":")" + Base64Encode("bob:pw") +
                           R"(","identitytoken":"refresh-123"}}})";
  auto hub_found = CredentialsFromConfig(hub_config, "config.json", hub);
  REQUIRE(hub_found.ok());
  REQUIRE(hub_found->has_value());
  CHECK((*hub_found)->identity_token);
  CHECK((*hub_found)->password == "refresh-123");

  // Nothing for another registry; malformed entries are errors naming the file.
  auto other = *ParseReference("ghcr.io/x/y");
  auto none = CredentialsFromConfig(config, "config.json", other);
  REQUIRE(none.ok());
  CHECK_FALSE(none->has_value());
  auto bad = CredentialsFromConfig(R"({"auths":{"ghcr.io":{"auth":"bm9jb2xvbg=="}}})", "cfg.json", other);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().ToString().find("cfg.json") != std::string::npos);
  CHECK_FALSE(CredentialsFromConfig("{not json", "cfg.json", other).ok());
}

TEST_CASE("credential helpers (credHelpers, credsStore)") {
  TempDir dir;
  // A fake docker-credential-test helper on PATH.
  WriteFileText(dir / "docker-credential-test",
                "#!/bin/sh\nread server\nif [ \"$server\" = \"helped.example.com\" ]; then\n"
                "  printf '{\"ServerURL\":\"%s\",\"Username\":\"helper-user\",\"Secret\":\"helper-secret\"}' "
                "\"$server\"\nelse\n  echo 'credentials not found in native keychain'; exit 1\nfi\n");
  std::filesystem::permissions(dir / "docker-credential-test", std::filesystem::perms::owner_all);
  std::string old_path = std::getenv("PATH") ? std::getenv("PATH") : "";
  setenv("PATH", (dir.path().string() + ":" + old_path).c_str(), 1);

  auto helped = *ParseReference("helped.example.com/a/b");
  auto via_helpers = CredentialsFromConfig(R"({"credHelpers":{"helped.example.com":"test"}})", "c.json", helped);
  REQUIRE(via_helpers.ok());
  REQUIRE(via_helpers->has_value());
  CHECK((*via_helpers)->username == "helper-user");
  CHECK((*via_helpers)->password == "helper-secret");

  // credsStore is the default helper; "not found" means anonymous, then auths.
  auto other = *ParseReference("other.example.com/a/b");
  auto store = CredentialsFromConfig(R"({"credsStore":"test"})", "c.json", other);
  REQUIRE(store.ok());
  CHECK_FALSE(store->has_value());
  auto fallback = CredentialsFromConfig(
      R"({"credsStore":"test","auths":{"other.example.com":{"auth":")" + Base64Encode("u:p") + R"("}}})", "c.json",
      other);
  REQUIRE(fallback.ok());
  REQUIRE(fallback->has_value());
  CHECK((*fallback)->username == "u");

  auto missing = CredentialsFromConfig(R"({"credHelpers":{"other.example.com":"absent"}})", "c.json", other);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().ToString().find("docker-credential-absent") != std::string::npos);
  setenv("PATH", old_path.c_str(), 1);
}

TEST_CASE("LookupCredentials reads REGISTRY_AUTH_FILE before docker's config") {
  TempDir dir;
  WriteFileText(dir / "auth.json", R"({"auths":{"r.example.com":{"auth":")" + Base64Encode("podman:pw1") + R"("}}})");
  std::filesystem::create_directories(dir / "docker");
  WriteFileText(dir / "docker" / "config.json",
                R"({"auths":{"r.example.com":{"auth":")" + Base64Encode("docker:pw2") +
                    R"("},"d.example.com":{"auth":")" + Base64Encode("d:pw3") + R"("}}})");
  CredentialStores stores;
  stores.registry_auth_file = (dir / "auth.json").string();
  stores.docker_config = (dir / "docker").string();
  auto first = LookupCredentials(*ParseReference("r.example.com/x"), stores);
  REQUIRE(first.ok());
  REQUIRE(first->has_value());
  CHECK((*first)->username == "podman");
  auto docker = LookupCredentials(*ParseReference("d.example.com/x"), stores);
  REQUIRE(docker.ok());
  REQUIRE(docker->has_value());
  CHECK((*docker)->username == "d");
  auto none = LookupCredentials(*ParseReference("n.example.com/x"), stores);
  REQUIRE(none.ok());
  CHECK_FALSE(none->has_value());
}
