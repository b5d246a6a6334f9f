// rediss://: the shared layer store over TLS, against Debian's redis-server
// with TLS only (tls-port, client certificates required, its default) and a
// CA made at test time (support/test_pki.h). Two runners share through it; a
// certificate that does not verify, a name or address it does not cover, a
// missing client certificate, the wrong scheme for the port, a paused or
// killed server each cost one warning naming why, and the scan's result is
// the one it has without any shared cache.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>

#include "cache/shared_cache_runner.h"
#include "imagelint/layer_store.h"
#include "support/image_builder.h"
#include "support/redis_server.h"
#include "support/test_pki.h"
#include "support/test_support.h"

using namespace imagelint;
using namespace imagelint::testing;
using namespace imagelint::testing::shared_cache;
namespace fs = std::filesystem;

namespace {

struct TlsFiles {
  fs::path ca;
  fs::path cert;  // "" = no client certificate
  fs::path key;
};

TlsFiles ClientFiles(const RedisServer& redis) {
  return {redis.pki()->ca, redis.pki()->client_cert, redis.pki()->client_key};
}

std::shared_ptr<LayerStore> TlsStoreFor(const std::string& url, const TlsFiles& files, Warnings& warnings,
                                        const std::string& password = "", int timeout_ms = 2000) {
  auto options = ParseRedisUrl(url);
  REQUIRE(options.ok());
  options->ca_file = files.ca.string();
  options->cert_file = files.cert.string();
  options->key_file = files.key.string();
  Status usable = CheckRedisTls(*options);
  REQUIRE_MESSAGE(usable.ok(), ErrorText(usable));
  return RedisStoreFor(*options, warnings, password, timeout_ms);
}

std::string OnlyWarning(const Runner& runner) {
  REQUIRE(runner.warnings.messages.size() == 1);
  INFO(runner.warnings.messages[0]);
  CHECK(runner.warnings.messages[0].find("shared cache not used from here on") != std::string::npos);
  return runner.warnings.messages[0];
}

}  // namespace

TEST_CASE("two runners, one Redis over TLS: the second runner's cold scan is served from it") {
  std::string why;
  auto redis = RedisServer::StartTls(&why);
  if (!NeedExternal("redis-server", redis != nullptr, why)) return;
  TempDir dir;
  WriteImage(SharedImage(), ImageKind::kOciLayout, dir / "img");
  const std::string plain = PlainScan(dir / "img");
  // By IP address (checked against the certificate's IP entry)...
  Runner first{dir / "img", dir / "cache-a"};
  first.store = TlsStoreFor(redis->Url(), ClientFiles(*redis), first.warnings);
  CHECK(first.Scan() == plain);
  CHECK(first.cache->Stats().misses == 3);
  CHECK(first.warnings.messages.empty());
  CHECK(redis->Keys("imagelint:layer:*").size() == 6);
  // ... and by name (its DNS entry, with SNI), from another database.
  Runner second{dir / "img", dir / "cache-b"};
  second.store = TlsStoreFor(redis->Url("localhost") + "/0", ClientFiles(*redis), second.warnings);
  CHECK(second.Scan() == plain);
  CHECK(second.analyzer.opened() == 0);
  CHECK(second.cache->Stats().shared_hits == 3);
  CHECK(second.cache->Stats().misses == 0);
  CHECK(second.warnings.messages.empty());
  CHECK(second.store->Name() == "rediss://localhost:" + std::to_string(redis->port()) + "/0");
}

TEST_CASE("rediss:// that does not verify, lacks a client certificate or meets the wrong server: one warning") {
  std::string why;
  auto redis = RedisServer::StartTls(&why);
  if (!NeedExternal("redis-server", redis != nullptr, why)) return;
  TempDir dir;
  WriteImage(SharedImage(), ImageKind::kDockerArchive, dir / "img");
  const std::string plain = PlainScan(dir / "img");
  Runner runner{dir / "img", dir / "cache"};
  TlsFiles files = ClientFiles(*redis);

  SUBCASE("a CA that did not sign the server's certificate") {
    files.ca = redis->pki()->other_ca;
    runner.store = TlsStoreFor(redis->Url(), files, runner.warnings);
    CHECK(runner.Scan() == plain);
    // redis-server sends its CA along: "self-signed certificate in certificate chain".
    CHECK(OnlyWarning(runner).find("cannot connect: TLS handshake: certificate verify failed: ") != std::string::npos);
  }
  SUBCASE("an address the certificate does not name (127.0.0.2; it names 127.0.0.1 and localhost)") {
    runner.store = TlsStoreFor(redis->Url("127.0.0.2"), files, runner.warnings);
    CHECK(runner.Scan() == plain);
    CHECK(OnlyWarning(runner).find("certificate verify failed: IP address mismatch") != std::string::npos);
  }
  SUBCASE("no client certificate for a server that requires one (tls-auth-clients yes)") {
    files.cert.clear();
    files.key.clear();
    runner.store = TlsStoreFor(redis->Url(), files, runner.warnings);
    CHECK(runner.Scan() == plain);
    // TLS 1.3: the handshake completes; the server's alert or reset comes with the first command.
    CHECK(OnlyWarning(runner).find("the server asked for a client certificate and none was given") !=
          std::string::npos);
  }
  SUBCASE("plain redis:// to the TLS port") {
    runner.store = RedisStoreFor("redis://127.0.0.1:" + std::to_string(redis->port()), runner.warnings);
    CHECK(runner.Scan() == plain);
    OnlyWarning(runner);
  }
  SUBCASE("rediss:// to a plain server (it waits for a line end the TLS hello lacks)") {
    auto plain_redis = RedisServer::Start(&why);
    REQUIRE(plain_redis);
    runner.store =
        TlsStoreFor("rediss://127.0.0.1:" + std::to_string(plain_redis->port()), files, runner.warnings, "", 300);
    CHECK(runner.Scan() == plain);
    CHECK(OnlyWarning(runner).find("TLS handshake: timed out after 300 ms") != std::string::npos);
  }
  SUBCASE("paused: the handshake times out, the scan does not hang") {
    runner.store = TlsStoreFor(redis->Url(), files, runner.warnings, "", 300);
    redis->Pause();
    auto started = std::chrono::steady_clock::now();
    CHECK(runner.Scan() == plain);
    CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(10));
    CHECK(OnlyWarning(runner).find("timed out after 300 ms") != std::string::npos);
    redis->Resume();
  }
  SUBCASE("killed mid-scan") {
    runner.store = TlsStoreFor(redis->Url(), files, runner.warnings);
    std::atomic<int> layers{0};
    RedisServer* server = redis.get();
    auto inner = [&layers, server](ImageSource& source, size_t index, const std::vector<FileAnalyzer*>& analyzers,
                                   const ScanOptions& options) {
      if (layers++ == 1) server->Kill();  // after the first layer went to Redis
      return ScanLayer(source, index, analyzers, options);
    };
    CHECK(runner.Scan(inner) == plain);
    OnlyWarning(runner);
    CHECK(runner.cache->Stats().misses == 3);
  }
  // The local cache works on: a warm scan serves every layer.
  runner.cache.reset();
  runner.store = nullptr;
  CHECK(runner.Scan() == plain);
  CHECK(runner.cache->Stats().hits == 3);
}

TEST_CASE("requirepass over TLS: the right password is served, a wrong one is one warning") {
  std::string why;
  auto redis = RedisServer::StartTls(&why, "tls-s3cret");
  if (!NeedExternal("redis-server", redis != nullptr, why)) return;
  TempDir dir;
  WriteImage(SharedImage(), ImageKind::kDockerArchive, dir / "img");
  const std::string plain = PlainScan(dir / "img");
  Runner wrong{dir / "img", dir / "cache-wrong"};
  wrong.store = TlsStoreFor(redis->Url(), ClientFiles(*redis), wrong.warnings, "wrong");
  CHECK(wrong.Scan() == plain);
  std::string warning = OnlyWarning(wrong);
  CHECK(warning.find("WRONGPASS") != std::string::npos);
  CHECK(warning.find("tls-s3cret") == std::string::npos);
  Runner right{dir / "img", dir / "cache-right"};
  right.store = TlsStoreFor(redis->Url(), ClientFiles(*redis), right.warnings, "tls-s3cret");
  CHECK(right.Scan() == plain);
  CHECK(right.warnings.messages.empty());
  CHECK(redis->Keys("imagelint:layer:*").size() == 6);
}

TEST_CASE("rediss:// files that cannot be used are refused up front, naming the file") {
  TempDir dir;
  std::string why;
  auto pki = MakeTestPki(dir / "pki", &why);
  if (!NeedExternal("openssl", pki.has_value(), why)) return;
  WriteFileText(dir / "not-pem.txt", "just text\n");
  auto check = [](const std::string& ca, const std::string& cert, const std::string& key) {
    RedisOptions options;
    options.tls = true;
    options.host = "127.0.0.1";
    options.ca_file = ca;
    options.cert_file = cert;
    options.key_file = key;
    return CheckRedisTls(options);
  };
  CHECK(check(pki->ca.string(), pki->client_cert.string(), pki->client_key.string()).ok());
  CHECK(check("", "", "").ok());  // the system's CAs, no client certificate
  struct Bad {
    std::string ca, cert, key, subject, message;
  };
  const std::string missing = (dir / "missing.pem").string();
  const std::string text = (dir / "not-pem.txt").string();
  const std::vector<Bad> bad = {
      {missing, "", "", missing, "cannot read the --redis-ca file"},
      {text, "", "", text, "--redis-ca file holds no PEM certificate"},
      {pki->client_key.string(), "", "", pki->client_key.string(), "no PEM certificate"},
      {pki->ca.string(), missing, pki->client_key.string(), missing, "cannot read the --redis-cert file"},
      {pki->ca.string(), pki->client_cert.string(), missing, missing, "cannot read the --redis-key file"},
      {pki->ca.string(), pki->client_cert.string(), text, text, "holds no unencrypted PEM private key"},
      {pki->ca.string(), pki->client_cert.string(), pki->server_key.string(), pki->server_key.string(),
       "does not go with the --redis-cert"},
      {pki->ca.string(), pki->client_cert.string(), "", "--redis-cert", "go together"},
  };
  for (const Bad& one : bad) {
    INFO(one.ca << " " << one.cert << " " << one.key);
    Status checked = check(one.ca, one.cert, one.key);
    REQUIRE_FALSE(checked.ok());
    CHECK(checked.error().subject == one.subject);
    CHECK(checked.error().message.find(one.message) != std::string::npos);
  }
  // An encrypted key: refused, never a passphrase prompt.
  auto encrypted = RunCommand({"openssl", "pkey", "-in", pki->client_key.string(), "-aes256", "-passout",
                               "pass:secret", "-out", (dir / "encrypted.key").string()});
  REQUIRE(encrypted.exit_code == 0);
  Status locked = check(pki->ca.string(), pki->client_cert.string(), (dir / "encrypted.key").string());
  REQUIRE_FALSE(locked.ok());
  CHECK(locked.error().message.find("never asks for a passphrase") != std::string::npos);
}
