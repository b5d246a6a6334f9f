// `imagelint [scan] IMAGE... --fleet FILE`: will these images run on the
// fleet? The flags become an imagelint::ScanRequest (config file + flags),
// imagelint::Scan does the work, the report module writes every --format; the
// exit code is the scan's gate (--fail-on), or 2 when imagelint could not do
// its job.
#include <unistd.h>

#include <iostream>

#include "cli/command.h"
#include "cli/options.h"
#include "imagelint/fleet_import.h"
#include "imagelint/report.h"

namespace imagelint::cli {
namespace {

struct ScanArgs {
  std::vector<std::string> images;
  config::CommandLineOptions options;  // config, report, fleet, rules, platform, dockerfile flags
  ImageInputFlags input;
  std::vector<std::string> build_args;  // Dockerfile inputs: --build-arg NAME[=VALUE]
  std::string target;                   // Dockerfile inputs: --target STAGE
};

int RunScan(ScanArgs& args, const Environment& environment) {
  args.options.user_config_dir = environment.UserConfigDirectory();
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
  request->inputs = args.images;

  const Context context = ContextFor(environment, args.input);
  auto result = Scan(*request, context);
  if (!result.ok()) return ReportToolError(result.error());

  report::RenderOptions render = outputs->render;
  render.color = environment.ColorWanted(STDOUT_FILENO);
  render.width = environment.TextWidth(STDOUT_FILENO);
  render.docs_dir = context.docs_dir.string();
  render.placement = [&fleet = result->fleet](const nlohmann::json& shown) {  // --format k8s
    return fleet_import::RenderPlacementAdvice(shown, fleet);
  };
  auto written = report::WriteReports(result->report, report::RulesFromReport(result->report), outputs->requests,
                                      render, std::cout);
  if (!written.ok()) return ReportToolError(written.error());
  return result->exit_code;
}

RunFunction SetupScan(CLI::App& app) {
  auto args = std::make_shared<ScanArgs>();
  app.add_option("IMAGE", args->images,
                 "docker-save tarball, OCI layout directory or archive, rootfs directory, registry reference, "
                 "Dockerfile (detected by content), or a facts .json from `imagelint facts`")
      ->required();
  app.add_option("--build-arg", args->build_args, "Dockerfile inputs: NAME=VALUE for an ARG (repeatable)");
  app.add_option("--target", args->target, "Dockerfile inputs: the stage to check (default: the last)");
  app.add_option("--dockerfile", args->options.dockerfile,
                 "built images: the Dockerfile they were built from; findings point at its lines");
  AddImageInputOptions(app, args->input);
  app.add_option("--fleet", args->options.fleet,
                 "fleet profile (pools of GPU hosts); without it only image checks run");
  app.add_option("--rules", args->options.rule_files, "extra rule file (repeatable)");
  app.add_option("--platform", args->options.platform,
                 "os/arch[/variant] of a multi-platform image (default linux/amd64)");
  AddConfigFlags(app, args->options);
  AddReportFlags(app, args->options);
  return [args](const Environment& environment) { return RunScan(*args, environment); };
}

CommandRegistration registration({"scan", "predict, per pool of GPU hosts, whether images run (default command)",
                                   SetupScan, 10});

}  // namespace
}  // namespace imagelint::cli
