// `imagelint [scan] IMAGE... --fleet FILE`: will these images run on the
// fleet? The flags become an imagelint::ScanRequest (config file + flags),
// imagelint::Scan does the work, the report module writes every --format; the
// exit code is the scan's gate (--fail-on), or 2 when imagelint could not do
// its job.
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iostream>

#include "cli/budget.h"
#include "cli/command.h"
#include "cli/options.h"
#include "cli/shared_cache.h"
#include "common/file_text.h"
#include "common/text.h"
#include "imagelint/fleet_import.h"
#include "imagelint/report.h"

namespace imagelint::cli {
namespace {

constexpr size_t kMaxStdinDockerfileBytes = 16u << 20;

struct ScanArgs {
  std::vector<std::string> images;
  std::vector<std::string> rootfs;  // --rootfs DIR: root file systems, whatever they hold
  config::CommandLineOptions options;  // config, report, fleet, rules, platform, dockerfile flags
  ImageInputFlags input;
  std::vector<std::string> build_args;  // Dockerfile inputs: --build-arg NAME[=VALUE]
  std::string target;                   // Dockerfile inputs: --target STAGE
  std::string build_platform;           // Dockerfile inputs: --build-platform OS/ARCH ($BUILDPLATFORM)
  std::string context;                  // Dockerfile inputs: --context DIR
  SharedCacheFlags shared_cache;        // --cache-backend, --cache-ttl
  ImageListFlags many;                  // --images-from, --all-tags, --tags, --image-jobs
  std::string color = "auto";           // --color auto|always|never (--no-color: never)
  std::string baseline;                 // --baseline REPORT.json
  bool fail_on_new = false;             // --fail-on-new
};

// "-" stands for a Dockerfile on standard input (as hadolint reads it).
Result<std::string> ReadStdinDockerfile() {
  return ReadBoundedStream(std::cin, kMaxStdinDockerfileBytes, "-", "standard input");
}

int RunScan(ScanArgs& args, const Environment& environment) {
  args.options.user_config_dir = environment.UserConfigDirectory();
  ExpandRuleLists(args.options);
  for (const std::string& dir : args.rootfs) args.images.push_back(std::string(kRootfsPrefix) + dir);
  auto list = CollectImageList(std::move(args.images), args.many);
  if (!list.ok()) return ReportToolError(list.error());
  if (args.many.all_tags && (list->repositories.empty() || !args.rootfs.empty()))
    return ReportToolError(MakeError("--all-tags", "give the repositories (REGISTRY/REPO) whose tags to scan"));
  if (list->images.empty() && list->repositories.empty())
    return ReportToolError(MakeError("scan", "give an IMAGE (or --rootfs DIR) to scan"));
  auto config = config::ResolveConfig(args.options);  // .imagelint.yaml + flags
  if (!config.ok()) return ReportToolError(config.error());
  auto request = ScanRequestFromConfig(*config);
  if (!request.ok()) return ReportToolError(request.error());
  auto outputs = report::PlanOutputs(*config);
  if (!outputs.ok()) return ReportToolError(outputs.error());
  auto read = ToImageReadOptions(args.input);
  if (!read.ok()) return ReportToolError(read.error());
  read->platform = request->read.platform;  // --platform / `platform:` of the config
  request->read = std::move(*read);
  auto build_args = environment.BuildArgs(args.build_args);
  if (!build_args.ok()) return ReportToolError(build_args.error());
  request->build_args = std::move(*build_args);
  request->target = args.target;
  request->build_platform = args.build_platform;
  request->context_dir = args.context;
  request->baseline_file = args.baseline;
  request->fail_on_new = args.fail_on_new;
  // Many images: one report, an unreadable image an entry of it (exit 2).
  request->keep_going = list->many;
  if (args.many.image_jobs < 0) return ReportToolError(MakeError("--image-jobs", "must be at least 1"));
  request->image_jobs = args.many.image_jobs;
  auto made_context = ContextFor(environment, args.input);
  if (!made_context.ok()) return ReportToolError(made_context.error());
  const Context context = std::move(*made_context);
  if (context.warn)
    for (const std::string& warning : outputs->warnings) context.warn(warning);
  if (!list->repositories.empty())
    if (auto tagged = AddRepositoryTags(*list, args.many, request->read, context, "scan"); !tagged.ok())
      return ReportToolError(tagged.error());
  args.images = std::move(list->images);
  request->inputs = args.images;
  // The budget counts the images to scan (after --all-tags listed them).
  if (auto budget = StartBudget(args.input, args.images); !budget.ok()) return ReportToolError(budget.error());
  if (std::count(args.images.begin(), args.images.end(), "-") > 0) {
    if (args.input.password_stdin)
      return ReportToolError(MakeError("-", "standard input cannot hold both a Dockerfile and --password-stdin"));
    auto text = ReadStdinDockerfile();
    if (!text.ok()) return ReportToolError(text.error());
    request->dockerfile_texts["-"] = std::move(*text);
  }

  auto shared_cache = OpenSharedCache(args.shared_cache, environment, context.warn);
  if (!shared_cache.ok()) return ReportToolError(shared_cache.error());
  request->read.shared_cache = *shared_cache;
  auto result = Scan(*request, context);
  if (!result.ok()) return ReportToolError(result.error());

  report::RenderOptions render = outputs->render;
  render.color = environment.ColorWanted(STDOUT_FILENO, args.color);
  render.width = environment.TextWidth(STDOUT_FILENO);
  render.docs_dir = context.docs_dir.string();
  render.placement = [&fleet = result->fleet](const analysis::Report& shown) {
    return report::RenderPlacementAdvice(shown, fleet);
  };
  auto written = report::WriteReports(result->report, report::RulesFromReport(result->report), outputs->requests,
                                      render, std::cout);
  if (!written.ok()) return ReportToolError(written.error());
  return result->exit_code;
}

RunFunction SetupScan(CLI::App& app) {
  auto args = std::make_shared<ScanArgs>();
  app.add_option("IMAGE", args->images,
                 "docker-save tarball (or its extracted directory), OCI layout directory or archive, registry "
                 "reference, Dockerfile (detected by content; - reads one from standard input), a facts .json from "
                 "`imagelint facts`, or rootfs:DIR")
      ->type_name("IMAGE");
  app.add_option("--rootfs", args->rootfs,
                 "read DIR as a root file system (repeatable); a directory is otherwise one only when it has "
                 "etc/os-release or a dynamic loader")
      ->type_name("DIR");
  app.add_option("--build-arg", args->build_args, "Dockerfile inputs: NAME=VALUE for an ARG (repeatable)")
      ->type_name("NAME[=VALUE]");
  app.add_option("--target", args->target, "Dockerfile inputs: the stage to check (default: the last)")
      ->type_name("STAGE");
  app.add_option("--build-platform", args->build_platform,
                 "Dockerfile inputs: the platform the build runs on, $BUILDPLATFORM (default linux/amd64)")
      ->type_name("OS/ARCH");
  app.add_option("--context", args->context,
                 "Dockerfile inputs: the build context whose requirement, project and conda files installs read "
                 "(default: the Dockerfile's folder)")
      ->type_name("DIR");
  app.add_option("--dockerfile", args->options.dockerfile,
                 "built images: the Dockerfile they were built from; findings point at its lines")
      ->type_name("FILE");
  AddImageInputOptions(app, args->input);
  AddSharedCacheFlags(app, args->shared_cache);
  AddImageListFlags(app, args->many, "scan");
  app.add_option("--baseline", args->baseline,
                 "an earlier JSON report of the same images and fleet: mark findings new or unchanged and list "
                 "the fixed ones, in every format")
      ->type_name("REPORT.json");
  app.add_flag("--fail-on-new", args->fail_on_new,
               "with --baseline: the --fail-on gate counts new findings only (adopt a gate on images that "
               "already fail)");
  app.add_option("--fleet", args->options.fleet,
                 "fleet profile (pools of GPU hosts); without it only image checks run")
      ->type_name("FILE");
  app.add_option("--rules", args->options.rule_files, "extra rule file (repeatable)")->type_name("FILE");
  app.add_option("--platform", args->options.platform,
                 "os/arch[/variant] of a multi-platform image (default linux/amd64)")
      ->type_name("OS/ARCH");
  AddImageReadFlags(app, args->input);
  AddConfigFlags(app, args->options);
  AddReportFlags(app, args->options);
  AddColorFlags(app, args->color);
  return [args](const Environment& environment) { return RunScan(*args, environment); };
}

CommandRegistration scan_registration({"scan", "predict, per pool of GPU hosts, whether images run (default command)",
                                   SetupScan, 10});

}  // namespace
}  // namespace imagelint::cli
