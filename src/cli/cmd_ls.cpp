// `imagelint ls IMAGE [GLOB]`: the merged file tree, with the layer of each entry.
#include <utility>

#include "cli/command.h"
#include "cli/options.h"

namespace imagelint::cli {
namespace {

struct LsArgs {
  std::string image;
  std::string rootfs;  // --rootfs DIR
  std::string glob;
  ImageInputFlags input;
};

RunFunction SetupLs(CLI::App& app) {
  auto args = std::make_shared<LsArgs>();
  AddImageOperand(app, args->image, args->rootfs);
  app.add_option("GLOB", args->glob, "only paths matching this pattern ('*' also matches '/'), e.g. 'usr/lib/*cuda*'");
  AddImageReadFlags(app, args->input);
  AddImageInputOptions(app, args->input);
  return [args](const Environment& environment) -> int {
    if (!args->rootfs.empty() && args->glob.empty()) std::swap(args->image, args->glob);  // ls --rootfs DIR GLOB
    auto read = StartImageRead(environment, args->image, args->rootfs, args->input);
    if (!read.ok()) return ReportToolError(read.error());
    return PrintText(ListImageTree(read->input, args->glob, read->options, read->context));
  };
}

CommandRegistration ls_registration({"ls", "list the merged file tree of an image, with the layer of each entry", SetupLs, 30});

}  // namespace
}  // namespace imagelint::cli
