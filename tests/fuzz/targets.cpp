#include "fuzz/targets.h"

namespace imagelint::fuzz {

const std::vector<Target>& Targets() {
  static const std::vector<Target> targets = {
      {"layer_tar", FuzzLayerTar, "one or two layer blobs (gzip, zstd, plain tar) scanned and merged"},
      {"image_archive", FuzzImageArchive, "a whole docker-save / OCI archive (gzip'd or not) opened and scanned"},
      {"cache_entry", FuzzCacheEntry, "layer cache files (sealed CBOR payloads, raw files) and LayerResult JSON"},
      {"registry_documents", FuzzRegistryDocuments, "registry manifests, indexes, configs, token answers, error bodies"},
      {"elf", FuzzElf, "ELF files (host libraries, cubins, standalone fatbins) through the ELF analyzer"},
      {"fatbin", FuzzFatbin, "fatbin containers through the streaming fatbin scanner"},
      {"cuda_text", FuzzCudaText, "version files, dpkg status, pip/conda metadata through the text analyzer and facts"},
      {"requirement_lnc", FuzzRequirementLnc, "NVIDIA_REQUIRE_* strings, libnvidia-container's evaluator"},
      {"requirement_go", FuzzRequirementGo, "NVIDIA_REQUIRE_* strings, nvidia-container-toolkit's Go evaluator"},
      {"dockerfile_parse", FuzzDockerfileParse, "Dockerfile parser and word expansion"},
      {"dockerfile_facts", FuzzDockerfileFacts, "Dockerfile -> facts"},
      {"fleet_yaml", FuzzFleetYaml, "fleet files"},
      {"rule_file", FuzzRuleFile, "rule files"},
      {"rule_expression", FuzzRuleExpression, "rule expressions and message templates, parsed and evaluated"},
      {"config_yaml", FuzzConfigYaml, ".imagelint.yaml through config::ParseConfig"},
      {"import_nodes", FuzzImportNodes, "kubectl get nodes -o json (GPU Feature Discovery labels)"},
      {"import_smi_xml", FuzzImportSmiXml, "nvidia-smi -q -x"},
      {"import_cli_csv", FuzzImportCliCsv, "nvidia-container-cli info --csv"},
      {"resp_reply", FuzzRespReply, "Redis RESP2 replies of the shared cache, split at any byte"},
      {"engine_answers", FuzzEngineAnswers, "Docker engine answers (inspect, history, an export's manifest.json)"},
  };
  return targets;
}

const Target* FindTarget(std::string_view name) {
  for (const auto& target : Targets()) {
    if (name == target.name) return &target;
  }
  return nullptr;
}

std::vector<std::string_view> SplitParts(const uint8_t* data, size_t size, size_t max_parts) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string_view> parts;
  while (parts.size() + 1 < max_parts) {
    size_t at = text.find(kSeparator);
    if (at == std::string_view::npos) break;
    parts.push_back(text.substr(0, at));
    text.remove_prefix(at + kSeparator.size());
  }
  parts.push_back(text);
  return parts;
}

}  // namespace imagelint::fuzz
