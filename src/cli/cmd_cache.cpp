// `imagelint cache [info|prune]`: what the layer cache holds, and bounding it
// (least recently used layers first, or those unused for a while).
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "facts/facts.h"
#include "imagelint/cache.h"

namespace imagelint::cli {
namespace {

struct CacheArgs {
  std::string action = "info";
  std::string cache_dir;
  std::string max_size;
  std::string unused_for;
  std::string format = "text";
};

// "30d", "12h", "90m", "45s" (or plain seconds).
Result<int64_t> ParseDuration(const std::string& text) {
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0 || digits > 9) return MakeError("--unused-for", "expected a duration such as 30d, 12h, 90m or 45s");
  int64_t value = std::stoll(text.substr(0, digits));
  std::string unit = text.substr(digits);
  if (unit.empty() || unit == "s") return value;
  if (unit == "m") return value * 60;
  if (unit == "h") return value * 3600;
  if (unit == "d") return value * 86400;
  return MakeError("--unused-for", "unknown unit \"" + unit + "\" (use s, m, h or d)");
}

nlohmann::json UsageJson(const CacheUsage& usage) {
  return {{"layers", usage.layers},
          {"layer_bytes", usage.layer_bytes},
          {"verified_blobs", usage.memo_entries},
          {"verified_blob_bytes", usage.memo_bytes},
          {"stale_temporaries", usage.stale_temporaries},
          {"total_bytes", usage.TotalBytes()}};
}

std::string UsageText(const CacheUsage& usage) {
  return std::to_string(usage.layers) + " layers (" + HumanBytes(usage.layer_bytes) + "), " +
         std::to_string(usage.memo_entries) + " verified-blob stamps (" + HumanBytes(usage.memo_bytes) +
         "), total " + HumanBytes(usage.TotalBytes());
}

int RunCache(const CacheArgs& args) {
  std::string directory = args.cache_dir.empty() ? DefaultCacheDirectory() : args.cache_dir;
  if (args.action == "info") {
    if (!args.max_size.empty() || !args.unused_for.empty()) {
      return ReportToolError(MakeError("cache info", "--max-size and --unused-for belong to `cache prune`"));
    }
    auto usage = MeasureCache(directory);
    if (!usage.ok()) return ReportToolError(usage.error());
    if (args.format == "json") {
      nlohmann::json out = UsageJson(*usage);
      out["directory"] = directory;
      std::cout << out.dump(2) << "\n";
    } else {
      std::cout << directory << ": " << UsageText(*usage) << "\n";
    }
    return kExitOk;
  }
  PruneOptions options;
  if (!args.max_size.empty()) {
    auto bytes = ParseByteSize(args.max_size);
    if (!bytes.ok()) return ReportToolError(WithSubject(bytes.error(), "--max-size"));
    options.max_bytes = *bytes;
  }
  if (!args.unused_for.empty()) {
    auto seconds = ParseDuration(args.unused_for);
    if (!seconds.ok()) return ReportToolError(seconds.error());
    options.unused_for_seconds = *seconds;
  }
  if (!options.max_bytes && !options.unused_for_seconds) {
    return ReportToolError(MakeError("cache prune", "give --max-size SIZE and/or --unused-for DURATION"));
  }
  auto pruned = PruneCache(directory, options);
  if (!pruned.ok()) return ReportToolError(pruned.error());
  if (args.format == "json") {
    nlohmann::json out = {{"directory", directory},
                          {"before", UsageJson(pruned->before)},
                          {"after", UsageJson(pruned->after)},
                          {"removed",
                           {{"layers", pruned->layers_removed},
                            {"verified_blobs", pruned->memo_entries_removed},
                            {"temporaries", pruned->temporaries_removed}}}};
    std::cout << out.dump(2) << "\n";
  } else {
    std::cout << directory << ": removed " << pruned->layers_removed << " layers, " << pruned->memo_entries_removed
              << " verified-blob stamps, " << pruned->temporaries_removed << " stale temporary files\n"
              << "  before: " << UsageText(pruned->before) << "\n"
              << "  after:  " << UsageText(pruned->after) << "\n";
  }
  return kExitOk;
}

RunFunction SetupCache(CLI::App& app) {
  auto args = std::make_shared<CacheArgs>();
  app.add_option("ACTION", args->action, "info (default): what the cache holds; prune: evict")
      ->check(CLI::IsMember({"info", "prune"}));
  app.add_option("--cache-dir", args->cache_dir,
                 "layer cache directory (default $XDG_CACHE_HOME/imagelint or ~/.cache/imagelint)");
  app.add_option("--max-size", args->max_size,
                 "prune: evict least recently used layers until the cache fits, e.g. 10G");
  app.add_option("--unused-for", args->unused_for, "prune: evict what no scan used for this long, e.g. 30d, 12h");
  app.add_option("--format", args->format, "text or json")->check(CLI::IsMember({"text", "json"}));
  return [args]() -> int { return RunCache(*args); };
}

CommandRegistration registration({"cache", "show or prune the layer cache (info, prune --max-size/--unused-for)",
                                  SetupCache, 80});

}  // namespace
}  // namespace imagelint::cli
