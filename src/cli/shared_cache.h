// --cache-backend, --cache-ttl and rediss://'s --redis-ca, --redis-cert,
// --redis-key of `scan`: the shared layer store behind the local cache, for
// fleets of CI runners (docs/cli.md "Shared cache").
// The password comes from the environment (IMAGELINT_REDIS_PASSWORD), never
// from a flag: command lines show in process lists and CI logs.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/environment.h"
#include "imagelint/layer_store.h"

namespace imagelint::cli {

struct SharedCacheFlags {
  std::string backend;  // --cache-backend redis[s]://HOST[:PORT][/DB]
  std::string ttl;      // --cache-ttl DURATION
  std::string ca;       // --redis-ca FILE (rediss:// only)
  std::string cert;     // --redis-cert FILE
  std::string key;      // --redis-key FILE
};

void AddSharedCacheFlags(CLI::App& app, SharedCacheFlags& flags);

// The store of --cache-backend (nullptr without it), failing soft: its first
// failure is one `warn` and the scan goes on locally. Errors: a bad URL or
// --cache-ttl, TLS flags without rediss://, a TLS file that cannot be read
// or used (exit 2).
Result<std::shared_ptr<LayerStore>> OpenSharedCache(const SharedCacheFlags& flags, const Environment& environment,
                                                    std::function<void(const std::string&)> warn);

}  // namespace imagelint::cli
