// cuda.runtimes: every libcudart copy, with its version and the evidence for
// it, best first (docs/cuda-facts.md, "Runtime versions: evidence and source").
#include <algorithm>
#include <set>

#include "common/text.h"
#include "cuda/facts_builder.h"
#include "cuda/scan_text.h"
#include "imagelint/image_env.h"

namespace imagelint::cuda::detail {
namespace {

using nlohmann::json;

struct Evidence {
  std::string source, version, path;
  int rank;  // tie-break among equally precise versions: lower is better
};

// A pip version without its PEP 440 local part ("12.1.105+cu121" -> "12.1.105").
std::string PipReleaseVersion(const std::string& version) { return version.substr(0, version.find('+')); }

// dpkg: cuda-cudart-X-Y or libcudartNN of the major, not -dev (system paths only).
void DpkgEvidence(const ImageFiles& files, const std::string& major, std::vector<Evidence>& evidence) {
  for (const CudaFile* status : files.Texts("dpkg_status")) {
    for (const auto& package : Array(*status->text, "packages")) {
      std::string name = StringField(package, "name");
      bool is_cudart = StartsWith(name, "cuda-cudart-" + major + "-") || StartsWith(name, "libcudart" + major);
      if (!is_cudart || EndsWith(name, "-dev") || name.find("-dev-") != std::string::npos) continue;
      std::string version = nvidia::PackageUpstreamVersion(StringField(package, "version"));
      if (Major(version) == major && Components(version) >= 2)
        evidence.push_back({"dpkg", version, Shown(status->path) + " (" + name + ")", 1});
    }
  }
}

// pip: the nvidia-cuda-runtime wheel of the same site-packages; PyTorch's
// hashed copy: the CUDA torch/version.py says it was built with.
void PythonEvidence(const ImageFiles& files, const CudaFile& file, const std::string& site, const std::string& major,
                    bool torch_copy, std::vector<Evidence>& evidence) {
  if (!torch_copy) {
    for (const CudaFile* meta : files.Texts("pip_metadata")) {
      if (SitePackages(meta->path) != site) continue;
      std::string name = NormalizeDistribution(StringField(*meta->text, "name"));
      if (name != "nvidia-cuda-runtime-cu" + major && name != "nvidia-cuda-runtime") continue;
      std::string version = StringField(*meta->text, "version");
      if (Major(version) == major || major.empty())
        evidence.push_back({"pip", PipReleaseVersion(version), Shown(meta->path), 2});
    }
    return;
  }
  for (const CudaFile* torch : files.Texts("torch_version")) {
    if (SitePackages(torch->path) != site) continue;
    std::string cuda = PythonAssignment(StringField(*torch->text, "text"), "cuda");
    if (!cuda.empty() && (major.empty() || Major(cuda) == major))
      evidence.push_back({"torch/version.py", cuda, Shown(torch->path), 5});
  }
}

// conda: <prefix>/lib/libcudart... with <prefix>/conda-meta/*.json.
void CondaEvidence(const ImageFiles& files, const std::string& prefix, const std::string& major,
                   std::vector<Evidence>& evidence) {
  for (const CudaFile* meta : files.Texts("conda_meta")) {
    if (DirName(meta->path) != prefix + "/conda-meta") continue;
    std::string name = StringField(*meta->text, "name");
    if (name != "cuda-cudart" && name != "cudatoolkit" && name != "cuda-cudart_linux-64") continue;
    std::string version = StringField(*meta->text, "version");
    if (major.empty() || Major(version) == major) evidence.push_back({"conda", version, Shown(meta->path), 3});
  }
}

// version.json of the toolkit directory the file lives in.
void ToolkitEvidence(const ImageFiles& files, const std::string& path, std::vector<Evidence>& evidence) {
  auto root = ToolkitRoot(path);
  if (!root) return;
  auto resolved_root = files.Resolve(*root);
  for (const CudaFile* version_file : files.Texts("cuda_version_json")) {
    std::string dir = DirName(version_file->path);
    if (dir != *root && (!resolved_root || dir != *resolved_root)) continue;
    const json& versions = version_file->text->contains("versions") ? (*version_file->text)["versions"] : json();
    std::string version = StringField(versions, "cuda_cudart");
    if (!version.empty()) evidence.push_back({"version.json", version, Shown(version_file->path), 4});
  }
}

std::optional<facts::Runtime> RuntimeRow(const ImageFiles& files, const CudaFile& file) {
  auto name = ParseSharedObjectName(BaseName(file.path));
  if (!name || name->stem != "libcudart" || (!name->hashed && name->prefix != "libcudart")) return std::nullopt;
  std::vector<Evidence> evidence;
  const std::string& suffix = name->version;
  std::string soname = file.elf ? StringField(*file.elf, "soname") : "";
  std::string soname_major;
  if (StartsWith(soname, "libcudart.so.")) soname_major = Major(soname.substr(13));
  if (Components(suffix) >= 3) evidence.push_back({"filename", suffix, Shown(file.path), 0});
  std::string major = !soname_major.empty() ? soname_major : Major(suffix);
  std::string site = SitePackages(file.path);
  bool torch_copy = file.path.find("/torch/lib/") != std::string::npos;
  if (site.empty() && file.path.find("conda") == std::string::npos) DpkgEvidence(files, major, evidence);
  if (!site.empty()) PythonEvidence(files, file, site, major, torch_copy, evidence);
  size_t lib = file.path.rfind("/lib/");
  if (lib != std::string::npos) CondaEvidence(files, file.path.substr(0, lib), major, evidence);
  ToolkitEvidence(files, file.path, evidence);
  if (!soname_major.empty()) evidence.push_back({"soname", soname_major, Shown(file.path), 6});
  else if (!suffix.empty()) evidence.push_back({"filename", suffix, Shown(file.path), 7});

  facts::Runtime row;
  row.provenance = files.Where(file);
  row.path = Shown(file.path);
  row.soname = soname;
  if (name->hashed) row.hashed_copy = true;
  bool conda = file.path.find("conda") != std::string::npos ||
               (lib != std::string::npos && files.Find(file.path.substr(0, lib) + "/conda-meta/history") != nullptr);
  row.provenance.origin = !site.empty() ? (torch_copy ? "torch" : "pip") : conda ? "conda" : "system";
  // More version components win (up to three); ties go to the better source.
  std::stable_sort(evidence.begin(), evidence.end(), [](const Evidence& a, const Evidence& b) {
    int ca = std::min(Components(a.version), 3), cb = std::min(Components(b.version), 3);
    if (ca != cb) return ca > cb;
    return a.rank < b.rank;
  });
  std::vector<facts::RuntimeEvidence> all;
  std::set<std::string> full_versions;
  for (const Evidence& e : evidence) {
    all.push_back({e.source, e.version, e.path});
    if (Components(e.version) >= 3) full_versions.insert(e.version);
  }
  if (!evidence.empty()) {
    row.version = evidence.front().version;
    row.source = evidence.front().source;
    row.evidence_path = evidence.front().path;
  }
  row.evidence = std::move(all);
  if (full_versions.size() > 1) row.conflict = true;
  row.aliases = files.AliasesOf(file.path);
  return row;
}

}  // namespace

std::vector<facts::Runtime> BuildRuntimes(const ImageFiles& files) {
  std::vector<facts::Runtime> out;
  for (const CudaFile& file : files.All()) {
    if (file.type != EntryType::kRegular && file.type != EntryType::kHardlink) continue;
    if (auto row = RuntimeRow(files, file)) out.push_back(std::move(*row));
  }
  return out;
}

}  // namespace imagelint::cuda::detail
