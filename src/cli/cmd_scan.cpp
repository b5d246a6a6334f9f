// `imagelint [scan] IMAGE... --fleet FILE`: will these images run on the
// fleet? Reads each image (or a facts JSON from `imagelint facts`), runs the
// rules over images × pools and prints the verdicts; the exit code follows
// --fail-on. Rendering is one function (WriteReport) for the report module.
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/command.h"
#include "cli/image_input.h"
#include "facts/facts.h"
#include "imagelint/analysis.h"
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
};

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

Result<nlohmann::json> FactsFor(const std::string& image, const ScanArgs& args) {
  auto from_file = ReadFactsFile(image);
  if (!from_file.ok()) return from_file.error();
  if (*from_file) return std::move(**from_file);
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
  return BuildFacts(*scanned);
}

// The one place that turns a report into output (src/report/ replaces it).
Status WriteReport(const nlohmann::json& report, const std::string& format, const Fleet& fleet, std::ostream& out) {
  if (format == "k8s") {  // placement advice over the fleet's pools (docs/fleet-import.md)
    auto advice = fleet_import::RenderPlacementAdvice(report, fleet);
    if (!advice.ok()) return advice.error();
    out << *advice;
  } else if (format == "json") {
    out << report.dump(2) << "\n";
  } else {
    out << analysis::RenderText(report);
  }
  return OkStatus();
}

RunFunction SetupScan(CLI::App& app) {
  auto args = std::make_shared<ScanArgs>();
  app.add_option("IMAGE", args->images,
                 "docker-save tarball, OCI layout directory or archive, rootfs directory, registry reference, "
                 "or a facts .json from `imagelint facts`")
      ->required();
  AddImageInputOptions(app, args->input);
  app.add_option("--fleet", args->fleet, "fleet profile (pools of GPU hosts); without it only image checks run");
  app.add_option("--rules", args->rule_files, "extra rule file (repeatable)");
  app.add_option("--platform", args->platform, "os/arch[/variant] of a multi-platform image (default linux/amd64)");
  app.add_option("--fail-on", args->fail_on, "exit 1 on findings at or above this severity (default error)")
      ->check(CLI::IsMember({"error", "warning", "note", "none"}));
  app.add_option("--format", args->format,
                 "text (default), json (imagelint.report/v1) or k8s (nodeAffinity keeping pods on passing pools)")
      ->check(CLI::IsMember({"text", "json", "k8s"}));
  app.add_option("--output", args->output, "write the report to FILE instead of standard output");
  return [args]() -> int {
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
    rules::FunctionRegistry functions = analysis::DefaultFunctions(*knowledge);
    if (auto checked = rule_set->CheckFunctions(functions); !checked.ok()) return ReportToolError(checked.error());

    std::vector<nlohmann::json> facts;
    for (const auto& image : args->images) {
      auto one = FactsFor(image, *args);
      if (!one.ok()) return ReportToolError(one.error());
      facts.push_back(std::move(*one));
    }
    auto report = analysis::Analyze(facts, fleet, *rule_set, functions);
    if (!report.ok()) return ReportToolError(report.error());

    Status written = OkStatus();
    if (args->output.empty() || args->output == "-") {
      written = WriteReport(*report, args->format, fleet, std::cout);
    } else {
      std::ofstream out(args->output, std::ios::binary | std::ios::trunc);
      if (!out) return ReportToolError(MakeError(args->output, "cannot write the report"));
      written = WriteReport(*report, args->format, fleet, out);
      out.close();
      if (!out) return ReportToolError(MakeError(args->output, "cannot write the report"));
    }
    if (!written.ok()) return ReportToolError(written.error());
    std::optional<rules::Severity> threshold = rules::ParseSeverity(args->fail_on);  // nullopt for "none"
    return analysis::HasFindingsAtOrAbove(*report, threshold) ? kExitFindings : kExitOk;
  };
}

CommandRegistration registration({"scan", "predict, per pool of GPU hosts, whether images run (default command)",
                                   SetupScan, 10});

}  // namespace
}  // namespace imagelint::cli
