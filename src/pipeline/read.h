// Reading one image input (private to the pipeline module): a local path
// (tarball, OCI layout or archive, root file system) or, when no such path
// exists and it parses as one, a registry reference; through the layer cache.
#pragma once

#include <string>

#include "imagelint/read_image.h"
#include "imagelint/pipeline.h"

namespace imagelint::pipeline {

// Whether `input` names a registry image: "docker://REF", or no host path of
// that name exists, it does not look like one (LooksLikeLocalPath) and it
// parses as a reference.
bool IsRegistryInput(const std::string& input);

// Opens and scans `input` with the default analyzers. Cache problems go to
// Context::warn (the read goes on without the cache).
Result<ScannedImage> ReadImageInput(const std::string& input, const ImageReadOptions& options, const Context& context);

}  // namespace imagelint::pipeline
