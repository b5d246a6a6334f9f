// `imagelint facts IMAGE [--format json|text]`: what imagelint found in the image.
#include <iostream>

#include "cli/budget.h"
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
    auto input = ImageArgument(args->image, args->rootfs);
    if (!input.ok()) return ReportToolError(input.error());
    auto options = ToImageReadOptions(args->input);
    if (!options.ok()) return ReportToolError(options.error());
    if (auto budget = StartBudget(args->input, {*input}); !budget.ok()) return ReportToolError(budget.error());
    auto made_context = ContextFor(environment, args->input);
    if (!made_context.ok()) return ReportToolError(made_context.error());
    const Context context = std::move(*made_context);
    auto shared_cache = OpenSharedCache(args->shared_cache, environment, context.warn);
    if (!shared_cache.ok()) return ReportToolError(shared_cache.error());
    options->shared_cache = *shared_cache;
    auto facts = ReadFacts(*input, *options, context);
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
