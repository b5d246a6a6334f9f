// Reading one image input (private to the pipeline module): a local path
// (tarball, OCI layout or archive, root file system) or, when no such path
// exists and it parses as one, a reference read from the local Docker engine
// or a registry; through the layer cache.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "imagelint/base_source.h"
#include "imagelint/cache.h"
#include "imagelint/pipeline.h"
#include "imagelint/read_image.h"

namespace imagelint::pipeline {

// Whether `input` names an image reference: "docker://REF", or no host path
// of that name exists, it does not look like one (LooksLikeLocalPath) and it
// parses as a reference.
bool IsRegistryInput(const std::string& input);

// The scanner's options for `options` (platform, limits, progress).
Result<ReadImageOptions> ScannerOptions(const ImageReadOptions& options, const Context& context);
// Opens the layer cache under Context::cache_dir and puts it in front of the
// scanner; null (with a warning) when it cannot be used.
std::unique_ptr<LayerCache> AttachCache(ReadImageOptions& read, const ImageReadOptions& options, const Context& context);

// A reference opened from the first of `sources` ("docker", "registry") that has it.
struct OpenedReference {
  std::unique_ptr<ImageSource> source;
  BaseSource from = BaseSource::kRegistry;  // kDocker or kRegistry
};
// `timeout_ms` (> 0): a budget from now that bounds every request's
// connection and waits (one attempt each); `misses`
// (may be null) gets one line per source that did not answer, and why. The
// error is the last source's.
Result<OpenedReference> OpenReference(const std::string& reference, const OpenOptions& open,
                                      const std::vector<std::string>& sources, registry::RegistryOptions registry,
                                      const Context& context, long timeout_ms, std::vector<std::string>* misses);

// Opens and scans `input` with the default analyzers. Cache problems go to
// Context::warn (the read goes on without the cache).
Result<ScannedImage> ReadImageInput(const std::string& input, const ImageReadOptions& options, const Context& context,
                                    const Knowledge& knowledge);

}  // namespace imagelint::pipeline
