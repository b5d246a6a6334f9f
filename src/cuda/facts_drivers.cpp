// cuda.drivers (every libcuda.so* file: compat, stub or bundled) and
// cuda.driver_libraries (the other user-mode driver libraries of
// runtime-libraries.yaml) (docs/cuda-facts.md, "Drivers").
#include "common/text.h"
#include "cuda/facts_builder.h"
#include "cuda/scan_text.h"
#include "imagelint/image_env.h"

namespace imagelint::cuda::detail {
namespace {

using nlohmann::json;

// The dpkg package that installs a bundled libcuda.so.1: Debian's libcuda1 and
// libnvidia-tesla-<branch>-cuda1, Ubuntu's libnvidia-compute-<branch>.
bool IsLibcudaPackage(const std::string& name) {
  return name == "libcuda1" || (StartsWith(name, "libnvidia-tesla-") && EndsWith(name, "-cuda1")) ||
         StartsWith(name, "libnvidia-compute-");
}

// The C library and its parts: a process without them never starts, so their
// absence is not the driver's problem (and a root file system used as test
// input may leave them to the host).
bool IsCLibrary(const std::string& name) {
  for (const char* prefix : {"libc.so", "libm.so", "libdl.so", "libpthread.so", "librt.so", "ld-linux", "libgcc_s.so"})
    if (StartsWith(name, prefix)) return true;
  return false;
}

// NEEDED libraries of a libcuda copy that the loader finds nowhere in the
// image (its RPATH/RUNPATH, LD_LIBRARY_PATH, ld.so.conf, the defaults). The
// NVIDIA runtime injects the host driver's libraries under their SONAMEs
// (libnvidia-*.so.1), never a versioned name such as R418's
// libnvidia-fatbinaryloader.so.418.226.00: without that file dlopen of this
// libcuda fails, and CUDA finds no driver at all.
std::vector<std::string> MissingNeeded(const ImageFiles& files, const facts::Loader& loader, const CudaFile& file,
                                       const Knowledge& knowledge) {
  std::vector<std::string> missing;
  for (const std::string& name : Strings(*file.elf, "needed")) {
    if (IsCLibrary(name) || (StartsWith(name, "libnvidia-") && EndsWith(name, ".so.1"))) continue;
    bool found = false;
    for (const auto& [dir, via] : SearchOrder(loader, *file.elf, DirName(file.path), knowledge)) {
      if (dir.empty() || dir[0] != '/') continue;
      std::string clean = dir.substr(1);
      while (EndsWith(clean, "/")) clean.pop_back();
      std::string path = clean.empty() ? name : clean + "/" + name;
      auto resolved = files.Resolve(path);
      if (files.Find(resolved.value_or(path)) != nullptr) {
        found = true;
        break;
      }
    }
    if (!found) missing.push_back(name);
  }
  return missing;
}

facts::Driver DriverRow(const ImageFiles& files, const CudaFile& file, const std::string& suffix) {
  facts::Driver row;
  row.provenance = files.Where(file);
  row.path = Shown(file.path);
  row.kind = DriverKind(file.path);
  if (Components(suffix) >= 2) {
    row.version = suffix;
    row.source = "filename";
  } else if (row.kind == "bundled") {
    // A real libcuda.so.1 without the version in its name: dpkg may know (the last package listed wins).
    for (const CudaFile* status : files.Texts("dpkg_status"))
      for (const auto& package : Array(*status->text, "packages")) {
        std::string name = StringField(package, "name");
        if (!IsLibcudaPackage(name)) continue;
        row.version = nvidia::PackageUpstreamVersion(StringField(package, "version"));
        row.source = "dpkg";
        row.evidence_path = Shown(status->path) + " (" + name + ")";
      }
  }
  if (auto toolkit = ToolkitDirVersion(file.path)) row.toolkit_dir = *toolkit;
  row.note = json::object();
  if (file.elf) {
    row.soname = StringField(*file.elf, "soname");
    if (file.elf->contains("fwd_compat") && (*file.elf)["fwd_compat"].is_object()) row.note = (*file.elf)["fwd_compat"];
    if (file.elf->contains("problems")) {
      auto problems = facts::ReadProblems((*file.elf)["problems"], "problems");
      if (problems.ok()) row.problems = std::move(*problems);
    }
  }
  row.aliases = files.AliasesOf(file.path);
  return row;
}

}  // namespace

DriverFacts BuildDrivers(const ImageFiles& files, const facts::Loader& loader, const Knowledge& knowledge) {
  DriverFacts out;
  for (const CudaFile& file : files.All()) {
    if (file.type != EntryType::kRegular && file.type != EntryType::kHardlink) continue;
    auto name = ParseSharedObjectName(BaseName(file.path));
    if (!name || name->hashed) continue;
    if (name->prefix == "libcuda") {
      facts::Driver row = DriverRow(files, file, name->version);
      if (file.elf != nullptr && row.kind != "stub") {
        auto missing = MissingNeeded(files, loader, file, knowledge);
        if (!missing.empty()) row.missing_needed = std::move(missing);
      }
      out.drivers.push_back(std::move(row));
      continue;
    }
    const json* library = knowledge.FindRuntimeLibrary(name->prefix);
    if (library == nullptr || !library->value("driver_library", false)) continue;
    facts::DriverLibrary row;
    row.provenance = files.Where(file);
    row.name = name->prefix;
    row.kind = DriverKind(file.path);
    row.path = Shown(file.path);
    if (Components(name->version) >= 2) row.version = name->version;
    out.libraries.push_back(std::move(row));
  }
  return out;
}

}  // namespace imagelint::cuda::detail
