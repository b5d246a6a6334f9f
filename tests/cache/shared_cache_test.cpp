// The shared layer store behind the local cache (--cache-backend): two
// runners with separate local caches share one Redis; a Redis that is down,
// killed mid-scan, paused, full, behind a password we lack, or holding a
// corrupted value costs one warning and local work, never the scan or its
// result. Against Debian's redis-server on loopback (tests/support/redis_server).
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <mutex>

#include <nlohmann/json.hpp>

#include "cache/shared_cache_runner.h"
#include "imagelint/cache.h"
#include "imagelint/layer_store.h"
#include "imagelint/open_image.h"
#include "imagelint/scan.h"
#include "support/image_builder.h"
#include "support/redis_server.h"
#include "support/test_support.h"

using namespace imagelint;
using namespace imagelint::testing;
using namespace imagelint::testing::shared_cache;
namespace fs = std::filesystem;

namespace {

// An in-memory store: what the local cache asks of any store.
class MapStore final : public LayerStore {
 public:
  Result<std::optional<std::vector<uint8_t>>> Get(const std::string& key, size_t max_bytes) override {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = values_.find(key);
    if (it == values_.end()) return std::optional<std::vector<uint8_t>>();
    std::vector<uint8_t> value = it->second;
    if (value.size() > max_bytes + 1) value.resize(max_bytes + 1);
    return std::optional<std::vector<uint8_t>>(std::move(value));
  }
  Status Put(const std::string& key, std::span<const uint8_t> value) override {
    std::lock_guard<std::mutex> lock(mutex_);
    values_[key] = std::vector<uint8_t>(value.begin(), value.end());
    return OkStatus();
  }
  std::string Name() const override { return "map"; }
  std::map<std::string, std::vector<uint8_t>> values_;
  std::mutex mutex_;
};

}  // namespace

TEST_CASE("redis URLs: host, port, database, user; never a password; rediss:// is TLS") {
  auto full = ParseRedisUrl("redis://ci@cache.example:6380/3");
  REQUIRE(full.ok());
  CHECK(full->host == "cache.example");
  CHECK(full->port == 6380);
  CHECK(full->db == 3);
  CHECK(full->username == "ci");
  auto plain = ParseRedisUrl("redis://10.0.0.5");
  REQUIRE(plain.ok());
  CHECK(plain->port == 6379);
  CHECK(plain->db == 0);
  auto v6 = ParseRedisUrl("redis://[::1]:7000/1");
  REQUIRE(v6.ok());
  CHECK(v6->host == "::1");
  CHECK(v6->port == 7000);
  CHECK_FALSE(full->tls);
  for (const char* bad : {"redis://:secret@host", "redis://user:secret@host:6379", "http://host", "redis://",
                          "rediss://", "rediss://:secret@host", "redisss://host", "rediss:/host",
                          "redis://host:0", "redis://host:99999", "redis://host:x", "redis://host/db", "host:6379"}) {
    INFO(bad);
    CHECK_FALSE(ParseRedisUrl(bad).ok());
  }
  auto password = ParseRedisUrl("redis://:secret@host");
  CHECK(password.error().message.find("IMAGELINT_REDIS_PASSWORD") != std::string::npos);
  auto tls = ParseRedisUrl("rediss://ci@cache.example:6380/2");
  REQUIRE(tls.ok());
  CHECK(tls->tls);
  CHECK(tls->host == "cache.example");
  CHECK(tls->port == 6380);
  CHECK(tls->db == 2);
  CHECK(tls->username == "ci");
  auto tls_v6 = ParseRedisUrl("rediss://[::1]");
  REQUIRE(tls_v6.ok());
  CHECK(tls_v6->tls);
  CHECK(tls_v6->host == "::1");
  CHECK(tls_v6->port == 6379);
}

TEST_CASE("two runners, one store: the second runner's cold scan reads no layer (in-memory store)") {
  TempDir dir;
  WriteImage(SharedImage(), ImageKind::kDockerArchive, dir / "img");
  auto store = std::make_shared<MapStore>();
  Runner first{dir / "img", dir / "cache-a", store};
  Runner second{dir / "img", dir / "cache-b", store};
  const std::string plain = PlainScan(dir / "img");
  CHECK(first.Scan() == plain);
  CHECK(first.cache->Stats().misses == 3);
  CHECK(first.cache->Stats().shared_stored == 6);  // entries + one analyzer file per layer
  CHECK(second.Scan() == plain);
  CHECK(second.analyzer.opened() == 0);
  CHECK(second.cache->Stats().hits == 3);
  CHECK(second.cache->Stats().shared_hits == 3);
  // Kept locally: the next scan on the second runner does not ask the store.
  store->values_.clear();
  second.cache.reset();
  CHECK(second.Scan() == plain);
  CHECK(second.cache->Stats().hits == 3);
  CHECK(second.cache->Stats().shared_hits == 0);
}

TEST_CASE("a --no-verify runner is served what verified runners stored, and stores nothing itself") {
  TempDir dir;
  WriteImage(SharedImage(), ImageKind::kDockerArchive, dir / "img");
  auto store = std::make_shared<MapStore>();
  const std::string plain = PlainScan(dir / "img");
  // Unverified first: it reads every layer and leaves nothing behind, locally
  // or in the store (its results carry no verified digest).
  Runner unverified{dir / "img", dir / "cache-u", store};
  unverified.verify = false;
  CHECK(unverified.Scan() == plain);
  CHECK(unverified.analyzer.opened() > 0);
  CHECK(unverified.cache->Stats().shared_stored == 0);
  CHECK(store->values_.empty());
  CHECK(fs::is_empty(dir / "cache-u" / "layers"));
  CHECK(!fs::exists(dir / "cache-u" / "verified"));  // no blob vouched for
  // A verified runner fills the store; then a fresh --no-verify runner reads no layer.
  Runner verified{dir / "img", dir / "cache-v", store};
  CHECK(verified.Scan() == plain);
  CHECK(verified.cache->Stats().shared_stored == 6);
  Runner served{dir / "img", dir / "cache-n", store};
  served.verify = false;
  CHECK(served.Scan() == plain);
  CHECK(served.analyzer.opened() == 0);
  CHECK(served.cache->Stats().hits == 3);
  CHECK(served.cache->Stats().shared_hits == 3);
}

TEST_CASE("two runners, one Redis: the second runner's cold scan is served from Redis") {
  std::string why;
  auto redis = RedisServer::Start(&why);
  if (!NeedExternal("redis-server", redis != nullptr, why)) return;
  TempDir dir;
  WriteImage(SharedImage(), ImageKind::kOciLayout, dir / "img");
  const std::string plain = PlainScan(dir / "img");
  Runner first{dir / "img", dir / "cache-a"};
  first.store = RedisStoreFor(redis->Url(), first.warnings);
  CHECK(first.Scan() == plain);
  CHECK(first.cache->Stats().misses == 3);
  CHECK(redis->Keys("imagelint:layer:*").size() == 6);

  Runner second{dir / "img", dir / "cache-b"};
  second.store = RedisStoreFor(redis->Url() + "/0", second.warnings);
  CHECK(second.Scan() == plain);
  CHECK(second.analyzer.opened() == 0);
  CHECK(second.cache->Stats().shared_hits == 3);
  CHECK(second.cache->Stats().misses == 0);
  CHECK(first.warnings.messages.empty());
  CHECK(second.warnings.messages.empty());

  SUBCASE("another database is another cache") {
    Runner third{dir / "img", dir / "cache-c"};
    third.store = RedisStoreFor(redis->Url() + "/1", third.warnings);
    CHECK(third.Scan() == plain);
    CHECK(third.cache->Stats().misses == 3);
  }
}

TEST_CASE("Redis down at start, killed mid-scan, paused or full: one warning, local work, the same result") {
  std::string why;
  auto redis = RedisServer::Start(&why);
  if (!NeedExternal("redis-server", redis != nullptr, why)) return;
  TempDir dir;
  WriteImage(SharedImage(), ImageKind::kDockerArchive, dir / "img");
  const std::string plain = PlainScan(dir / "img");
  Runner runner{dir / "img", dir / "cache"};

  SUBCASE("down at start") {
    const std::string url = redis->Url();
    redis->Kill();
    runner.store = RedisStoreFor(url, runner.warnings);
    CHECK(runner.Scan() == plain);
    REQUIRE(runner.warnings.messages.size() == 1);
    CHECK(runner.warnings.messages[0].find("cannot connect") != std::string::npos);
  }
  SUBCASE("killed mid-scan") {
    runner.store = RedisStoreFor(redis->Url(), runner.warnings);
    std::atomic<int> layers{0};
    RedisServer* server = redis.get();
    auto inner = [&layers, server](ImageSource& source, size_t index, const std::vector<FileAnalyzer*>& analyzers,
                                   const ScanOptions& options) {
      if (layers++ == 1) server->Kill();  // after the first layer went to Redis
      return ScanLayer(source, index, analyzers, options);
    };
    CHECK(runner.Scan(inner) == plain);
    CHECK(runner.warnings.messages.size() == 1);
    CHECK(runner.cache->Stats().misses == 3);
  }
  SUBCASE("paused: every command times out, the scan does not hang") {
    runner.store = RedisStoreFor(redis->Url(), runner.warnings, "", 300);
    redis->Pause();
    auto started = std::chrono::steady_clock::now();
    CHECK(runner.Scan() == plain);
    CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(10));
    REQUIRE(runner.warnings.messages.size() == 1);
    redis->Resume();
  }
  SUBCASE("full: writes refused (maxmemory, noeviction)") {
    CHECK(redis->Cli({"CONFIG", "SET", "maxmemory-policy", "noeviction"}).exit_code == 0);
    CHECK(redis->Cli({"CONFIG", "SET", "maxmemory", "1"}).exit_code == 0);
    runner.store = RedisStoreFor(redis->Url(), runner.warnings);
    CHECK(runner.Scan() == plain);
    REQUIRE(runner.warnings.messages.size() == 1);
    CHECK(runner.warnings.messages[0].find("OOM") != std::string::npos);
  }
  // The local cache works on: a warm scan serves every layer.
  runner.cache.reset();
  runner.store = nullptr;
  CHECK(runner.Scan() == plain);
  CHECK(runner.cache->Stats().hits == 3);
}

TEST_CASE("a corrupted or foreign value in Redis is ignored with a note, then replaced") {
  std::string why;
  auto redis = RedisServer::Start(&why);
  if (!NeedExternal("redis-server", redis != nullptr, why)) return;
  TempDir dir;
  WriteImage(SharedImage(), ImageKind::kDockerArchive, dir / "img");
  const std::string plain = PlainScan(dir / "img");
  Runner first{dir / "img", dir / "cache-a"};
  first.store = RedisStoreFor(redis->Url(), first.warnings);
  CHECK(first.Scan() == plain);
  auto entries = redis->Keys("imagelint:layer:*:entries.cbor");
  auto analyzers = redis->Keys("imagelint:layer:*:analyzer-counting-v1.cbor");
  REQUIRE(entries.size() == 3);
  REQUIRE(analyzers.size() == 3);
  // By hand: garbage; a value with a flipped byte (checksum); another layer's
  // entry list under this layer's key (a valid file, the wrong key inside).
  std::string valid = redis->Cli({"--raw", "GET", entries[1]}).out;
  REQUIRE(redis->SetRaw(entries[0], "not an imagelint value"));
  // The analyzer value of the one layer whose entry list stays intact.
  const std::string analyzer_key =
      entries[1].substr(0, entries[1].size() - std::string("entries.cbor").size()) + "analyzer-counting-v1.cbor";
  std::string flipped = redis->Cli({"--raw", "GET", analyzer_key}).out;
  REQUIRE(flipped.size() > 60);
  flipped.pop_back();  // --raw adds a newline
  flipped[flipped.size() - 3] ^= 0x20;
  REQUIRE(redis->SetRaw(analyzer_key, flipped));
  valid.pop_back();
  REQUIRE(redis->SetRaw(entries[2], valid));

  Runner second{dir / "img", dir / "cache-b"};
  second.store = RedisStoreFor(redis->Url(), second.warnings);
  CHECK(second.Scan() == plain);
  CHECK(second.cache->Stats().shared_discarded == 3);
  CHECK(second.warnings.messages.size() == 3);
  for (const auto& message : second.warnings.messages) CHECK(message.find("ignored the value") != std::string::npos);
  // The rescanned layers were stored again: a third runner is served whole.
  Runner third{dir / "img", dir / "cache-c"};
  third.store = RedisStoreFor(redis->Url(), third.warnings);
  CHECK(third.Scan() == plain);
  CHECK(third.analyzer.opened() == 0);
  CHECK(third.cache->Stats().shared_hits == 3);
  CHECK(third.warnings.messages.empty());
}

TEST_CASE("requirepass: the right password is served, a wrong or missing one is one warning") {
  std::string why;
  auto redis = RedisServer::Start(&why, "s3cret-pass");
  if (!NeedExternal("redis-server", redis != nullptr, why)) return;
  TempDir dir;
  WriteImage(SharedImage(), ImageKind::kDockerArchive, dir / "img");
  const std::string plain = PlainScan(dir / "img");
  for (const std::string password : {"wrong", ""}) {
    Runner runner{dir / "img", dir / ("cache-" + password)};
    runner.store = RedisStoreFor(redis->Url(), runner.warnings, password);
    CHECK(runner.Scan() == plain);
    REQUIRE(runner.warnings.messages.size() == 1);
    INFO(runner.warnings.messages[0]);
    CHECK(runner.warnings.messages[0].find(password.empty() ? "NOAUTH" : "WRONGPASS") != std::string::npos);
    CHECK(runner.warnings.messages[0].find("s3cret") == std::string::npos);
  }
  Runner right{dir / "img", dir / "cache-right"};
  right.store = RedisStoreFor(redis->Url(), right.warnings, "s3cret-pass");
  CHECK(right.Scan() == plain);
  CHECK(right.warnings.messages.empty());
  CHECK(redis->Keys("imagelint:layer:*").size() == 6);
}
