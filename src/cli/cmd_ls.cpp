// `imagelint ls IMAGE [GLOB]`: the merged file tree, with the layer of each entry.
#include <iostream>

#include "cli/command.h"
#include "cli/image_input.h"
#include "facts/facts.h"

namespace imagelint::cli {
namespace {

struct LsArgs {
  std::string image;
  std::string glob;
  ImageReadFlags read;
};

RunFunction SetupLs(CLI::App& app) {
  auto args = std::make_shared<LsArgs>();
  app.add_option("IMAGE", args->image, "docker-save tarball, OCI layout directory or archive, rootfs directory, or registry reference")
      ->required();
  app.add_option("GLOB", args->glob, "only paths matching this pattern ('*' also matches '/'), e.g. 'usr/lib/*cuda*'");
  AddImageReadFlags(app, args->read);
  auto input = std::make_shared<ImageInputArgs>();
  AddImageInputOptions(app, input);
  return [args, input]() -> int {
    auto options = ToReadImageOptions(args->read);
    if (!options.ok()) return ReportToolError(options.error());
    auto image = ReadImageArgument(args->image, *options, *input);
    if (!image.ok()) return ReportToolError(image.error());
    std::cout << ListTree(*image, args->glob);
    return kExitOk;
  };
}

CommandRegistration registration({"ls", "list the merged file tree of an image, with the layer of each entry", SetupLs, 30});

}  // namespace
}  // namespace imagelint::cli
