// The fleet: pools of identical GPU hosts (DESIGN.md "Fleet profile").
//
// Written by hand as YAML, or imported from Kubernetes node labels,
// `nvidia-smi -q -x` or `nvidia-container-cli info --csv`. A Pool holds what
// the user (or the import) said; what follows from it (compute capability of
// a product name, forward-compat eligibility, driver branch facts) is looked
// up in the knowledge files by the rule engine, not stored here.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "imagelint/platform.h"
#include "imagelint/result.h"

namespace imagelint {

// What `imagelint probe --record` saw on a host of a pool (DESIGN.md
// "Observations", docs/probe.md): the first CUDA code a program met, for one
// image (by digest) or for every image whose verdict rests on one fact (a
// finding's rule and logical location, analysis::FactKey). A scan uses it
// instead of its prediction and says so.
struct Observation {
  std::string image;  // "sha256:..." image digest; "" = any image with `fact`
  std::string fact;   // "IL004 path:/usr/local/cuda/compat/libcuda.so.1"; "" = the image's whole verdict
  int code = 0;       // 0 = ran; else the CUDA error code met first
  std::string name;   // "cudaErrorSystemDriverMismatch"; may be empty
  std::string api;    // the call that returned it; may be empty
  std::string host;   // where it was observed
  std::string date;   // YYYY-MM-DD
  int line = 0;       // in the fleet file
};

struct Pool {
  std::string name;                               // unique within the fleet
  std::string gpu;                                // product name as nvidia-smi prints it; may be empty
  std::optional<std::string> compute_capability;  // "8.6"; from the file, or filled from knowledge
  std::optional<std::string> brand;               // NVML brand, lowercase ("geforce", "tesla", "nvidia"...)
  std::optional<bool> datacenter;                 // forward-compat eligible class of hardware
  std::string driver;                             // kernel-mode driver version, "460.67"
  std::optional<std::string> container_toolkit;   // libnvidia-container / NCT version, "1.4.0"
  std::optional<std::string> runtime;             // docker-gpus | nvidia-runtime | cdi | k8s-device-plugin
  Platform platform;                              // normalised; linux/amd64 when the file names none
  int count = 0;                                  // hosts (or GPUs) in the pool; 0 = unknown
  // Provenance: where the pool was defined (fleet file line) or which nodes
  // it was imported from; shown in reports and in imported fleet files.
  std::string source;
  int line = 0;
  // Node labels that select exactly this pool's hosts (from an import);
  // used for placement advice.
  std::map<std::string, std::string> selector_labels;

  // Added by the fleet loader (src/fleet/, docs/fleet.md).
  std::optional<std::string> architecture;        // "Ampere"; from the GPU knowledge file
  std::optional<bool> integrated;                 // Jetson/Thor-class iGPU (SASS exceptions)
  // Container-toolkit config `nvidia-container-runtime.modes.legacy.cuda-compat-mode`
  // (ldconfig | mount | hook | disabled), when the hosts set it; unset = the
  // toolkit version's default.
  std::optional<std::string> cuda_compat_mode;
  std::optional<bool> disable_require;            // host config `disable-require = true`
  // Fields the loader filled with documented defaults (e.g. "runtime",
  // "container_toolkit"), so rules can say the value was assumed.
  std::vector<std::string> defaulted;
  // A pool that names no runtime is judged on docker-gpus (`runtime`) and on
  // each of these, the other launch paths its container toolkit offers
  // (container-toolkit.yaml `runtimes`); analysis says where they disagree.
  std::vector<std::string> runtime_alternatives;
  std::vector<Observation> observed;  // `observed:` entries, file order
};

struct Fleet {
  std::string source;  // file the fleet came from
  std::vector<Pool> pools;
};

// A fleet's pools grouped by platform: each distinct platform once, in the
// order of its first pool, with its pools. Grouped once per fleet by the
// pipeline; the Dockerfile builds (one per platform), the analysis (which
// facts a pool is judged on) and the report's per-platform builds read it.
struct PlatformPools {
  Platform platform;
  std::vector<size_t> pools;  // indexes into Fleet::pools, fleet order
};
struct PoolsByPlatform {
  std::vector<PlatformPools> groups;
  std::vector<Platform> Platforms() const;
  const PlatformPools* Find(const Platform& platform) const;  // null when no pool has it
};
PoolsByPlatform GroupPoolsByPlatform(const Fleet& fleet);

class Knowledge;  // include/imagelint/knowledge.h

// The fleet YAML of DESIGN.md (src/fleet/, docs/fleet.md). `gpu` is looked up
// in the GPU knowledge file (unknown names are errors listing the closest
// known ones); explicit compute_capability/brand/datacenter win over it.
// Errors name the file, line:column, pool and field. `yaml_memo_dir` (a
// cache directory, or empty) remembers that a text already passed the YAML
// limits check, so a fleet file read on every run is checked once.
Result<Fleet> ParseFleet(std::string_view yaml_text, const std::string& source, const Knowledge& knowledge,
                         const std::filesystem::path& yaml_memo_dir = {});
Result<Fleet> LoadFleetFile(const std::string& path, const Knowledge& knowledge,
                            const std::filesystem::path& yaml_memo_dir = {});

}  // namespace imagelint
