// `imagelint plan IMAGE... --fleet FILE --change 'POOL: field=value'`: what a
// fleet change does to these images, the oldest driver each needs
// (--minimum-driver) and fixes proven by the rules (--fixes). The flags
// become an imagelint::PlanRequest; imagelint::Plan does the work. Exit 1
// when the change makes an image fail on a pool where it ran, 2 when
// imagelint could not do its job (docs/plan.md).
#include <fstream>
#include <iostream>

#include "cli/budget.h"
#include "cli/command.h"
#include "cli/options.h"
#include "cli/shared_cache.h"
#include "common/file_text.h"
#include "common/json.h"
#include "imagelint/plan.h"
#include "imagelint/plan_render.h"

namespace imagelint::cli {
namespace {

constexpr size_t kMaxPlanDocumentBytes = 256u << 20;

struct PlanArgs {
  std::vector<std::string> images;
  config::CommandLineOptions options;
  ImageInputFlags input;
  SharedCacheFlags shared_cache;
  std::vector<std::string> changes;
  std::string fleet_after;
  bool minimum_driver = false;
  bool fixes = false;
  std::string shard;  // K/N
  bool merge = false;
  ImageListFlags many;  // --images-from, --all-tags, --tags, --image-jobs
  std::vector<std::string> build_args;
  std::string target;
  std::string build_platform;  // --build-platform ($BUILDPLATFORM)
  std::string context;
  std::string format = "text";
  std::string output;
};

Result<std::pair<int, int>> ParseShard(const std::string& text) {
  size_t slash = text.find('/');
  auto number = [](const std::string& digits) -> int {
    if (digits.empty() || digits.size() > 6) return -1;
    for (char c : digits)
      if (c < '0' || c > '9') return -1;
    return std::stoi(digits);
  };
  int index = slash == std::string::npos ? -1 : number(text.substr(0, slash));
  int count = slash == std::string::npos ? -1 : number(text.substr(slash + 1));
  if (index < 1 || count < 1 || index > count) return MakeError("--shard", "expected K/N with 1 <= K <= N, got '" + text + "'");
  return std::make_pair(index, count);
}

Result<plan::PlanReport> ReadPlanFile(const std::string& path) {
  auto text = ReadBoundedFile(path, kMaxPlanDocumentBytes, "plan");
  if (!text.ok()) return text.error();
  auto document = ParseJson(*text, path);
  if (!document.ok()) return document.error();
  return plan::ReadPlanJson(*document, path);
}

std::string Render(const plan::PlanReport& report, const std::string& format) {
  if (format == "json") return plan::WritePlanJson(report).dump(2) + "\n";
  if (format == "markdown") return report::RenderPlanMarkdown(report);
  if (format == "html") return report::RenderPlanHtml(report);
  return report::RenderPlanText(report);
}

int Write(const plan::PlanReport& report, const PlanArgs& args) {
  std::string text = Render(report, args.format);
  if (args.output.empty() || args.output == "-") {
    std::cout << text;
  } else {
    std::ofstream out(args.output, std::ios::binary | std::ios::trunc);
    if (!(out << text) || !out.flush()) return ReportToolError(MakeError(args.output, "cannot write the plan"));
  }
  plan::PlanCounts counts = plan::CountPlan(report);
  if (counts.unreadable > 0) return kExitToolError;
  return counts.newly_failing > 0 ? kExitFindings : kExitOk;
}

int RunPlan(PlanArgs& args, const Environment& environment) {
  if (args.merge) {  // shards planned on several runners -> one plan
    if (args.images.empty()) return ReportToolError(MakeError("--merge", "give the JSON plans to merge"));
    std::vector<plan::PlanReport> shards;
    for (const std::string& path : args.images) {
      auto shard = ReadPlanFile(path);
      if (!shard.ok()) return ReportToolError(shard.error());
      shards.push_back(std::move(*shard));
    }
    auto merged = plan::MergePlans(shards);
    if (!merged.ok()) return ReportToolError(merged.error());
    return Write(*merged, args);
  }
  args.options.user_config_dir = environment.UserConfigDirectory();
  ExpandRuleLists(args.options);
  auto list = CollectImageList(std::move(args.images), args.many);
  if (!list.ok()) return ReportToolError(list.error());
  if (list->images.empty() && list->repositories.empty())
    return ReportToolError(MakeError("plan", "give the IMAGEs (or --images-from FILE) to plan for"));
  auto config = config::ResolveConfig(args.options);
  if (!config.ok()) return ReportToolError(config.error());
  auto scan = ScanRequestFromConfig(*config);
  if (!scan.ok()) return ReportToolError(scan.error());
  PlanRequest request;
  request.scan = std::move(*scan);
  auto read = ToImageReadOptions(args.input);
  if (!read.ok()) return ReportToolError(read.error());
  read->platform = request.scan.read.platform;
  request.scan.read = std::move(*read);
  auto build_args = environment.BuildArgs(args.build_args);
  if (!build_args.ok()) return ReportToolError(build_args.error());
  request.scan.build_args = std::move(*build_args);
  request.scan.target = args.target;
  request.scan.build_platform = args.build_platform;
  request.scan.context_dir = args.context;
  request.scan.keep_going = list->many;
  request.scan.image_jobs = args.many.image_jobs;
  request.changes = args.changes;
  request.fleet_after = args.fleet_after;
  request.minimum_driver = args.minimum_driver;
  request.fixes = args.fixes;
  if (!args.shard.empty()) {
    auto shard = ParseShard(args.shard);
    if (!shard.ok()) return ReportToolError(shard.error());
    request.shard_index = shard->first;
    request.shard_count = shard->second;
  }
  auto made_context = ContextFor(environment, args.input);
  if (!made_context.ok()) return ReportToolError(made_context.error());
  const Context context = std::move(*made_context);
  if (!list->repositories.empty())
    if (auto tagged = AddRepositoryTags(*list, args.many, request.scan.read, context, "plan for"); !tagged.ok())
      return ReportToolError(tagged.error());
  request.scan.inputs = std::move(list->images);
  if (auto budget = StartBudget(args.input, request.scan.inputs); !budget.ok()) return ReportToolError(budget.error());
  auto shared_cache = OpenSharedCache(args.shared_cache, environment, context.warn);
  if (!shared_cache.ok()) return ReportToolError(shared_cache.error());
  request.scan.read.shared_cache = *shared_cache;
  auto report = Plan(request, context);
  if (!report.ok()) return ReportToolError(report.error());
  return Write(*report, args);
}

RunFunction SetupPlan(CLI::App& app) {
  auto args = std::make_shared<PlanArgs>();
  app.add_option("IMAGE", args->images,
                 "images and Dockerfiles as scan takes them; with --merge, the JSON plans of the shards")
      ->type_name("IMAGE");
  app.add_option("--fleet", args->options.fleet, "the fleet as it is now")->type_name("FILE");
  app.add_option("--change", args->changes,
                 "a fleet change (repeatable, applied in order): 'POOL: field=value, ...' sets fields of a pool or "
                 "adds one, 'POOL: remove' retires one, '*: field=value' changes every pool")
      ->type_name("'POOL: FIELD=VALUE,...'");
  app.add_option("--fleet-after", args->fleet_after, "the whole fleet after the change, instead of --change")
      ->type_name("FILE");
  app.add_flag("--minimum-driver", args->minimum_driver,
               "per image and pool, the oldest driver on which no error is predicted, and the estate's floor");
  app.add_flag("--fixes", args->fixes,
               "per failing image, the smallest change found (Dockerfile or fleet) that the rules prove runs on "
               "every pool");
  app.add_option("--shard", args->shard, "plan only the K-th of N shards of the inputs (merge with --merge)")
      ->type_name("K/N");
  app.add_flag("--merge", args->merge, "merge the JSON plans given as IMAGE operands (shards) into one");
  AddImageListFlags(app, args->many, "plan for");
  app.add_option("--build-arg", args->build_args, "Dockerfile inputs: NAME=VALUE for an ARG (repeatable)")
      ->type_name("NAME[=VALUE]");
  app.add_option("--target", args->target, "Dockerfile inputs: the stage to check")->type_name("STAGE");
  app.add_option("--build-platform", args->build_platform,
                 "Dockerfile inputs: the platform the build runs on, $BUILDPLATFORM (default linux/amd64)")
      ->type_name("OS/ARCH");
  app.add_option("--context", args->context, "Dockerfile inputs: the build context")->type_name("DIR");
  app.add_option("--platform", args->options.platform, "os/arch[/variant] of a multi-platform image")
      ->type_name("OS/ARCH");
  app.add_option("-f,--format", args->format, "text (default), json, markdown or html")
      ->check(CLI::IsMember({"text", "json", "markdown", "html"}));
  app.add_option("-o,--output", args->output, "write the plan to FILE instead of standard output")->type_name("FILE");
  AddImageInputOptions(app, args->input);
  AddImageReadFlags(app, args->input);
  AddSharedCacheFlags(app, args->shared_cache);
  AddConfigFlags(app, args->options);
  return [args](const Environment& environment) { return RunPlan(*args, environment); };
}

CommandRegistration plan_registration(
    {"plan", "what a fleet change does to images, the oldest driver each needs, and proven fixes", SetupPlan, 15});

}  // namespace
}  // namespace imagelint::cli
