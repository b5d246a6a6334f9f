#include "cli/shared_cache.h"

#include "imagelint/pipeline.h"

namespace imagelint::cli {

void AddSharedCacheFlags(CLI::App& app, SharedCacheFlags& flags) {
  app.add_option("--cache-backend", flags.backend,
                 "shared layer cache behind the local one, for many CI runners: redis://HOST[:PORT][/DB] "
                 "(password from $IMAGELINT_REDIS_PASSWORD); unreachable or failing, it is skipped with one "
                 "warning, e.g. --cache-backend redis://cache.ci:6379/0")
      ->type_name("URL");
  app.add_option("--cache-ttl", flags.ttl,
                 "with --cache-backend: expiry of the values stored (30d, 12h, 90m, 45s; default: none, the "
                 "server's eviction policy decides)")
      ->type_name("DURATION");
}

Result<std::shared_ptr<LayerStore>> OpenSharedCache(const SharedCacheFlags& flags, const Environment& environment,
                                                    std::function<void(const std::string&)> warn) {
  if (flags.backend.empty()) {
    if (!flags.ttl.empty()) return MakeError("--cache-ttl", "goes with --cache-backend");
    return std::shared_ptr<LayerStore>();
  }
  auto options = ParseRedisUrl(flags.backend);
  if (!options.ok()) return options.error();
  if (!flags.ttl.empty()) {
    auto ttl = ParseDuration(flags.ttl);
    if (!ttl.ok()) return WithSubject(ttl.error(), "--cache-ttl");
    if (*ttl <= 0) return MakeError("--cache-ttl", "must be longer than 0 s");
    options->ttl_seconds = *ttl;
  }
  options->password = environment.Get("IMAGELINT_REDIS_PASSWORD");
  return FailSoft(OpenRedisStore(*options), std::move(warn));
}

}  // namespace imagelint::cli
