// The knowledge tables' schemas and the parser that checks a file against
// one (tables.h; docs/knowledge.md describes the format).
#include "knowledge/tables.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>
#include <sstream>

#include "common/file_text.h"
#include "common/json.h"
#include "common/text.h"
#include "common/version.h"
#include "common/yaml.h"

namespace imagelint::knowledge_tables {

using nlohmann::json;

const std::vector<TableSchema>& Schemas() {
  using F = FieldType;
  static const std::vector<TableSchema> schemas = {
      // The bundle's identity, read first: a bundle of another schema
      // version is refused before its tables are (docs/knowledge.md "Bundle").
      {{"bundle", "bundle.yaml", "revision", "the bundle's identity: schema version, revision, as-of date"},
       false,
       {{"schema_version", F::kInt, true},
        {"revision", F::kVersion, true},
        {"as_of", F::kDate, true},
        {"note", F::kString, false}}},
      {{"sources", "sources.yaml", "id", "the public sources rows cite (S1...): title and http(s) URL"},
       false,
       {{"id", F::kString, true},
        {"title", F::kString, true},
        {"url", F::kUrl, true},
        {"also", F::kUrlList, false},
        {"consulted", F::kDate, false},  // the day the page was last read for the tables
        {"provides", F::kString, false}}},
      {{"toolkits", "toolkits.yaml", "version", "CUDA toolkit releases: toolkit driver, runfile driver, PTX ISA"},
       true,
       {{"version", F::kVersion, true},
        {"label", F::kString, true},
        {"toolkit_driver", F::kVersion, false},
        {"runfile_driver", F::kVersion, false},
        {"windows_driver", F::kString, false},
        {"released", F::kString, false},
        {"ptx_isa", F::kVersion, true},
        {"cudart", F::kVersion, false},
        {"note", F::kString, false}}},
      {{"minor_version", "minor-version.yaml", "cuda_major", "minor-version compatibility floors per CUDA major"},
       true,
       {{"cuda_major", F::kInt, true},
        {"minor_compat", F::kBool, true},
        {"floor_driver", F::kVersion, false},
        {"floor_branch", F::kInt, false},
        {"windows_floor", F::kString, false},
        {"upper_branch", F::kInt, false},
        {"note", F::kString, false}}},
      {{"driver_branches", "driver-branches.yaml", "branch",
        "driver branches: native CUDA, newest PTX ISA, lifecycle"},
       true,
       {{"branch", F::kInt, true},
        {"cuda", F::kVersion, true},
        {"ptx_isa", F::kVersion, true},
        {"designation", F::kEnum, true, "LTSB|PB|NFB|evaluation|unknown"},
        {"end_of_life", F::kTri, true},
        {"eol", F::kString, false},
        {"eol_disputed", F::kString, false},  // another edition's date, with its source
        // cuInit's error when this branch's user-mode libcuda runs over a newer
        // kernel module (default 803 CUDA_ERROR_SYSTEM_DRIVER_MISMATCH).
        {"stale_usermode_error", F::kInt, false},
        {"note", F::kString, false}}},
      {{"ptx_isa", "ptx-isa.yaml", "isa", "PTX ISA version → CUDA version that introduced it"},
       true,
       {{"isa", F::kVersion, true}, {"cuda", F::kVersion, true}, {"note", F::kString, false}}},
      {{"forward_compat", "forward-compat.yaml", "package",
        "forward-compatibility matrix: cuda-compat package → host branches"},
       true,
       {{"package", F::kVersion, true},
        {"compatible_branches", F::kIntList, true},
        {"native_branches", F::kIntList, false},
        {"base_install_branch", F::kInt, false},
        {"matrix", F::kEnum, true, "official|proxy"},
        {"note", F::kString, false}}},
      {{"compat_libraries", "compat-libraries.yaml", "cuda",
        "driver version inside each cuda-compat archive"},
       true,
       {{"cuda", F::kVersion, true},
        {"libcuda", F::kString, true},
        {"elf_note_branches", F::kIntList, false},
        {"note", F::kString, false}}},
      {{"gpus", "gpus.yaml", "name", "GPU products (nvidia-smi names) → CC, architecture, brand, eligibility"},
       true,
       {{"name", F::kString, true},
        {"aliases", F::kStringList, false},
        {"compute_capability", F::kVersion, true},
        {"architecture", F::kString, true},
        {"brand", F::kString, true},
        {"datacenter", F::kTri, true},
        {"forward_compat", F::kTri, true},
        {"integrated", F::kBool, false},
        {"note", F::kString, false}}},
      {{"architectures", "architectures.yaml", "name",
        "GPU architectures: compute capabilities, first/last toolkit, last driver branch"},
       true,
       {{"name", F::kString, true},
        {"compute_capabilities", F::kVersionList, true},
        {"first_toolkit", F::kVersion, false},
        {"last_toolkit", F::kString, false},
        {"last_branch", F::kInt, false},
        {"note", F::kString, false}}},
      {{"sass", "sass.yaml", "cc", "which SASS runs where: integrated parts, renamed CCs, nvcc support"},
       true,
       {{"cc", F::kVersion, true},
        {"integrated", F::kBool, true},
        {"same_as", F::kVersionList, false},
        {"first_toolkit", F::kVersion, false},
        {"last_toolkit", F::kVersion, false},
        {"arch_specific_from", F::kVersion, false},
        {"family_from", F::kVersion, false},
        {"note", F::kString, false}}},
      {{"container_toolkit", "container-toolkit.yaml", "version",
        "container-toolkit behaviour by version and launch path"},
       true,
       {{"version", F::kString, true},
        {"released", F::kString, false},
        {"change", F::kString, true},
        {"docker_gpus_compat", F::kEnum, true, "mount|ldconfig|none"},
        {"nvidia_runtime_mode", F::kEnum, true, "legacy|jit-cdi"},
        {"nvidia_runtime_compat", F::kEnum, true, "mount|ldconfig|hook|hook-elf|none"},
        {"cdi_compat", F::kEnum, true, "hook|hook-elf|none"},
        // Optional: a bundle without it judges a pool that names no runtime on docker-gpus alone.
        {"runtimes", F::kEnumList, false, "docker-gpus|nvidia-runtime|cdi|k8s-device-plugin"},
        {"default_compat_mode", F::kEnum, true, "mount|ldconfig|none"},
        {"brand_names", F::kEnum, true, "basic|full"},
        {"hook_needs_ld_so_cache", F::kBool, true},
        {"lnc_message_style", F::kEnum, true, "factor|token|token-suffix"},
        {"compat_modes", F::kStringList, false},
        {"note", F::kString, false}}},
      {{"pytorch", "pytorch.yaml", "build", "PyTorch wheels → CUDA variants and TORCH_CUDA_ARCH_LIST"},
       true,
       {{"build", F::kString, true},
        {"torch", F::kVersion, true},
        {"variant", F::kString, true},
        {"cuda", F::kVersion, true},
        {"status", F::kEnum, true, "stable|experimental|built"},
        {"arch_list", F::kString, false},
        {"ptx", F::kBool, false},
        {"aarch64_arch_list", F::kString, false},
        {"released", F::kString, false},
        {"note", F::kString, false}}},
      {{"cuda_errors", "cuda-errors.yaml", "code", "CUDA runtime errors the rules predict"},
       true,
       {{"code", F::kInt, true},
        {"name", F::kString, true},
        {"driver_name", F::kString, false},
        {"message", F::kString, true},
        {"meaning", F::kString, false}}},
      {{"nvml_brands", "nvml-brands.yaml", "id", "NVML brand enum → requirement brand string"},
       true,
       {{"id", F::kInt, true},
        {"name", F::kString, true},
        {"requirement", F::kString, true},
        {"since_lnc", F::kString, false},
        {"forward_compat", F::kTri, true},
        {"spellings", F::kStringList, false},
        {"product_words", F::kStringList, false},
        {"note", F::kString, false}}},
      // Loader directories and CUDA library names (the image facts producer and
      // src/nvidia). `reference` names the exact public page behind a row.
      {{"loader_directories", "loader.yaml", "dir", "the dynamic loader's default directories, in search order"},
       true,
       {{"dir", F::kString, true}, {"triplet", F::kString, false}, {"reference", F::kString, false},
        {"note", F::kString, false}}},
      {{"kernel_less_modules", "kernel-less-modules.yaml", "library",
        "NVIDIA libraries whose only device module defines no kernel (for facts without kernel counts)"},
       true,
       {{"library", F::kString, true}, {"note", F::kString, false}}},
      {{"loader_dlopen", "loader-dlopen.yaml", "loader",
        "libraries a CUDA library or framework opens by name at run time (reachability)"},
       true,
       {{"loader", F::kString, true}, {"loads", F::kStringList, true}, {"note", F::kString, false}}},
      {{"driver_injection", "driver-injection.yaml", "mode",
        "launch mode → where the host driver directories come in ldconfig's order"},
       true,
       {{"mode", F::kString, true},
        {"driver_dirs", F::kEnum, true, "command-line|conf-file"},
        {"conf_prefix", F::kString, false},
        {"note", F::kString, false}}},
      {{"cuda_targets", "cuda-targets.yaml", "cuda_target",
        "image architecture → library triplet, CUDA target directory, NVARCH"},
       true,
       {{"cuda_target", F::kString, true},
        {"architecture", F::kString, true},
        {"variant", F::kString, false},
        {"lib_triplet", F::kString, true},
        {"nvarch", F::kString, false},
        {"reference", F::kString, false},
        {"note", F::kString, false}}},
      {{"cudart_sonames", "cudart-sonames.yaml", "first_major", "CUDA major version → libcudart SONAME"},
       true,
       {{"first_major", F::kInt, true},
        {"last_major", F::kInt, false},
        {"soname", F::kString, true},
        {"reference", F::kString, false},
        {"note", F::kString, false}}},
      {{"runtime_libraries", "runtime-libraries.yaml", "name", "CUDA and NVIDIA driver library names"},
       true,
       {{"name", F::kString, true},
        {"family", F::kEnum, false, "letters|letters_underscore"},
        {"cuda_library", F::kBool, true},
        {"driver_library", F::kBool, true},
        {"reference", F::kString, false},
        {"note", F::kString, false}}},
      {{"gpu_signals", "gpu-signals.yaml", "",
        "what marks an image as a GPU image: package words, variables, labels, loader directories, FROM references"},
       true,
       {{"where", F::kEnum, true,
         "package|directory|variable|variable-prefix|label-prefix|needed-prefix|base-image|base-image-prefix|rocm"},
        {"text", F::kString, true},
        {"note", F::kString, false}}},
      {{"captured_packages", "captured-packages.yaml", "",
        "which installed packages the layer scan keeps: pip and conda name prefixes, dpkg name words"},
       true,
       {{"where", F::kEnum, true, "python-prefix|dpkg-word"}, {"text", F::kString, true}, {"note", F::kString, false}}},
      {{"driver_files", "driver-files.yaml", "prefix",
        "file-name prefixes of the NVIDIA driver's user-space libraries (their device code is not the application's)"},
       true,
       {{"prefix", F::kString, true}, {"reference", F::kString, false}, {"note", F::kString, false}}},
      // Dockerfile mode (src/dockerfile/, docs/dockerfile.md): base-images.yaml
      // and packages.yaml hold several tables each, one YAML document per
      // table. Typed views and cross-table checks: src/knowledge/image_tables.cpp.
      {{"base_image_families", "base-images.yaml", "", "base image families: repositories, tag flavors, NGC prefix"},
       true,
       {{"family", F::kEnum, true, "nvidia/cuda|pytorch/pytorch|ngc|l4t|cuda-application|no-cuda"},
        {"repositories", F::kStringList, false},
        {"repository_prefix", F::kString, false},
        {"flavors", F::kStringList, false},
        {"default_distribution", F::kString, false},
        {"cuda_min", F::kVersion, false},
        {"tag_word", F::kString, false},
        {"except_tag_word", F::kString, false},
        {"gpu", F::kBool, false},
        {"note", F::kString, false}}},
      {{"cuda_image_brand_sets", "base-images.yaml", "id", "brand sets of the official images' NVIDIA_REQUIRE_CUDA"},
       true,
       {{"id", F::kString, true}, {"brands", F::kStringList, true}, {"note", F::kString, false}}},
      {{"cuda_images", "base-images.yaml", "cuda", "official nvidia/cuda releases: cudart, NVIDIA_REQUIRE_CUDA, compat libcuda"},
       true,
       {{"cuda", F::kVersion, true},
        {"cudart", F::kVersion, true},
        {"require_cuda", F::kVersion, true},
        {"require_branches", F::kIntList, false},
        {"require_brands", F::kString, false},
        {"require_extra", F::kStringList, false},
        {"require_source", F::kString, false},
        {"require_unconfirmed", F::kBool, false},
        {"require_unread", F::kString, false},
        {"compat_libcuda", F::kVersion, false},
        {"compat_source", F::kString, false},
        {"compat_unconfirmed", F::kBool, false},
        {"note", F::kString, false}}},
      {{"cuda_image_env", "base-images.yaml", "", "environment of the official nvidia/cuda images"},
       true,
       {{"name", F::kString, true},
        {"value", F::kString, true},
        {"flavors", F::kStringList, false},
        {"architectures", F::kStringList, false},
        {"distributions", F::kStringList, false},
        {"cuda_from", F::kVersion, false},
        {"cuda_to", F::kVersion, false},
        {"with_compat", F::kBool, false},
        {"note", F::kString, false}}},
      {{"cuda_image_architectures", "base-images.yaml", "architecture",
        "nvidia/cuda images per architecture: first release, compat package on Ubuntu"},
       true,
       {{"architecture", F::kString, true},
        {"images_from", F::kVersion, false},
        {"ubuntu_compat_from", F::kVersion, false},
        {"note", F::kString, false}}},
      {{"cuda_image_files", "base-images.yaml", "", "where the official images put cudart, compat and stub libcuda, nvidia.conf"},
       true,
       {{"kind", F::kEnum, true, "cuda_home|cudart|compat|stub|ld_so_conf"},
        {"path", F::kString, true},
        {"link", F::kString, false},
        {"links", F::kStringList, false},
        {"dirs", F::kStringList, false},
        {"flavors", F::kStringList, false},
        {"cuda_from", F::kVersion, false},
        {"cuda_to", F::kVersion, false},
        {"note", F::kString, false}}},
      {{"pytorch_images", "base-images.yaml", "tag", "pytorch/pytorch tags: CUDA variant, torch, compat package"},
       true,
       {{"tag", F::kString, true},
        {"cuda", F::kVersion, true},
        {"torch", F::kVersion, false},
        {"compat", F::kTri, false},
        {"note", F::kString, false}}},
      {{"pytorch_image_flavors", "base-images.yaml", "", "how pytorch/pytorch images of a flavor are built: base, environment"},
       true,
       {{"flavor", F::kString, true},
        {"torch_from", F::kVersion, true},
        {"base", F::kEnum, true, "os|nvidia-cuda-devel"},
        {"distribution", F::kString, false},
        {"env", F::kStringList, false},
        {"architectures", F::kStringList, false},
        {"note", F::kString, false}}},
      {{"ngc_releases", "base-images.yaml", "release", "NGC framework container releases (YY.MM): CUDA release"},
       true,
       {{"release", F::kString, true},
        {"frameworks", F::kStringList, true},
        {"cuda", F::kVersion, true},
        {"min_driver", F::kInt, false},
        {"compat_drivers", F::kStringList, false},
        {"note", F::kString, false}}},
      {{"python_packages", "packages.yaml", "", "pip and conda packages: framework, CUDA selector, NVIDIA wheels"},
       true,
       {{"manager", F::kEnum, true, "pip|conda"},
        {"name", F::kString, true},
        {"framework", F::kString, false},
        {"cuda_selector", F::kBool, false},
        // How the package names its CUDA build (pip): the grammar pip_builds.cpp reads.
        {"cuda_naming", F::kEnum, false, "torch|jax|tensorflow|cupy|paddle"},
        // pip: every release requires torch with a lower bound only, so pip
        // brings the newest torch along unless one is installed.
        {"requires_torch", F::kBool, false},
        {"index_hosts", F::kStringList, false},
        // Path prefixes on index_hosts followed by the variant segment.
        {"index_paths", F::kStringList, false},
        {"component", F::kString, false},
        {"library", F::kString, false},
        {"note", F::kString, false}}},
      {{"torch_pins", "packages.yaml", "", "the torch release a package's release requires exactly (vLLM, xFormers)"},
       true,
       {{"package", F::kString, true},
        {"release", F::kString, true},
        {"torch", F::kVersion, true},
        {"note", F::kString, false}}},
      {{"pypi_releases", "packages.yaml", "", "PyPI releases: CUDA of the default wheel, torch a companion pairs with"},
       true,
       {{"package", F::kString, true},
        {"release", F::kVersion, true},
        {"cuda", F::kVersion, false},
        {"torch", F::kVersion, false},
        {"python_min", F::kVersion, false},
        {"note", F::kString, false}}},
      {{"conda_channels", "packages.yaml", "channel", "conda channels: whose GPU architecture lists their framework builds carry"},
       true,
       {{"channel", F::kString, true},
        {"arch_lists", F::kEnum, true, "pypi|own|none"},
        {"cpu_builds", F::kStringList, false},
        {"note", F::kString, false}}},
      {{"distro_pythons", "packages.yaml", "distribution", "the python3 a distribution's own packages install"},
       true,
       {{"distribution", F::kString, true},
        {"python", F::kVersion, true},
        {"note", F::kString, false}}},
      {{"framework_runtimes", "packages.yaml", "", "the CUDA runtime a framework's CUDA build brings, and where it lands"},
       true,
       {{"manager", F::kEnum, true, "pip|conda"},
        {"framework", F::kString, true},
        {"cuda_major", F::kString, false},
        {"extra", F::kString, false},
        {"library", F::kString, true},
        {"note", F::kString, false}}},
      {{"pypi_mirrors", "packages.yaml", "url", "package indexes that serve PyPI's own files (PyPI and its public mirrors)"},
       true,
       {{"url", F::kString, true},
        {"note", F::kString, false}}},
      {{"python_build_backends", "packages.yaml", "backend",
        "PEP 517 build backends that build pure-Python wheels (no compiled extension, so no GPU code)"},
       true,
       {{"backend", F::kString, true},
        {"hook_tables", F::kStringList, false},
        {"hook_files", F::kStringList, false},
        {"note", F::kString, false}}},
      {{"installer_scripts", "packages.yaml", "url", "installer scripts Dockerfiles download and run, and whether they add GPU code"},
       true,
       {{"url", F::kString, true},
        {"installs", F::kString, true},
        {"gpu_code", F::kBool, true},
        {"note", F::kString, false}}},
      // What the Dockerfile reader knows of a RUN line's programs (commands.yaml;
      // typed in image_tables.cpp, read by src/dockerfile/shell.cpp and stages.cpp).
      {{"posix_shells", "commands.yaml", "name", "shells whose -c reads POSIX shell script (SHELL keeps RUN readable)"},
       true,
       {{"name", F::kString, true}, {"note", F::kString, false}}},
      {{"command_runners", "commands.yaml", "program",
        "programs that run the rest of their words as a command (conda run, uv run, gosu, xargs)"},
       true,
       {{"program", F::kString, true},
        {"subcommand", F::kString, false},
        {"positionals", F::kInt, false},
        {"valued_options", F::kStringList, false},
        {"input_arguments", F::kBool, false},
        {"syncs_with", F::kString, false},
        {"no_sync_options", F::kStringList, false},
        {"installs_with", F::kStringList, false},
        {"note", F::kString, false}}},
      {{"data_writers", "commands.yaml", "name",
        "programs that copy standard input to a file without running it (a heredoc fed to one is file content)"},
       true,
       {{"name", F::kString, true}, {"note", F::kString, false}}},
      {{"requirements_exporters", "commands.yaml", "command",
        "commands that write a requirements file from a lock or by resolving inputs (poetry export, pip-compile)"},
       true,
       {{"command", F::kString, true},
        {"from", F::kEnum, true, "lock|inputs"},
        {"lock", F::kString, false},
        {"output_options", F::kStringList, false},
        {"format_options", F::kStringList, false},
        {"formats", F::kStringList, false},
        {"project_options", F::kStringList, false},
        {"group_options", F::kStringList, false},
        {"valued_options", F::kStringList, false},
        {"default_output", F::kString, false},
        {"default_inputs", F::kStringList, false},
        {"note", F::kString, false}}},
      {{"system_packages", "packages.yaml", "name", "apt/yum packages that install libcuda or libcudart"},
       true,
       {{"name", F::kString, true},
        {"kind", F::kEnum, true, "compat|cudart|bundled|toolkit"},
        {"path", F::kString, false},
        {"note", F::kString, false}}},
  };
  return schemas;
}

const TableSchema* FindSchema(std::string_view kind) {
  for (const auto& schema : Schemas())
    if (schema.info.kind == kind) return &schema;
  return nullptr;
}

namespace {

// An absolute http(s) address: a scheme, something after it, no white space
// or control characters (a source must be a page anyone can open).
bool IsUrl(std::string_view s) {
  std::string_view rest;
  if (StartsWith(s, "https://")) rest = s.substr(8);
  else if (StartsWith(s, "http://")) rest = s.substr(7);
  else return false;
  if (rest.empty() || rest.front() == '/' || s.size() > 2048) return false;
  return std::none_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) <= ' ' || c == 0x7f; });
}

// YYYY-MM-DD with a month 01-12 and a day 01-31.
bool IsIsoDate(std::string_view s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9})
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  int month = (s[5] - '0') * 10 + (s[6] - '0');
  int day = (s[8] - '0') * 10 + (s[9] - '0');
  return month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

bool ParseInt(const std::string& s, long long& out) {
  if (s.empty() || s.size() > 18) return false;
  size_t i = s[0] == '-' ? 1 : 0;
  if (i == s.size()) return false;
  for (size_t j = i; j < s.size(); ++j)
    if (!std::isdigit(static_cast<unsigned char>(s[j]))) return false;
  out = std::stoll(s);
  return true;
}

class TableParser {
 public:
  TableParser(const TableSchema& schema, std::string file, const std::vector<std::string>& source_ids)
      : schema_(schema), file_(std::move(file)), source_ids_(source_ids.begin(), source_ids.end()) {}

  Result<json> Parse(std::string_view text) {
    auto documents = LoadDocuments(text, file_);
    if (!documents.ok()) return documents.error();
    return ParseDocuments(*documents);
  }

  // A file holds one table, or several as YAML documents separated by `---`
  // (base-images.yaml, packages.yaml), each with its own kind, schema and
  // rows; every document's kind must be a table of that file.
  Result<json> ParseDocuments(const std::vector<YAML::Node>& documents) {
    if (documents.size() == 1) return ParseRoot(documents.front());
    const YAML::Node* mine = nullptr;
    std::set<std::string> kinds;
    for (const YAML::Node& document : documents) {
      if (!document.IsMap() || !document["kind"] || !document["kind"].IsScalar())
        return At(document, "each document of a knowledge file is a mapping with kind, schema and rows");
      std::string kind = document["kind"].Scalar();
      const TableSchema* schema = FindSchema(kind);
      if (schema == nullptr || schema->info.file != schema_.info.file)
        return At(document["kind"], "kind '" + kind + "' is not a table of " + schema_.info.file);
      if (!kinds.insert(kind).second) return At(document["kind"], "table '" + kind + "' given twice");
      if (kind == schema_.info.kind) mine = &document;
    }
    if (mine == nullptr) return MakeError(file_, "no document of kind '" + schema_.info.kind + "'");
    return ParseRoot(*mine);
  }

 private:
  Result<json> ParseRoot(const YAML::Node& root) {
    if (!root.IsMap()) return At(root, "a knowledge file is a mapping with kind, schema and rows");
    for (const auto& entry : root) {
      std::string key = entry.first.Scalar();
      if (key != "kind" && key != "schema" && key != "rows")
        return At(entry.first, "unknown top-level key '" + key + "' (expected kind, schema, rows)");
    }
    if (!root["kind"] || !root["kind"].IsScalar()) return At(root, "missing 'kind'");
    if (root["kind"].Scalar() != schema_.info.kind)
      return At(root["kind"], "kind '" + root["kind"].Scalar() + "' does not match table '" + schema_.info.kind + "'");
    if (!root["schema"] || !root["schema"].IsScalar() || root["schema"].Scalar() != "1")
      return At(root["schema"] ? root["schema"] : root, "'schema' must be 1");
    YAML::Node rows = root["rows"];
    if (!rows || !rows.IsSequence()) return At(rows ? rows : root, "'rows' must be a list");
    if (rows.size() > kMaxRows) return At(rows, "too many rows");
    json out = json::array();
    std::set<std::string> keys;
    for (const auto& row : rows) {
      auto parsed = ParseRow(row);
      if (!parsed.ok()) return parsed.error();
      if (!schema_.info.key.empty()) {
        std::string key = DumpJson(parsed->at(schema_.info.key));
        if (!keys.insert(key).second)
          return At(row, "duplicate " + schema_.info.key + " " + key + " in table " + schema_.info.kind);
      }
      out.push_back(std::move(*parsed));
    }
    return out;
  }

 private:
  Error At(const YAML::Node& node, const std::string& message) const { return ErrorAtNode(file_, node, message); }

  Result<json> ParseRow(const YAML::Node& row) {
    if (!row.IsMap()) return At(row, "a row must be a mapping");
    json out = json::object();
    for (const auto& entry : row) {
      if (!entry.first.IsScalar()) return At(entry.first, "field names must be plain words");
      std::string name = entry.first.Scalar();
      if (name == "source") {
        if (!entry.second.IsScalar() || entry.second.Scalar().empty())
          return At(entry.second, "'source' must be a non-empty string of source ids");
        auto checked = CheckSource(entry.second);
        if (!checked.ok()) return checked.error();
        out["source"] = entry.second.Scalar();
        continue;
      }
      if (name == "unconfirmed") {
        if (!entry.second.IsScalar() || entry.second.Scalar().empty())
          return At(entry.second, "'unconfirmed' must say what is UNCONFIRMED (or be true)");
        std::string value = entry.second.Scalar();
        out["unconfirmed"] = value == "true" ? json(true) : json(value);
        continue;
      }
      const FieldSpec* spec = nullptr;
      for (const auto& field : schema_.fields)
        if (name == field.name) spec = &field;
      if (spec == nullptr) {
        std::string known;
        for (const auto& field : schema_.fields) known += std::string(known.empty() ? "" : ", ") + field.name;
        return At(entry.first, "unknown field '" + name + "' in table " + schema_.info.kind + " (known: " + known +
                                   ", source, unconfirmed)");
      }
      if (out.contains(name)) return At(entry.first, "field '" + name + "' given twice");
      auto value = Convert(*spec, entry.second);
      if (!value.ok()) return value.error();
      out[name] = std::move(*value);
    }
    for (const auto& field : schema_.fields)
      if (field.required && !out.contains(field.name))
        return At(row, std::string("missing required field '") + field.name + "' in table " + schema_.info.kind);
    if (schema_.needs_source && !out.contains("source"))
      return At(row, "missing 'source' (every row cites an id from sources.yaml)");
    out["_file"] = file_;
    out["_line"] = row.Mark().line + 1;
    return out;
  }

  Status CheckSource(const YAML::Node& node) const {
    std::istringstream words(node.Scalar());
    std::string word;
    bool any_known = false;
    while (words >> word) {
      while (!word.empty() && std::ispunct(static_cast<unsigned char>(word.back())) && word.back() != ')')
        word.pop_back();
      std::string bare = word;
      if (bare.size() >= 2 && bare.front() == '(' && bare.back() == ')') bare = bare.substr(1, bare.size() - 2);
      bool looks_like_id = bare.size() >= 2 && bare[0] == 'S' &&
                           std::all_of(bare.begin() + 1, bare.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
      if (source_ids_.count(bare)) {
        any_known = true;
      } else if (looks_like_id && !source_ids_.empty()) {
        return At(node, "unknown source id '" + bare + "' (not in sources.yaml)");
      }
    }
    if (!source_ids_.empty() && !any_known)
      return At(node, "'source' names no id from sources.yaml: '" + node.Scalar() + "'");
    return OkStatus();
  }

  Result<json> Scalar(const FieldSpec& spec, const YAML::Node& node, FieldType type) {
    if (!node.IsScalar()) return At(node, std::string("field '") + spec.name + "' must be a single value");
    const std::string& s = node.Scalar();
    switch (type) {
      case FieldType::kString:
        if (s.empty()) return At(node, std::string("field '") + spec.name + "' is empty");
        return json(s);
      case FieldType::kVersion:
        if (!IsDottedVersion(s))
          return At(node, std::string("field '") + spec.name + "' must be a version (digits and dots), got '" + s + "'");
        return json(s);
      case FieldType::kInt: {
        long long v = 0;
        if (!ParseInt(s, v)) return At(node, std::string("field '") + spec.name + "' must be an integer, got '" + s + "'");
        return json(v);
      }
      case FieldType::kBool:
        if (s == "true") return json(true);
        if (s == "false") return json(false);
        return At(node, std::string("field '") + spec.name + "' must be true or false, got '" + s + "'");
      case FieldType::kTri:
        if (s == "true" || s == "yes") return json(true);
        if (s == "false" || s == "no") return json(false);
        if (s == "unknown") return json(nullptr);
        return At(node, std::string("field '") + spec.name + "' must be true, false or unknown, got '" + s + "'");
      case FieldType::kUrl:
        if (!IsUrl(s))
          return At(node, std::string("field '") + spec.name + "' must be an http:// or https:// address, got '" + s + "'");
        return json(s);
      case FieldType::kDate:
        if (!IsIsoDate(s))
          return At(node, std::string("field '") + spec.name + "' must be a date YYYY-MM-DD, got '" + s + "'");
        return json(s);
      case FieldType::kEnum: {
        std::string values = spec.enum_values;
        std::istringstream parts(values);
        std::string part;
        while (std::getline(parts, part, '|'))
          if (part == s) return json(s);
        return At(node, std::string("field '") + spec.name + "' must be one of " + values + ", got '" + s + "'");
      }
      default:
        return At(node, "internal: bad scalar type");
    }
  }

  Result<json> Convert(const FieldSpec& spec, const YAML::Node& node) {
    FieldType element;
    switch (spec.type) {
      case FieldType::kStringList: element = FieldType::kString; break;
      case FieldType::kEnumList: element = FieldType::kEnum; break;
      case FieldType::kIntList: element = FieldType::kInt; break;
      case FieldType::kVersionList: element = FieldType::kVersion; break;
      case FieldType::kUrlList: element = FieldType::kUrl; break;
      default:
        if (node.IsNull() && !spec.required) return json(nullptr);
        return Scalar(spec, node, spec.type);
    }
    if (!node.IsSequence()) return At(node, std::string("field '") + spec.name + "' must be a list");
    json out = json::array();
    for (const auto& item : node) {
      auto value = Scalar(spec, item, element);
      if (!value.ok()) return value.error();
      out.push_back(std::move(*value));
    }
    return out;
  }

  const TableSchema& schema_;
  std::string file_;
  std::set<std::string> source_ids_;
};

}  // namespace

Result<std::string> ReadTableFile(const std::filesystem::path& path) {
  return ReadBoundedFile(path.string(), kMaxFileBytes, "knowledge file", FileKinds::kRegularOnly);
}

Result<std::vector<YAML::Node>> LoadDocuments(std::string_view text, const std::string& file) {
  if (text.size() > kMaxFileBytes) return MakeError(file, "file too large for a knowledge table");
  return LoadYamlDocuments(text, file);  // alias bombs and depth refused before a graph is built
}

Result<json> ParseDocuments(const TableSchema& schema, const std::string& file, const std::vector<std::string>& source_ids,
                            const std::vector<YAML::Node>& documents) {
  return TableParser(schema, file, source_ids).ParseDocuments(documents);
}

Result<json> ParseTableText(const TableSchema& schema, const std::string& file,
                            const std::vector<std::string>& source_ids, std::string_view text) {
  return TableParser(schema, file, source_ids).Parse(text);
}

}  // namespace imagelint::knowledge_tables
