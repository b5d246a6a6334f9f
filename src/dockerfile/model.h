// The image a Dockerfile builds, as the facts builder sees it while it applies
// instructions: plain C++ values, one struct per kind of fact row. The output
// stage (output.cpp) turns it into imagelint.facts/v1; nothing here is JSON,
// so a missing or mistyped field is a compile error rather than an exception
// in the middle of a build.
//
// Conventions: an empty string means "absent" (the field is not written); a
// std::optional means the field is written, as null when empty.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace imagelint::dockerfile {

// Which instruction made a fact row (docs/dockerfile.md, "Provenance").
struct Provenance {
  int line = 0;            // dockerfile_line
  size_t layer = 0;        // index into ImageModel::layers
  std::string created_by;  // the instruction's text, bounded
  std::string origin;      // "base-image" | "instruction"
};

struct Layer {
  std::string created_by;
  int line = 0;
  std::string instruction;  // "FROM", "RUN"...
  bool base_image = false;
  bool empty_layer = false;
};

// One libcuda the image carries (cuda.drivers[]).
struct DriverRow {
  Provenance where;
  std::string name;  // file name
  std::string path;
  std::optional<std::string> version;
  std::string kind;  // compat | stub | bundled
  std::string source;  // base-image | apt | symlink | copy
  std::string toolkit_dir, package, branch, knowledge, unconfirmed, version_source;
  std::vector<std::string> aliases;
  std::string link_target, resolves_to;  // ln
  bool hard_link = false;
  std::string copied_from, copied_from_stage;  // COPY
};

// One libcudart (cuda.runtimes[]).
struct RuntimeRow {
  Provenance where;
  std::optional<std::string> path;  // null: known only by version (pytorch/pytorch tags)
  std::optional<std::string> version;
  std::string version_precision;  // "major.minor" when only that is known
  std::string soname, source, package, installer, knowledge, unconfirmed, version_source, version_unknown_reason;
};

// One NVIDIA pip wheel (cuda.packages[]).
struct PackageRow {
  Provenance where;
  std::string name, package, installer, manager, cuda_major, component, knowledge, version_unknown_reason;
  std::optional<std::string> version;
};

struct PtxTarget {
  std::string arch;  // "compute_86"
};

// One framework (frameworks[]): torch, jax, tensorflow, cupy, onnxruntime...
struct FrameworkRow {
  Provenance where;
  std::string name;
  std::optional<std::string> version;
  std::string package, installer, source, knowledge, unconfirmed, version_unknown_reason;
  // CUDA of the build: written as `cuda` (null when unknown) unless cuda_absent.
  std::optional<std::string> cuda;
  bool cuda_unknown = false;  // written as cuda_unknown: true
  std::string variant, cuda_source;
  // GPU code from pytorch.yaml's TORCH_CUDA_ARCH_LIST (has_arch_list).
  bool has_arch_list = false;
  std::vector<std::string> sass;
  std::vector<PtxTarget> ptx;
  std::string arch_list, arch_list_source, arch_list_unconfirmed;
};

struct LdSoConfEntry {
  Provenance where;
  std::string dir;
  std::string file;  // the ld.so.conf file that lists it
};

struct UnknownFact {
  std::string fact;  // "cuda.drivers", "frameworks", "base-image"...
  int line = 0;
  std::string reason;
};

struct Note {
  int line = 0;
  std::string text;
};

// A row an instruction removed (rm, apt-get purge, pip uninstall), with the line.
struct Change {
  int line = 0;
  std::variant<DriverRow, RuntimeRow, FrameworkRow> removed;
  std::string by;  // "rm /usr/local/cuda/compat", "package cuda-compat-*"; "" for pip/conda
};

struct EnvProvenance {
  int line = 0;
  std::string origin;  // "base-image" | "ENV"
};

// image.base: what FROM names and what knowledge says about it.
struct BaseImage {
  std::string ref, repository, tag, digest, platform;
  int line = 0;
  std::string kind;  // nvidia/cuda | pytorch/pytorch | ngc | scratch | unknown
  bool known = false;
  bool partially_known = false;  // written as known: "partial"
  std::string reason;
  // nvidia/cuda
  std::string cuda_tag_version, flavor, cudnn, distribution, cuda_version, source, tag_resolution, env_source,
      require_source;
  bool has_distribution = false;
  bool require_unconfirmed = false;
  // pytorch/pytorch
  std::string torch;
  std::optional<bool> compat;
  std::string compat_source;
};

// The model of one stage's image while its instructions are applied.
struct ImageModel {
  std::map<std::string, std::string> env;
  std::vector<std::string> env_order;
  std::map<std::string, EnvProvenance> env_provenance;
  std::map<std::string, std::string> args;  // ARG values in scope (not in the image)
  std::map<std::string, std::string> labels;
  std::vector<Layer> layers;
  BaseImage base;
  std::vector<RuntimeRow> runtimes;
  std::vector<DriverRow> drivers;
  std::vector<PackageRow> packages;
  std::vector<FrameworkRow> frameworks;
  std::vector<LdSoConfEntry> ld_so_conf;
  std::vector<UnknownFact> unknown;
  std::vector<Note> notes;
  std::vector<Change> changes;
  // What the base image tells: when false, the list is only what the Dockerfile adds.
  bool drivers_known = false;
  bool runtimes_known = false;
  bool frameworks_known = false;
  bool env_known = false;
  bool ld_so_conf_known = false;
  bool frameworks_partial = false;  // an install the reader could not follow (pip -r, conda env files)
  bool non_posix_shell = false;     // SHELL names something other than a POSIX shell
  std::string cuda_home;  // "/usr/local/cuda-11.3": where cuda_link points
  std::string cuda_link;  // "/usr/local/cuda" when cuda_home is set
  std::string os = "linux";
  std::string architecture;  // "amd64"
  std::string target_triplet = "x86_64-linux";    // CUDA toolkit targets/ directory
  std::string lib_triplet = "x86_64-linux-gnu";   // Debian multiarch directory

  void SetEnv(const std::string& name, const std::string& value, int line, const std::string& origin) {
    if (!env.count(name)) env_order.push_back(name);
    env[name] = value;
    env_provenance[name] = {line, origin};
  }
  // ARG values then ENV (ENV wins, as in BuildKit).
  std::map<std::string, std::string> Vars() const {
    std::map<std::string, std::string> vars = args;
    for (const auto& [k, v] : env) vars[k] = v;
    return vars;
  }
  // A driver file at a path replaces whatever the model had there.
  void PutDriver(DriverRow row) {
    std::vector<DriverRow> kept;
    for (DriverRow& existing : drivers)
      if (existing.path != row.path) kept.push_back(std::move(existing));
    kept.push_back(std::move(row));
    drivers = std::move(kept);
  }
  bool HasUnknown(const std::string& fact) const {
    for (const UnknownFact& u : unknown)
      if (u.fact == fact) return true;
    return false;
  }
};

}  // namespace imagelint::dockerfile
