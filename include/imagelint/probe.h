// `imagelint probe`: what CUDA really returns for an image on this GPU host,
// next to what imagelint predicts for it (docs/probe.md).
//
//   auto host = probe::ReadHost(options.host);           // nvidia-smi, toolkit version
//   auto root = probe::ExtractRootfs(image, dir, limits); // direct mode: the image's files
//   auto run  = probe::RunProbe(plan);                    // the C probe in the image's loader
//   auto record = probe::ParseRecord(run->output, "imagelint-probe");
//   probe::Outcome seen = probe::FirstError(*record);
//
// Everything read from the host, the image and the probe's output is
// hostile: bounded in size and time, malformed input is an Error naming it.
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "imagelint/fleet.h"
#include "imagelint/result.h"

namespace imagelint::probe {

// ---- the probe's record (probe/imagelint-probe.c) ----

struct Call {
  std::string api;     // "rt.cudaGetDeviceCount", "drv.cuInit", "drv.cuModuleLoadData"
  int code = 0;        // CUDA's code; -1 when the call could not be made (dlopen, dlsym failed)
  std::string name;    // as CUDA named it, "-" when it could not say
  std::string detail;  // "version=12040", a path, dlerror()'s text
};

struct Record {
  std::string mode;                  // lazy | eager (CUDA_MODULE_LOADING)
  std::vector<Call> calls;           // in the order they were made
  std::vector<std::string> loaded;   // libcuda/libcudart/libnvidia-* files mapped
  std::optional<std::string> hung;   // the call that did not return in time
  std::optional<std::string> crashed;  // the call during which the probe died, with the signal
  bool complete = false;             // the record ended with "end complete"
};

inline constexpr size_t kMaxRecordBytes = 256u << 10;

// Parses the probe's tab-separated lines; unknown line kinds are errors, so a
// probe and an imagelint of different versions never half-agree.
Result<Record> ParseRecord(std::string_view text, const std::string& source);

// What a program meets first: the first non-zero code in call order (the
// runtimes' calls, then the driver's, then module loads). A libcuda that
// cannot be loaded is what the CUDA runtime reports as
// cudaErrorInsufficientDriver (35): no driver found. A runtime library that
// cannot be loaded is not a CUDA code and is reported on its own.
struct Outcome {
  int code = 0;
  std::string api;   // the call that returned it; "" when all returned 0
  std::string name;
  bool hung = false;  // a call did not return: `api` names it
};
Outcome FirstError(const Record& record);

// ---- the host ----

struct Host {
  std::string name;        // host name
  bool has_gpu = false;
  std::string why_no_gpu;  // when !has_gpu: what was missing
  std::string gpu;         // product name, "NVIDIA H100 80GB HBM3"
  std::string driver;      // "580.159.04"
  std::optional<std::string> container_toolkit;  // "1.17.4"
  std::string nvidia_smi_xml;  // what nvidia-smi -q -x printed (for the fleet import)
};

struct HostOptions {
  std::string nvidia_smi_xml_file;  // read this instead of running nvidia-smi ("" = run it)
  std::chrono::seconds timeout{20};
};
// Runs `nvidia-smi -q -x` (and `nvidia-ctk --version` /
// `nvidia-container-cli --version` for the toolkit) with time and size
// limits; a host without nvidia-smi, without a GPU, or whose nvidia-smi
// fails is a Host with has_gpu false, not an error.
Host ReadHost(const HostOptions& options);

// ---- processes ----

struct ProcessResult {
  int exit_code = -1;      // -1: killed by a signal or timed out
  bool timed_out = false;
  std::string output;      // stdout, cut at the limit
  std::string errors;      // stderr, cut at the limit
};
// Runs argv (argv[0] looked up in PATH when it has no '/') with `env` as its
// whole environment (nullopt: this process's), in its own process group,
// killed at the deadline; output bounded.
Result<ProcessResult> RunProcess(const std::vector<std::string>& argv,
                                 const std::optional<std::vector<std::string>>& env,
                                 std::chrono::seconds timeout, size_t max_output = kMaxRecordBytes);

// ---- direct mode: the image's root file system ----

struct ExtractLimits {
  uint64_t max_total_bytes = 32ull << 30;
  uint64_t max_entries = 2'000'000;
};
// Writes the image's merged root file system into `dir` (empty or new):
// layers in order, whiteouts applied, links kept as links; no path leaves
// `dir` (absolute and ".." targets are written as they are, never followed
// while writing), no set-id bits, no device files.
Status ExtractRootfs(const std::string& image, const std::filesystem::path& dir, const ExtractLimits& limits);

// `image_path` ("/usr/local/cuda/lib64") inside `root`, every link followed
// as the image would see it (absolute targets re-rooted, ".." stops at the
// root), so that no path of the image leads to a host file.
std::filesystem::path ResolveInRoot(const std::filesystem::path& root, const std::string& image_path);

// The image's dynamic loader inside `root` ("lib64/ld-linux-x86-64.so.2",
// ...), or an Error saying the image has no glibc loader the probe can use.
Result<std::filesystem::path> FindLoader(const std::filesystem::path& root);

// ---- comparing and recording ----

// One line of `observed:` in a pool of the fleet file (DESIGN.md
// "Observations").
Observation MakeObservation(const std::string& image_digest, const std::string& fact, const Outcome& outcome,
                            const std::string& host, const std::string& date);
// Adds `observation` to pool `pool` of the fleet YAML at `path` (replacing
// one with the same image and fact), keeping everything else of the file;
// a missing file or pool is created from `pool_yaml` (one pool's mapping).
Status RecordObservation(const std::string& path, const std::string& pool, const std::string& pool_yaml,
                         const Observation& observation);

}  // namespace imagelint::probe

namespace imagelint {
struct Context;  // imagelint/pipeline.h
}

namespace imagelint::probe {

// ---- the whole check: `imagelint probe IMAGE` ----

struct ProbeRequest {
  std::string image;                 // as for scan: a path, rootfs:DIR, or (container mode) a Docker reference
  std::string mode = "direct";       // direct | container
  std::string docker_launch = "gpus";  // container mode: gpus | nvidia-runtime | cdi
  std::filesystem::path probe_program;
  std::vector<std::string> fatbins;  // image paths loaded with cuModuleLoadData (besides *.fatbin/*.cubin of the facts)
  std::vector<std::string> driver_dirs;  // where the host's driver libraries are (direct mode)
  std::chrono::seconds timeout{60};  // each probe run (the probe's own watchdog fires first)
  HostOptions host;
  bool keep = false;                 // keep the extracted root file system
};

// The report (`imagelint.probe/v1`): host, image {ref, digest}, pool (the
// host as a one-pool fleet), prediction (the verdict), runs[] (one per
// module-loading mode: the record and its outcome), checks[] {check,
// predicted, observed, match}, status match|contradiction|no-gpu|hung, and
// the observation to record (`observation`).
Result<nlohmann::json> ProbeImage(const ProbeRequest& request, const Context& context);

// The pool the host stands for, as fleet YAML lines (no "- "): what --record
// adds when the fleet has no such pool yet.
std::string PoolYaml(const nlohmann::json& report);

}  // namespace imagelint::probe
