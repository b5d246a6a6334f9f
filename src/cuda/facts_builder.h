// Internals of AddCudaFacts (not public): an index over the image's files and
// one builder function per part of the facts. Each part is a facts:: value;
// JSON appears only where the analyzers' per-file results are read.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/json.h"
#include "cuda/cuda.h"
#include "imagelint/facts.h"
#include "imagelint/knowledge.h"

namespace imagelint::cuda::detail {

// The image's files by path and by text kind, with link resolution inside
// the image. Paths have no leading '/'; rows show them with one (Shown).
class ImageFiles {
 public:
  explicit ImageFiles(const CudaFactsInput& input);

  const std::vector<CudaFile>& All() const { return input_.files; }
  const CudaFile* Find(const std::string& path) const;
  // Follows symlinks inside the image; nullopt when dangling or looping.
  std::optional<std::string> Resolve(const std::string& path) const;
  // Symlinks named lib* whose resolved target is `path`, shown with a '/'.
  std::vector<std::string> AliasesOf(const std::string& path) const;
  // The files the text analyzer captured as `kind` ("dpkg_status", "pip_metadata"...).
  const std::vector<const CudaFile*>& Texts(const std::string& kind) const;
  // layer and layer_digest of a file.
  facts::Provenance Where(const CudaFile& file) const;
  const std::map<std::string, std::string>& Env() const { return env_; }
  const nlohmann::json& Config() const { return input_.config; }

 private:
  const CudaFactsInput& input_;
  std::map<std::string, const CudaFile*> by_path_;
  std::map<std::string, std::vector<const CudaFile*>> texts_;
  std::map<std::string, std::string> env_;
  // AliasesOf: resolved target -> its lib* links, in file order (built once).
  mutable std::once_flag aliases_once_;
  mutable std::map<std::string, std::vector<std::string>> aliases_;
};

// "/" + path.
std::string Shown(const std::string& path);
// The array field of an analyzer result (empty when absent or not an array).
const nlohmann::json& Array(const nlohmann::json& object, const char* key);
// Strings of an analyzer result's array field (non-strings skipped).
std::vector<std::string> Strings(const nlohmann::json& object, const char* key);
// Number of dotted components ("12.4.127" -> 3, "" -> 0).
int Components(const std::string& version);
// "12.4.127" -> "12".
std::string Major(const std::string& version);
// PEP 503 name normalization, as pip compares distribution names: lowercase,
// '_' and '.' as '-'.
std::string NormalizeDistribution(std::string name);
// "<...>/site-packages" or "<...>/dist-packages" a path lies in ("" when none).
std::string SitePackages(const std::string& path);
// "compat" under compat/, "stub" under stubs/, else "bundled".
std::string DriverKind(const std::string& path);

std::vector<facts::Runtime> BuildRuntimes(const ImageFiles& files);

struct DriverFacts {
  std::vector<facts::Driver> drivers;
  std::vector<facts::DriverLibrary> libraries;
};
DriverFacts BuildDrivers(const ImageFiles& files, const facts::Loader& loader, const Knowledge& knowledge);

facts::Loader BuildLoader(const ImageFiles& files, const Knowledge& knowledge);
// The directories the loader searches for the DT_NEEDED entries of an object
// with `elf`'s RPATH/RUNPATH, in glibc's order, as (dir, via) pairs; $ORIGIN
// becomes `origin` (the object's directory, no leading slash).
std::vector<std::pair<std::string, std::string>> SearchOrder(const facts::Loader& loader, const nlohmann::json& elf,
                                                             const std::string& origin, const Knowledge& knowledge);
// Where the loader finds `soname` for the executable `file`.
facts::CudartLookup LookupForExecutable(const ImageFiles& files, const facts::Loader& loader, const CudaFile& file,
                                        const std::string& soname, const Knowledge& knowledge);

struct BinaryFacts {
  std::vector<facts::Binary> binaries;
  std::vector<facts::StaticRuntime> static_runtimes;
};
BinaryFacts BuildBinaries(const ImageFiles& files, const facts::Loader& loader, const Knowledge& knowledge);

std::vector<facts::Framework> BuildFrameworks(const ImageFiles& files);

}  // namespace imagelint::cuda::detail
