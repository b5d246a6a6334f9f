// `imagelint fleet import --from-k8s nodes.json | --from-nvidia-smi FILE |
// --from-nvidia-container-cli FILE [-o FILE]`: a fleet file from what the
// cluster already knows (docs/fleet-import.md).
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>

#include "cli/command.h"
#include "common/file_text.h"
#include "imagelint/pipeline.h"
#include "imagelint/report.h"

namespace imagelint::cli {
namespace {

struct FleetImportArgs {
  std::string from_k8s;
  std::string from_nvidia_smi;
  std::string from_container_cli;
  std::string output;
};

// "-" reads standard input (kubectl get nodes -o json | imagelint fleet import --from-k8s -).
Result<FleetImport> ImportInput(const std::string& path, fleet_import::InputKind kind, const std::string& fleet_name,
                                const Context& context) {
  if (path != "-") return ImportFleetFile(kind, path, fleet_name, context);
  auto text = ReadBoundedStream(std::cin, fleet_import::ImportLimits{}.max_input_bytes, "<stdin>", "standard input");
  if (!text.ok()) return text.error();
  return ImportFleet(kind, *text, "<stdin>", fleet_name, context);
}

int RunImport(const FleetImportArgs& args, const Environment& environment) {
  std::vector<std::pair<std::string, fleet_import::InputKind>> inputs;
  if (!args.from_k8s.empty()) inputs.emplace_back(args.from_k8s, fleet_import::InputKind::kKubernetesNodes);
  if (!args.from_nvidia_smi.empty()) inputs.emplace_back(args.from_nvidia_smi, fleet_import::InputKind::kNvidiaSmiXml);
  if (!args.from_container_cli.empty())
    inputs.emplace_back(args.from_container_cli, fleet_import::InputKind::kContainerCliCsv);
  if (inputs.size() != 1)
    return ReportToolError(MakeError("fleet import",
                                     "give exactly one of --from-k8s, --from-nvidia-smi, --from-nvidia-container-cli"));

  const std::string fleet_name = args.output.empty() ? "<imported fleet>" : args.output;
  auto imported = ImportInput(inputs[0].first, inputs[0].second, fleet_name, environment.MakeContext());
  if (!imported.ok()) return ReportToolError(imported.error());

  if (args.output.empty() || args.output == "-") {
    std::cout << imported->yaml;
    std::cout.flush();
    if (!std::cout) return ReportToolError(MakeError("<stdout>", "write failed"));
  } else {
    std::ofstream out(args.output, std::ios::binary | std::ios::trunc);
    out << imported->yaml;
    out.close();
    if (!out) return ReportToolError(MakeError(args.output, "cannot write"));
  }

  std::cerr << "imagelint: " << report::FleetImportSummary(imported->imported) << "\n";
  for (const auto& warning : imported->imported.warnings) std::cerr << "imagelint: warning: " << warning << "\n";
  if (imported->load_problem)
    std::cerr << "imagelint: warning: the fleet file needs editing before it loads: "
              << imported->load_problem->ToString() << "\n";
  return kExitOk;
}

RunFunction SetupFleet(CLI::App& app) {
  auto args = std::make_shared<FleetImportArgs>();
  app.require_subcommand(1, 1);
  CLI::App* import = app.add_subcommand(
      "import", "write a fleet file from Kubernetes node labels, nvidia-smi -q -x or nvidia-container-cli info --csv");
  import->add_option("--from-k8s", args->from_k8s,
                     "output of `kubectl get nodes -o json` (GPU Feature Discovery labels); - for stdin")
      ->type_name("FILE");
  import->add_option("--from-nvidia-smi", args->from_nvidia_smi,
                     "output of `nvidia-smi -q -x`, one or more hosts concatenated; - for stdin")
      ->type_name("FILE");
  import->add_option("--from-nvidia-container-cli", args->from_container_cli,
                     "output of `nvidia-container-cli info --csv`, one or more hosts; - for stdin")
      ->type_name("FILE");
  import->add_option("-o,--output", args->output, "write the fleet file here (default: standard output)")
      ->type_name("FILE");
  import->footer(
      "Hosts with identical driver, GPU product, GPU count and compute capability form one pool.\n"
      "Any of these inputs also works directly as `imagelint IMAGE --fleet FILE`.");
  return [args, import](const Environment& environment) -> int {
    if (import->parsed()) return RunImport(*args, environment);
    return ReportToolError(MakeError("fleet", "unknown subcommand"));
  };
}

CommandRegistration fleet_registration({"fleet", "import a fleet file from node labels, nvidia-smi or nvidia-container-cli",
                                  SetupFleet, 60});

}  // namespace
}  // namespace imagelint::cli
