// Image inputs: local paths and registry references, through the layer cache.
#include "pipeline/read.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>

#include <re2/re2.h>

#include "imagelint/engine.h"
#include "pipeline/base_resolver.h"
#include "pipeline/context_binaries.h"
#include "imagelint/cache.h"
#include "imagelint/dockerfile.h"
#include "imagelint/knowledge.h"
#include "imagelint/registry.h"
#include "imagelint/scan.h"
#include "imagelint/source.h"

namespace imagelint {
namespace pipeline {
namespace {

std::string WithoutScheme(const std::string& input) {
  return input.starts_with("docker://") ? input.substr(9) : input;
}

}  // namespace

Result<ReadImageOptions> ScannerOptions(const ImageReadOptions& options, const Context& context) {
  ReadImageOptions out;
  if (!options.platform.empty()) {
    auto platform = Platform::Parse(options.platform);
    if (!platform.ok()) return WithSubject(platform.error(), "--platform");
    out.open.platform = *platform;
    out.open.platform_explicit = true;
  }
  if (options.max_layer_bytes) out.open.max_uncompressed_layer_bytes = *options.max_layer_bytes;
  out.open.verify_digests = options.verify_digests;
  out.open.verify_diff_ids = options.verify_diff_ids;
  out.open.image_name = options.image_name;
  out.scan.jobs = options.jobs;
  if (context.progress) {
    out.scan.progress = [progress = context.progress](const ScanProgress& p) {
      progress(ReadProgress{p.layers_done, p.layers_total, p.blob_bytes_done});
    };
  }
  return out;
}

std::unique_ptr<LayerCache> AttachCache(ReadImageOptions& read, const ImageReadOptions& options, const Context& context) {
  // An unverified read (--no-verify) is served from what verified reads
  // stored, here or in the shared store, and adds nothing: its results carry
  // no verified digest, so the cache files them nowhere and its blob memo
  // records no stamp for them.
  if (!options.use_cache || context.cache_dir.empty()) return nullptr;
  auto opened = LayerCache::Open(context.cache_dir, {options.shared_cache, context.warn});
  if (!opened.ok()) {
    if (context.warn) context.warn("layer cache not used: " + opened.error().ToString());
    return nullptr;
  }
  std::unique_ptr<LayerCache> cache = std::move(*opened);
  read.scan.layer_scanner = cache->Scanner(read.scan.layer_scanner);
  return cache;
}

bool IsRegistryInput(const std::string& input) {
  if (input.starts_with("docker://")) return true;
  std::error_code ec;
  if (std::filesystem::exists(input, ec)) return false;
  // A missing "app.tar" or "./out/image" is "no such file", at once: never a
  // registry lookup of docker.io/library/app.tar.
  if (LooksLikeLocalPath(input)) return false;
  return registry::ParseReference(input).ok();
}

Result<OpenedReference> OpenReference(const std::string& reference, const OpenOptions& open,
                                      const std::vector<std::string>& sources, registry::RegistryOptions registry,
                                      const Context& context, long timeout_ms, std::vector<std::string>* misses) {
  std::optional<Error> last;
  std::string engine_miss;  // the engine answered and has no such image
  for (const std::string& from : sources) {
    if (from == "docker") {
      auto client = engine::EngineClient::FromDockerHost(context.docker_host);
      if (!client.ok()) {
        last = client.error();
      } else if (!client->SocketExists()) {
        last = MakeError("docker engine", "no engine socket at " + client->socket_path());
      } else {
        if (timeout_ms > 0) client->SetTimeoutMs(timeout_ms);
        auto source = engine::OpenEngineImage(*client, reference, open);
        if (source.ok() && source->has_value()) return OpenedReference{std::move(**source), BaseSource::kDocker};
        last = source.ok() ? MakeError("docker engine", "no image " + reference.substr(0, 200) + " in the engine at " +
                                                            client->socket_path())
                           : source.error();
        engine_miss = last->ToString();
      }
    } else if (from == "registry") {
      auto ref = registry::ParseReference(reference);
      if (!ref.ok()) {
        last = ref.error();
      } else {
        registry.credential_stores = context.credential_stores;
        if (timeout_ms > 0) {
          registry.deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
          registry.max_attempts = 1;
        }
        auto source = registry::OpenRegistryImage(*ref, open, registry);
        if (source.ok()) return OpenedReference{std::move(*source), BaseSource::kRegistry};
        last = source.error();
        if (!engine_miss.empty()) last->message += " (and " + engine_miss + ")";
      }
    } else {
      last = MakeError("--image-src", "unknown image source \"" + from.substr(0, 100) + "\" (docker, registry)");
    }
    if (misses && last) misses->push_back(from + ": " + last->ToString());
  }
  if (!last) return MakeError(reference, "no image source to read it from (--image-src)");
  return *last;
}

Result<ScannedImage> ReadImageInput(const std::string& input, const ImageReadOptions& options, const Context& context,
                                    const Knowledge& knowledge) {
  auto read = ScannerOptions(options, context);
  if (!read.ok()) return read.error();
  std::unique_ptr<LayerCache> cache = AttachCache(*read, options, context);
  if (!IsRegistryInput(input)) return ReadImage(input, *read, knowledge);

  // docker://REF names a registry image (as skopeo and crane spell it).
  std::vector<std::string> sources = options.image_sources;
  if (sources.empty()) sources = {"docker", "registry"};
  if (input.starts_with("docker://")) sources = {"registry"};
  auto opened = OpenReference(WithoutScheme(input), read->open, sources, options.registry, context, 0, nullptr);
  if (!opened.ok()) return opened.error();
  auto analyzers = DefaultAnalyzers(knowledge);
  return ScanImage(*opened->source, AnalyzerPointers(analyzers), read->scan);
}

}  // namespace pipeline

Result<std::vector<std::string>> ListRepositoryImages(const std::string& repository, const std::string& tag_pattern,
                                                      const ImageReadOptions& options, const Context& context) {
  const std::string name = pipeline::WithoutScheme(repository);
  size_t slash = name.rfind('/');
  if (name.find('@') != std::string::npos || name.find(':', slash == std::string::npos ? 0 : slash) != std::string::npos)
    return MakeError(repository, "--all-tags takes a repository without tag or digest (REGISTRY/REPO)");
  auto ref = registry::ParseReference(name);
  if (!ref.ok()) return ref.error();
  std::unique_ptr<re2::RE2> pattern;
  if (!tag_pattern.empty()) {
    re2::RE2::Options re2_options;
    re2_options.set_log_errors(false);
    re2_options.set_max_mem(8 << 20);
    pattern = std::make_unique<re2::RE2>(tag_pattern, re2_options);
    if (!pattern->ok()) return MakeError("--tags", "'" + tag_pattern + "' is not a regular expression: " + pattern->error());
  }
  registry::RegistryOptions registry_options = options.registry;
  registry_options.credential_stores = context.credential_stores;
  auto tags = registry::ListTags(*ref, registry_options);
  if (!tags.ok()) return tags.error();
  // Sorted: a registry lists in no promised order, and reports of the same
  // repository should compare (--baseline) line by line.
  std::sort(tags->begin(), tags->end());
  std::vector<std::string> images;
  for (const std::string& tag : *tags) {
    if (!pattern || re2::RE2::PartialMatch(tag, *pattern)) images.push_back(ref->registry + "/" + ref->repository + ":" + tag);
  }
  return images;
}

Result<nlohmann::json> ReadFacts(const std::string& input, const ImageReadOptions& options, const Context& context) {
  if (dockerfile::IsDockerfilePath(input)) {  // the facts Dockerfile mode predicts (docs/dockerfile.md)
    auto knowledge = Knowledge::Load(context.knowledge_dir, options.use_cache ? context.cache_dir : "");
    if (!knowledge.ok()) return knowledge.error();
    dockerfile::DockerfileOptions dockerfile_options;
    if (!options.platform.empty()) {
      dockerfile_options.platform = options.platform;
      dockerfile_options.platform_explicit = true;
    }
    dockerfile_options.knowledge = &*knowledge;
    auto resolver = pipeline::ImageBaseResolver::Create(options, context, *knowledge);
    if (!resolver.ok()) return resolver.error();
    dockerfile_options.base_resolver = resolver->get();
    pipeline::ContextBinaries context_binaries(*knowledge);
    dockerfile_options.context_binaries = &context_binaries;
    auto analysis = dockerfile::AnalyzeDockerfile(input, dockerfile_options);
    if (!analysis.ok()) return analysis.error();
    if (*resolver && context.warn)
      if (std::string summary = (*resolver)->Summary(); !summary.empty()) context.warn(summary);
    return std::move(analysis->facts);
  }
  // The scan needs the tables first: which package records it keeps.
  auto knowledge = Knowledge::Load(context.knowledge_dir, options.use_cache ? context.cache_dir : "");
  if (!knowledge.ok()) return knowledge.error();
  auto image = pipeline::ReadImageInput(input, options, context, *knowledge);
  if (!image.ok()) return image.error();
  return BuildFacts(*image, *knowledge);
}

std::string FactsText(const nlohmann::json& facts) { return FactsToText(facts); }

Result<std::string> ListImageTree(const std::string& input, const std::string& glob, const ImageReadOptions& options,
                                  const Context& context) {
  auto knowledge = Knowledge::Load(context.knowledge_dir, options.use_cache ? context.cache_dir : "");
  if (!knowledge.ok()) return knowledge.error();
  auto image = pipeline::ReadImageInput(input, options, context, *knowledge);
  if (!image.ok()) return image.error();
  return ListTree(*image, glob);
}

}  // namespace imagelint
