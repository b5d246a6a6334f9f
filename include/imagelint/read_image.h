// The public entry points of image reading, for the CLI and other modules:
// open -> scan (parallel, streaming, analyzers) -> merge -> facts.
//
//   auto source = OpenLocalImage(path, open_options);          // imagelint/open_image.h
//   auto analyzers = DefaultAnalyzers(knowledge);
//   auto image = ScanImage(**source, AnalyzerPointers(analyzers), scan_options);  // imagelint/scan.h
//   facts::Facts model = BuildFactsModel(*image, knowledge);   // include/imagelint/facts.h
//   nlohmann::json facts = facts::WriteFacts(model);           // schema imagelint.facts/v1
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "imagelint/analyzer.h"
#include "imagelint/facts.h"
#include "imagelint/knowledge.h"
#include "imagelint/open_image.h"
#include "imagelint/scan.h"

namespace imagelint {

inline constexpr const char* kFactsSchema = facts::kSchemaName;

struct ReadImageOptions {
  OpenOptions open;
  ScanOptions scan;
};

// OpenLocalImage + ScanImage with DefaultAnalyzers(knowledge): the whole read
// of a local image (tarball, OCI layout/archive, rootfs directory).
Result<ScannedImage> ReadImage(const std::string& path, const ReadImageOptions& options, const Knowledge& knowledge);

// "64G", "512M", "1048576" -> bytes (for --max-layer-bytes).
Result<uint64_t> ParseByteSize(const std::string& text);
// 1536 -> "1.5 KiB", 12 -> "12 B" (binary units, for people).
std::string HumanBytes(uint64_t bytes);

// Every content analyzer imagelint runs by default (add yours here);
// `knowledge` says which package records they keep.
std::vector<std::unique_ptr<FileAnalyzer>> DefaultAnalyzers(const Knowledge& knowledge);
std::vector<FileAnalyzer*> AnalyzerPointers(const std::vector<std::unique_ptr<FileAnalyzer>>& analyzers);

// Every part of the facts model of a scanned image (add your part's builder
// call here). `knowledge` gives the loader's directories and library names.
facts::Facts BuildFactsModel(const ScannedImage& image, const Knowledge& knowledge);
// A facts document written by an older imagelint or another producer: the
// parts a scan derives from the facts themselves (binaries' reachability,
// docs/cuda-facts.md) are filled in where missing.
void CompleteFactsDocument(facts::Facts& facts, const Knowledge& knowledge);
// WriteFacts(BuildFactsModel(...)): {"schema": "imagelint.facts/v1", "image": {...}, ...}.
nlohmann::json BuildFacts(const ScannedImage& image, const Knowledge& knowledge);
// The `image` part: ref, digest, kind, os, architecture, variant, env{},
// labels{}, layers[{digest, diff_id, media_type, size, created_by, entries,
// uncompressed_size}], problems[].
facts::Image BuildImageFacts(const ScannedImage& image);

// A file of the host read as if an image held it at `image_path` (Dockerfile
// mode: what COPY brings from the build context).
struct HostFileInImage {
  std::string host_path;
  std::string image_path;  // no leading '/'
};
// The binaries[] rows of those files, as an image scan writes them (ELF and
// fatbin analyzers, then the facts builder): the files with GPU code, a CUDA
// library in DT_NEEDED, static-cudart markers or problems. Files are opened
// without following a final symbolic link and without blocking; anything but
// a regular file is an error naming it. No reachability is derived (it needs
// the whole image).
Result<std::vector<facts::Binary>> ReadHostBinaries(const std::vector<HostFileInImage>& files,
                                                    const Knowledge& knowledge);
// Human-readable rendering of BuildFacts() output (`facts --format text`).
std::string FactsToText(const nlohmann::json& facts);

// `imagelint ls`: one line per visible path of the merged tree matching
// `glob` (fnmatch, `*` also crosses '/'; empty = everything):
// "<type> <mode> <size> L<layer> /<path>[ -> <target>]".
std::string ListTree(const ScannedImage& image, const std::string& glob);

}  // namespace imagelint
