// Reading the IMAGE argument of a command: a local path (tarball, OCI layout,
// rootfs) or, when no such path exists and it parses as one, a registry
// reference; always through the layer cache unless --no-cache. Shared by the
// commands that read images (facts, ls, scan). Owned by the registry module.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "facts/facts.h"
#include "imagelint/registry.h"

namespace imagelint::cli {

struct ImageInputArgs {
  std::string image_name;  // --image NAME|@N
  std::string cache_dir;
  bool no_cache = false;
  std::string username;
  bool password_stdin = false;
  std::vector<std::string> insecure_registries;
  std::string ca_file;
  std::vector<std::string> connect_to;
};

// --image, --cache-dir, --no-cache, --username, --password-stdin, --insecure-registry,
// --ca-file, --connect-to.
void AddImageInputOptions(CLI::App& app, const std::shared_ptr<ImageInputArgs>& args);

// How commands that only read one image (facts, ls) read it.
struct ImageReadFlags {
  std::string platform;
  std::string max_layer_bytes;
  int jobs = 0;
  bool no_verify = false;
};

// --platform, --max-layer-bytes, --jobs, --no-verify.
void AddImageReadFlags(CLI::App& app, ImageReadFlags& flags);

// The flags as scanner options (progress on a TTY included); errors name the flag.
Result<ReadImageOptions> ToReadImageOptions(const ImageReadFlags& flags);

// Whether `argument` names a registry image: "docker://REF", or no host path
// of that name exists and it parses as a reference.
bool IsRegistryArgument(const std::string& argument);

// Opens and scans IMAGE with the default analyzers, through the layer cache.
// Cache problems are warnings on stderr (the scan goes on without it).
Result<ScannedImage> ReadImageArgument(const std::string& image, ReadImageOptions options,
                                       const ImageInputArgs& args);

}  // namespace imagelint::cli
