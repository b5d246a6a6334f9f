// The flags several commands share, declared for CLI11, and their values
// turned into the library's options. Declaring flags is all the command line
// does with them; what they mean is decided in the library.
//
//   AddConfigFlags(app, options)          // --config --no-config --rules --severity --disable
//   AddReportFlags(app, options)          // --fail-on --min-severity --format --output --ignore ...
//   AddImageInputOptions(app, input)      // --image --cache-dir --no-cache, registry flags
//   AddImageReadFlags(app, input)         // --platform --max-layer-bytes --jobs --no-verify --quiet --no-progress
//   ExpandRuleLists(options)              // --ignore IL001,IL002=REASON -> one entry per rule
//
// Every command that reads images takes the same image flags; rule lists take
// commas (--disable IL001,IL002); -f/-o are --format/--output as in hadolint
// and trivy. The completion scripts and the man page are generated from these
// declarations (completion.cpp), so they list exactly what parses.
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
  std::string knowledge;   // --knowledge DIR|FILE
  bool no_cache = false;   // --no-cache
  std::string username;    // --username
  bool password_stdin = false;  // --password-stdin
  std::vector<std::string> insecure_registries;  // --insecure-registry
  std::string ca_file;                           // --ca-file
  std::vector<std::string> connect_to;           // --connect-to
  // AddImageReadFlags:
  std::string platform;         // --platform
  std::string max_layer_bytes;  // --max-layer-bytes
  int jobs = 0;                 // --jobs
  bool no_verify = false;       // --no-verify
  bool verify_diff_ids = false; // --verify-diff-ids
  bool quiet = false;           // -q, --quiet: no progress, no warnings (errors still)
  bool no_progress = false;     // --no-progress
  std::string timeout = "30m";  // --timeout, per input (cli/budget.h)
  std::string max_memory = "4G";  // --max-memory
  // Where references and Dockerfile bases are read from (AddImageInputOptions):
  std::vector<std::string> image_sources;  // --image-src docker|registry (repeatable, in order)
  std::string base_from;                   // --base-from auto|registry|docker|knowledge
  std::vector<std::string> base_images;    // --base-image REF=PATH (repeatable)
  double base_timeout = 10;                // --base-timeout SECONDS
};

// --image, --cache-dir, --no-cache, --username, --password-stdin,
// --insecure-registry, --ca-file, --connect-to, --image-src, --base-from,
// --base-image, --base-timeout.
void AddImageInputOptions(CLI::App& app, ImageInputFlags& flags);
// --cache-dir DIR, with its default place; `what` says what the command
// keeps there ("layer cache directory").
void AddCacheDirOption(CLI::App& app, std::string& cache_dir, const std::string& what);
// --insecure-registry HOST[:PORT] (repeatable) and --ca-file FILE: how
// registries are reached, for every command that talks to one.
void AddRegistryTlsOptions(CLI::App& app, std::vector<std::string>& insecure_registries, std::string& ca_file);
// --platform (unless the command declares it), --max-layer-bytes, --jobs,
// --no-verify, -q/--quiet, --no-progress, --timeout, --max-memory.
void AddImageReadFlags(CLI::App& app, ImageInputFlags& flags);
// The IMAGE operand of facts and ls and their --rootfs DIR (ImageArgument
// turns the two into one input); `also` names what else IMAGE may be.
void AddImageOperand(CLI::App& app, std::string& image, std::string& rootfs, const std::string& also = "");

// "--ignore IL001,IL002:2026-12-31=REASON" is one entry per rule, each with
// the date and reason (a reason may hold commas, so only the part before the
// first '=' is a list). --disable and --severity split on commas as they parse.
void ExpandRuleLists(config::CommandLineOptions& options);

// The input of facts and ls: IMAGE, or rootfs:DIR for --rootfs DIR; exactly one.
Result<std::string> ImageArgument(const std::string& image, const std::string& rootfs);

// --color auto|always|never and --no-color (= never) into `when`
// (Environment::ColorWanted reads it).
void AddColorFlags(CLI::App& app, std::string& when);

// "text (default), json, sarif, ..." from the report module's formats.
std::string FormatList();

// The flags as library options; with --password-stdin the password is read
// from standard input (once per process). Errors name the flag.
Result<ImageReadOptions> ToImageReadOptions(const ImageInputFlags& flags);
// The environment's context with --cache-dir DIR and --knowledge DIR|FILE
// applied (else the newest bundle in the cache; a bad --knowledge is an error).
Result<Context> KnowledgeContextFor(const Environment& environment, const std::string& cache_dir,
                                    const std::string& knowledge);
// The library's context for a command that reads images: --cache-dir,
// --quiet, --no-progress, and the knowledge bundle (--knowledge DIR|FILE,
// else the newest in the cache; a bad --knowledge is an error).
Result<Context> ContextFor(const Environment& environment, const ImageInputFlags& flags);

// What facts and ls read, once: the input (ImageArgument of IMAGE and
// --rootfs), the read options and the context (ContextFor), with the time and
// memory budget started; or the first error, for ReportToolError.
struct ImageRead {
  std::string input;
  ImageReadOptions options;
  Context context;
};
Result<ImageRead> StartImageRead(const Environment& environment, const std::string& image, const std::string& rootfs,
                                 const ImageInputFlags& flags);

// The configuration of a command that reads no image (explain, rules): the
// config files and flags of `options`, the user's directory from `environment`.
Result<config::Config> CommandConfig(const Environment& environment, config::CommandLineOptions& options);

// Many images at once (scan, plan): the IMAGE operands, --images-from FILE
// (one a line, blank lines and # comments skipped) and --all-tags/--tags
// (each operand a repository whose tags are listed once a Context exists).
struct ImageListFlags {
  std::string images_from;  // --images-from FILE
  bool all_tags = false;    // --all-tags
  std::string tags;         // --tags REGEX
  int image_jobs = 0;       // --image-jobs N
};
// `verb`: what the command does to each image ("scan", "plan for").
void AddImageListFlags(CLI::App& app, ImageListFlags& flags, const std::string& verb);
struct ImageList {
  std::vector<std::string> images;        // operands and --images-from entries
  std::vector<std::string> repositories;  // with --all-tags: the operands
  bool many = false;                      // --images-from or --all-tags: unreadable images are report entries
};
Result<ImageList> CollectImageList(std::vector<std::string> operands, const ImageListFlags& flags);
// Appends every tag of each repository (--all-tags) to the images.
Status AddRepositoryTags(ImageList& list, const ImageListFlags& flags, const ImageReadOptions& read,
                         const Context& context, const std::string& verb);

}  // namespace imagelint::cli
