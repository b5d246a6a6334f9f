// The flags several commands share, declared for CLI11, and their values
// turned into the library's options. Declaring flags is all the command line
// does with them; what they mean is decided in the library.
//
//   AddConfigFlags(app, options)          // --config --no-config --rules --severity --disable
//   AddReportFlags(app, options)          // --fail-on --min-severity --format --output --ignore ...
//   AddImageInputOptions(app, input)      // --image --cache-dir --no-cache, registry flags
//   AddImageReadFlags(app, input)         // --platform --max-layer-bytes --jobs --no-verify
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/environment.h"
#include "imagelint/config.h"
#include "imagelint/pipeline.h"

namespace imagelint::cli {

// Flags a command already declares itself (e.g. scan's --rules) are skipped;
// their values go into `options` by the command.
void AddConfigFlags(CLI::App& app, config::CommandLineOptions& options);
void AddReportFlags(CLI::App& app, config::CommandLineOptions& options);

// How a command that reads images reads them.
struct ImageInputFlags {
  std::string image_name;  // --image NAME|@N
  std::string cache_dir;   // --cache-dir
  bool no_cache = false;   // --no-cache
  std::string username;    // --username
  bool password_stdin = false;  // --password-stdin
  std::vector<std::string> insecure_registries;  // --insecure-registry
  std::string ca_file;                           // --ca-file
  std::vector<std::string> connect_to;           // --connect-to
  // facts and ls (AddImageReadFlags):
  std::string platform;         // --platform
  std::string max_layer_bytes;  // --max-layer-bytes
  int jobs = 0;                 // --jobs
  bool no_verify = false;       // --no-verify
};

// --image, --cache-dir, --no-cache, --username, --password-stdin,
// --insecure-registry, --ca-file, --connect-to.
void AddImageInputOptions(CLI::App& app, ImageInputFlags& flags);
// --platform, --max-layer-bytes, --jobs, --no-verify.
void AddImageReadFlags(CLI::App& app, ImageInputFlags& flags);

// The flags as library options; with --password-stdin the password is read
// from standard input (once per process). Errors name the flag.
Result<ImageReadOptions> ToImageReadOptions(const ImageInputFlags& flags);
// The environment's context with --cache-dir applied (a warning when no
// cache directory can be found and the cache is wanted).
Context ContextFor(const Environment& environment, const ImageInputFlags& flags);

}  // namespace imagelint::cli
