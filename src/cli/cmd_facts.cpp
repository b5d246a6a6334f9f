// `imagelint facts IMAGE [--format json|text]`: what imagelint found in the image.
#include <iostream>

#include "cli/command.h"
#include "cli/image_input.h"
#include "facts/facts.h"
#include "imagelint/knowledge.h"

namespace imagelint::cli {
namespace {

struct FactsArgs {
  std::string image;
  std::string format = "json";
  ImageReadFlags read;
};

RunFunction SetupFacts(CLI::App& app) {
  auto args = std::make_shared<FactsArgs>();
  app.add_option("IMAGE", args->image, "docker-save tarball, OCI layout directory or archive, rootfs directory, or registry reference")
      ->required();
  app.add_option("--format", args->format, "json or text")->check(CLI::IsMember({"json", "text"}));
  AddImageReadFlags(app, args->read);
  auto input = std::make_shared<ImageInputArgs>();
  AddImageInputOptions(app, input);
  return [args, input]() -> int {
    auto options = ToReadImageOptions(args->read);
    if (!options.ok()) return ReportToolError(options.error());
    auto image = ReadImageArgument(args->image, *options, *input);
    if (!image.ok()) return ReportToolError(image.error());
    auto knowledge = Knowledge::LoadDefault();  // loader directories, CUDA library names
    if (!knowledge.ok()) return ReportToolError(knowledge.error());
    nlohmann::json facts = BuildFacts(*image, *knowledge);
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
