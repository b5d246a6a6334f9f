// `imagelint ls IMAGE [GLOB]`: the merged file tree, with the layer of each entry.
#include <iostream>

#include "cli/command.h"
#include "facts/facts.h"

namespace imagelint::cli {
namespace {

struct LsArgs {
  std::string image;
  std::string glob;
  std::string platform;
  std::string max_layer_bytes;
  int jobs = 0;
};

RunFunction SetupLs(CLI::App& app) {
  auto args = std::make_shared<LsArgs>();
  app.add_option("IMAGE", args->image, "docker-save tarball, OCI layout directory or archive, rootfs directory")
      ->required();
  app.add_option("GLOB", args->glob, "only paths matching this pattern ('*' also matches '/'), e.g. 'usr/lib/*cuda*'");
  app.add_option("--platform", args->platform, "os/arch[/variant] to pick from a multi-platform image (default linux/amd64)");
  app.add_option("--max-layer-bytes", args->max_layer_bytes,
                 "limit on the uncompressed size of one layer (default 64G; guards against decompression bombs)");
  app.add_option("--jobs", args->jobs, "layers read in parallel (default: up to 4)");
  return [args]() -> int {
    ReadImageOptions options;
    if (!args->platform.empty()) {
      auto platform = Platform::Parse(args->platform);
      if (!platform.ok()) return ReportToolError(platform.error());
      options.open.platform = *platform;
      options.open.platform_explicit = true;
    }
    if (!args->max_layer_bytes.empty()) {
      auto limit = ParseByteSize(args->max_layer_bytes);
      if (!limit.ok()) return ReportToolError(WithSubject(limit.error(), "--max-layer-bytes"));
      options.open.max_uncompressed_layer_bytes = *limit;
    }
    options.scan.jobs = args->jobs;
    options.scan.progress = TerminalProgress();
    auto image = ReadImage(args->image, options);
    if (!image.ok()) return ReportToolError(image.error());
    std::cout << ListTree(*image, args->glob);
    return kExitOk;
  };
}

CommandRegistration registration({"ls", "list the merged file tree of an image, with the layer of each entry", SetupLs, 30});

}  // namespace
}  // namespace imagelint::cli
