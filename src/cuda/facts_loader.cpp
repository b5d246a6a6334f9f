// cuda.loader (LD_LIBRARY_PATH, the ld.so.conf directories, which libcuda.so.1
// each search directory offers) and the libcudart lookup of executables
// (docs/cuda-facts.md, "Loader view" and `cudart_lookup`).
#include <fnmatch.h>

#include <algorithm>
#include <set>

#include "common/text.h"
#include "cuda/facts_builder.h"

namespace imagelint::cuda::detail {
namespace {

using nlohmann::json;

constexpr int kMaxIncludeDepth = 8;

// One ld.so.conf file: directories (separated by blanks, ':' or ','),
// `include` globs matched inside the image (sorted), `hwcap` lines skipped.
void ReadLdSoConf(const ImageFiles& files, const std::string& path, int depth, std::vector<facts::LdSoConfEntry>& dirs,
                  std::set<std::string>& seen) {
  if (depth > kMaxIncludeDepth || seen.count(path)) return;
  seen.insert(path);
  const CudaFile* file = files.Find(path);
  if (file == nullptr) {
    auto resolved = files.Resolve(path);
    if (resolved) file = files.Find(*resolved);
  }
  if (file == nullptr || file->text == nullptr) return;
  for (std::string line : SplitOn(StringField(*file->text, "text"), '\n')) {
    line = Trim(line.substr(0, line.find('#')));
    if (line.empty()) continue;
    if (StartsWith(line, "include") && line.size() > 7 && (line[7] == ' ' || line[7] == '\t')) {
      std::string pattern = Trim(line.substr(8));
      pattern = StartsWith(pattern, "/") ? pattern.substr(1) : DirName(path) + "/" + pattern;
      std::vector<std::string> matches;
      for (const CudaFile& candidate : files.All())
        if (fnmatch(pattern.c_str(), candidate.path.c_str(), FNM_PATHNAME) == 0) matches.push_back(candidate.path);
      std::sort(matches.begin(), matches.end());
      for (const std::string& match : matches) ReadLdSoConf(files, match, depth + 1, dirs, seen);
      continue;
    }
    if (StartsWith(line, "hwcap")) continue;
    std::string item;
    for (size_t i = 0; i <= line.size(); ++i) {
      char c = i < line.size() ? line[i] : ' ';
      if (c == ' ' || c == '\t' || c == ':' || c == ',') {
        if (!item.empty()) {
          facts::LdSoConfEntry entry;
          entry.provenance.layer = file->layer;
          entry.dir = item;
          entry.file = Shown(file->path);
          dirs.push_back(std::move(entry));
        }
        item.clear();
      } else {
        item += c;
      }
    }
  }
}

std::string WithoutSlashes(std::string dir) {
  while (StartsWith(dir, "/")) dir = dir.substr(1);
  while (EndsWith(dir, "/")) dir.pop_back();
  return dir;
}

}  // namespace

facts::Loader BuildLoader(const ImageFiles& files, const Knowledge& knowledge) {
  facts::Loader out;
  std::vector<std::string> ld_library_path;
  auto env = files.Env().find("LD_LIBRARY_PATH");
  if (env != files.Env().end())
    for (const std::string& dir : SplitOn(env->second, ':'))
      if (!dir.empty()) ld_library_path.push_back(dir);
  out.ld_library_path = ld_library_path;
  std::vector<facts::LdSoConfEntry> conf;
  std::set<std::string> seen;
  if (files.Find("etc/ld.so.conf")) {
    ReadLdSoConf(files, "etc/ld.so.conf", 0, conf, seen);
  } else {
    // No /etc/ld.so.conf: glibc reads nothing else, but the NVIDIA toolkit's
    // update-ldcache hook creates one that includes ld.so.conf.d/*.conf.
    std::vector<std::string> matches;
    for (const CudaFile& file : files.All())
      if (StartsWith(file.path, "etc/ld.so.conf.d/") && EndsWith(file.path, ".conf")) matches.push_back(file.path);
    std::sort(matches.begin(), matches.end());
    for (const std::string& match : matches) ReadLdSoConf(files, match, 1, conf, seen);
    out.ld_so_conf_missing = true;
  }
  out.ld_so_conf = std::move(conf);
  // Which libcuda.so.1 a process would find in the image itself, in search
  // order. libcuda is dlopen'ed by libcudart: no RPATH/RUNPATH applies.
  std::vector<facts::LibcudaCandidate> candidates;
  for (const auto& [dir, via] : SearchOrder(out, json::object(), "", knowledge)) {
    std::string clean = WithoutSlashes(dir);
    std::string path = clean + "/libcuda.so.1";
    auto resolved = files.Resolve(path);
    bool target_exists = resolved && files.Find(*resolved);
    if (!files.Find(path) && !target_exists) continue;
    facts::LibcudaCandidate row;
    row.dir = "/" + clean;
    row.via = via;
    row.path = Shown(path);
    if (target_exists) {
      row.resolves_to = facts::Nullable<std::string>(Shown(*resolved));
      row.kind = DriverKind(*resolved);
    } else {
      row.resolves_to = facts::Nullable<std::string>();
    }
    candidates.push_back(std::move(row));
  }
  out.libcuda_candidates = std::move(candidates);
  return out;
}

std::vector<std::pair<std::string, std::string>> SearchOrder(const facts::Loader& loader, const json& elf,
                                                             const std::string& origin, const Knowledge& knowledge) {
  auto expand = [&](std::string dir) {
    for (const std::string token : {"${ORIGIN}", "$ORIGIN"})
      for (size_t at = dir.find(token); at != std::string::npos; at = dir.find(token, at + origin.size() + 1))
        dir.replace(at, token.size(), "/" + origin);
    return dir;
  };
  std::vector<std::pair<std::string, std::string>> search;
  bool has_runpath = elf.contains("runpath");
  if (!has_runpath)
    for (const std::string& dir : Strings(elf, "rpath")) search.emplace_back(expand(dir), "RPATH");
  for (const std::string& dir : loader.ld_library_path.value_or(std::vector<std::string>{}))
    search.emplace_back(dir, "LD_LIBRARY_PATH");
  for (const std::string& dir : Strings(elf, "runpath")) search.emplace_back(expand(dir), "RUNPATH");
  if (loader.ld_so_conf)
    for (const facts::LdSoConfEntry& entry : *loader.ld_so_conf) search.emplace_back(entry.dir, "ld.so.conf");
  for (const std::string& dir : knowledge.LoaderDefaultDirectories()) search.emplace_back(dir, "default");
  return search;
}

// The cache is taken as the ld.so.conf directories: the NVIDIA runtime's
// update-ldcache hook runs ldconfig in the container at start (NVIDIA
// Container Toolkit, cmd/nvidia-cdi-hook/update-ldcache,
// https://github.com/NVIDIA/nvidia-container-toolkit/tree/main/cmd/nvidia-cdi-hook/update-ldcache),
// so files added after the image's last ldconfig count.
facts::CudartLookup LookupForExecutable(const ImageFiles& files, const facts::Loader& loader, const CudaFile& file,
                                        const std::string& soname, const Knowledge& knowledge) {
  facts::CudartLookup lookup;
  lookup.needed = soname;
  bool incomplete = false;
  for (const auto& [dir, via] : SearchOrder(loader, *file.elf, DirName(file.path), knowledge)) {
    // A relative entry depends on the working directory, $LIB and $PLATFORM
    // on the loader build and the CPU: not decidable from the image.
    if (dir.empty() || dir[0] != '/' || dir.find('$') != std::string::npos) {
      incomplete = incomplete || !dir.empty();
      continue;
    }
    lookup.searched.push_back(dir);
    std::string clean = dir.substr(1);
    while (EndsWith(clean, "/")) clean.pop_back();
    std::string path = clean.empty() ? soname : clean + "/" + soname;
    auto resolved = files.Resolve(path);
    const CudaFile* target = resolved ? files.Find(*resolved) : nullptr;
    if (target == nullptr) target = files.Find(path);
    if (target == nullptr || (target->type != EntryType::kRegular && target->type != EntryType::kHardlink)) continue;
    // Shown through the directory's real path ("bin/../lib" -> "lib"), the file name kept.
    auto real_dir = clean.empty() ? std::optional<std::string>("") : files.Resolve(clean);
    lookup.found = Shown(real_dir ? (real_dir->empty() ? soname : *real_dir + "/" + soname) : path);
    lookup.via = via;
    break;
  }
  if (incomplete && !lookup.found) lookup.incomplete = true;
  return lookup;
}

}  // namespace imagelint::cuda::detail
