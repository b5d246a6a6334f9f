// CUDA facts from image files (docs/cuda-facts.md).
//
// Two streaming analyzers run inside the layer scanner:
//   * "cuda.elf"  — every ELF file (host binaries, cubins) and standalone
//                   fatbin: SONAME, NEEDED, RPATH/RUNPATH, notes (incl.
//                   `.note.cuda.fwd_compatibility`), fatbin containers and
//                   their entries, static-cudart markers, problems.
//   * "cuda.text" — small text files that carry versions: CUDA version.json /
//                   version.txt, dpkg status, pip METADATA, conda-meta JSON,
//                   framework version files, ld.so.conf{,.d/*}; strict caps.
// AddCudaFacts then reads the merged tree and fills the `cuda`, `binaries`
// and `frameworks` parts of the facts model (include/imagelint/facts.h).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "imagelint/analyzer.h"
#include "imagelint/facts.h"
#include "imagelint/knowledge.h"

namespace imagelint {
class ImageTree;
class Knowledge;
struct ImageMetadata;
}  // namespace imagelint

namespace imagelint::cuda {

inline constexpr std::string_view kElfAnalyzerName = "cuda.elf";
inline constexpr std::string_view kTextAnalyzerName = "cuda.text";

std::unique_ptr<FileAnalyzer> MakeElfAnalyzer();
// `captured`: the packages whose records it keeps (Knowledge::CapturedPackageNames).
std::unique_ptr<FileAnalyzer> MakeTextAnalyzer(CapturedPackages captured);
// Both analyzers, for DefaultAnalyzers().
std::vector<std::unique_ptr<FileAnalyzer>> MakeCudaAnalyzers(const CapturedPackages& captured);

// Which text files the text analyzer captures ("" = none), by image path.
std::string TextKindForPath(std::string_view path, const CapturedPackages& captured);

// One visible file of the merged image, as the facts builder needs it.
struct CudaFile {
  std::string path;             // "usr/lib/x86_64-linux-gnu/libcudart.so.12" (no leading '/')
  EntryType type = EntryType::kRegular;
  std::string link_target;      // symlinks: target as stored
  uint64_t size = 0;
  size_t layer = 0;             // index into the image's layers
  const nlohmann::json* elf = nullptr;   // "cuda.elf" result, when any
  const nlohmann::json* text = nullptr;  // "cuda.text" result, when any
};

struct CudaFactsInput {
  std::vector<CudaFile> files;     // every visible path, any order
  nlohmann::json config;           // image config JSON (env in config.Env)
  std::vector<std::string> layer_digests;
  // Follows symlinks inside the image; nullopt when dangling/looping. May be empty
  // (then only the files' own link targets are used, one hop).
  std::function<std::optional<std::string>(std::string_view)> resolve;
};

// Fills facts.cuda, facts.binaries and facts.frameworks (docs/cuda-facts.md).
// `knowledge` gives the loader's directories and the CUDA library names.
void AddCudaFacts(const CudaFactsInput& input, const Knowledge& knowledge, facts::Facts& facts);
// Convenience over the merged tree (links imagelint_merge).
void AddCudaFacts(const ImageTree& tree, const ImageMetadata& metadata, const Knowledge& knowledge,
                  facts::Facts& facts);

// Facts written without reachability: derived from the binaries they list
// (src/cuda/reachability.h).
void DeriveReachability(facts::Facts& facts, const Knowledge& knowledge);

// Human-readable blocks for `imagelint facts --format text`: one block per
// runtime, driver, binary and framework, each with evidence path and layer
// (from the written facts, WriteFacts).
std::string FormatCudaFactsText(const nlohmann::json& facts);

}  // namespace imagelint::cuda
