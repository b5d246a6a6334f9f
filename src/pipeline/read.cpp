// Image inputs: local paths and registry references, through the layer cache.
#include "pipeline/read.h"

#include <algorithm>
#include <filesystem>
#include <memory>

#include <re2/re2.h>

#include "imagelint/cache.h"
#include "imagelint/dockerfile.h"
#include "imagelint/knowledge.h"
#include "imagelint/registry.h"
#include "imagelint/source.h"

namespace imagelint {
namespace pipeline {
namespace {

std::string WithoutScheme(const std::string& input) {
  return input.starts_with("docker://") ? input.substr(9) : input;
}

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
  out.open.image_name = options.image_name;
  out.scan.jobs = options.jobs;
  if (context.progress) {
    out.scan.progress = [progress = context.progress](const ScanProgress& p) {
      progress(ReadProgress{p.layers_done, p.layers_total, p.blob_bytes_done});
    };
  }
  return out;
}

}  // namespace

bool IsRegistryInput(const std::string& input) {
  if (input.starts_with("docker://")) return true;
  std::error_code ec;
  if (std::filesystem::exists(input, ec)) return false;
  // A missing "app.tar" or "./out/image" is "no such file", at once: never a
  // registry lookup of docker.io/library/app.tar.
  if (LooksLikeLocalPath(input)) return false;
  return registry::ParseReference(input).ok();
}

Result<ScannedImage> ReadImageInput(const std::string& input, const ImageReadOptions& options, const Context& context) {
  auto read = ScannerOptions(options, context);
  if (!read.ok()) return read.error();
  std::unique_ptr<LayerCache> cache;
  // Unverified layers must not fill a cache that verified reads trust.
  if (options.use_cache && options.verify_digests && !context.cache_dir.empty()) {
    auto opened = LayerCache::Open(context.cache_dir, {options.shared_cache, context.warn});
    if (opened.ok()) {
      cache = std::move(*opened);
      read->scan.layer_scanner = cache->Scanner(read->scan.layer_scanner);
    } else if (context.warn) {
      context.warn("layer cache not used: " + opened.error().ToString());
    }
  }
  if (!IsRegistryInput(input)) return ReadImage(input, *read);

  auto ref = registry::ParseReference(WithoutScheme(input));
  if (!ref.ok()) return ref.error();
  registry::RegistryOptions registry_options = options.registry;
  registry_options.credential_stores = context.credential_stores;
  auto source = registry::OpenRegistryImage(*ref, read->open, registry_options);
  if (!source.ok()) return source.error();
  auto analyzers = DefaultAnalyzers();
  return ScanImage(**source, AnalyzerPointers(analyzers), read->scan);
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
    auto knowledge = Knowledge::Load(context.knowledge_dir);
    if (!knowledge.ok()) return knowledge.error();
    dockerfile::DockerfileOptions dockerfile_options;
    if (!options.platform.empty()) {
      dockerfile_options.platform = options.platform;
      dockerfile_options.platform_explicit = true;
    }
    dockerfile_options.knowledge = &*knowledge;
    auto analysis = dockerfile::AnalyzeDockerfile(input, dockerfile_options);
    if (!analysis.ok()) return analysis.error();
    return std::move(analysis->facts);
  }
  auto image = pipeline::ReadImageInput(input, options, context);
  if (!image.ok()) return image.error();
  auto knowledge = Knowledge::Load(context.knowledge_dir);  // loader directories, CUDA library names
  if (!knowledge.ok()) return knowledge.error();
  return BuildFacts(*image, *knowledge);
}

std::string FactsText(const nlohmann::json& facts) { return FactsToText(facts); }

Result<std::string> ListImageTree(const std::string& input, const std::string& glob, const ImageReadOptions& options,
                                  const Context& context) {
  auto image = pipeline::ReadImageInput(input, options, context);
  if (!image.ok()) return image.error();
  return ListTree(*image, glob);
}

}  // namespace imagelint
