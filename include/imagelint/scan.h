// The layer scanner: streams each layer's tar once, records every entry and
// fans file contents out to the content analyzers; layers run in parallel.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "imagelint/analyzer.h"
#include "imagelint/layer.h"
#include "imagelint/result.h"
#include "imagelint/source.h"
#include "imagelint/stream.h"
#include "imagelint/tree.h"

namespace imagelint {

struct ScanProgress {
  size_t layers_done = 0;
  size_t layers_total = 0;
  uint64_t blob_bytes_done = 0;  // compressed bytes of finished layers
};

struct ScanOptions;

// Scans one layer: the default is ScanLayer below; a layer cache wraps it
// (look up by LayerRef digest + analyzer names/versions, else call through).
using LayerScanFunction = std::function<Result<LayerResult>(
    ImageSource& source, size_t index, const std::vector<FileAnalyzer*>& analyzers,
    const ScanOptions& options)>;

// What one image may hold, so that a small compressed input cannot make
// imagelint hold gigabytes of entries (20 M empty tar entries compress to
// 83 MB and took ~500 bytes each). Beyond a limit the scan fails (exit 2)
// with an Error naming it. docs/ROBUSTNESS.md lists them.
// An image at these limits takes under 5 s and 450 MB to scan, merge and
// turn into facts (docs/ROBUSTNESS.md has the measurements); the largest
// real images hold a few hundred thousand files with names of ~80 bytes.
struct ScanLimits {
  uint64_t max_entries_per_layer = 1'000'000;
  uint64_t max_entries_per_image = 1'000'000;
  // Bytes of entry names and link targets, which a layer can make long
  // (up to kMaxEntryPathBytes each) at almost no compressed size.
  uint64_t max_name_bytes_per_layer = 48ull << 20;
  uint64_t max_name_bytes_per_image = 48ull << 20;
  // Memory of the facts analyzers keep from file contents (ld.so.conf text,
  // package metadata, ELF and fatbin summaries), estimated as common/json_memory.h
  // does: thousands of files of small, capped facts each add up. A whole
  // PyTorch + CuPy + JAX installation keeps about 1 MiB.
  uint64_t max_fact_bytes_per_layer = 64ull << 20;
  uint64_t max_fact_bytes_per_image = 64ull << 20;
  TreeLimits tree;
};

// What one layer holds so far: entries, bytes of their names and link
// targets, and the estimated memory of the facts kept from their contents.
struct LayerLoad {
  uint64_t entries = 0;
  uint64_t name_bytes = 0;
  uint64_t fact_bytes = 0;
};

// The entries of an image counted across its layers while they are scanned
// (in parallel, some served by a cache): each layer's count is replaced, not
// added, so a layer scanned again is not counted twice.
class ImageBudget {
 public:
  ImageBudget(size_t layers, const ScanLimits& limits, std::string image);
  // Layer `index` now holds `load`; an Error when that puts the image over a
  // limit.
  Status Set(size_t index, const LayerLoad& load);

 private:
  ScanLimits limits_;
  std::string image_;
  std::vector<std::atomic<uint64_t>> entries_;
  std::vector<std::atomic<uint64_t>> name_bytes_;
  std::vector<std::atomic<uint64_t>> fact_bytes_;
  std::atomic<uint64_t> total_entries_{0};
  std::atomic<uint64_t> total_name_bytes_{0};
  std::atomic<uint64_t> total_fact_bytes_{0};
};

struct ScanOptions {
  int jobs = 0;                         // layers scanned at once; 0 = min(cores, 4)
  LayerScanFunction layer_scanner;      // empty = ScanLayer
  // Called from scanner threads (serialised) after each layer.
  std::function<void(const ScanProgress&)> progress;
  ScanLimits limits;
  // Set by ScanImage for the layers of one image (null: per-layer limits only).
  ImageBudget* budget = nullptr;
};

// Streams layer `index` of `source` once, handing regular files to `analyzers`.
// Errors: malformed/truncated tar, escaping paths, digest mismatch, limits.
Result<LayerResult> ScanLayer(ImageSource& source, size_t index,
                              const std::vector<FileAnalyzer*>& analyzers, const ScanOptions& options);

// An image read completely: metadata, per-layer results (base first) and the
// merged tree, which points into `layers` (so this object is move-only).
struct ScannedImage {
  ImageMetadata metadata;
  std::vector<LayerResult> layers;
  ImageTree tree;

  ScannedImage() = default;
  ScannedImage(ScannedImage&&) = default;
  ScannedImage& operator=(ScannedImage&&) = default;
  ScannedImage(const ScannedImage&) = delete;
  ScannedImage& operator=(const ScannedImage&) = delete;
};

// Scans all layers (in parallel) and merges them. The first layer error wins
// and is returned (naming the blob).
Result<ScannedImage> ScanImage(ImageSource& source, const std::vector<FileAnalyzer*>& analyzers,
                               const ScanOptions& options = {});

// ---- building blocks for sources (registry, tarballs, OCI layouts) -------

// Where a layer's hashing (LayerReadOptions::hash_threading) or inflating
// (decompress_threading) runs. kAuto: on a helper thread from the start for
// the image's critical path (OnCriticalPath), else from the moment fewer
// layer scans run than there are cores (asked again as the layer goes);
// inline otherwise. kInline / kHelperThread force one way (tests).
enum class HashThreading { kAuto, kInline, kHelperThread };

// Declared blob size from which a layer counts as big: the image's critical
// path when it is also its largest layer (OpenLayerStream, ScanImage).
inline constexpr uint64_t kBigLayerBytes = 64ull << 20;

// Lowers the calling thread's priority (nice +10) for the rest of its life;
// threads it starts inherit it. For threads that end with the work they do
// beside a scan's critical path: ScanImage's workers of the other layers
// while the big layer is read, the facts command's knowledge loading. On two
// cores the big layer's threads then keep their cores and the rest fills
// what they leave idle. A thread cannot raise its priority back without
// CAP_SYS_NICE, hence never the calling thread of a long-lived program.
void YieldToCriticalPath();

// Layer scans that ScanImage runs at this moment in this process (its
// worker threads). The layer reader reads it to decide HashThreading::kAuto.
std::atomic<int>& RunningLayerScans();

// Whether the layer being opened on this thread is its image's critical path
// (ScanImage marks the largest layer of an image with several): a big one
// then gets its helper threads from the start (kAuto), the others only once
// a core is free, so that they do not crowd it.
bool OnCriticalPath();
class CriticalPathScope {
 public:
  explicit CriticalPathScope(bool critical);
  ~CriticalPathScope();
  CriticalPathScope(const CriticalPathScope&) = delete;
  CriticalPathScope& operator=(const CriticalPathScope&) = delete;

 private:
  bool previous_;
};

struct LayerReadOptions {
  uint64_t max_uncompressed_bytes = 64ull << 30;  // gzip-bomb limit (OpenOptions)
  // Zeros a sparse tar entry may claim beyond the data it stores (its holes),
  // per file: past it the layer is refused rather than every hole read.
  uint64_t max_sparse_hole_bytes = 256ull << 20;
  bool verify = true;                             // check what covers the bytes at the end
  // With `verify`: which digest a compressed layer is checked against. The
  // blob digest when the layer has one (the manifest's; the uncompressed tar
  // follows from those bytes), the diff ID only where nothing else covers the
  // bytes (a legacy docker-save layer) or when this is set (--verify-diff-ids).
  // An uncompressed layer is hashed once and checked against both.
  bool verify_diff_ids = false;
  HashThreading hash_threading = HashThreading::kAuto;
  // Where a compressed layer is decompressed: on a read-ahead thread (see
  // HashThreading), so that inflating and parsing one big layer run on two
  // cores.
  HashThreading decompress_threading = HashThreading::kAuto;
  // Where a blob that is hashed is read and hashed: on a read-ahead thread of
  // its own (kAuto: for the image's big critical-path layer), so that the
  // thread inflating or parsing it does nothing else.
  HashThreading blob_threading = HashThreading::kAuto;
};

// Wraps a layer blob stream: sniffs gzip / zstd / plain tar by magic bytes,
// decompresses (ISA-L igzip, libzstd), reads the tar with libarchive and
// verifies `layer.digest` (blob bytes) and `layer.diff_id` (tar bytes) when
// they are set. `name` is used in messages ("blob sha256:...").
// A corrupted blob usually shows first as corrupt compressed data or a
// malformed tar, long before its digest is known — often already while the
// reader opens. Takes what OpenLayerStream returned: the first failure, of
// the opening or of a later read, that is not already a digest mismatch asks
// `explain` (which hashes the blob again, a failure path only) for the real
// cause: the error to report instead, or nullopt to keep the original.
using ExplainFailure = std::function<std::optional<Error>(const Error& first_symptom)>;
Result<std::unique_ptr<EntryReader>> ExplainReadFailures(Result<std::unique_ptr<EntryReader>> opened,
                                                         ExplainFailure explain);

Result<std::unique_ptr<EntryReader>> OpenLayerStream(std::unique_ptr<ByteStream> blob, const LayerRef& layer,
                                                     const LayerReadOptions& options);

// A stream that decompresses `input` when it starts with gzip or zstd magic
// (else passes it through), failing once more than `limit` bytes come out.
Result<std::unique_ptr<ByteStream>> OpenDecompressed(std::unique_ptr<ByteStream> input, uint64_t limit);

// Entry names and link targets longer than Linux's PATH_MAX: no container
// runtime could create such a file (containerd and Docker extract with full
// paths, which fail with ENAMETOOLONG), and deep implied directories are
// what make hostile layers expensive.
inline constexpr size_t kMaxEntryPathBytes = 4096;

// Cleans a tar entry name: "./a/./b//c/" -> "a/b/c", "a/../b" -> "b".
// Absolute names are rooted at the image root ("/" -> "", "/etc/x" ->
// "etc/x", "/../x" -> "x"), as container runtimes apply them; relative names
// escaping the root ("../x") and names longer than kMaxEntryPathBytes are
// errors.
Result<std::string> CleanEntryPath(std::string_view raw);

}  // namespace imagelint
