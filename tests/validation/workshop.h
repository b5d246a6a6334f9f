// Builds the images of the GPU validation at test time from genuine parts:
// programs compiled by NVIDIA's nvcc (/usr/local/cuda/bin), Debian's NVIDIA
// packages unpacked by scripts/fetch-nvidia-debs.sh, the host's own Debian
// glibc. An image is a root file system laid out in a temporary directory
// (files hard-linked from where they came from) and then written as an OCI
// layout: one uncompressed layer made by GNU tar, a config carrying the
// image's Env and Cmd (a root file system alone has no environment, and
// the scenarios depend on LD_LIBRARY_PATH).
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace imagelint::validation {

namespace fs = std::filesystem;

inline constexpr const char* kNvcc = "/usr/local/cuda/bin/nvcc";

// The cache of scripts/fetch-nvidia-debs.sh ($IMAGELINT_NVIDIA_DEBS or
// ~/.cache/imagelint/nvidia-debs) and one package's unpacked root, from its
// index.tsv; empty when the package is not cached.
fs::path DebsDir();
fs::path PackageRoot(const std::string& package, const std::string& suite);
// The package's regular file whose name matches `name` (a regex), or empty.
fs::path PackageFile(const std::string& package, const std::string& suite, const std::string& name);
// Whether nvcc and every package of `wanted` ("package/suite") are there;
// `missing` names the first that is not.
bool HaveParts(const std::vector<std::string>& wanted, std::string* missing);

// A library's name up to its major version: "libcufft.so.11.2.1.3" ->
// "libcufft.so.11" (what its SONAME is for NVIDIA's libraries).
std::string MajorName(const fs::path& library);

// A root file system under construction.
class Rootfs {
 public:
  explicit Rootfs(fs::path root);
  const fs::path& root() const { return root_; }
  // Places a host file at `image_path` (a hard link, or a copy across file systems).
  void Put(const std::string& image_path, const fs::path& host_file, bool executable = false);
  void Link(const std::string& image_path, const std::string& target);
  void Write(const std::string& image_path, const std::string& text);
  void Dir(const std::string& image_path);
  // A shared library as a package installs it: the file under its own name
  // in `dir`, plus symbolic links (SONAME, development name) to it.
  void Library(const std::string& dir, const fs::path& host_file, const std::vector<std::string>& links);
  // Debian's C and C++ runtime from this host (usr-merged: /lib and /lib64
  // are links into /usr), /etc/os-release and /etc/ld.so.conf with its
  // include of ld.so.conf.d, as every Debian-based image has them.
  void DebianBase();

 private:
  fs::path Host(const std::string& image_path) const;
  fs::path root_;
};

struct ImageConfig {
  std::vector<std::string> env;
  std::vector<std::string> entrypoint;
  std::vector<std::string> cmd;
  std::string created_by;
};

// Writes `rootfs` as an OCI image layout directory at `layout`; false with
// `why` when tar fails.
bool WriteOciLayout(const fs::path& rootfs, const ImageConfig& config, const fs::path& layout, std::string* why);

// Runs nvcc (or another tool) with `argv`; false with its output in `why`.
bool Run(const std::vector<std::string>& argv, std::string* why);

// Compiles `source` with nvcc's steps, raising the PTX ISA `.version`
// each PTX file declares from `from` to `to` between cicc and fatbinary
// (nvcc -dryrun's own commands, run by bash with one sed added).
bool NvccWithPtxVersion(const std::vector<std::string>& nvcc_args, const fs::path& work, const std::string& from,
                        const std::string& to, std::string* why);

// The fleet file of the observed host: one H100 80GB HBM3 on driver
// 580.159.04, launched with CDI, cuda-compat-mode disabled and the
// requirement check off (the host of docs/VALIDATION.md's run).
std::string ObservedHostFleet();

// `imagelint scan IMAGES --fleet FLEET -f json [EXTRA...]`: the report, or
// null with `why`. Images this suite just wrote may be read with
// --no-verify (their digests were computed a moment ago, from the same bytes).
nlohmann::json ScanReport(const std::vector<std::string>& images, const fs::path& fleet, std::string* why,
                          const std::vector<std::string>& extra = {});

// Rows of a tab-separated file with a header line: column name -> value.
std::vector<std::map<std::string, std::string>> ReadTsv(const fs::path& path);

// The checkout's tests/validation directory.
fs::path ValidationDir();

}  // namespace imagelint::validation
