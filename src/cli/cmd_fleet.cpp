// `imagelint fleet import --from-k8s nodes.json | --from-nvidia-smi FILE |
// --from-nvidia-container-cli FILE [-o FILE]`: a fleet file from what the
// cluster already knows (docs/fleet-import.md).
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>

#include "cli/command.h"
#include "imagelint/fleet.h"
#include "imagelint/fleet_import.h"
#include "imagelint/knowledge.h"

namespace imagelint::cli {
namespace {

struct FleetImportArgs {
  std::string from_k8s;
  std::string from_nvidia_smi;
  std::string from_container_cli;
  std::string output;
};

// "-" reads standard input (kubectl get nodes -o json | imagelint fleet import --from-k8s -).
Result<fleet_import::ImportResult> ImportInput(const std::string& path, fleet_import::InputKind kind,
                                               const fleet_import::GpuResolver& gpus) {
  if (path != "-") return fleet_import::ImportFile(path, gpus, kind);
  fleet_import::ImportLimits limits;
  std::string text;
  char buffer[65536];
  while (std::cin.read(buffer, sizeof buffer) || std::cin.gcount() > 0) {
    text.append(buffer, static_cast<size_t>(std::cin.gcount()));
    if (text.size() > limits.max_input_bytes)
      return MakeError("<stdin>", "larger than " + std::to_string(limits.max_input_bytes) + " bytes");
  }
  return fleet_import::ImportText(kind, text, "<stdin>", gpus, limits);
}

int RunImport(const FleetImportArgs& args) {
  std::vector<std::pair<std::string, fleet_import::InputKind>> inputs;
  if (!args.from_k8s.empty()) inputs.emplace_back(args.from_k8s, fleet_import::InputKind::kKubernetesNodes);
  if (!args.from_nvidia_smi.empty()) inputs.emplace_back(args.from_nvidia_smi, fleet_import::InputKind::kNvidiaSmiXml);
  if (!args.from_container_cli.empty())
    inputs.emplace_back(args.from_container_cli, fleet_import::InputKind::kContainerCliCsv);
  if (inputs.size() != 1)
    return ReportToolError(MakeError("fleet import",
                                     "give exactly one of --from-k8s, --from-nvidia-smi, --from-nvidia-container-cli"));

  auto knowledge = Knowledge::LoadDefault();
  if (!knowledge.ok()) return ReportToolError(knowledge.error());
  auto imported = ImportInput(inputs[0].first, inputs[0].second, fleet_import::ResolverFromKnowledge(*knowledge));
  if (!imported.ok()) return ReportToolError(imported.error());
  std::string yaml = fleet_import::RenderFleetYaml(*imported);

  // The written file must mean to the fleet loader what the import meant.
  auto check = ParseFleet(yaml, args.output.empty() ? "<imported fleet>" : args.output, *knowledge);

  if (args.output.empty() || args.output == "-") {
    std::cout << yaml;
    std::cout.flush();
    if (!std::cout) return ReportToolError(MakeError("<stdout>", "write failed"));
  } else {
    std::ofstream out(args.output, std::ios::binary | std::ios::trunc);
    out << yaml;
    out.close();
    if (!out) return ReportToolError(MakeError(args.output, "cannot write"));
  }

  const auto& r = *imported;
  const char* unit = r.kind == fleet_import::InputKind::kKubernetesNodes ? "node" : "host";
  std::cerr << "imagelint: imported " << r.pools.size() << " pool" << (r.pools.size() == 1 ? "" : "s") << " from "
            << r.hosts_seen << " " << unit << (r.hosts_seen == 1 ? "" : "s") << " of " << r.source << "; "
            << r.skipped.size() << " without GPU information skipped\n";
  for (const auto& warning : r.warnings) std::cerr << "imagelint: warning: " << warning << "\n";
  if (!check.ok())
    std::cerr << "imagelint: warning: the fleet file needs editing before it loads: " << check.error().ToString()
              << "\n";
  return kExitOk;
}

RunFunction SetupFleet(CLI::App& app) {
  auto args = std::make_shared<FleetImportArgs>();
  app.require_subcommand(1, 1);
  CLI::App* import = app.add_subcommand(
      "import", "write a fleet file from Kubernetes node labels, nvidia-smi -q -x or nvidia-container-cli info --csv");
  import->add_option("--from-k8s", args->from_k8s,
                     "output of `kubectl get nodes -o json` (GPU Feature Discovery labels); - for stdin");
  import->add_option("--from-nvidia-smi", args->from_nvidia_smi,
                     "output of `nvidia-smi -q -x`, one or more hosts concatenated; - for stdin");
  import->add_option("--from-nvidia-container-cli", args->from_container_cli,
                     "output of `nvidia-container-cli info --csv`, one or more hosts; - for stdin");
  import->add_option("-o,--output", args->output, "write the fleet file here (default: standard output)");
  import->footer(
      "Hosts with identical driver, GPU product, GPU count and compute capability form one pool.\n"
      "Any of these inputs also works directly as `imagelint IMAGE --fleet FILE`.");
  return [args, import]() -> int {
    if (import->parsed()) return RunImport(*args);
    return ReportToolError(MakeError("fleet", "unknown subcommand"));
  };
}

CommandRegistration registration({"fleet", "import a fleet file from node labels, nvidia-smi or nvidia-container-cli",
                                  SetupFleet, 60});

}  // namespace
}  // namespace imagelint::cli
