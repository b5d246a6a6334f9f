// The Dockerfile module's tables (base-images.yaml, packages.yaml,
// commands.yaml) as C++
// structs. The loader has already validated every row against its schema
// (knowledge.cpp); this builds the typed views once per Load and checks what
// a row-by-row schema cannot: references between rows (brand sets), keys made
// of two fields, name patterns the linear matcher can read, and the files the
// Dockerfile facts need. Errors name the row's file:line.
#include <algorithm>
#include <cctype>
#include <set>

#include "common/json.h"
#include "common/text.h"
#include "common/version.h"
#include "imagelint/image_knowledge.h"
#include "imagelint/knowledge.h"

namespace imagelint {
namespace {

using json = nlohmann::json;

bool Flag(const json& row, const char* key) {
  auto it = row.find(key);
  return it != row.end() && it->is_boolean() && it->get<bool>();
}
std::vector<std::string> List(const json& row, const char* key) {
  std::vector<std::string> out;
  auto it = row.find(key);
  if (it == row.end() || !it->is_array()) return out;
  for (const json& item : *it)
    if (item.is_string()) out.push_back(item.get<std::string>());
  return out;
}
// `unconfirmed: true` or the text saying what is unconfirmed; "" when absent.
std::string Unconfirmed(const json& row) {
  auto it = row.find("unconfirmed");
  if (it == row.end()) return "";
  if (it->is_boolean()) return it->get<bool>() ? "unconfirmed" : "";
  return it->is_string() ? it->get<std::string>() : "";
}
Error RowError(const json& row, const std::string& message) {
  int line = row.contains("_line") && row["_line"].is_number_integer() ? row["_line"].get<int>() : 0;
  return MakeErrorAtLine(StringField(row, "_file"), line, 1, message);
}

bool IsDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// A pattern the linear matcher reads: at most one `*`, closed `{key}`
// placeholders, never a digit or another placeholder right after one.
Status CheckPattern(const json& row, const std::string& pattern) {
  if (std::count(pattern.begin(), pattern.end(), '*') > 1) return RowError(row, "name pattern '" + pattern + "' has more than one '*'");
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '{') continue;
    size_t end = pattern.find('}', i);
    if (end == std::string::npos || end == i + 1)
      return RowError(row, "name pattern '" + pattern + "' has an unclosed or empty '{'");
    if (end + 1 < pattern.size() && (IsDigit(pattern[end + 1]) || pattern[end + 1] == '{' || pattern[end + 1] == '*'))
      return RowError(row, "name pattern '" + pattern + "': a placeholder must be followed by a non-digit literal");
    if (i > 0 && IsDigit(pattern[i - 1]))
      return RowError(row, "name pattern '" + pattern + "': a placeholder must follow a non-digit literal");
    if (i > 0 && pattern[i - 1] == '*')
      return RowError(row, "name pattern '" + pattern + "': '*' cannot be followed by a placeholder");
    i = end;
  }
  return OkStatus();
}

// Matches `pattern` (no `*`) against the start of `name`, reading
// placeholders as digit runs; returns how many characters it consumed.
// Placeholders are followed by non-digits (CheckPattern), so the greedy run
// is the only possible one.
std::optional<size_t> MatchPrefix(std::string_view pattern, std::string_view name,
                                  std::map<std::string, std::string>* captured) {
  size_t p = 0, n = 0;
  while (p < pattern.size()) {
    if (pattern[p] == '{') {
      size_t end = pattern.find('}', p);
      if (end == std::string_view::npos) return std::nullopt;
      size_t start = n;
      while (n < name.size() && IsDigit(name[n])) ++n;
      if (n == start) return std::nullopt;
      if (captured) (*captured)[std::string(pattern.substr(p + 1, end - p - 1))] = std::string(name.substr(start, n - start));
      p = end + 1;
      continue;
    }
    if (n >= name.size() || name[n] != pattern[p]) return std::nullopt;
    ++p;
    ++n;
  }
  return n;
}

// The shortest tail of `name` that `suffix` (no `*`) can match: literals and
// digit runs read backwards from the end.
std::optional<size_t> MatchSuffixStart(std::string_view suffix, std::string_view name) {
  size_t p = suffix.size(), n = name.size();
  while (p > 0) {
    if (suffix[p - 1] == '}') {
      size_t open = suffix.rfind('{', p - 1);
      if (open == std::string_view::npos) return std::nullopt;
      size_t end = n;
      while (n > 0 && IsDigit(name[n - 1])) --n;
      if (n == end) return std::nullopt;
      p = open;
      continue;
    }
    if (n == 0 || name[n - 1] != suffix[p - 1]) return std::nullopt;
    --p;
    --n;
  }
  return n;
}

const BaseImageKnowledge& EmptyBaseImages() {
  static const BaseImageKnowledge empty;
  return empty;
}
const PackageKnowledge& EmptyPackages() {
  static const PackageKnowledge empty;
  return empty;
}

bool Has(const std::vector<std::string>& list, std::string_view value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

// ---------------------------------------------------------------- builders

Result<BaseImageKnowledge> BuildBaseImages(const Knowledge& k) {
  BaseImageKnowledge out;
  // A family may take several rows (repositories with different facts); a
  // repository or prefix belongs to one row only.
  std::set<std::string> claimed;
  for (const json& row : k.Table("base_image_families")) {
    out.families.push_back({StringField(row, "family"), List(row, "repositories"), StringField(row, "repository_prefix"),
                            List(row, "flavors"), StringField(row, "default_distribution"), StringField(row, "source"),
                            StringField(row, "cuda_min"), StringField(row, "tag_word"),
                            StringField(row, "except_tag_word"), Flag(row, "gpu")});
    std::vector<std::string> names = out.families.back().repositories;
    if (!out.families.back().repository_prefix.empty()) names.push_back(out.families.back().repository_prefix + "*");
    for (const std::string& name : names)
      if (!claimed.insert(name).second) return RowError(row, "repository " + name + " is in two base image families");
    for (const BaseImageFamily& other : out.families)
      if (other.family == out.families.back().family && other.gpu != out.families.back().gpu)
        return RowError(row, "family " + other.family + ": its rows disagree on gpu");
  }
  for (const json& row : k.Table("cuda_image_brand_sets")) out.brand_sets[StringField(row, "id")] = List(row, "brands");
  for (const json& row : k.Table("cuda_images")) {
    CudaImageRelease release;
    release.cuda = StringField(row, "cuda");
    release.cudart = StringField(row, "cudart");
    release.source = StringField(row, "source");
    // NVIDIA_REQUIRE_CUDA as the image definitions write it: cuda>=M.m, then
    // one term per (branch, brand), then the extra terms.
    release.require = "cuda>=" + StringField(row, "require_cuda");
    std::string set = StringField(row, "require_brands");
    bool has_branches = row.contains("require_branches") && row["require_branches"].is_array();
    if (has_branches && set.empty()) return RowError(row, "release " + release.cuda + ": require_branches without require_brands");
    if (!set.empty() && !out.brand_sets.count(set))
      return RowError(row, "release " + release.cuda + ": unknown brand set '" + set + "' (not in cuda_image_brand_sets)");
    if (has_branches)
      for (const json& branch : row["require_branches"]) {
        long long b = branch.get<long long>();
        for (const std::string& brand : out.brand_sets[set])
          release.require += " brand=" + brand + ",driver>=" + std::to_string(b) + ",driver<" + std::to_string(b + 1);
      }
    for (const std::string& extra : List(row, "require_extra")) release.require += " " + extra;
    release.require_source = row.contains("require_source") ? StringField(row, "require_source") : release.source;
    release.require_unconfirmed = Flag(row, "require_unconfirmed");
    release.require_unread = StringField(row, "require_unread");
    if (!release.require_unread.empty() && (has_branches || !set.empty()))
      return RowError(row, "release " + release.cuda + ": require_unread and a recorded clause list contradict");
    release.compat_libcuda = StringField(row, "compat_libcuda");
    release.compat_source = StringField(row, "compat_source");
    release.compat_unconfirmed = Flag(row, "compat_unconfirmed");
    out.cuda_releases.push_back(std::move(release));
  }
  for (const json& row : k.Table("cuda_image_env"))
    out.cuda_env.push_back({StringField(row, "name"), StringField(row, "value"), List(row, "flavors"), List(row, "architectures"),
                            List(row, "distributions"), {StringField(row, "cuda_from"), StringField(row, "cuda_to")},
                            Flag(row, "with_compat"), Unconfirmed(row), StringField(row, "source")});
  for (const json& row : k.Table("cuda_image_architectures"))
    out.architectures.push_back({StringField(row, "architecture"), StringField(row, "images_from"), StringField(row, "ubuntu_compat_from"),
                                 StringField(row, "source")});
  for (const json& row : k.Table("cuda_image_files")) {
    CudaImageFile file{StringField(row, "kind"), StringField(row, "path"), StringField(row, "link"), List(row, "links"), List(row, "dirs"),
                       List(row, "flavors"), {StringField(row, "cuda_from"), StringField(row, "cuda_to")}, StringField(row, "source")};
    if (file.kind == "cuda_home" && file.link.empty()) return RowError(row, "cuda_home needs `link` (the /usr/local/cuda symlink)");
    if (file.kind == "ld_so_conf" && file.dirs.empty()) return RowError(row, "ld_so_conf needs `dirs`");
    out.files.push_back(std::move(file));
  }
  for (const char* kind : {"cuda_home", "cudart", "compat", "stub"}) {
    bool found = std::any_of(out.files.begin(), out.files.end(), [&](const CudaImageFile& f) { return f.kind == kind; });
    if (!found)
      return MakeError((k.directory() / "base-images.yaml").string(), std::string("cuda_image_files has no row of kind ") + kind);
  }
  for (const json& row : k.Table("pytorch_images")) {
    PytorchImageTag tag{StringField(row, "tag"), StringField(row, "cuda"), StringField(row, "torch"), std::nullopt, StringField(row, "source")};
    if (row.contains("compat") && row["compat"].is_boolean()) tag.compat = row["compat"].get<bool>();
    out.pytorch_tags.push_back(std::move(tag));
  }
  for (const json& row : k.Table("pytorch_image_flavors")) {
    PytorchImageFlavor flavor{StringField(row, "flavor"),       StringField(row, "torch_from"),    StringField(row, "base"),
                              StringField(row, "distribution"), {}, List(row, "architectures"), StringField(row, "source")};
    if (flavor.base == "nvidia-cuda-devel" && flavor.distribution.empty())
      return RowError(row, "base nvidia-cuda-devel needs `distribution` (the OS part of the nvidia/cuda tag)");
    for (const std::string& entry : List(row, "env")) {
      size_t eq = entry.find('=');
      if (eq == std::string::npos || eq == 0) return RowError(row, "env entry '" + entry + "' is not NAME=value");
      flavor.env.emplace_back(entry.substr(0, eq), entry.substr(eq + 1));
    }
    out.pytorch_flavors.push_back(std::move(flavor));
  }
  for (const json& row : k.Table("ngc_releases")) {
    NgcRelease release{StringField(row, "release"), List(row, "frameworks"), StringField(row, "cuda"), Unconfirmed(row),
                       StringField(row, "source")};
    // "YY.MM": the tag grammar of the NGC containers; anything else could never match a tag.
    const std::string& r = release.release;
    bool well_formed = r.size() == 5 && IsDigit(r[0]) && IsDigit(r[1]) && r[2] == '.' && IsDigit(r[3]) && IsDigit(r[4]);
    if (!well_formed) return RowError(row, "NGC release '" + r + "' is not YY.MM");
    out.ngc_releases.push_back(std::move(release));
  }
  return out;
}

Result<PackageKnowledge> BuildPackages(const Knowledge& k) {
  PackageKnowledge out;
  std::map<std::string, const json*> seen;
  for (const json& row : k.Table("python_packages")) {
    PythonPackage package{StringField(row, "manager"), StringField(row, "name"), StringField(row, "framework"), Flag(row, "cuda_selector"),
                          List(row, "index_hosts"), List(row, "index_paths"), StringField(row, "component"), StringField(row, "library"), Unconfirmed(row),
                          StringField(row, "source"), StringField(row, "cuda_naming"), Flag(row, "requires_torch")};
    IMAGELINT_TRY(CheckPattern(row, package.name));
    if (!package.cuda_naming.empty() && (package.manager != "pip" || package.framework.empty()))
      return RowError(row, "cuda_naming is the CUDA grammar of a pip row's framework: it needs manager pip and a framework");
    if (package.index_hosts.empty() != package.index_paths.empty())
      return RowError(row, "index_hosts and index_paths go together: the hosts whose paths name a CUDA variant, and those paths");
    if (package.requires_torch && (package.manager != "pip" || !package.framework.empty()))
      return RowError(row, "requires_torch describes a pip package that is not itself a framework");
    if (!seen.emplace(package.manager + " " + package.name, &row).second)
      return RowError(row, "duplicate " + package.manager + " package '" + package.name + "'");
    out.python_packages.push_back(std::move(package));
  }
  seen.clear();
  for (const json& row : k.Table("pypi_releases")) {
    PypiRelease release{StringField(row, "package"), StringField(row, "release"), StringField(row, "cuda"), StringField(row, "torch"),
                        Unconfirmed(row), StringField(row, "source"), StringField(row, "python_min")};
    if (release.cuda.empty() == release.torch.empty())
      return RowError(row, "a pypi_releases row gives either `cuda` or `torch`");
    if (!seen.emplace(release.package + " " + release.release, &row).second)
      return RowError(row, "duplicate release " + release.release + " of " + release.package);
    out.pypi_releases.push_back(std::move(release));
  }
  seen.clear();
  for (const json& row : k.Table("torch_pins")) {
    TorchPin pin{StringField(row, "package"), StringField(row, "release"), StringField(row, "torch"), Unconfirmed(row), StringField(row, "source")};
    if (!seen.emplace(pin.package + " " + pin.release, &row).second)
      return RowError(row, "duplicate release " + pin.release + " of " + pin.package);
    out.torch_pins.push_back(std::move(pin));
  }
  for (const json& row : k.Table("distro_pythons"))
    out.distro_pythons.push_back({StringField(row, "distribution"), StringField(row, "python"), StringField(row, "source")});
  for (const json& row : k.Table("framework_runtimes")) {
    FrameworkRuntime runtime{StringField(row, "manager"), StringField(row, "framework"), StringField(row, "cuda_major"),
                             StringField(row, "extra"),   StringField(row, "library"),   Unconfirmed(row),
                             StringField(row, "source")};
    if (!runtime.cuda_major.empty() && !std::all_of(runtime.cuda_major.begin(), runtime.cuda_major.end(),
                                                    [](char c) { return c >= '0' && c <= '9'; }))
      return RowError(row, "cuda_major is a CUDA major (digits), or absent for any");
    if (runtime.library.find("{soname}") == std::string::npos) return RowError(row, "library needs {soname}");
    out.framework_runtimes.push_back(std::move(runtime));
  }
  for (const json& row : k.Table("pypi_mirrors")) {
    std::string url = StringField(row, "url");
    if (url.find("://") != std::string::npos || url.ends_with('/'))
      return RowError(row, "url is written without its scheme and trailing '/'");
    out.pypi_mirrors.push_back(std::move(url));
  }
  for (const json& row : k.Table("conda_channels")) {
    CondaChannel channel{StringField(row, "channel"), StringField(row, "arch_lists"), {}, StringField(row, "source")};
    if (row.contains("cpu_builds"))
      for (const json& build : row["cpu_builds"]) channel.cpu_builds.push_back(build.get<std::string>());
    out.conda_channels.push_back(std::move(channel));
  }
  for (const json& row : k.Table("python_build_backends"))
    out.pure_python_backends.push_back(
        {StringField(row, "backend"), List(row, "hook_tables"), List(row, "hook_files"), StringField(row, "source")});
  for (const json& row : k.Table("installer_scripts")) {
    InstallerScript script{StringField(row, "url"), StringField(row, "installs"), Flag(row, "gpu_code"), StringField(row, "source")};
    if (script.url.find("://") != std::string::npos) return RowError(row, "url is written without its scheme");
    out.installer_scripts.push_back(std::move(script));
  }
  for (const json& row : k.Table("system_packages")) {
    SystemPackage package{StringField(row, "name"), StringField(row, "kind"), StringField(row, "path"), StringField(row, "source")};
    IMAGELINT_TRY(CheckPattern(row, package.name));
    if (package.name.find('*') != std::string::npos) return RowError(row, "system package names take no '*'");
    if (package.kind == "bundled" && package.path.empty()) return RowError(row, "a bundled driver package needs `path`");
    out.system_packages.push_back(std::move(package));
  }
  return out;
}

}  // namespace

bool CudaRange::Contains(std::string_view cuda) const {
  if (!from.empty() && CompareNaturalVersions(cuda, from) < 0) return false;
  if (!to.empty() && CompareNaturalVersions(cuda, to) > 0) return false;
  return true;
}

bool MatchNamePattern(std::string_view pattern, std::string_view name, std::map<std::string, std::string>* captured) {
  std::map<std::string, std::string> found;
  size_t star = pattern.find('*');
  if (star == std::string_view::npos) {
    auto consumed = MatchPrefix(pattern, name, &found);
    if (!consumed || *consumed != name.size()) return false;
  } else {
    std::string_view prefix = pattern.substr(0, star), suffix = pattern.substr(star + 1);
    auto prefix_end = MatchPrefix(prefix, name, &found);
    if (!prefix_end) return false;
    auto suffix_start = MatchSuffixStart(suffix, name);
    if (!suffix_start || *suffix_start <= *prefix_end) return false;  // `*` matches at least one character
    MatchPrefix(suffix, name.substr(*suffix_start), &found);
  }
  if (captured)
    for (auto& [key, value] : found) (*captured)[key] = value;
  return true;
}

std::string FillTemplate(std::string_view text, const std::map<std::string, std::string>& values) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '{') {
      size_t end = text.find('}', i);
      if (end != std::string_view::npos) {
        auto it = values.find(std::string(text.substr(i + 1, end - i - 1)));
        if (it != values.end()) {
          out += it->second;
          i = end;
          continue;
        }
      }
    }
    out.push_back(text[i]);
  }
  return out;
}

const BaseImageFamily* BaseImageKnowledge::FamilyOf(std::string_view repository) const {
  for (const BaseImageFamily& family : families)
    if (Has(family.repositories, repository)) return &family;
  for (const BaseImageFamily& family : families)
    if (!family.repository_prefix.empty() && StartsWith(repository, family.repository_prefix)) return &family;
  return nullptr;
}

bool BaseImageKnowledge::IsGpuFamily(std::string_view family) const {
  return std::any_of(families.begin(), families.end(),
                     [&](const BaseImageFamily& row) { return row.family == family && row.gpu; });
}

const CudaImageRelease* BaseImageKnowledge::FindCudaRelease(std::string_view version) const {
  for (const CudaImageRelease& release : cuda_releases)
    if (release.cuda == version) return &release;
  // "X.Y" tags point at the newest X.Y.Z; an "X.Y.Z" not in the table at none.
  if (std::count(version.begin(), version.end(), '.') != 1) return nullptr;
  std::string prefix = std::string(version) + ".";
  const CudaImageRelease* best = nullptr;
  for (const CudaImageRelease& release : cuda_releases)
    if (StartsWith(release.cuda, prefix) && (!best || CompareNaturalVersions(release.cuda, best->cuda) > 0)) best = &release;
  return best;
}

const CudaImageArchitecture* BaseImageKnowledge::FindArchitecture(std::string_view architecture) const {
  for (const CudaImageArchitecture& row : architectures)
    if (row.architecture == architecture) return &row;
  return nullptr;
}

const PytorchImageTag* BaseImageKnowledge::FindPytorchTag(std::string_view tag) const {
  for (const PytorchImageTag& row : pytorch_tags)
    if (row.tag == tag) return &row;
  return nullptr;
}

const PytorchImageFlavor* BaseImageKnowledge::FindPytorchFlavor(std::string_view flavor, std::string_view torch) const {
  const PytorchImageFlavor* best = nullptr;  // the row with the newest torch_from at or below `torch`
  for (const PytorchImageFlavor& row : pytorch_flavors)
    if (row.flavor == flavor && CompareNaturalVersions(torch, row.torch_from) >= 0 &&
        (!best || CompareNaturalVersions(row.torch_from, best->torch_from) > 0))
      best = &row;
  return best;
}

const NgcRelease* BaseImageKnowledge::FindNgcRelease(std::string_view release) const {
  for (const NgcRelease& row : ngc_releases)
    if (row.release == release) return &row;
  return nullptr;
}

const CudaImageFile* BaseImageKnowledge::FindFile(std::string_view kind, std::string_view cuda,
                                                  std::string_view flavor) const {
  for (const CudaImageFile& file : files)
    if (file.kind == kind && file.cuda.Contains(cuda) && (file.flavors.empty() || Has(file.flavors, flavor))) return &file;
  return nullptr;
}

std::vector<const CudaImageFile*> BaseImageKnowledge::LdSoConf(std::string_view cuda, std::string_view flavor) const {
  std::vector<const CudaImageFile*> out;
  for (const CudaImageFile& file : files)
    if (file.kind == "ld_so_conf" && file.cuda.Contains(cuda) && (file.flavors.empty() || Has(file.flavors, flavor)))
      out.push_back(&file);
  return out;
}

const PythonPackage* PackageKnowledge::FindPythonPackage(std::string_view manager, std::string_view name,
                                                         std::map<std::string, std::string>* captured) const {
  for (const PythonPackage& package : python_packages)
    if (package.manager == manager && MatchNamePattern(package.name, name, captured)) return &package;
  return nullptr;
}

namespace {

// PEP 440's spellings of one release: "0.6.4-post1", "0.6.4post1" and
// "0.6.4.post1" are the same; a local version ("+cu121") is not part of it.
std::string NormalizedRelease(std::string_view text) {
  text = text.substr(0, text.find('+'));
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = static_cast<char>(std::tolower(static_cast<unsigned char>(text[i])));
    if ((c == '-' || c == '_') && i + 1 < text.size() && std::isalpha(static_cast<unsigned char>(text[i + 1]))) c = '.';
    if (std::isalpha(static_cast<unsigned char>(c)) && !out.empty() && std::isdigit(static_cast<unsigned char>(out.back())))
      out += '.';
    out += c;
  }
  return out;
}

}  // namespace

const TorchPin* PackageKnowledge::FindTorchPin(std::string_view package, std::string_view release) const {
  const std::string wanted = NormalizedRelease(release);
  for (const TorchPin& row : torch_pins)
    if (row.package == package && NormalizedRelease(row.release) == wanted) return &row;
  return nullptr;
}

bool PackageKnowledge::PinsTorch(std::string_view package) const {
  return std::any_of(torch_pins.begin(), torch_pins.end(), [&](const TorchPin& row) { return row.package == package; });
}

bool PackageKnowledge::RequiresTorch(std::string_view package) const {
  const PythonPackage* known = FindPythonPackage("pip", package);
  return known != nullptr && known->requires_torch;
}

const DistroPython* PackageKnowledge::FindDistroPython(std::string_view distribution) const {
  for (const DistroPython& row : distro_pythons)
    if (row.distribution == distribution) return &row;
  return nullptr;
}

const PypiRelease* PackageKnowledge::FindPypiRelease(std::string_view package, std::string_view release) const {
  for (const PypiRelease& row : pypi_releases)
    if (row.package == package && row.release == release) return &row;
  return nullptr;
}

const FrameworkRuntime* PackageKnowledge::FindFrameworkRuntime(std::string_view manager, std::string_view framework,
                                                               std::string_view cuda,
                                                               const std::vector<std::string>& extras) const {
  std::string_view major = cuda.substr(0, cuda.find('.'));
  for (const FrameworkRuntime& row : framework_runtimes)
    if (row.manager == manager && row.framework == framework && (row.cuda_major.empty() || row.cuda_major == major) &&
        (row.extra.empty() || std::find(extras.begin(), extras.end(), row.extra) != extras.end()))
      return &row;
  return nullptr;
}

bool PackageKnowledge::IsPypiIndex(std::string_view url) const {
  if (size_t scheme = url.find("://"); scheme != std::string_view::npos) url = url.substr(scheme + 3);
  if (size_t at = url.find('@'); at != std::string_view::npos && at < url.find('/')) url = url.substr(at + 1);  // user:token@
  while (url.ends_with('/')) url.remove_suffix(1);
  const std::string lower = ToLower(url);
  return std::find(pypi_mirrors.begin(), pypi_mirrors.end(), lower) != pypi_mirrors.end();
}

const PurePythonBackend* PackageKnowledge::FindPurePythonBackend(std::string_view backend) const {
  for (const PurePythonBackend& row : pure_python_backends)
    if (row.backend == backend) return &row;
  return nullptr;
}

const InstallerScript* PackageKnowledge::FindInstallerScript(std::string_view url) const {
  size_t scheme = url.find("://");
  if (scheme != std::string_view::npos) url = url.substr(scheme + 3);
  for (const InstallerScript& row : installer_scripts)
    if (StarMatch(row.url, url)) return &row;
  return nullptr;
}

const CondaChannel* PackageKnowledge::FindCondaChannel(std::string_view channel) const {
  for (const CondaChannel& row : conda_channels)
    if (row.channel == channel) return &row;
  return nullptr;
}

// A channel the table does not hold (a mirror: `conda-forge-remote` on a
// proxy) keeps the build strings of what it mirrors: every row's are tried.
bool PackageKnowledge::IsCpuCondaBuild(std::string_view channel, std::string_view build) const {
  const CondaChannel* known = FindCondaChannel(channel);
  for (const CondaChannel& row : conda_channels) {
    if (known && &row != known) continue;
    for (const std::string& glob : row.cpu_builds)
      if (StarMatch(glob, build)) return true;
  }
  return false;
}

const SystemPackage* PackageKnowledge::FindSystemPackage(std::string_view name,
                                                         std::map<std::string, std::string>* captured) const {
  for (const SystemPackage& package : system_packages)
    if (MatchNamePattern(package.name, name, captured)) return &package;
  return nullptr;
}

namespace {

// commands.yaml (posix_shells, command_runners, data_writers, requirements_exporters).
Result<CommandKnowledge> BuildCommands(const Knowledge& k) {
  CommandKnowledge out;
  for (const json& row : k.Table("posix_shells")) {
    std::string name = StringField(row, "name");
    if (name.find('/') != std::string::npos) return RowError(row, "a shell is named by its file name, without a directory");
    out.posix_shells.push_back(std::move(name));
  }
  for (const json& row : k.Table("command_runners")) {
    CommandRunner runner{StringField(row, "program"), StringField(row, "subcommand"), 0, List(row, "valued_options"),
                         Flag(row, "input_arguments"), StringField(row, "syncs_with"), List(row, "no_sync_options"),
                         StringField(row, "source"), List(row, "installs_with")};
    if (auto it = row.find("positionals"); it != row.end() && it->is_number_integer()) {
      long long positionals = it->get<long long>();
      if (positionals < 0 || positionals > 8) return RowError(row, "positionals is a count of words, 0 to 8");
      runner.positionals = static_cast<int>(positionals);
    }
    if (runner.program.find('/') != std::string::npos)
      return RowError(row, "a program is named by its file name, without a directory");
    for (const std::string& option : runner.installs_with)
      if (std::find(runner.valued_options.begin(), runner.valued_options.end(), option) == runner.valued_options.end())
        return RowError(row, "installs_with option '" + option + "' must be one of valued_options");
    for (const auto* options : {&runner.valued_options, &runner.no_sync_options, &runner.installs_with})
      for (const std::string& option : *options)
        if (option.size() < 2 || option[0] != '-') return RowError(row, "option '" + option + "' does not start with '-'");
    if (!runner.syncs_with.empty() && runner.subcommand.empty())
      return RowError(row, "syncs_with needs a subcommand: the runner's sync takes the words after it");
    if (runner.syncs_with.empty() && !runner.no_sync_options.empty())
      return RowError(row, "no_sync_options without syncs_with");
    out.command_runners.push_back(std::move(runner));
  }
  for (const json& row : k.Table("data_writers")) {
    std::string name = StringField(row, "name");
    if (name.find('/') != std::string::npos) return RowError(row, "a program is named by its file name, without a directory");
    out.data_writers.push_back(std::move(name));
  }
  for (const json& row : k.Table("requirements_exporters")) {
    RequirementsExporter exporter;
    for (const std::string& word : SplitOn(StringField(row, "command"), ' '))
      if (!word.empty()) exporter.command.push_back(word);
    if (exporter.command.empty() || exporter.command.front().find('/') != std::string::npos)
      return RowError(row, "a command is a program's file name, without a directory, and its subcommand words");
    exporter.from_lock = StringField(row, "from") == "lock";
    exporter.lock = StringField(row, "lock");
    if (exporter.from_lock == exporter.lock.empty()) return RowError(row, "`lock` names the lock file of a from: lock row, and only of one");
    exporter.output_options = List(row, "output_options");
    exporter.format_options = List(row, "format_options");
    exporter.formats = List(row, "formats");
    exporter.project_options = List(row, "project_options");
    exporter.group_options = List(row, "group_options");
    exporter.valued_options = List(row, "valued_options");
    exporter.default_output = StringField(row, "default_output");
    exporter.default_inputs = List(row, "default_inputs");
    exporter.source = StringField(row, "source");
    if (exporter.format_options.empty() != exporter.formats.empty())
      return RowError(row, "format_options and formats come together");
    for (const auto* options : {&exporter.output_options, &exporter.format_options, &exporter.project_options,
                                &exporter.group_options, &exporter.valued_options})
      for (const std::string& option : *options)
        if (option.size() < 2 || option[0] != '-') return RowError(row, "option '" + option + "' does not start with '-'");
    out.requirements_exporters.push_back(std::move(exporter));
  }
  return out;
}

}  // namespace

bool CommandKnowledge::IsPosixShell(std::string_view program) const {
  return std::find(posix_shells.begin(), posix_shells.end(), program) != posix_shells.end();
}

bool CommandKnowledge::IsDataWriter(std::string_view program) const {
  return std::find(data_writers.begin(), data_writers.end(), program) != data_writers.end();
}

const CommandRunner* CommandKnowledge::FindRunner(std::string_view program, std::string_view next) const {
  for (const CommandRunner& runner : command_runners)
    if (runner.program == program && (runner.subcommand.empty() || runner.subcommand == next)) return &runner;
  return nullptr;
}

const RequirementsExporter* CommandKnowledge::FindExporter(const std::vector<std::string>& words) const {
  for (const RequirementsExporter& exporter : requirements_exporters) {
    if (words.size() < exporter.command.size()) continue;
    bool match = true;
    for (size_t i = 0; i < exporter.command.size() && match; ++i) {
      std::string_view word = words[i];
      if (i == 0 && word.rfind('/') != std::string_view::npos) word = word.substr(word.rfind('/') + 1);
      match = word == exporter.command[i];
    }
    if (match) return &exporter;
  }
  return nullptr;
}

namespace {
const CommandKnowledge& EmptyCommands() {
  static const CommandKnowledge empty;
  return empty;
}
}  // namespace

Status LoadImageTables(Knowledge& knowledge) {
  auto base_images = BuildBaseImages(knowledge);
  if (!base_images.ok()) return base_images.error();
  auto packages = BuildPackages(knowledge);
  if (!packages.ok()) return packages.error();
  knowledge.base_images_ = std::make_shared<const BaseImageKnowledge>(std::move(*base_images));
  knowledge.packages_ = std::make_shared<const PackageKnowledge>(std::move(*packages));
  auto commands = BuildCommands(knowledge);
  if (!commands.ok()) return commands.error();
  knowledge.commands_ = std::make_shared<const CommandKnowledge>(std::move(*commands));
  return OkStatus();
}

const BaseImageKnowledge& Knowledge::base_images() const { return base_images_ ? *base_images_ : EmptyBaseImages(); }
const PackageKnowledge& Knowledge::packages() const { return packages_ ? *packages_ : EmptyPackages(); }
const CommandKnowledge& Knowledge::commands() const { return commands_ ? *commands_ : EmptyCommands(); }

std::string Knowledge::DescribeSource(std::string_view source) const {
  for (const json& row : Table("sources"))
    if (StringField(row, "id") == source) return std::string(source) + ": " + StringField(row, "title");
  return std::string(source);
}

}  // namespace imagelint
