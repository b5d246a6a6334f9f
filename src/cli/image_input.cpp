#include "cli/image_input.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <optional>

#include "imagelint/cache.h"

namespace imagelint::cli {
namespace {

constexpr size_t kMaxPasswordBytes = 64 * 1024;

// stdin is read once, however many images a command reads.
Result<std::string> PasswordFromStdin() {
  static std::once_flag once;
  static std::optional<Result<std::string>> password;
  std::call_once(once, [] {
    std::string text;
    char chunk[4096];
    while (std::cin.read(chunk, sizeof chunk) || std::cin.gcount() > 0) {
      text.append(chunk, static_cast<size_t>(std::cin.gcount()));
      if (text.size() > kMaxPasswordBytes) {
        password.emplace(MakeError("--password-stdin", "more than 64 KiB on standard input"));
        return;
      }
    }
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
    if (text.empty()) {
      password.emplace(MakeError("--password-stdin", "nothing on standard input"));
    } else {
      password.emplace(std::move(text));
    }
  });
  return *password;
}

std::string WithoutScheme(const std::string& argument) {
  return argument.starts_with("docker://") ? argument.substr(9) : argument;
}

}  // namespace

void AddImageInputOptions(CLI::App& app, const std::shared_ptr<ImageInputArgs>& args) {
  app.add_option("--cache-dir", args->cache_dir,
                 "layer cache directory (default $XDG_CACHE_HOME/imagelint or ~/.cache/imagelint)");
  app.add_flag("--no-cache", args->no_cache, "neither read nor write the layer cache");
  app.add_option("--image", args->image_name,
                 "NAME or @N: the image to read from an archive or OCI layout that holds several "
                 "(docker save of several names, a layout with several ref names)");
  app.add_option("--username", args->username, "registry user name (with --password-stdin)");
  app.add_flag("--password-stdin", args->password_stdin, "read the registry password or token from standard input");
  app.add_option("--insecure-registry", args->insecure_registries,
                 "registry host[:port] reached without TLS verification or over plain HTTP (repeatable; "
                 "loopback registries always are)");
  app.add_option("--ca-file", args->ca_file, "PEM CA bundle for registry TLS instead of the system's")
      ->check(CLI::ExistingFile);
  app.add_option("--connect-to", args->connect_to,
                 "HOST:PORT:CONNECT-HOST:CONNECT-PORT: reach registry HOST:PORT at another address, TLS still "
                 "checking HOST (as curl --connect-to; repeatable)")
      ->check([](const std::string& value) {
        return std::count(value.begin(), value.end(), ':') >= 3 ? std::string()
                                                                : std::string("expected HOST:PORT:CONNECT-HOST:CONNECT-PORT");
      });
}

void AddImageReadFlags(CLI::App& app, ImageReadFlags& flags) {
  app.add_option("--platform", flags.platform,
                 "os/arch[/variant] to pick from a multi-platform image (default linux/amd64)");
  app.add_option("--max-layer-bytes", flags.max_layer_bytes,
                 "limit on the uncompressed size of one layer (default 64G; guards against decompression bombs)");
  app.add_option("--jobs", flags.jobs, "layers read in parallel (default: up to 4)");
  app.add_flag("--no-verify", flags.no_verify,
               "skip the blob digest and diff ID checks (faster; only for images you already trust)");
}

Result<ReadImageOptions> ToReadImageOptions(const ImageReadFlags& flags) {
  ReadImageOptions options;
  if (!flags.platform.empty()) {
    auto platform = Platform::Parse(flags.platform);
    if (!platform.ok()) return WithSubject(platform.error(), "--platform");
    options.open.platform = *platform;
    options.open.platform_explicit = true;
  }
  if (!flags.max_layer_bytes.empty()) {
    auto limit = ParseByteSize(flags.max_layer_bytes);
    if (!limit.ok()) return WithSubject(limit.error(), "--max-layer-bytes");
    options.open.max_uncompressed_layer_bytes = *limit;
  }
  options.scan.jobs = flags.jobs;
  options.open.verify_digests = !flags.no_verify;
  options.scan.progress = TerminalProgress();
  return options;
}

bool IsRegistryArgument(const std::string& argument) {
  if (argument.starts_with("docker://")) return true;
  std::error_code ec;
  if (std::filesystem::exists(argument, ec)) return false;
  return registry::ParseReference(argument).ok();
}

Result<ScannedImage> ReadImageArgument(const std::string& image, ReadImageOptions options,
                                       const ImageInputArgs& args) {
  options.open.image_name = args.image_name;
  std::unique_ptr<LayerCache> cache;
  // Unverified layers (--no-verify) must not fill a cache that verified
  // scans trust.
  if (!args.no_cache && options.open.verify_digests) {
    std::string directory = args.cache_dir.empty() ? DefaultCacheDirectory() : args.cache_dir;
    auto opened = LayerCache::Open(directory);
    if (opened.ok()) {
      cache = std::move(*opened);
      options.scan.layer_scanner = cache->Scanner(options.scan.layer_scanner);
    } else {
      std::cerr << "imagelint: warning: layer cache not used: " << opened.error().ToString() << "\n";
    }
  }
  if (!IsRegistryArgument(image)) return ReadImage(image, options);

  auto ref = registry::ParseReference(WithoutScheme(image));
  if (!ref.ok()) return ref.error();
  registry::RegistryOptions registry_options;
  registry_options.insecure_registries = args.insecure_registries;
  registry_options.ca_file = args.ca_file;
  registry_options.connect_to = args.connect_to;
  if (!args.username.empty() || args.password_stdin) {
    if (args.username.empty() || !args.password_stdin) {
      return MakeError("--username", "--username and --password-stdin go together");
    }
    auto password = PasswordFromStdin();
    if (!password.ok()) return password.error();
    registry_options.credentials = registry::Credentials{args.username, *password, false};
  }
  auto source = registry::OpenRegistryImage(*ref, options.open, registry_options);
  if (!source.ok()) return source.error();
  auto analyzers = DefaultAnalyzers();
  return ScanImage(**source, AnalyzerPointers(analyzers), options.scan);
}

}  // namespace imagelint::cli
