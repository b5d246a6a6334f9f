#include "cli/shared_cache.h"

#include "imagelint/pipeline.h"

namespace imagelint::cli {

void AddSharedCacheFlags(CLI::App& app, SharedCacheFlags& flags) {
  app.add_option("--cache-backend", flags.backend,
                 "shared layer cache behind the local one, for many CI runners: redis://HOST[:PORT][/DB], or "
                 "rediss://HOST[:PORT][/DB] for TLS (password from $IMAGELINT_REDIS_PASSWORD); unreachable or "
                 "failing, it is skipped with one warning, e.g. --cache-backend redis://cache.ci:6379/0")
      ->type_name("URL");
  app.add_option("--cache-ttl", flags.ttl,
                 "with --cache-backend: expiry of the values stored (30d, 12h, 90m, 45s; default: none, the "
                 "server's eviction policy decides)")
      ->type_name("DURATION");
  // The names trivy gives the same options (docs/cli.md "Shared cache on Redis").
  app.add_option("--redis-ca", flags.ca,
                 "with --cache-backend rediss://: the CA certificates (PEM) to verify the server with, instead "
                 "of the system's")
      ->type_name("FILE");
  app.add_option("--redis-cert", flags.cert,
                 "with --cache-backend rediss://: a client certificate (PEM) for a server that requires one; "
                 "with --redis-key")
      ->type_name("FILE");
  app.add_option("--redis-key", flags.key,
                 "with --cache-backend rediss://: the private key (PEM, unencrypted) of --redis-cert")
      ->type_name("FILE");
}

Result<std::shared_ptr<LayerStore>> OpenSharedCache(const SharedCacheFlags& flags, const Environment& environment,
                                                    std::function<void(const std::string&)> warn) {
  const char* tls_flag = !flags.ca.empty() ? "--redis-ca" : !flags.cert.empty() ? "--redis-cert"
                         : !flags.key.empty() ? "--redis-key" : nullptr;
  if (flags.backend.empty()) {
    if (!flags.ttl.empty()) return MakeError("--cache-ttl", "goes with --cache-backend");
    if (tls_flag) return MakeError(tls_flag, "goes with --cache-backend rediss://HOST[:PORT][/DB]");
    return std::shared_ptr<LayerStore>();
  }
  auto options = ParseRedisUrl(flags.backend);
  if (!options.ok()) return options.error();
  if (tls_flag && !options->tls)
    return MakeError(tls_flag, "is for TLS: give --cache-backend rediss://HOST[:PORT][/DB] instead of " + flags.backend);
  if (flags.cert.empty() != flags.key.empty())
    return MakeError(flags.cert.empty() ? "--redis-key" : "--redis-cert", "--redis-cert and --redis-key go together");
  if (!flags.ttl.empty()) {
    auto ttl = ParseDuration(flags.ttl);
    if (!ttl.ok()) return WithSubject(ttl.error(), "--cache-ttl");
    if (*ttl <= 0) return MakeError("--cache-ttl", "must be longer than 0 s");
    options->ttl_seconds = *ttl;
  }
  options->ca_file = flags.ca;
  options->cert_file = flags.cert;
  options->key_file = flags.key;
  IMAGELINT_TRY(CheckRedisTls(*options));
  options->password = environment.Get("IMAGELINT_REDIS_PASSWORD");
  return FailSoft(OpenRedisStore(*options), std::move(warn));
}

}  // namespace imagelint::cli
