// The fuzz targets (docs/ROBUSTNESS.md): one entry function per parser of
// untrusted input. Each is a plain function, so that the same code runs
//   * under libFuzzer (fuzz_main.cpp, built with -DIMAGELINT_FUZZ=ON), and
//   * in the normal test suite, which replays every saved crash input
//     (tests/fuzz/regressions/<target>/) and every generated seed
//     (replay_test.cpp).
// An entry function returns 0 and must not crash, hang, leak or throw for
// any input: an exception that escapes is a finding too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace imagelint::fuzz {

using Entry = int (*)(const uint8_t* data, size_t size);

struct Target {
  const char* name;         // "layer_tar": fuzz_layer_tar, regressions/layer_tar/
  Entry run;
  const char* what;         // one line for the report
};

const std::vector<Target>& Targets();
const Target* FindTarget(std::string_view name);

// Multi-part inputs (a manifest and its config, an expression and a
// template) are split on this separator (also in the dictionaries).
inline constexpr std::string_view kSeparator = "\n#--8<--#\n";
std::vector<std::string_view> SplitParts(const uint8_t* data, size_t size, size_t max_parts);

// Entry functions, by module.
int FuzzLayerTar(const uint8_t* data, size_t size);          // scan + merge
int FuzzImageArchive(const uint8_t* data, size_t size);      // source + scan + merge
int FuzzCacheEntry(const uint8_t* data, size_t size);        // cache
int FuzzRegistryDocuments(const uint8_t* data, size_t size); // registry
int FuzzElf(const uint8_t* data, size_t size);               // cuda (ELF analyzer)
int FuzzFatbin(const uint8_t* data, size_t size);            // cuda (fatbin scanner)
int FuzzCudaText(const uint8_t* data, size_t size);          // cuda (text analyzer + facts)
int FuzzRequirementLnc(const uint8_t* data, size_t size);    // nvidia (libnvidia-container DSL)
int FuzzRequirementGo(const uint8_t* data, size_t size);     // nvidia (nvidia-container-toolkit Go side)
int FuzzDockerfileParse(const uint8_t* data, size_t size);   // dockerfile parser
int FuzzDockerfileFacts(const uint8_t* data, size_t size);   // dockerfile -> facts
int FuzzFleetYaml(const uint8_t* data, size_t size);         // fleet
int FuzzRuleFile(const uint8_t* data, size_t size);          // rules (files)
int FuzzRuleExpression(const uint8_t* data, size_t size);    // rules (expressions, templates)
int FuzzConfigYaml(const uint8_t* data, size_t size);        // config (.imagelint.yaml)
int FuzzImportNodes(const uint8_t* data, size_t size);       // fleet_import (kubectl nodes JSON)
int FuzzImportSmiXml(const uint8_t* data, size_t size);      // fleet_import (nvidia-smi -q -x)
int FuzzImportCliCsv(const uint8_t* data, size_t size);      // fleet_import (nvidia-container-cli info --csv)
int FuzzRespReply(const uint8_t* data, size_t size);         // cache (Redis RESP2 replies)
int FuzzEngineAnswers(const uint8_t* data, size_t size);     // engine (inspect, history, manifest.json answers)

}  // namespace imagelint::fuzz
