// The image a Dockerfile builds, as the facts builder sees it while it applies
// instructions. Its rows are the fact types of include/imagelint/facts.h (the
// model the image reader fills too), so the output stage only assembles them
// and the one facts writer writes them; nothing here is JSON, so a missing
// or mistyped field is a compile error rather than an exception mid-build.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "imagelint/facts.h"

namespace imagelint::dockerfile {

struct RequirementsRead;  // build_context.h

struct ImageModel {
  std::map<std::string, std::string> env;
  std::vector<std::string> env_order;
  std::map<std::string, facts::EnvProvenance> env_provenance;
  std::map<std::string, std::string> args;  // ARG values in scope (not in the image)
  std::map<std::string, std::string> labels;
  std::vector<facts::Layer> layers;
  facts::BaseImage base;
  std::vector<facts::Runtime> runtimes;
  std::vector<facts::Driver> drivers;
  std::vector<facts::Package> packages;
  std::vector<facts::Framework> frameworks;
  std::vector<facts::LdSoConfEntry> ld_so_conf;
  std::vector<facts::UnknownFact> unknown;
  std::vector<facts::DockerfileNote> notes;
  std::vector<facts::Change> changes;  // rows instructions removed or moved
  // Where each framework row's files live (its Python prefix: "/opt/venv",
  // "/usr/local", "/opt/conda"), so that `COPY --from=<stage> /opt/venv` brings
  // the rows along (copy.cpp). Keyed by framework name.
  std::map<std::string, std::string> framework_roots;
  // Evidence of GPU use that only the Dockerfile's commands show (nvcc, CUDA
  // packages by name, GPU wheels); the rest comes from the rows (gpu_signals.cpp).
  std::vector<facts::GpuSignal> gpu_signals;
  std::string platform_source = "builder";  // facts image.platform_source
  // The platform the stage's base image is read for ("linux/arm64"): FROM
  // --platform as expanded, else the build's target. Lock files that list
  // packages per platform (pixi.lock) are read for it.
  std::string platform = "linux/amd64";
  // A base image read from where it is (base_read.cpp): its rows that no
  // instruction here changes, carried into the facts as read.
  bool base_read = false;
  std::vector<facts::Binary> base_binaries;
  std::optional<std::vector<facts::StaticRuntime>> base_static_runtimes;
  std::optional<std::vector<facts::DriverLibrary>> base_driver_libraries;
  std::optional<std::vector<facts::Toolkit>> base_toolkits;
  // What the base image tells: when false, the list is only what the Dockerfile adds.
  bool drivers_known = false;
  bool runtimes_known = false;
  bool frameworks_known = false;
  bool env_known = false;
  bool ld_so_conf_known = false;
  bool frameworks_partial = false;  // an install the reader could not follow (pip -r, conda env files)
  // Whether the base's GPU code is known: none (operating-system and language
  // images), the CUDA toolkit's own libraries (official nvidia/cuda images),
  // or every binary (a base read from its image). Instructions that may add GPU
  // code the reader cannot see record a "binaries" unknown; code compiled here
  // with an arch list the build tool applies is in built_binaries (build_code.cpp).
  bool binaries_known = false;
  std::vector<facts::Binary> built_binaries;
  // Files a RUN downloaded (curl -o, wget -O): container path -> URL, so that
  // running one later is matched with the installer it is (installer_scripts).
  std::map<std::string, std::string> downloads;
  // Build-context files that COPY/ADD put into the image (copy.cpp), in
  // instruction order, so that `pip install -r /app/requirements.txt` can be
  // traced back to the context file it reads (build_context.cpp).
  struct ContextCopy {
    std::vector<std::string> sources;  // as written, relative to the context
    std::string dest;                  // absolute in the image
    bool dest_dir = false;
    int line = 0;
  };
  std::vector<ContextCopy> context_copies;
  // Requirements files a RUN wrote (`poetry export -o requirements.txt`,
  // `pip-compile`; requirements_export.cpp): container path -> what a later
  // `pip install -r` of that file installs. COPY --from carries them along.
  std::map<std::string, std::shared_ptr<const RequirementsRead>> generated_requirements;
  std::string workdir = "/";  // WORKDIR (the base image's is not known: "/")
  std::string user;           // USER's name or uid ("" = the base image's, root when not known)
  // The Python pip installs for ("3.8"): the python image's tag or the
  // distribution's python3 from apt; "" when not known (no constraint).
  std::string python_version;
  std::string run_cwd;        // during a RUN: its directory after `cd`
  bool non_posix_shell = false;     // SHELL names something other than a POSIX shell
  std::string cuda_home;  // "/usr/local/cuda-11.3": where cuda_link points
  std::string cuda_link;  // "/usr/local/cuda" when cuda_home is set
  std::string os = "linux";
  std::string architecture;    // "amd64"
  std::string target_triplet;  // CUDA toolkit targets/ directory ("x86_64-linux"); "" when unknown
  std::string lib_triplet;     // Debian multiarch directory ("x86_64-linux-gnu"); "" when unknown
  std::string nvarch;          // NVARCH of the official images ("sbsa"); "" when unknown

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
  void PutDriver(facts::Driver row) {
    std::erase_if(drivers, [&](const facts::Driver& existing) { return existing.path == row.path; });
    drivers.push_back(std::move(row));
  }
  // Likewise a libcudart file (a later install or copy of the same file).
  void PutRuntime(facts::Runtime row) {
    std::erase_if(runtimes, [&](const facts::Runtime& existing) { return existing.path == row.path; });
    runtimes.push_back(std::move(row));
  }
  bool HasUnknown(const std::string& fact) const {
    for (const facts::UnknownFact& u : unknown)
      if (u.fact == fact) return true;
    return false;
  }
};

}  // namespace imagelint::dockerfile
