// Knowledge: the versioned data files under rules/knowledge/ (docs/knowledge.md).
//
// Every file is YAML of the form
//
//   kind: gpus            # must match the file's table
//   schema: 1
//   rows:
//     - name: NVIDIA GeForce RTX 3090
//       compute_capability: "8.6"
//       ...
//       source: S4 S19     # ids from sources.yaml (each a public title + url)
//       unconfirmed: nvidia-smi spelling   # optional: what no source confirms
//
// Rows are kept as JSON objects (so the rule language can read them as they
// are) and validated against a per-table schema at load time: unknown fields,
// wrong types, malformed versions, unknown source ids and duplicate keys are
// errors reported as file:line:column. Each row also carries "_file" and
// "_line" for messages. Adding a GPU or a CUDA release means adding a row:
// no C++ changes.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "imagelint/gpu_signals.h"
#include "imagelint/result.h"

namespace imagelint {

struct BaseImageKnowledge;  // include/imagelint/image_knowledge.h
struct PackageKnowledge;
struct CommandKnowledge;
class Knowledge;

// Which installed packages the layer scan keeps (captured-packages.yaml).
struct CapturedPackages {
  std::vector<std::string> python_prefixes;  // pip and conda names, lower case, `_` read as `-` ("nvidia-")
  std::vector<std::string> dpkg_words;       // dpkg names containing one, lower case ("cudnn")
};
// Builds the typed base-images / packages tables of a loaded Knowledge and
// checks them across rows (src/knowledge/image_tables.cpp; called by Load).
Status LoadImageTables(Knowledge& knowledge);

// The tables this loader knows, with their file names (rules/knowledge/<file>).
struct KnowledgeTableInfo {
  std::string kind;  // "gpus"
  std::string file;  // "gpus.yaml"
  std::string key;   // field that must be unique within the table ("" = none)
  std::string summary;
};
const std::vector<KnowledgeTableInfo>& KnowledgeTables();

class Knowledge {
 public:
  Knowledge() = default;

  // The knowledge directory of a data directory (a checkout, or an installed
  // share/imagelint): <data_dir>/rules/knowledge. The caller decides the data
  // directory (the command line: $IMAGELINT_KNOWLEDGE_DIR or its own location).
  static std::filesystem::path DefaultDirectory(const std::filesystem::path& data_dir);

  // Loads and validates every table file of KnowledgeTables() from `dir`.
  // A missing file, a YAML syntax error or a schema violation is an Error
  // naming file:line:column (the CLI maps it to exit 2). A file may hold
  // several tables as YAML documents (base-images.yaml, packages.yaml).
  static Result<Knowledge> Load(const std::filesystem::path& dir);
  // The same, through a cache of the parsed tables in `cache_dir`
  // (knowledge/<key>.cbor, the key two CRC-64s of the directory, the schemas
  // and every file's bytes): parsing the YAML is most of the time a Dockerfile
  // check takes. "" = no cache. A cache file that is missing, corrupt or
  // cannot be written only costs the parse (src/knowledge/cache.cpp).
  static Result<Knowledge> Load(const std::filesystem::path& dir, const std::string& cache_dir);

  // Rows of every table by kind, as Load parses and validates them.
  using Tables = std::map<std::string, nlohmann::json, std::less<>>;
  static Result<Tables> ParseTables(const std::filesystem::path& dir);
  // Knowledge from parsed tables: the checks across tables and the typed
  // image tables (base images, packages), as Load does after parsing.
  static Result<Knowledge> FromTables(const std::filesystem::path& dir, Tables tables);
  static Result<Knowledge> LoadDefault(const std::filesystem::path& data_dir) {
    return Load(DefaultDirectory(data_dir));
  }

  // Loads one table from text (tests, and `Load`): `kind` selects the schema,
  // `file_name` is only used in messages. Source ids are checked against
  // `source_ids` when it is non-empty.
  static Result<nlohmann::json> ParseTable(std::string_view kind, std::string_view text,
                                           const std::string& file_name,
                                           const std::vector<std::string>& source_ids = {});

  // Rows of a table as a JSON array ("gpus", "toolkits"...); an empty array
  // for an unknown name.
  const nlohmann::json& Table(std::string_view kind) const;
  const std::filesystem::path& directory() const { return directory_; }
  // KnowledgeDigest(directory()) when the loader already knows it (a load
  // through the cache keeps it beside the tables, under a key that covers
  // every byte it is made from); nullopt otherwise.
  const std::optional<std::string>& known_digest() const { return digest_; }

  // ---- lookups used by fleet and nvidia semantics (all return rows) ----

  // GPU by the name nvidia-smi prints: exact (case-insensitive, spaces
  // collapsed) on `name` or `aliases`, then with an "NVIDIA " prefix added or
  // removed. nullptr when unknown.
  const nlohmann::json* FindGpu(std::string_view product) const;
  // Up to `max` known names closest to `product` by edit distance
  // (case-insensitive), best first.
  std::vector<std::string> ClosestGpuNames(std::string_view product, size_t max = 3) const;
  // Toolkit release by full version ("11.3.1") or label prefix ("11.3" gives
  // the GA row of 11.3).
  const nlohmann::json* FindToolkit(std::string_view version) const;
  // Driver branch row (460 for "460.67").
  const nlohmann::json* FindBranch(int branch) const;
  // CUDA version a branch supports natively ("11.2" for 460); nullopt when
  // the branch is not in driver-branches.yaml.
  std::optional<std::string> BranchCudaVersion(int branch) const;
  // The highest branch of driver_branches at or below `branch`; -1 if none.
  int NearestBranchAtOrBelow(int branch) const;
  // Minor-version compatibility row for a CUDA major (11, 12, 13...).
  const nlohmann::json* FindMinorFloor(int cuda_major) const;
  // PTX ISA row ("7.3" → CUDA "11.3").
  const nlohmann::json* FindPtxIsa(std::string_view isa) const;
  // Forward-compat matrix row for a compat package's CUDA "M.m".
  const nlohmann::json* FindCompatPackage(std::string_view cuda_major_minor) const;
  // compat-libraries.yaml row of a compat libcuda version ("575.57.08"),
  // with `elf_note_branches` where its ELF note is public; nullptr if unknown.
  const nlohmann::json* FindCompatLibrary(std::string_view libcuda) const;
  // Architecture row containing compute capability "8.6".
  const nlohmann::json* FindArchitecture(std::string_view compute_capability) const;
  // Container-toolkit behaviour row that applies to `version` (the newest
  // row whose `version` is <= it); nullptr if older than every row.
  const nlohmann::json* ToolkitBehaviour(std::string_view version) const;
  // Newest container-toolkit version in container-toolkit.yaml (the fleet
  // default when a pool does not say).
  std::string NewestContainerToolkit() const;
  // sass.yaml row of a compute capability written as the row writes it
  // ("8.6", "9.0a"); nullptr if none.
  const nlohmann::json* FindSass(std::string_view compute_capability) const;
  // CUDA error row by code (804) or name ("cudaErrorCompatNotSupportedOnDevice").
  const nlohmann::json* FindError(int code) const;
  // PyTorch build row by torch "2.1" (or "2.1.2") and variant "cu118".
  const nlohmann::json* FindTorchBuild(std::string_view torch_version, std::string_view variant) const;
  // NVML brand row by enum id or by name (case-insensitive, "geforce").
  const nlohmann::json* FindBrand(std::string_view name) const;
  const nlohmann::json* FindBrandId(int id) const;

  // ---- loader directories and CUDA library names (loader.yaml, cuda-targets.yaml,
  //      cudart-sonames.yaml, runtime-libraries.yaml) ----

  // The loader's default directories in search order ("/lib/x86_64-linux-gnu",
  // ..., "/lib", "/usr/lib"). With a library triplet ("aarch64-linux-gnu"),
  // the multiarch rows of other triplets are left out.
  std::vector<std::string> LoaderDefaultDirectories(std::string_view lib_triplet = "") const;
  // cuda-targets.yaml row of an image architecture ("amd64" → {cuda_target
  // "x86_64-linux", lib_triplet "x86_64-linux-gnu", nvarch "x86_64"}); the
  // row without a `variant` (arm64: sbsa-linux, not Jetson's aarch64-linux).
  // nullptr when unknown.
  const nlohmann::json* FindCudaTarget(std::string_view architecture) const;
  // Every CUDA target directory name ("x86_64-linux", "sbsa-linux", ...).
  std::vector<std::string> CudaTargetNames() const;
  // libcudart's SONAME for a CUDA version: "10.2" → "libcudart.so.10.2",
  // "11.8" → "libcudart.so.11.0", "12.4.1" → "libcudart.so.12"; nullopt for
  // a version that is not digits and dots, or a major no row covers.
  std::optional<std::string> CudartSoname(std::string_view cuda_version) const;
  // runtime-libraries.yaml row for a library name without ".so..."
  // ("libcublasLt", "libcudnn_ops_infer"): {cuda_library, driver_library}.
  const nlohmann::json* FindRuntimeLibrary(std::string_view name) const;
  // Whether a file name ("libcuda.so.535.104.05", "libnvidia-ml.so.1") is one
  // of the NVIDIA driver's user-space libraries (driver-files.yaml prefixes).
  bool IsDriverFile(std::string_view file_name) const;
  // What marks an image as a GPU image (gpu-signals.yaml), by where it is looked for.
  GpuSignalWords GpuSignals() const;
  // Which installed packages the layer scan keeps (captured-packages.yaml).
  CapturedPackages CapturedPackageNames() const;

  // ---- the Dockerfile module's tables, typed (include/imagelint/image_knowledge.h) ----

  // base-images.yaml, packages.yaml and commands.yaml; empty tables before Load.
  const BaseImageKnowledge& base_images() const;
  const PackageKnowledge& packages() const;
  // commands.yaml: POSIX shells and command runners of RUN lines.
  const CommandKnowledge& commands() const;
  // A row's `source` spelled out: a sources.yaml id ("S10") becomes
  // "S10: <title>"; any other text comes back as it is.
  std::string DescribeSource(std::string_view source) const;

 private:
  friend Status LoadImageTables(Knowledge& knowledge);
  std::filesystem::path directory_;
  Tables tables_;
  std::optional<std::string> digest_;
  // Row of gpus.yaml by canonical name or alias (the first row naming it),
  // built once by FromTables: FindGpu is asked once per pool and rule.
  std::map<std::string, size_t, std::less<>> gpu_rows_;
  // Rows asked for per pool and rule, indexed once by FromTables (row
  // numbers, so that a copied Knowledge stays valid): container-toolkit rows
  // by ascending version (stable: equal versions keep table order), and
  // sass rows by compute capability (the first row of each).
  std::vector<size_t> toolkit_rows_by_version_;
  std::map<std::string, size_t, std::less<>> sass_rows_;
  // driver_branches rows by ascending branch (the first row of each) and
  // nvml_brands rows by lower-case name and by requirement name (the first
  // row of each): asked for per image, pool and rule by the start check.
  std::vector<std::pair<int, size_t>> branch_rows_;
  std::map<std::string, size_t, std::less<>> brand_rows_;
  std::shared_ptr<const BaseImageKnowledge> base_images_;
  std::shared_ptr<const PackageKnowledge> packages_;
  std::shared_ptr<const CommandKnowledge> commands_;
};

}  // namespace imagelint
