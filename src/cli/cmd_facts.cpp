// `imagelint facts IMAGE [--format json|text]`: what imagelint found in the image.
#include <iostream>

#include "cli/command.h"
#include "cli/image_input.h"
#include "facts/facts.h"

namespace imagelint::cli {
namespace {

struct FactsArgs {
  std::string image;
  std::string format = "json";
  std::string platform;
  std::string max_layer_bytes;
  int jobs = 0;
  bool no_verify = false;
};

RunFunction SetupFacts(CLI::App& app) {
  auto args = std::make_shared<FactsArgs>();
  app.add_option("IMAGE", args->image, "docker-save tarball, OCI layout directory or archive, rootfs directory, or registry reference")
      ->required();
  app.add_option("--format", args->format, "json or text")->check(CLI::IsMember({"json", "text"}));
  app.add_option("--platform", args->platform, "os/arch[/variant] to pick from a multi-platform image (default linux/amd64)");
  app.add_option("--max-layer-bytes", args->max_layer_bytes,
                 "limit on the uncompressed size of one layer (default 64G; guards against decompression bombs)");
  app.add_option("--jobs", args->jobs, "layers read in parallel (default: up to 4)");
  app.add_flag("--no-verify", args->no_verify,
               "skip the blob digest and diff ID checks (faster; only for images you already trust)");
  auto input = std::make_shared<ImageInputArgs>();
  AddImageInputOptions(app, input);
  return [args, input]() -> int {
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
    options.open.verify_digests = !args->no_verify;
    options.scan.progress = TerminalProgress();
    auto image = ReadImageArgument(args->image, options, *input);
    if (!image.ok()) return ReportToolError(image.error());
    nlohmann::json facts = BuildFacts(*image);
    if (args->format == "text") {
      std::cout << FactsToText(facts);
    } else {
      std::cout << facts.dump(2) << "\n";
    }
    return kExitOk;
  };
}

CommandRegistration registration({"facts", "print what imagelint found in an image (imagelint.facts/v1)", SetupFacts, 20});

}  // namespace
}  // namespace imagelint::cli
