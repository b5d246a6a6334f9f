// Typed views of the Dockerfile module's knowledge tables:
// rules/knowledge/base-images.yaml (official base images: nvidia/cuda
// releases, their environment and files, pytorch/pytorch tags, NGC) and
// rules/knowledge/packages.yaml (pip/conda/apt packages and the CUDA facts
// they bring). `Knowledge::Load` validates the rows like every other table
// (docs/knowledge.md) and builds these once; `Knowledge::base_images()` and
// `Knowledge::packages()` return them. Strings are never "missing": a field a
// table does not require is empty (or nullopt) when a row leaves it out.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace imagelint {

// Inclusive CUDA range of a row ("" = open end), compared in natural version order.
struct CudaRange {
  std::string from;
  std::string to;
  bool Contains(std::string_view cuda) const;
};

// ------------------------------------------------------------ base-images.yaml

struct BaseImageFamily {
  std::string family;                     // "nvidia/cuda", "pytorch/pytorch", "ngc"
  std::vector<std::string> repositories;  // exact repository names (Docker Hub prefix already stripped)
  std::string repository_prefix;          // "nvcr.io/nvidia/": any repository under it
  std::vector<std::string> flavors;       // the tag grammar's last word: base, runtime, devel
  std::string default_distribution;       // the OS a tag without an OS part means ("ubuntu")
  std::string source;
  std::string cuda_min;                   // every tag ships at least this CUDA release ("" = not recorded)
  std::string tag_word;                   // the family holds only tags with this word ("gpu"); "" = every tag
  std::string except_tag_word;            // ...and no tag with this word ("cuda": pixi's nvidia/cuda-based tags)
  bool gpu = false;                       // its images are GPU images (facts.gpu's base-image signal)
};

struct CudaImageRelease {
  std::string cuda;     // "11.3.0"
  std::string cudart;   // "11.3.58"
  std::string require;  // NVIDIA_REQUIRE_CUDA, expanded from the row
  std::string require_source;
  bool require_unconfirmed = false;
  // Why the images' NVIDIA_REQUIRE_CUDA is not recorded ("" = it is): the
  // requirement is then an unknown fact, not a guessed clause list.
  std::string require_unread;
  std::string compat_libcuda;  // "" = no compat package in the image
  std::string compat_source;
  bool compat_unconfirmed = false;
  std::string source;
};

// One variable of the images' environment, with the conditions under which it is set.
struct CudaImageEnv {
  std::string name;
  std::string value;  // template: {cuda} {cudart} {require} {nvarch} (cuda-targets.yaml) {M} {m}
  std::vector<std::string> flavors, architectures, distributions;  // empty = any
  CudaRange cuda;
  bool with_compat = false;  // only when the image installs the compat package
  std::string unconfirmed;   // "" = confirmed
  std::string source;
};

struct CudaImageArchitecture {
  std::string architecture;        // "arm64" (OCI platform architecture)
  std::string images_from;         // first release with images for it ("" = all)
  std::string ubuntu_compat_from;  // Ubuntu images install the compat package from this release ("" = all)
  std::string source;
};

// A file (or ld.so.conf entry) the official images carry.
struct CudaImageFile {
  std::string kind;                // cuda_home | cudart | compat | stub | ld_so_conf
  std::string path;                // template: {M} {m} {cuda_home} {target} {cudart} {compat}
  std::string link;                // cuda_home: the /usr/local/cuda symlink
  std::vector<std::string> links;  // other names of the file: {dir} {cuda_home} ...
  std::vector<std::string> dirs;   // ld_so_conf: the directories the file lists
  std::vector<std::string> flavors;
  CudaRange cuda;
  std::string source;
};

struct PytorchImageTag {
  std::string tag;    // "2.0.0-cuda11.7-cudnn8-devel"
  std::string cuda;   // "11.7"
  std::string torch;  // "" = from the tag
  std::optional<bool> compat;  // ships a compat package; nullopt = not known
  std::string source;
};

// How the official pytorch/pytorch images of one flavor are built, from a
// torch release on (pytorch_image_flavors): the base they start from and the
// environment their Dockerfile sets.
struct PytorchImageFlavor {
  std::string flavor;      // "runtime"
  std::string torch_from;  // the first torch release built this way
  // "os": an operating-system image (no libcuda, no NVIDIA_REQUIRE_*, no nvidia ld.so.conf);
  // "nvidia-cuda-devel": the nvidia/cuda devel image of the tag's CUDA release and cuDNN
  std::string base;
  std::string distribution;  // nvidia-cuda-devel: the OS part of that image's tag ("ubuntu")
  std::vector<std::pair<std::string, std::string>> env;  // ENV of the Dockerfile, in order
  std::vector<std::string> architectures;  // where the recipe holds ("amd64"); empty = all
  std::string source;
};

// One monthly release of NVIDIA's NGC framework containers (nvcr.io/nvidia/<framework>:YY.MM-...).
struct NgcRelease {
  std::string release;                  // "25.10"
  std::vector<std::string> frameworks;  // repositories whose release notes gave the row
  std::string cuda;                     // "13.0.2"
  std::string unconfirmed;              // "" = confirmed
  std::string source;
};

struct BaseImageKnowledge {
  std::vector<BaseImageFamily> families;
  std::map<std::string, std::vector<std::string>> brand_sets;
  std::vector<CudaImageRelease> cuda_releases;  // in file order (ascending)
  std::vector<CudaImageEnv> cuda_env;
  std::vector<CudaImageArchitecture> architectures;
  std::vector<CudaImageFile> files;
  std::vector<PytorchImageTag> pytorch_tags;
  std::vector<PytorchImageFlavor> pytorch_flavors;
  std::vector<NgcRelease> ngc_releases;

  // The family of a normalized repository ("nvidia/cuda"): exact names first, then prefixes.
  const BaseImageFamily* FamilyOf(std::string_view repository) const;
  // Whether the family of that name ("nvidia/cuda", a base image's kind) is
  // one of GPU images; false for a name no row has ("unknown", "scratch").
  bool IsGpuFamily(std::string_view family) const;
  // Exact release, or for "X.Y" the newest X.Y.Z in the table.
  const CudaImageRelease* FindCudaRelease(std::string_view version) const;
  const CudaImageArchitecture* FindArchitecture(std::string_view architecture) const;
  const PytorchImageTag* FindPytorchTag(std::string_view tag) const;
  // The recipe of a flavor for a torch release ("2.1.0"); nullptr when none is recorded.
  const PytorchImageFlavor* FindPytorchFlavor(std::string_view flavor, std::string_view torch) const;
  // The NGC release "YY.MM"; nullptr when not recorded.
  const NgcRelease* FindNgcRelease(std::string_view release) const;
  // The first file row of `kind` for a release and flavor; nullptr when none applies.
  const CudaImageFile* FindFile(std::string_view kind, std::string_view cuda, std::string_view flavor) const;
  // Every ld_so_conf row that applies.
  std::vector<const CudaImageFile*> LdSoConf(std::string_view cuda, std::string_view flavor) const;
};

// -------------------------------------------------------------- packages.yaml

struct PythonPackage {
  std::string manager;  // pip | conda
  std::string name;     // pattern: literal, `*` (one, any text), `{cu}` (digits)
  std::string framework;
  bool cuda_selector = false;
  std::vector<std::string> index_hosts;
  // Path prefixes on those hosts after which a segment names the CUDA
  // variant (`/whl/` for download.pytorch.org/whl/cu121).
  std::vector<std::string> index_paths;
  std::string component;  // NVIDIA wheels: cudart, nvrtc...
  std::string library;    // under site-packages; {soname}
  std::string unconfirmed;
  std::string source;
  // pip: how the package names its CUDA build, the grammar that reads it
  // (torch | jax | tensorflow | cupy | paddle); "" = not known from the install line.
  std::string cuda_naming;
  // The frameworks[] name an install of `package` makes: `framework`, or
  // the package's own name where the row says `{name}` (the catch-all rows
  // of CUDA build names).
  std::string FrameworkOf(std::string_view package) const {
    return framework == "{name}" ? std::string(package) : framework;
  }
  // pip: the package requires torch with a lower bound only (accelerate,
  // peft...): installing it brings the newest torch unless one is installed.
  bool requires_torch = false;
};

struct PypiRelease {
  std::string package;  // "torch", "torchvision", "tensorflow"
  std::string release;  // "1.12"
  std::string cuda;     // CUDA of the PyPI wheel ("" = not this kind of row)
  std::string torch;    // torch release a companion pairs with
  std::string unconfirmed;
  std::string source;
  std::string python_min;  // the oldest Python the release has wheels for ("" = not recorded)
};

// The python3 of a distribution's own packages (`apt-get install python3`).
struct DistroPython {
  std::string distribution;  // "ubuntu20.04", "debian12"
  std::string python;        // "3.8"
  std::string source;
};

// The libcudart a framework's CUDA build brings (framework_runtimes).
struct FrameworkRuntime {
  std::string manager;     // pip | conda
  std::string framework;   // "torch"
  std::string cuda_major;  // "12"; "" = any
  std::string extra;       // the pip extra that brings it ("and-cuda"); "" = every CUDA build does
  std::string library;     // under site-packages or the prefix; {soname}
  std::string unconfirmed;
  std::string source;
};

struct SystemPackage {
  std::string name;  // pattern with {M} {m} {B} (digits)
  std::string kind;  // compat | cudart | bundled
  std::string path;  // bundled: template with {triplet} {version}
  std::string source;
};

// A PEP 517 build backend that builds pure-Python wheels
// (python_build_backends): a project it builds compiles no GPU code unless
// its pyproject.toml declares a build hook (`hook_tables`) or its directory
// holds one (`hook_files`).
struct PurePythonBackend {
  std::string backend;                   // "hatchling.build"
  std::vector<std::string> hook_tables;  // "tool.hatch.build.hooks"
  std::vector<std::string> hook_files;   // "pdm_build.py"
  std::string source;
};

// An installer script a Dockerfile downloads and runs (installer_scripts):
// matched by the URL it comes from, scheme dropped ("repo.anaconda.com/miniconda/Miniconda3-*").
struct InstallerScript {
  std::string url;        // glob: `*` matches any run of characters
  std::string installs;   // what it puts in the image, in words
  bool gpu_code = false;  // whether that includes GPU code (SASS/PTX)
  std::string source;
};

// A conda channel (conda_channels): whether its framework builds carry the
// GPU architecture lists of the PyPI wheels (pytorch.yaml), and the build
// strings of its CPU-only framework builds.
struct CondaChannel {
  std::string channel;                  // "conda-forge"
  // arch_lists: pypi (its framework builds carry pytorch.yaml's lists), own
  // (lists of their own), none (it publishes no frameworks)
  std::string arch_lists;
  std::vector<std::string> cpu_builds;  // globs: `*` matches any run of characters
  std::string source;
};

// The torch release a package's release requires exactly (vLLM's
// requirements, xFormers' wheels): pip installs that torch with it.
struct TorchPin {
  std::string package;  // "vllm"
  std::string release;  // "0.7.2", "0.0.28.post3": the release exactly as published
  std::string torch;    // "2.5.1"
  std::string unconfirmed;
  std::string source;
};

struct PackageKnowledge {
  std::vector<PythonPackage> python_packages;  // first match wins
  std::vector<InstallerScript> installer_scripts;  // first match wins
  std::vector<PurePythonBackend> pure_python_backends;
  std::vector<PypiRelease> pypi_releases;
  std::vector<DistroPython> distro_pythons;
  std::vector<FrameworkRuntime> framework_runtimes;
  std::vector<SystemPackage> system_packages;  // first match wins
  std::vector<TorchPin> torch_pins;
  std::vector<CondaChannel> conda_channels;
  std::vector<std::string> pypi_mirrors;  // "pypi.tuna.tsinghua.edu.cn/simple": no scheme, no trailing '/'

  // Whether an index URL serves PyPI's own files (pypi_mirrors).
  bool IsPypiIndex(std::string_view url) const;
  // The first row of `manager` whose name pattern matches `name`
  // (normalized); `captured` receives the {placeholder} digits.
  const PythonPackage* FindPythonPackage(std::string_view manager, std::string_view name,
                                         std::map<std::string, std::string>* captured = nullptr) const;
  const PypiRelease* FindPypiRelease(std::string_view package, std::string_view release) const;
  const DistroPython* FindDistroPython(std::string_view distribution) const;
  // The pin of `package`'s `release` (a local version "+cu121" ignored); null when not recorded.
  const TorchPin* FindTorchPin(std::string_view package, std::string_view release) const;
  // Whether the table records pins of `package` at all.
  bool PinsTorch(std::string_view package) const;
  // Whether pip installs torch along with `package` (python_packages `requires_torch`).
  bool RequiresTorch(std::string_view package) const;
  // The runtime `framework` installed by `manager` with `extras` brings for a
  // build of CUDA `cuda` ("12.4", "11.8"); null when the table has none.
  const FrameworkRuntime* FindFrameworkRuntime(std::string_view manager, std::string_view framework,
                                               std::string_view cuda,
                                               const std::vector<std::string>& extras = {}) const;
  const SystemPackage* FindSystemPackage(std::string_view name, std::map<std::string, std::string>* captured) const;
  // The installer row for a download URL (any scheme), or null.
  const InstallerScript* FindInstallerScript(std::string_view url) const;
  const PurePythonBackend* FindPurePythonBackend(std::string_view backend) const;
  // The row of a conda channel by name (a channel URL's last path part); null when not recorded.
  const CondaChannel* FindCondaChannel(std::string_view channel) const;
  // Whether `build` is a CPU-only framework build of `channel` (of any
  // recorded channel, for one not recorded).
  bool IsCpuCondaBuild(std::string_view channel, std::string_view build) const;
};

// ------------------------------------------------------------- commands.yaml

// A program that runs the rest of its words as a command (command_runners):
// `conda run -n env CMD`, `gosu USER CMD`, `xargs CMD`.
struct CommandRunner {
  std::string program;     // file name, without its directory ("conda")
  std::string subcommand;  // "run" for `conda run`; "" = the program itself
  int positionals = 0;     // words after the options that are not the command (gosu's user)
  std::vector<std::string> valued_options;  // options that take the next word as their value
  bool input_arguments = false;  // xargs: more arguments arrive on standard input
  // The subcommand the runner performs first, as its own command (`uv run`
  // -> `uv sync`), unless one of `no_sync_options` is given; "" = none.
  std::string syncs_with;
  std::vector<std::string> no_sync_options;
  std::string source;
  // Options whose value names packages the runner installs for the command
  // (`uv run --with torch==2.4,numpy`): read as an install of their own.
  std::vector<std::string> installs_with;
};

// A command that writes a pip requirements file for a later `pip install -r`
// (requirements_exporters): from a project's lock (`poetry export`) or by
// resolving its input files (`pip-compile requirements.in`).
struct RequirementsExporter {
  std::vector<std::string> command;  // {"poetry", "export"}: the program's file name and its subcommand words
  bool from_lock = false;            // true: `lock` in the project's directory; false: the input files
  std::string lock;                  // "poetry.lock"
  std::vector<std::string> output_options;   // name the file written ("-o", "--output")
  std::vector<std::string> format_options;   // choose the format ("-f", "--format")
  std::vector<std::string> formats;          // the values that are a requirements file
  std::vector<std::string> project_options;  // name the project's directory
  std::vector<std::string> group_options;    // add dependency groups ("--with", "--only")
  std::vector<std::string> valued_options;   // other options that take the next word
  // pip-compile's file when none is named: the first input with `.in`
  // replaced by `.txt`, else this name beside it; "" = standard output.
  std::string default_output;
  std::vector<std::string> default_inputs;   // read when the command names none ("requirements.in")
  std::string source;
};

struct CommandKnowledge {
  std::vector<std::string> posix_shells;  // "sh", "bash": shells whose -c reads POSIX shell script
  std::vector<CommandRunner> command_runners;
  std::vector<std::string> data_writers;  // "cat", "tee": copy standard input to files, never run it
  std::vector<RequirementsExporter> requirements_exporters;

  bool IsPosixShell(std::string_view program) const;
  bool IsDataWriter(std::string_view program) const;
  // The runner `program` (a file name) is when followed by `next` (the word
  // after it; "" when none), or null.
  const CommandRunner* FindRunner(std::string_view program, std::string_view next) const;
  // The exporter whose command `words` start with (the program by its file
  // name), or null.
  const RequirementsExporter* FindExporter(const std::vector<std::string>& words) const;
};

// Matches a knowledge name pattern: literal text, at most one `*` (one or more
// characters) and `{key}` placeholders (one or more ASCII digits, never
// followed by a digit in the pattern). Linear in the name's length.
bool MatchNamePattern(std::string_view pattern, std::string_view name,
                      std::map<std::string, std::string>* captured = nullptr);
// Replaces every `{key}` of `text` with its value; unknown keys stay as written.
std::string FillTemplate(std::string_view text, const std::map<std::string, std::string>& values);

}  // namespace imagelint
