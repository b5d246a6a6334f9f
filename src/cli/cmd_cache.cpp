// `imagelint cache [info|prune]`: what the layer cache holds, and bounding it
// (least recently used layers first, or those unused for a while).
#include "cli/command.h"
#include "cli/options.h"
#include "imagelint/cache.h"
#include "imagelint/pipeline.h"
#include "imagelint/read_image.h"
#include "imagelint/report.h"

namespace imagelint::cli {
namespace {

struct CacheArgs {
  std::string action = "info";
  std::string cache_dir;
  std::string max_size;
  std::string unused_for;
  std::string format = "text";
};

int RunCache(const CacheArgs& args, const Environment& environment) {
  std::string directory = args.cache_dir.empty() ? environment.MakeContext().cache_dir : args.cache_dir;
  auto format = report::ParseFormat(args.format);
  if (!format.ok()) return ReportToolError(format.error());
  if (args.action == "info") {
    if (!args.max_size.empty() || !args.unused_for.empty()) {
      return ReportToolError(MakeError("cache info", "--max-size and --unused-for belong to `cache prune`"));
    }
    auto usage = MeasureCache(directory);
    if (!usage.ok()) return ReportToolError(usage.error());
    return PrintText(report::RenderCacheUsage(directory, *usage, *format));
  }
  PruneOptions options;
  if (!args.max_size.empty()) {
    auto bytes = ParseByteSize(args.max_size);
    if (!bytes.ok()) return ReportToolError(WithSubject(bytes.error(), "--max-size"));
    options.max_bytes = *bytes;
  }
  if (!args.unused_for.empty()) {
    auto seconds = ParseDuration(args.unused_for);
    if (!seconds.ok()) return ReportToolError(WithSubject(seconds.error(), "--unused-for"));
    options.unused_for_seconds = *seconds;
  }
  if (!options.max_bytes && !options.unused_for_seconds) {
    return ReportToolError(MakeError("cache prune", "give --max-size SIZE and/or --unused-for DURATION"));
  }
  auto pruned = PruneCache(directory, options);
  if (!pruned.ok()) return ReportToolError(pruned.error());
  return PrintText(report::RenderCachePrune(directory, *pruned, *format));
}

RunFunction SetupCache(CLI::App& app) {
  auto args = std::make_shared<CacheArgs>();
  app.add_option("ACTION", args->action, "info (default): what the cache holds; prune: evict")
      ->check(CLI::IsMember({"info", "prune"}));
  AddCacheDirOption(app, args->cache_dir, "layer cache directory");
  app.add_option("--max-size", args->max_size,
                 "prune: evict least recently used layers until the cache fits, e.g. 10G")
      ->type_name("SIZE");
  app.add_option("--unused-for", args->unused_for, "prune: evict what no scan used for this long, e.g. 30d, 12h")
      ->type_name("DURATION");
  app.add_option("-f,--format", args->format, "text (default) or json")->check(CLI::IsMember({"text", "json"}));
  return [args](const Environment& environment) -> int { return RunCache(*args, environment); };
}

CommandRegistration cache_registration({"cache", "show or prune the layer cache (info, prune --max-size/--unused-for)",
                                  SetupCache, 80});

}  // namespace
}  // namespace imagelint::cli
