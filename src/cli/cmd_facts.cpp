// `imagelint facts IMAGE [--format json|text]`: what imagelint found in the image.
#include <iostream>

#include "cli/command.h"
#include "common/bytes_text.h"
#include "cli/options.h"
#include "cli/shared_cache.h"

namespace imagelint::cli {
namespace {

struct FactsArgs {
  std::string image;
  std::string rootfs;  // --rootfs DIR
  std::string format = "json";
  ImageInputFlags input;
  SharedCacheFlags shared_cache;  // --cache-backend ..., as for scan
};

RunFunction SetupFacts(CLI::App& app) {
  auto args = std::make_shared<FactsArgs>();
  AddImageOperand(app, args->image, args->rootfs, "Dockerfile, ");
  app.add_option("-f,--format", args->format, "json (default) or text")->check(CLI::IsMember({"json", "text"}));
  AddImageReadFlags(app, args->input);
  AddImageInputOptions(app, args->input);
  AddSharedCacheFlags(app, args->shared_cache);
  return [args](const Environment& environment) -> int {
    auto read = StartImageRead(environment, args->image, args->rootfs, args->input);
    if (!read.ok()) return ReportToolError(read.error());
    const Context& context = read->context;
    auto shared_cache = OpenSharedCache(args->shared_cache, environment, context.warn);
    if (!shared_cache.ok()) return ReportToolError(shared_cache.error());
    read->options.shared_cache = *shared_cache;
    auto facts = ReadFacts(read->input, read->options, context);
    if (!facts.ok()) return ReportToolError(facts.error());
    if (args->format == "text") {
      std::cout << FactsText(*facts);
    } else {
      std::cout << WriteJson(*facts, 2) << "\n";
    }
    return kExitOk;
  };
}

CommandRegistration facts_registration({"facts", "print what imagelint found in an image (imagelint.facts/v1)", SetupFacts, 20});

}  // namespace
}  // namespace imagelint::cli
