// The BaseResolver of a scan (docs/dockerfile.md "Base images"): FROM and
// COPY --from=<image> references read from --base-image archives, the local
// Docker engine and registries, through the layer cache, within one time
// budget for the whole scan; what cannot be reached in time falls back to the
// knowledge tables with a note, never an error.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "imagelint/dockerfile.h"
#include "imagelint/knowledge.h"
#include "imagelint/pipeline.h"

namespace imagelint::pipeline {

class ImageBaseResolver final : public dockerfile::BaseResolver {
 public:
  // Null when `options.base` asks for the knowledge tables only. `knowledge`
  // must outlive the resolver. Errors: an unknown --base-from value.
  static Result<std::unique_ptr<ImageBaseResolver>> Create(const ImageReadOptions& options, const Context& context,
                                                           const Knowledge& knowledge);
  Result<dockerfile::BaseLookup> Resolve(const std::string& ref, const std::string& platform) override;
  // One line for the whole scan when lookups failed and the knowledge tables
  // answered instead: how many bases, why each source failed (its first
  // reason), and the flag that asks no one; "" when every lookup worked or
  // none was made. Each base's full note stays in its facts and report entry.
  std::string Summary() const;

 private:
  ImageBaseResolver(const ImageReadOptions& options, const Context& context, const Knowledge& knowledge,
                    std::vector<std::string> sources);
  Result<dockerfile::BaseLookup> Lookup(const std::string& ref, const std::string& platform);
  long RemainingMs() const;

  ImageReadOptions options_;
  Context context_;
  const Knowledge& knowledge_;
  std::vector<std::string> sources_;  // "docker", "registry", in order
  bool started_ = false;
  std::chrono::steady_clock::time_point deadline_;
  std::map<std::string, dockerfile::BaseLookup> memo_;  // by "ref platform"
  // Sources found unreachable earlier in this scan ("docker", "registry HOST"),
  // with why: not asked again, so an offline gate over many Dockerfiles pays
  // one failed connection (or one resolver timeout) per registry, not per base.
  std::map<std::string, std::string> unreachable_;
  // For Summary(): the bases the tables answered after failed lookups, and
  // each source's first reason ("docker", "registry HOST", in order asked).
  std::vector<std::string> fallbacks_;
  std::vector<std::pair<std::string, std::string>> reasons_;
  mutable std::mutex mutex_;
};

}  // namespace imagelint::pipeline
