// A shared layer store behind the local layer cache: many CI runners, each
// with its own local cache directory, share per-layer results through one
// key-value store (Redis). The store only moves bytes; the local cache
// (imagelint/cache.h) writes and checks them exactly as it does its own
// files, so a value from the store is never trusted before it passes the
// same size, checksum, format and key checks.
//
//   auto redis = ParseRedisUrl("redis://cache.ci:6379/2");      // --cache-backend
//   redis->password = getenv("IMAGELINT_REDIS_PASSWORD");        // the host decides; never a flag
//   auto store = FailSoft(OpenRedisStore(*redis), warn);          // one warning, then local work only
//   auto cache = LayerCache::Open(dir, {store, warn});
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "imagelint/result.h"

namespace imagelint {

class LayerStore {
 public:
  virtual ~LayerStore() = default;
  // The value of `key`; nullopt when there is none. A value longer than
  // `max_bytes` is not read whole: it comes back with max_bytes + 1 bytes
  // (so the caller sees it is too large). Errors: the store cannot be reached
  // or answered with an error.
  virtual Result<std::optional<std::vector<uint8_t>>> Get(const std::string& key, size_t max_bytes) = 0;
  // Stores `value` under `key` (replacing any). Errors as Get.
  virtual Status Put(const std::string& key, std::span<const uint8_t> value) = 0;
  // For messages: "redis://host:port/db" (never a password).
  virtual std::string Name() const = 0;
};

struct RedisOptions {
  std::string host;
  int port = 6379;
  int db = 0;
  std::string username;  // ACL user (redis://user@host); "" = the default user
  std::string password;  // from the environment; "" = no AUTH
  int64_t ttl_seconds = 0;  // EX of every stored value; 0 = none (the server's eviction policy decides)
  std::chrono::milliseconds connect_timeout{2000};
  std::chrono::milliseconds command_timeout{2000};
};

// redis://HOST[:PORT][/DB] or redis://USER@HOST[:PORT][/DB]. Errors name the
// URL's problem: another scheme, rediss:// (Debian's hiredis 0.14 has no
// TLS), a password in the URL (it would show in `ps` and CI logs), a bad
// port or database number.
Result<RedisOptions> ParseRedisUrl(const std::string& url);

// A Redis store that connects on first use. Every connect and command is
// bounded by the options' timeouts; after a failure the connection is dropped
// and the next call fails at once (no reconnect within a run). Thread-safe:
// calls are serialised on one connection.
std::shared_ptr<LayerStore> OpenRedisStore(const RedisOptions& options);

// Wraps `inner` so that its first failure turns it off for the rest of the
// process: `warn` is called exactly once with what failed, later Gets find
// nothing and Puts do nothing, so the scan goes on with local work only.
std::shared_ptr<LayerStore> FailSoft(std::shared_ptr<LayerStore> inner, std::function<void(const std::string&)> warn);

}  // namespace imagelint
