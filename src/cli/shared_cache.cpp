#include "cli/shared_cache.h"

#include "imagelint/pipeline.h"

namespace imagelint::cli {

void AddSharedCacheFlags(CLI::App& app, SharedCacheFlags& flags) {
  // Each flag takes one text value: its name, the member it fills, its help and the value's name.
  struct Flag {
    const char* name;
    std::string SharedCacheFlags::*member;
    const char* help;
    const char* type_name;
  };
  // --redis-*: the names trivy gives the same options (docs/cli.md "Shared cache on Redis").
  static const Flag kFlags[] = {
      {"--cache-backend", &SharedCacheFlags::backend,
       "shared layer cache behind the local one, for many CI runners: redis://HOST[:PORT][/DB], or "
       "rediss://HOST[:PORT][/DB] for TLS (password from $IMAGELINT_REDIS_PASSWORD); unreachable or "
       "failing, it is skipped with one warning, e.g. --cache-backend redis://cache.ci:6379/0",
       "URL"},
      {"--cache-ttl", &SharedCacheFlags::ttl,
       "with --cache-backend: expiry of the values stored (30d, 12h, 90m, 45s; default: none, the "
       "server's eviction policy decides)",
       "DURATION"},
      {"--redis-ca", &SharedCacheFlags::ca,
       "with --cache-backend rediss://: the CA certificates (PEM) to verify the server with, instead "
       "of the system's",
       "FILE"},
      {"--redis-cert", &SharedCacheFlags::cert,
       "with --cache-backend rediss://: a client certificate (PEM) for a server that requires one; "
       "with --redis-key",
       "FILE"},
      {"--redis-key", &SharedCacheFlags::key,
       "with --cache-backend rediss://: the private key (PEM, unencrypted) of --redis-cert", "FILE"},
  };
  for (const Flag& flag : kFlags) app.add_option(flag.name, flags.*flag.member, flag.help)->type_name(flag.type_name);
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
