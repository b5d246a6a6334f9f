// A shared layer store behind the local layer cache: many CI runners, each
// with its own local cache directory, share per-layer results through one
// key-value store (Redis). The store only moves bytes; the local cache
// (imagelint/cache.h) writes and checks them exactly as it does its own
// files, so a value from the store is never trusted before it passes the
// same size, checksum, format and key checks.
//
//   auto redis = ParseRedisUrl("rediss://cache.ci:6380/2");     // --cache-backend
//   redis->password = getenv("IMAGELINT_REDIS_PASSWORD");        // the host decides; never a flag
//   redis->ca_file = "ci-ca.pem";                                // rediss:// only: --redis-ca (and
//   redis->cert_file = "runner.pem"; redis->key_file = "runner.key";  //  --redis-cert, --redis-key)
//   if (auto bad = CheckRedisTls(*redis); !bad.ok()) ...         // unreadable files: refuse early
//   auto store = FailSoft(OpenRedisStore(*redis), warn);          // one warning, then local work only
//   auto cache = LayerCache::Open(dir, {store, warn});
//
// The client is imagelint's own (src/cache/resp_client.h): RESP2 over TCP or
// over TLS through OpenSSL, with the server's certificate and name always
// verified. No libhiredis: Debian 12's 0.14 has no TLS.
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
  std::chrono::milliseconds connect_timeout{2000};  // TCP connect and, with TLS, each step of the handshake
  std::chrono::milliseconds command_timeout{2000};  // each read or write of a command
  // A whole command, sent and answered, however slowly the server drips it.
  std::chrono::milliseconds request_timeout{5000};
  // The largest value read back (GETRANGE asks for no more): a planted
  // value of hundreds of MiB is never read whole.
  size_t max_value_bytes = 64u << 20;
  // rediss://: TLS; the server's certificate is verified against ca_file, or
  // the system's default CA paths when it is "", and must name `host` (its
  // DNS name, or the IP address when host is one). There is no option to
  // skip verification.
  bool tls = false;
  std::string ca_file;    // PEM CA certificates (--redis-ca)
  std::string cert_file;  // PEM client certificate, chain after it (--redis-cert); with key_file
  std::string key_file;   // its PEM private key, unencrypted (--redis-key)
};

// redis://HOST[:PORT][/DB], rediss://… for TLS, and either with USER@ before
// HOST. Errors name the URL's problem: another scheme, a password in the URL
// (it would show in `ps` and CI logs), a bad port or database number.
Result<RedisOptions> ParseRedisUrl(const std::string& url);

// With options.tls: loads ca_file, cert_file and key_file as a connection
// will. Errors name the file: unreadable, larger than 1 MiB, no PEM
// certificate, an encrypted or mismatched key, a certificate without its
// key. OkStatus without TLS.
Status CheckRedisTls(const RedisOptions& options);

// A Redis store that connects on first use. Every connect, TLS handshake and
// command is bounded by the options' timeouts; a TLS handshake that fails
// (a certificate that does not verify, a client certificate the server
// wants) is a failure like a refused connection. After a failure the
// connection is dropped and the next call fails at once (no reconnect within
// a run). Thread-safe: calls are serialised on one connection.
std::shared_ptr<LayerStore> OpenRedisStore(const RedisOptions& options);

// Wraps `inner` so that its first failure turns it off for the rest of the
// process: `warn` is called exactly once with what failed, later Gets find
// nothing and Puts do nothing, so the scan goes on with local work only. A
// store that has taken `budget` in all (slow, but never failing) is turned
// off the same way: a shared cache is an optimisation and never decides
// whether or when a scan completes.
inline constexpr std::chrono::milliseconds kSharedCacheBudget{20000};
std::shared_ptr<LayerStore> FailSoft(std::shared_ptr<LayerStore> inner, std::function<void(const std::string&)> warn,
                                     std::chrono::milliseconds budget = kSharedCacheBudget);

}  // namespace imagelint
