// The facts model (`imagelint.facts/v1`): the C++ types of every fact the
// producers emit, one JSON writer and one JSON reader.
//
// Two producers fill these types: the image reader (src/cuda, src/image_reader:
// `imagelint facts IMAGE`) and the Dockerfile predictor (src/dockerfile).
// Rules never see the types; they read the JSON the writer makes of them, so
// a field that no producer sets cannot reach a rule. docs/facts-schema.json
// (JSON Schema 2020-12) describes exactly what WriteFacts emits;
// docs/cuda-facts.md and docs/dockerfile.md say where each value comes from.
//
// Three states, three spellings:
//   * std::optional<T>: empty = unknown; the key is left out of the JSON (the
//     rule language then says "cannot tell");
//   * Nullable<T>: always written; empty = known to have no value (JSON null);
//   * std::optional<Nullable<T>>: left out, null, or a value.
// Unknown facts stay absent: a producer never fills a field by guessing.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "imagelint/base_source.h"
#include "imagelint/gpu_signals.h"
#include "imagelint/nullable.h"
#include "imagelint/result.h"

namespace imagelint::facts {

inline constexpr const char* kSchemaName = "imagelint.facts/v1";

// A value that is written as JSON null when empty (see above).
using imagelint::Nullable;

// Where a row came from. Image rows carry `layer`/`layer_digest`; Dockerfile
// rows the instruction behind them; `imagelint scan IMAGE --dockerfile FILE`
// adds dockerfile/dockerfile_line/dockerfile_origin to image rows.
struct Provenance {
  std::optional<uint64_t> layer;                 // index into image.layers
  std::optional<std::string> layer_digest;
  std::optional<std::string> dockerfile;         // the Dockerfile path as given
  std::optional<int64_t> dockerfile_line;        // the instruction's line (FROM for base-image facts)
  std::optional<std::string> dockerfile_origin;  // built image + --dockerfile: "base-image" | "instruction"
  std::optional<std::string> created_by;         // Dockerfile: the instruction text (first 400 bytes)
  // Dockerfile rows: "base-image" | "instruction". Runtime rows of images:
  // who installed the file: "system" | "pip" | "torch" | "conda".
  std::optional<std::string> origin;
  std::optional<std::string> knowledge;          // knowledge source behind a predicted value
  std::optional<std::string> unconfirmed;        // what UNCONFIRMED knowledge the value rests on
  bool operator==(const Provenance&) const = default;
};

// An ELF or fatbin problem at a byte offset of the file.
struct Problem {
  uint64_t offset = 0;
  std::string message;
  bool operator==(const Problem&) const = default;
};

// A PTX entry: "compute_90" with ISA "8.4" (the Dockerfile predictor knows
// the architecture only).
struct Ptx {
  std::string arch;
  std::optional<std::string> isa;
  bool operator==(const Ptx&) const = default;
};

// ------------------------------------------------------------------ source
// What the facts were made from, when it is not an image (Dockerfiles).
struct Source {
  std::string kind;                   // "dockerfile"
  std::optional<std::string> path;
  std::optional<std::string> target;  // the stage name ("" when unnamed)
  std::optional<uint64_t> stage;      // index of the target stage
  std::optional<std::map<std::string, std::string>> build_args;
  bool operator==(const Source&) const = default;
};

// ------------------------------------------------------------------- image
struct Layer {
  std::optional<std::string> digest;      // images: blob digest
  std::optional<std::string> diff_id;
  std::string created_by;                 // history text ("" when the image has none)
  std::optional<std::string> media_type;
  std::optional<uint64_t> size;           // compressed blob size
  std::optional<uint64_t> entries;        // tar entries read
  std::optional<uint64_t> uncompressed_size;
  std::optional<std::string> dockerfile;
  std::optional<int64_t> dockerfile_line;
  std::optional<std::string> dockerfile_origin;  // built image + --dockerfile
  std::optional<std::string> instruction;        // Dockerfile: "RUN", "FROM"...
  std::optional<bool> base_image;                // Dockerfile: the FROM of the chain
  std::optional<bool> empty_layer;               // Dockerfile: ENV, ARG... (no file changes)
  bool operator==(const Layer&) const = default;
};

// Where an environment variable of a Dockerfile prediction came from.
struct EnvProvenance {
  int64_t dockerfile_line = 0;
  std::string origin;  // "base-image" | "ENV"
  bool operator==(const EnvProvenance&) const = default;
};

// Tri-state of the Dockerfile predictor's base-image knowledge.
enum class Known { kNo, kYes, kPartial };  // JSON false, true, "partial"

// The family of a base image: base-images.yaml's `family` of its repository,
// else scratch or unknown.
enum class BaseKind { kNvidiaCuda, kPytorch, kNgc, kL4t, kCudaApplication, kNoCuda, kScratch, kUnknown };
// "nvidia/cuda" | "pytorch/pytorch" | "ngc" | "l4t" | "cuda-application" | "no-cuda" | "scratch" | "unknown"
std::string_view BaseKindName(BaseKind kind);
std::optional<BaseKind> ParseBaseKind(std::string_view text);

// The base image (FROM) of a Dockerfile, or where a built image's base was read from.
struct BaseImage {
  std::string ref;
  std::optional<std::string> repository;
  std::optional<std::string> tag;
  std::optional<std::string> digest;
  std::optional<std::string> platform;
  std::optional<std::string> dockerfile;
  std::optional<int64_t> dockerfile_line;
  std::optional<Known> known;
  std::optional<BaseKind> kind;
  std::optional<std::string> reason;            // why it is not (fully) known
  std::optional<BaseSource> resolved_from;
  // Why the image itself could not be read ("registry: offline"), when a
  // resolver tried: the knowledge tables answered instead.
  std::optional<std::string> lookup_failure;
  std::optional<std::string> cuda_tag_version;  // "11.3.1" as written in the tag
  std::optional<std::string> flavor;            // "base" | "runtime" | "devel"
  std::optional<std::string> cudnn;             // "cudnn8"
  std::optional<std::string> distribution;      // "ubuntu20.04"
  std::optional<std::string> cuda_version;      // the release the tag resolves to
  std::optional<std::string> source;            // knowledge source of the release row
  std::optional<std::string> tag_resolution;    // how a minor-only tag was read
  std::optional<std::string> env_source;
  std::optional<std::string> require_source;
  std::optional<bool> require_unconfirmed;
  std::optional<std::string> torch;             // pytorch/pytorch: the torch release of the tag
  std::optional<bool> compat;                   // pytorch/pytorch: ships a compat package
  std::optional<std::string> compat_source;
  bool operator==(const BaseImage&) const = default;
};

struct Image {
  std::string ref;
  std::optional<std::string> digest;
  std::string kind;                   // "docker-archive", "oci-layout", ..., "dockerfile"
  std::optional<std::string> dockerfile;  // the Dockerfile findings point into
  std::string os;
  std::string architecture;
  std::optional<std::string> variant;
  std::map<std::string, std::string> env;
  std::optional<std::map<std::string, EnvProvenance>> env_provenance;  // Dockerfile
  std::optional<bool> env_complete;                                    // Dockerfile: the base's env is known
  std::map<std::string, std::string> labels;
  std::vector<Layer> layers;
  std::optional<BaseImage> base;
  std::optional<std::vector<std::string>> problems;  // merged-tree problems (images)
  // Dockerfile: what fixes the platform of the image the build makes:
  // "FROM --platform" | "--platform" (the command line) | "base image" (a
  // single-platform base) | "builder" (nothing does: docker build makes the
  // builder's platform) | "pool" (nothing does, and these facts were built
  // for one pool's platform). Absent for built images (their platform is a fact).
  std::optional<std::string> platform_source;
  bool operator==(const Image&) const = default;
};

// -------------------------------------------------------------------- cuda
// Evidence for a runtime version ("filename", "dpkg", "pip", "conda",
// "version.json", "torch/version.py", "soname").
struct RuntimeEvidence {
  std::string source;
  std::string version;
  std::string path;
  bool operator==(const RuntimeEvidence&) const = default;
};

// One libcudart copy (images), or one the Dockerfile installs.
struct Runtime {
  Provenance provenance;
  Nullable<std::string> path;        // null: a Dockerfile runtime whose file is not known
  std::optional<std::string> soname;
  Nullable<std::string> version;     // "12.4.127", "12.1", "13"; null when nothing says
  Nullable<std::string> source;      // which evidence gave `version`
  std::optional<std::string> evidence_path;
  std::optional<std::vector<RuntimeEvidence>> evidence;  // best first
  std::optional<bool> conflict;      // two full versions disagree
  std::optional<bool> hashed_copy;   // libcudart-<8 hex>.so (PyTorch's own copy)
  std::optional<std::vector<std::string>> aliases;
  std::optional<std::string> version_precision;  // Dockerfile: "major.minor"
  std::optional<std::string> version_source;     // Dockerfile: "apt pin", ...
  std::optional<std::string> package;            // Dockerfile: the package that installs it
  std::optional<std::string> installer;          // Dockerfile: "pip" | "uv pip"
  std::optional<std::string> version_unknown_reason;
  // Dockerfile: where `version` is null, the lowest release it can be (a base
  // image family whose every tag ships at least this CUDA release).
  std::optional<std::string> version_min;
  bool operator==(const Runtime&) const = default;
};

// A binary that carries cudart statically (heuristic; docs/cuda-facts.md).
struct StaticRuntime {
  Provenance provenance;
  std::string path;
  std::vector<std::string> markers;
  std::vector<std::string> toolkits;
  bool operator==(const StaticRuntime&) const = default;
};

// One libcuda (compat, stub, bundled) or a Dockerfile-made link to one.
struct Driver {
  Provenance provenance;
  std::string path;
  std::optional<std::string> name;       // Dockerfile: the file name
  std::string kind;                      // "compat" | "stub" | "bundled"
  Nullable<std::string> version;         // "550.163.01"
  Nullable<std::string> source;          // "filename", "dpkg", "base-image", "apt", "symlink", "copy"
  std::optional<std::string> evidence_path;
  std::optional<std::string> toolkit_dir;  // "12.4" for /usr/local/cuda-12.4/...
  std::optional<std::string> soname;
  // The library's .note.cuda.fwd_compatibility JSON as NVIDIA wrote it
  // ({"Format", "CUDA Version", "Driver", "Device"}); {} when it has none.
  std::optional<nlohmann::json> note;
  std::optional<std::vector<std::string>> aliases;  // paths that lead to it
  std::optional<std::vector<Problem>> problems;
  // NEEDED libraries found nowhere in the image (the C library aside): the
  // copy cannot be loaded, so a process that finds it first has no driver.
  std::optional<std::vector<std::string>> missing_needed;
  std::optional<std::string> package;            // Dockerfile
  std::optional<std::string> branch;             // Dockerfile: driver branch of a package name
  std::optional<std::string> version_source;     // Dockerfile
  std::optional<std::string> link_target;        // Dockerfile `ln`: the target as written
  std::optional<std::string> resolves_to;        // Dockerfile `ln`: the target's canonical path
  std::optional<bool> hard_link;
  std::optional<std::string> copied_from;        // Dockerfile COPY/ADD source
  std::optional<std::string> copied_from_stage;
  bool operator==(const Driver&) const = default;
};

// Other NVIDIA driver libraries (libnvidia-ml, libnvidia-ptxjitcompiler...).
struct DriverLibrary {
  Provenance provenance;
  std::string name;     // "libnvidia-ml"
  std::string kind;     // "compat" | "stub" | "bundled"
  std::string path;
  Nullable<std::string> version;
  bool operator==(const DriverLibrary&) const = default;
};

// Whether an image env variable is recorded in cuda.requirements:
// NVIDIA_REQUIRE_*, NV_CUDA_*, CUDA_VERSION, NVIDIA_DISABLE_REQUIRE,
// NVIDIA_VISIBLE_DEVICES, NVIDIA_DRIVER_CAPABILITIES, NVIDIA_PRODUCT_NAME, NVARCH.
inline bool IsRequirementVariable(std::string_view name) {
  auto starts = [&](std::string_view prefix) { return name.substr(0, prefix.size()) == prefix; };
  return starts("NVIDIA_REQUIRE_") || starts("NV_CUDA_") || name == "CUDA_VERSION" || name == "NVIDIA_DISABLE_REQUIRE" ||
         name == "NVIDIA_VISIBLE_DEVICES" || name == "NVIDIA_DRIVER_CAPABILITIES" || name == "NVIDIA_PRODUCT_NAME" ||
         name == "NVARCH";
}

// The NVIDIA container runtime's view of the image env (src/nvidia/image_env.h).
struct Requirements {
  // The env variables IsRequirementVariable() selects, as written.
  std::map<std::string, std::string> variables;
  bool disabled = false;                  // NVIDIA_DISABLE_REQUIRE is true for the runtime
  std::optional<bool> legacy;             // CUDA_VERSION without NVIDIA_REQUIRE_CUDA
  // Written (null when none) whenever `legacy` is known: "11.6" for cuda>=11.6.
  std::optional<std::string> legacy_cuda_version;
  std::optional<bool> legacy_cuda_version_invalid;  // the runtime would refuse the container
  std::optional<std::map<std::string, EnvProvenance>> provenance;  // Dockerfile
  std::optional<bool> complete;  // Dockerfile: false when the base may add variables
  bool operator==(const Requirements&) const = default;
};

struct LdSoConfEntry {
  Provenance provenance;
  std::string dir;
  std::string file;
  bool operator==(const LdSoConfEntry&) const = default;
};

// A directory of the loader's search that offers a libcuda.so.1.
struct LibcudaCandidate {
  std::string dir;
  std::string via;    // "LD_LIBRARY_PATH" | "ld.so.conf" | "default"
  std::string path;
  std::optional<Nullable<std::string>> resolves_to;  // images: null when the link dangles
  std::optional<std::string> kind;
  std::optional<Nullable<std::string>> version;      // Dockerfile
  std::optional<int64_t> dockerfile_line;            // Dockerfile: the line of the driver row
  std::optional<int64_t> via_dockerfile_line;        // Dockerfile: the line that made the search path
  bool operator==(const LibcudaCandidate&) const = default;
};

struct Loader {
  std::optional<std::vector<std::string>> ld_library_path;
  std::optional<EnvProvenance> ld_library_path_provenance;  // Dockerfile
  std::optional<std::vector<LdSoConfEntry>> ld_so_conf;
  std::optional<bool> ld_so_conf_missing;   // images without /etc/ld.so.conf
  std::optional<bool> ld_so_conf_complete;  // Dockerfile
  std::optional<std::vector<LibcudaCandidate>> libcuda_candidates;
  bool operator==(const Loader&) const = default;
};

// A CUDA toolkit directory's version.json / version.txt.
struct Toolkit {
  Provenance provenance;
  std::string path;
  std::string version;  // "" when the file does not say
  std::optional<std::map<std::string, std::string>> components;  // version.json: component -> version
  bool operator==(const Toolkit&) const = default;
};

// A CUDA-related package: dpkg (images) or an NVIDIA pip wheel (Dockerfiles).
struct Package {
  Provenance provenance;
  std::string name;
  Nullable<std::string> version;
  std::optional<std::string> status;        // dpkg
  std::optional<std::string> architecture;  // dpkg
  std::optional<std::string> evidence;      // dpkg: the status file
  std::optional<std::string> package;       // Dockerfile: the requirement's name
  std::optional<std::string> installer;     // Dockerfile: "pip" | "uv pip"
  std::optional<std::string> manager;       // Dockerfile: "pip"
  std::optional<std::string> cuda_major;    // Dockerfile: "12" of nvidia-*-cu12
  std::optional<std::string> component;     // Dockerfile: "cudart", ...
  std::optional<std::string> version_unknown_reason;
  bool operator==(const Package&) const = default;
};

struct Cuda {
  std::optional<std::vector<Runtime>> runtimes;
  std::optional<bool> runtimes_complete;  // Dockerfile
  std::optional<std::vector<StaticRuntime>> static_runtimes;
  std::optional<std::vector<Driver>> drivers;
  std::optional<bool> drivers_complete;   // Dockerfile
  std::optional<std::vector<DriverLibrary>> driver_libraries;
  std::optional<Requirements> requirements;
  std::optional<Loader> loader;
  std::optional<std::vector<Toolkit>> toolkits;
  std::optional<std::vector<Package>> packages;
  bool operator==(const Cuda&) const = default;
};

// ---------------------------------------------------------------- binaries
struct ArchCount {
  std::string arch;
  uint64_t count = 0;
  std::optional<std::string> isa;  // PTX entries
  // SASS: kernels defined by the group's cubins, when every one was read whole
  // (0: none can be launched, so none can fail to load for a GPU).
  std::optional<uint64_t> kernels;
  bool operator==(const ArchCount&) const = default;
};

// Summary of every fatbin container of a file (docs/cuda-facts.md).
struct Fatbin {
  uint64_t containers = 0;
  uint64_t entries = 0;
  std::map<std::string, uint64_t> sections;                             // section -> containers
  std::map<std::string, std::map<std::string, uint64_t>> section_archs;  // section -> arch -> entries
  std::vector<ArchCount> sass;
  std::vector<ArchCount> ptx;
  std::optional<std::vector<ArchCount>> ltoir;
  std::optional<std::vector<ArchCount>> other;
  std::map<std::string, uint64_t> compression;  // "none" | "lz4" | "zstd" -> entries
  uint64_t debug_entries = 0;
  uint64_t embedded_cubins = 0;
  std::vector<std::string> toolkits;
  std::vector<std::string> tkinfo;
  bool operator==(const Fatbin&) const = default;
};

// A standalone cubin (ELF machine 190).
struct Cubin {
  std::string arch;  // "sm_90"
  uint64_t abi_version = 0;
  uint64_t e_flags = 0;
  std::optional<std::string> toolkit;
  bool operator==(const Cubin&) const = default;
};

// Where the dynamic loader finds the libcudart an executable needs.
struct CudartLookup {
  std::string needed;
  Nullable<std::string> found;
  Nullable<std::string> via;  // "RPATH" | "LD_LIBRARY_PATH" | "RUNPATH" | "ld.so.conf" | "default"
  std::vector<std::string> searched;
  std::optional<bool> incomplete;
  bool operator==(const CudartLookup&) const = default;
};

struct Binary {
  Provenance provenance;
  std::string path;
  std::optional<std::string> machine;  // "x86_64"
  std::optional<int64_t> elf_class;    // JSON "class": 32 | 64
  std::optional<std::string> type;     // "exec" | "dyn" | "rel" | "core" | "other"
  std::optional<std::string> soname;
  std::optional<std::vector<std::string>> needed;
  std::optional<std::vector<std::string>> runpath;
  std::optional<std::vector<std::string>> rpath;
  std::optional<CudartLookup> cudart_lookup;
  std::optional<std::vector<std::string>> sass;
  std::optional<std::vector<Ptx>> ptx;
  std::optional<Fatbin> fatbin;
  std::optional<std::vector<std::string>> toolkits;
  std::optional<Cubin> cubin;
  std::optional<bool> static_cudart;
  std::optional<std::vector<Problem>> problems;
  // Whether a process of the container can load it (src/cuda/reachability.h):
  // why it is (first reasons first), or why not. Absent in Dockerfile mode.
  std::optional<bool> reachable;
  std::optional<std::vector<std::string>> reachable_via;
  std::optional<std::string> unreachable_reason;
  // Dockerfile: a framework's kernels known from knowledge (no file read).
  std::optional<std::string> framework;
  std::optional<std::string> framework_version;
  std::optional<std::string> source;
  std::optional<std::string> arch_list;
  std::optional<std::string> arch_list_source;
  std::optional<std::string> arch_list_unconfirmed;
  bool operator==(const Binary&) const = default;
};

// -------------------------------------------------------------- frameworks
struct Framework {
  Provenance provenance;
  std::string name;               // "torch" | "tensorflow" | "jax" | "cupy" | "onnxruntime" | "tensorrt"
  Nullable<std::string> version;
  Nullable<std::string> cuda;     // the CUDA it was built for ("12.1", "12.x", "12")
  std::optional<std::string> path;  // images: the evidence file
  std::optional<std::string> package;
  std::optional<std::string> build;        // conda build string
  std::optional<std::string> git_version;  // torch/version.py
  std::optional<std::string> cudnn;        // tensorflow build_info
  std::optional<std::vector<std::string>> sass;
  std::optional<std::vector<Ptx>> ptx;
  std::optional<std::vector<std::string>> cuda_libraries;  // torch: its libraries with device code
  std::optional<std::string> variant;      // Dockerfile: "cu121" | "cpu"
  std::optional<std::string> cuda_source;  // Dockerfile: what gave `cuda`
  std::optional<bool> cuda_unknown;        // Dockerfile
  std::optional<std::string> installer;    // Dockerfile: "pip" | "uv pip" | "conda"
  std::optional<std::string> source;       // Dockerfile: "base-image"
  std::optional<std::string> version_unknown_reason;
  // Dockerfile: the version is the installer's pick among the releases the
  // knowledge tables know (an unpinned or range-pinned install), and why.
  std::optional<std::string> version_assumed;
  // Dockerfile: a later install the reader could not follow may replace this
  // release (which line, and why); its GPU code and CUDA runtime are then
  // not known.
  std::optional<std::string> replaceable;
  std::optional<std::string> arch_list;
  std::optional<std::string> arch_list_source;
  std::optional<std::string> arch_list_unconfirmed;
  bool operator==(const Framework&) const = default;
};

// --------------------------------------------------------------------- gpu
// One piece of evidence that the image is meant to run on a GPU.
struct GpuSignal {
  // NVIDIA: "base-image" | "env" | "label" | "cuda-runtime" | "driver" |
  // "package" | "framework" | "binary" | "loader" | "install" | "native-build" |
  // "installer"; AMD: "rocm" (a ROCm base or build).
  std::string signal;
  std::string detail;  // "ENV NVIDIA_VISIBLE_DEVICES=all", "torch 2.4.0 (cu124)"
  std::optional<std::string> path;
  std::optional<int64_t> dockerfile_line;
  bool operator==(const GpuSignal&) const = default;
};

// Whether the image is a GPU image at all, filled by both producers from
// the same kinds of evidence (docs/facts-schema.json, "gpu"): "nvidia" when
// anything in it uses NVIDIA's CUDA (CUDA user space, an NVIDIA_* variable,
// a CUDA build of a GPU framework, GPU code), "rocm" when only AMD ROCm
// evidence is found, "none" when nothing asks for a GPU. The rules check
// images against GPU pools only when it is "nvidia" (or absent).
struct Gpu {
  std::string workload;  // "nvidia" | "rocm" | "none"
  std::vector<GpuSignal> signals;  // at most a few of each kind
  // What could still make it a GPU image but was not read
  // ("pip install -r requirements.txt (line 4): not read").
  std::optional<std::vector<std::string>> caveats;
  bool operator==(const Gpu&) const = default;
};

// ------------------------------------------------------------- dockerfile
struct Stage {
  std::string name;
  std::string base;
  int64_t dockerfile_line = 0;
  bool target = false;
  bool operator==(const Stage&) const = default;
};

// A fact the Dockerfile predictor could not know, with the line behind it.
struct UnknownFact {
  std::string fact;  // "cuda.drivers", "frameworks", "base-image", "image.env.X"...
  std::optional<std::string> dockerfile;
  int64_t dockerfile_line = 0;
  std::string reason;
  // What would decide it ("give the build context: --context DIR", "pin torch").
  std::optional<std::string> decide;
  bool operator==(const UnknownFact&) const = default;
};

struct DockerfileNote {
  int64_t dockerfile_line = 0;
  std::string note;
  bool operator==(const DockerfileNote&) const = default;
};

// A row a later instruction removed (rm, apt purge, pip uninstall...).
struct Change {
  int64_t dockerfile_line = 0;
  std::optional<std::string> by;  // "rm /usr/local/cuda/compat", "package cuda-compat-*"
  std::variant<Runtime, Driver, Framework> removed;  // JSON: "fact" names which list it left
  bool operator==(const Change&) const = default;
};

struct Suppression {
  std::vector<std::string> rules;
  std::string reason;
  std::string file;
  int64_t line = 0;
  int64_t instruction_line = 0;
  std::string instruction;
  bool operator==(const Suppression&) const = default;
};

struct DockerfileInfo {
  std::string path;
  std::optional<std::string> escape;
  std::optional<std::string> syntax;
  std::vector<Stage> stages;
  std::vector<UnknownFact> unknown;
  std::vector<DockerfileNote> notes;
  std::vector<Change> changes;
  std::vector<Suppression> suppressions;
  std::vector<std::string> unused_build_args;
  bool operator==(const DockerfileInfo&) const = default;
};

// -------------------------------------------------------------------- all
struct Facts {
  std::optional<Source> source;
  Image image;
  std::optional<Cuda> cuda;
  std::optional<std::vector<Binary>> binaries;
  std::optional<bool> binaries_complete;    // Dockerfile: no instruction may have added GPU code unseen
  std::optional<std::vector<Framework>> frameworks;
  std::optional<bool> frameworks_complete;  // Dockerfile
  std::optional<Gpu> gpu;
  std::optional<DockerfileInfo> dockerfile;
  bool operator==(const Facts&) const = default;
};

// The one writer: {"schema": "imagelint.facts/v1", ...} with keys as above
// (C++ names are the JSON names, except Binary::elf_class = "class" and
// Requirements::variables, whose entries are keys of cuda.requirements).
nlohmann::json WriteFacts(const Facts& facts);

// The one reader. Every field is type-checked; an unknown field, a wrong type
// or a missing required field is an Error whose subject is `subject` (the
// file) and whose message starts with the field path ("cuda.runtimes[2].version:
// expected a string or null").
Result<Facts> ReadFacts(const nlohmann::json& document, const std::string& subject = "facts");

// Parts, for producers that hold JSON of the same shape (the ELF analyzer's
// per-file results) and for tests. `path` prefixes error messages.
Result<Fatbin> ReadFatbin(const nlohmann::json& value, const std::string& path);
Result<Cubin> ReadCubin(const nlohmann::json& value, const std::string& path);
Result<std::vector<Ptx>> ReadPtxList(const nlohmann::json& value, const std::string& path);
Result<std::vector<Problem>> ReadProblems(const nlohmann::json& value, const std::string& path);
nlohmann::json WriteRequirements(const Requirements& requirements);

// facts.gpu from the rows every producer fills (env, labels, cuda.*,
// frameworks, binaries); producers that know more (a Dockerfile's base image
// and commands) add signals with AddGpuSignal and set workload = GpuWorkload().
// `words`: what marks a GPU image (Knowledge::GpuSignals, gpu-signals.yaml).
Gpu GpuFromFacts(const Facts& facts, const GpuSignalWords& words);
// Adds a signal unless it is there already or its kind has enough of them.
void AddGpuSignal(Gpu& gpu, GpuSignal signal);
// "nvidia" when any NVIDIA signal is present, else "rocm" when a ROCm one is, else "none".
std::string GpuWorkload(const Gpu& gpu);

}  // namespace imagelint::facts
