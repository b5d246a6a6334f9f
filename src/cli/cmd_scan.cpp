// `imagelint [scan] IMAGE... --fleet FILE`: will these images run on the
// fleet? Reads each image (or a facts JSON from `imagelint facts`), runs the
// rules over images × pools and prints the verdicts; the exit code follows
// --fail-on. Rendering is one function (WriteReport) for the report module.
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/command.h"
#include "cli/image_input.h"
#include "config/cli_options.h"
#include "facts/facts.h"
#include "imagelint/analysis.h"
#include "imagelint/dockerfile.h"
#include "imagelint/fleet.h"
#include "imagelint/fleet_import.h"
#include "imagelint/knowledge.h"
#include "imagelint/rules.h"

namespace imagelint::cli {
namespace {

struct ScanArgs {
  std::vector<std::string> images;
  std::string fleet;
  std::vector<std::string> rule_files;
  std::string platform;
  std::string fail_on = "error";
  std::string format = "text";
  std::string output;
  std::shared_ptr<ImageInputArgs> input = std::make_shared<ImageInputArgs>();
  // Report, gate and config flags (src/config/cli_options.h).
  std::shared_ptr<config::CommandLineOptions> report = std::make_shared<config::CommandLineOptions>();
  std::vector<std::string> build_args;  // Dockerfile inputs: --build-arg NAME[=VALUE]
  std::string target;                   // Dockerfile inputs: --target STAGE
  std::string dockerfile;               // built images: --dockerfile FILE (map layers to lines)
};

// Dockerfile mode (docs/dockerfile.md): an IMAGE argument whose content is a
// Dockerfile gets facts predicted from its text, every fact with its line.
// `# imagelint ignore=RULE reason` comments are appended to `inline_suppressions`.
Result<nlohmann::json> DockerfileFacts(const std::string& path, const ScanArgs& args, const Knowledge& knowledge,
                                       std::vector<config::Suppression>& inline_suppressions) {
  dockerfile::DockerfileOptions options;
  for (const std::string& arg : args.build_args) {
    size_t eq = arg.find('=');
    if (eq == 0) return MakeError("--build-arg", "expected NAME=VALUE, got \"" + arg + "\"");
    if (eq != std::string::npos) {
      options.build_args[arg.substr(0, eq)] = arg.substr(eq + 1);
    } else if (const char* value = std::getenv(arg.c_str())) {  // docker build --build-arg NAME
      options.build_args[arg] = value;
    }
  }
  options.target = args.target;
  if (!args.platform.empty()) options.platform = args.platform;
  options.knowledge = &knowledge;
  auto analysis = dockerfile::AnalyzeDockerfile(path, options);
  if (!analysis.ok()) return analysis.error();
  for (auto& suppression : dockerfile::ToConfigSuppressions(analysis->suppressions))
    inline_suppressions.push_back(std::move(suppression));
  return std::move(analysis->facts);
}

// --dockerfile FILE with a built image: each layer's history back to its line.
Status AnnotateWithDockerfile(nlohmann::json& facts, const ScanArgs& args) {
  std::ifstream in(args.dockerfile, std::ios::binary);
  if (!in) return MakeError(args.dockerfile, "cannot read the --dockerfile");
  std::ostringstream text;
  text << in.rdbuf();
  auto parsed = dockerfile::ParseDockerfile(text.str(), args.dockerfile);
  if (!parsed.ok()) return parsed.error();
  dockerfile::AnnotateImageFacts(facts, *parsed, args.target);
  return OkStatus();
}

// A facts document written by `imagelint facts IMAGE` (handy for CI caches
// and tests): a .json file whose schema is imagelint.facts/v1.
Result<std::optional<nlohmann::json>> ReadFactsFile(const std::string& path) {
  if (path.size() < 5 || path.compare(path.size() - 5, 5, ".json") != 0) return std::optional<nlohmann::json>();
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::optional<nlohmann::json>();
  std::ostringstream text;
  text << in.rdbuf();
  nlohmann::json facts = nlohmann::json::parse(text.str(), nullptr, false);
  if (facts.is_discarded() || !facts.is_object()) return MakeError(path, "not a JSON facts document");
  if (facts.value("schema", "") != kFactsSchema)
    return MakeError(path, std::string("not an ") + kFactsSchema + " document (run `imagelint facts IMAGE`)");
  return std::optional<nlohmann::json>(std::move(facts));
}

Result<nlohmann::json> FactsFor(const std::string& image, const ScanArgs& args, const Knowledge& knowledge,
                                std::vector<config::Suppression>& inline_suppressions) {
  auto from_file = ReadFactsFile(image);
  if (!from_file.ok()) return from_file.error();
  if (*from_file) return std::move(**from_file);
  if (dockerfile::IsDockerfilePath(image)) return DockerfileFacts(image, args, knowledge, inline_suppressions);
  ReadImageOptions options;
  if (!args.platform.empty()) {
    auto platform = Platform::Parse(args.platform);
    if (!platform.ok()) return WithSubject(platform.error(), "--platform");
    options.open.platform = *platform;
    options.open.platform_explicit = true;
  }
  options.scan.progress = TerminalProgress();
  auto scanned = ReadImageArgument(image, options, *args.input);
  if (!scanned.ok()) return scanned.error();
  nlohmann::json facts = BuildFacts(*scanned, knowledge);
  if (!args.dockerfile.empty()) IMAGELINT_TRY(AnnotateWithDockerfile(facts, args));
  return facts;
}

RunFunction SetupScan(CLI::App& app) {
  auto args = std::make_shared<ScanArgs>();
  app.add_option("IMAGE", args->images,
                 "docker-save tarball, OCI layout directory or archive, rootfs directory, registry reference, "
                 "Dockerfile (detected by content), or a facts .json from `imagelint facts`")
      ->required();
  app.add_option("--build-arg", args->build_args, "Dockerfile inputs: NAME=VALUE for an ARG (repeatable)");
  app.add_option("--target", args->target, "Dockerfile inputs: the stage to check (default: the last)");
  app.add_option("--dockerfile", args->dockerfile,
                 "built images: the Dockerfile they were built from; findings point at its lines");
  AddImageInputOptions(app, args->input);
  app.add_option("--fleet", args->fleet, "fleet profile (pools of GPU hosts); without it only image checks run");
  app.add_option("--rules", args->rule_files, "extra rule file (repeatable)");
  app.add_option("--platform", args->platform, "os/arch[/variant] of a multi-platform image (default linux/amd64)");
  config::AddConfigFlags(app, *args->report);
  config::AddReportFlags(app, *args->report);
  return [args]() -> int {
    args->report->fleet = args->fleet;
    args->report->rule_files = args->rule_files;
    args->report->platform = args->platform;
    args->report->dockerfile = args->dockerfile;
    auto settings = config::ResolveConfig(*args->report);  // .imagelint.yaml + flags
    if (!settings.ok()) return ReportToolError(settings.error());
    args->fleet = settings->config.fleet.value_or("");
    args->rule_files = settings->config.rule_files;
    args->platform = settings->config.platform.value_or("");
    args->dockerfile = settings->config.dockerfile.value_or("");
    auto knowledge = Knowledge::LoadDefault();
    if (!knowledge.ok()) return ReportToolError(knowledge.error());
    Fleet fleet;
    if (!args->fleet.empty()) {
      // A fleet YAML, or `kubectl get nodes -o json`, `nvidia-smi -q -x`, `nvidia-container-cli info --csv`.
      auto loaded = fleet_import::LoadFleetAnyFormat(args->fleet, *knowledge);
      if (!loaded.ok()) return ReportToolError(loaded.error());
      fleet = std::move(*loaded);
    }
    auto rule_set = rules::LoadRuleSet(args->rule_files);
    if (!rule_set.ok()) return ReportToolError(rule_set.error());
    if (auto applied = rule_set->ApplyOverrides(settings->config.overrides); !applied.ok())
      return ReportToolError(applied.error());
    rules::FunctionRegistry functions = analysis::DefaultFunctions(*knowledge);
    if (auto checked = rule_set->CheckFunctions(functions); !checked.ok()) return ReportToolError(checked.error());

    std::vector<nlohmann::json> facts;
    std::vector<config::Suppression> inline_suppressions;
    for (const auto& image : args->images) {
      auto one = FactsFor(image, *args, *knowledge, inline_suppressions);
      if (!one.ok()) return ReportToolError(one.error());
      facts.push_back(std::move(*one));
    }
    auto report = analysis::Analyze(facts, fleet, *rule_set, functions);
    if (!report.ok()) return ReportToolError(report.error());
    // Reporters (SARIF, GitHub) locate findings in the Dockerfile an image names.
    for (size_t i = 0; i < facts.size() && i < (*report)["images"].size(); ++i)
      if (facts[i].contains("image") && facts[i]["image"].is_object() && facts[i]["image"].contains("dockerfile"))
        (*report)["images"][i]["dockerfile"] = facts[i]["image"]["dockerfile"];

    // Suppressions, --min-severity, every --format, and the exit code of --fail-on.
    settings->render.placement = [&fleet](const nlohmann::json& shown) {  // --format k8s
      return fleet_import::RenderPlacementAdvice(shown, fleet);
    };
    // The scan keeps its own text layout (analysis::RenderText), then the
    // report module's suppression/summary tail.
    settings->render.text_renderer = [](const nlohmann::json& shown, const report::RenderOptions& options) {
      return analysis::RenderText(shown) + "\n" + report::RenderTextSummary(shown, options);
    };
    auto code = config::FinishReport(*report, *settings, inline_suppressions, std::cout);
    if (!code.ok()) return ReportToolError(code.error());
    return *code;
  };
}

CommandRegistration registration({"scan", "predict, per pool of GPU hosts, whether images run (default command)",
                                   SetupScan, 10});

}  // namespace
}  // namespace imagelint::cli
