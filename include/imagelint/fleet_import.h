// Fleet profiles from what clusters already know (docs/fleet-import.md).
//
// Three inputs describe GPU hosts without anyone typing a fleet file:
//   * `kubectl get nodes -o json` with GPU Feature Discovery labels (both the
//     old `nvidia.com/cuda.driver.*` and the new `nvidia.com/cuda.driver-version.*`
//     generations, MIG products, `-SHARED` sharing suffixes);
//   * `nvidia-smi -q -x` XML, one or more hosts concatenated;
//   * `nvidia-container-cli info --csv`, one or more hosts concatenated.
// An import groups identical hosts into pools (driver, GPU product, GPUs per
// host, compute capability, platform), fills what the input lacks from the
// GPU knowledge file (GFD has no brand label) and says when it had to guess.
//
// LoadFleetAnyFormat() accepts any of these wherever a fleet is expected, and
// RenderPlacementAdvice() turns a report (`imagelint.report/v1`) plus the
// fleet into a Kubernetes nodeAffinity that keeps pods on passing pools.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "imagelint/fleet.h"
#include "imagelint/result.h"

namespace imagelint {
class Knowledge;  // include/imagelint/knowledge.h
}

namespace imagelint::fleet_import {

// What the GPU knowledge file says about one product.
struct GpuFacts {
  std::string name;  // canonical name as nvidia-smi prints it
  std::optional<std::string> compute_capability;
  std::optional<std::string> brand;  // lowercase NVML brand
  std::optional<bool> datacenter;
};

// One NVML brand as the importers read it (a row of nvml-brands.yaml).
struct BrandNames {
  std::string requirement;                 // "vapps": how requirements and fleet files spell it
  std::vector<std::string> spellings;      // how tools print it: "VApps", "NVIDIA Virtual Applications"
  std::vector<std::string> product_words;  // words of a product name that give it away ("geforce")
  std::string since_lnc;                   // libnvidia-container prints it as Unknown before this ("" = always known)
};
// The brands of the knowledge files, in file order.
std::vector<BrandNames> BrandNamesFromKnowledge(const Knowledge& knowledge);

// What the importers know about GPUs. `find` looks a product name up; it
// accepts nvidia-smi spellings and GFD-sanitised label values
// ("NVIDIA-A100-SXM4-80GB") and gives nullopt when the product is unknown.
// `brands` reads the brand an input prints and guesses one from an unknown
// product's name.
struct GpuResolver {
  std::function<std::optional<GpuFacts>(std::string_view product)> find;
  std::vector<BrandNames> brands;
  std::optional<GpuFacts> operator()(std::string_view product) const {
    return find ? find(product) : std::nullopt;
  }
};

// A resolver over the GPU products and brands of the knowledge files
// (`knowledge` must outlive it).
GpuResolver ResolverFromKnowledge(const Knowledge& knowledge);

enum class InputKind { kKubernetesNodes, kNvidiaSmiXml, kContainerCliCsv, kFleetYaml };
std::string_view InputKindName(InputKind kind);  // "k8s", "nvidia-smi", "nvidia-container-cli", "fleet"

// Guesses the kind of a fleet input from its first bytes: JSON → Kubernetes
// nodes, `<` → nvidia-smi XML, an "NVRM version" header → container-cli CSV,
// anything else → fleet YAML.
InputKind DetectInputKind(std::string_view text);

// One pool of an import, with what the fleet file's comments show.
struct ImportedPool {
  Pool pool;                       // name, gpu, cc, brand, driver, count (hosts), selector_labels...
  std::vector<std::string> hosts;  // node names (k8s) or "host N" / "# host:" names
  int gpus_per_host = 0;
  std::string product_label;       // the raw product as the input spelled it
  std::optional<std::string> mig_profile;  // "1g.5gb" for MIG products
  std::optional<std::string> sharing;      // "SHARED" suffix / sharing strategy
  std::optional<std::string> cuda_version; // driver's max CUDA, when the input says
  bool in_knowledge = false;       // the product was found in the GPU knowledge file
  GpuFacts known;                  // what the knowledge file says (when in_knowledge)
  bool brand_guessed = false;      // brand inferred from the product name
  std::vector<std::string> notes;  // one line each, written as comments
};

struct ImportResult {
  std::string source;  // input file name
  InputKind kind = InputKind::kKubernetesNodes;
  std::vector<ImportedPool> pools;
  int hosts_seen = 0;
  std::vector<std::string> skipped;   // hosts without GPU information (names)
  std::vector<std::string> warnings;  // one line each
};

struct ImportLimits {
  size_t max_input_bytes = 64u << 20;
  int max_hosts = 100000;
  int max_labels_per_node = 4096;
  int max_gpus_per_host = 1024;
  int max_xml_depth = 64;
  size_t max_xml_elements = 2'000'000;
};

// Parsers of the three inputs. `source` names the input in errors and
// provenance; errors name the node (k8s) or line:column (XML, CSV).
Result<ImportResult> ImportKubernetesNodes(std::string_view json_text, const std::string& source,
                                           const GpuResolver& gpus, const ImportLimits& limits = {});
Result<ImportResult> ImportNvidiaSmiXml(std::string_view xml_text, const std::string& source,
                                        const GpuResolver& gpus, const ImportLimits& limits = {});
Result<ImportResult> ImportContainerCliCsv(std::string_view csv_text, const std::string& source,
                                           const GpuResolver& gpus, const ImportLimits& limits = {});
// Dispatches on `kind` (not kFleetYaml).
Result<ImportResult> ImportText(InputKind kind, std::string_view text, const std::string& source,
                                const GpuResolver& gpus, const ImportLimits& limits = {});
// Reads `path` (bounded) and imports it, detecting the kind when not given.
Result<ImportResult> ImportFile(const std::string& path, const GpuResolver& gpus,
                                std::optional<InputKind> kind = std::nullopt,
                                const ImportLimits& limits = {});

// The fleet YAML of DESIGN.md, with a comment per pool (hosts it came from,
// guesses, MIG/sharing) and the selector labels under `selector_labels:`.
std::string RenderFleetYaml(const ImportResult& result);
// The pools as a Fleet (what the rule engine reads).
Fleet ToFleet(const ImportResult& result);

// Loads a fleet from any supported input: Kubernetes nodes JSON, nvidia-smi
// XML, container-cli CSV (imported with the knowledge's GPU table), or a fleet
// YAML file (the fleet loader of src/fleet/).
Result<Fleet> LoadFleetAnyFormat(const std::string& path, const Knowledge& knowledge,
                                 const std::filesystem::path& yaml_memo_dir = {});

// GFD's `sanitise`: characters outside [A-Za-z0-9-_. ] removed, whitespace
// runs → "-" (k8s-device-plugin internal/lm/resource.go).
std::string SanitiseLabelValue(std::string_view name);

}  // namespace imagelint::fleet_import
