#include "cuda/reachability.h"

#include <deque>
#include <fnmatch.h>
#include <set>

#include "common/text.h"

namespace imagelint::cuda {
namespace {

constexpr size_t kMaxReasons = 3;

std::string Clean(std::string dir) {
  while (StartsWith(dir, "/")) dir.erase(0, 1);
  while (EndsWith(dir, "/")) dir.pop_back();
  return dir;
}

std::string Shown(const std::string& path) { return "/" + path; }

// $ORIGIN / ${ORIGIN} of an object's RPATH/RUNPATH entry; "" when the entry
// depends on $LIB, $PLATFORM or the working directory (not decidable here).
std::string ExpandOrigin(std::string dir, const std::string& origin) {
  for (const std::string token : {"${ORIGIN}", "$ORIGIN"})
    for (size_t at = dir.find(token); at != std::string::npos; at = dir.find(token, at + origin.size() + 1))
      dir.replace(at, token.size(), "/" + origin);
  if (dir.empty() || dir[0] != '/' || dir.find('$') != std::string::npos) return "";
  // Fold "a/b/../c" so lookups meet the file index's spelling.
  std::vector<std::string> parts;
  for (const std::string& part : SplitOn(dir, '/')) {
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
      continue;
    }
    parts.push_back(part);
  }
  std::string out;
  for (const std::string& part : parts) out += (out.empty() ? "" : "/") + part;
  return out;
}

// CPython's extension module names: "<mod>.cpython-312-x86_64-linux-gnu.so",
// "<mod>.abi3.so" (PEP 3149, PEP 384).
bool IsPythonExtension(const std::string& name) {
  if (!EndsWith(name, ".so")) return false;
  return name.find(".cpython-") != std::string::npos || EndsWith(name, ".abi3.so");
}

struct Walker {
  const ReachInput& in;
  const Knowledge& knowledge;
  std::vector<Reach> out;
  // RPATH directories inherited from the objects that loaded a node (glibc
  // searches the RPATHs of the whole loading chain when the object has no RUNPATH).
  std::vector<std::vector<std::string>> inherited_rpath;
  std::deque<size_t> queue;

  void Mark(size_t node, std::string why, std::vector<std::string> rpath = {}) {
    Reach& reach = out[node];
    if (reach.via.size() < kMaxReasons) reach.via.push_back(std::move(why));
    if (reach.reachable) return;
    reach.reachable = true;
    inherited_rpath[node] = std::move(rpath);
    queue.push_back(node);
  }

  // glibc's order for a name without '/': RPATH (object, then its loaders; only
  // when the object has no RUNPATH), LD_LIBRARY_PATH, RUNPATH, the cache
  // (ld.so.conf directories), the defaults.
  std::vector<std::pair<std::string, std::string>> SearchDirs(size_t node) const {
    const ReachNode& n = in.nodes[node];
    std::string origin = DirName(n.path);
    std::vector<std::pair<std::string, std::string>> dirs;
    if (n.runpath.empty()) {
      for (const std::string& dir : n.rpath)
        if (std::string d = ExpandOrigin(dir, origin); !d.empty()) dirs.emplace_back(d, "RPATH");
      for (const std::string& d : inherited_rpath[node]) dirs.emplace_back(d, "RPATH of a loader");
    }
    for (const std::string& dir : in.ld_library_path) dirs.emplace_back(Clean(dir), "LD_LIBRARY_PATH");
    for (const std::string& dir : n.runpath)
      if (std::string d = ExpandOrigin(dir, origin); !d.empty()) dirs.emplace_back(d, "RUNPATH");
    for (const std::string& dir : in.ld_so_conf_dirs) dirs.emplace_back(Clean(dir), "ld.so.conf");
    for (const std::string& dir : in.default_dirs) dirs.emplace_back(Clean(dir), "default");
    return dirs;
  }

  std::vector<std::string> RpathFor(size_t node) const {
    const ReachNode& n = in.nodes[node];
    if (!n.runpath.empty()) return {};
    std::vector<std::string> rpath = inherited_rpath[node];
    for (const std::string& dir : n.rpath)
      if (std::string d = ExpandOrigin(dir, DirName(n.path)); !d.empty() && rpath.size() < 64) rpath.push_back(d);
    return rpath;
  }

  void Expand(size_t node) {
    const ReachNode& n = in.nodes[node];
    auto dirs = SearchDirs(node);
    std::vector<std::string> rpath = RpathFor(node);
    for (const std::string& name : n.needed) {
      if (name.find('/') != std::string::npos) continue;
      for (const auto& [dir, how] : dirs) {
        auto found = in.lookup(dir, name);
        if (!found) continue;
        Mark(*found, "NEEDED by " + Shown(n.path) + " (" + how + " " + Shown(dir) + ")", rpath);
        break;
      }
    }
    // Libraries this one opens by name at run time (loader-dlopen.yaml).
    std::string base = BaseName(n.path);
    for (const auto& row : knowledge.Table("loader_dlopen")) {
      std::string loader = row["loader"].get<std::string>();
      if (!StartsWith(n.soname, loader) && !StartsWith(base, loader)) continue;
      for (const auto& pattern : row["loads"]) {
        std::string glob = pattern.get<std::string>();
        for (size_t other = 0; other < in.nodes.size(); ++other) {
          const ReachNode& candidate = in.nodes[other];
          std::string name = BaseName(candidate.path);
          if (fnmatch(glob.c_str(), name.c_str(), 0) != 0) continue;
          // dlopen searches as for NEEDED; a copy next to the loader is what
          // frameworks' own directories hold (their RUNPATH is $ORIGIN).
          std::string where = Clean(DirName(candidate.path));
          bool on_path = where == Clean(DirName(n.path));
          for (const auto& [dir, how] : dirs) on_path = on_path || in.canonical_dir(dir) == in.canonical_dir(where);
          if (on_path) Mark(other, "dlopen'ed by name by " + Shown(n.path) + " (" + glob + ")", rpath);
        }
      }
    }
  }
};

}  // namespace

std::vector<Reach> ComputeReachability(const ReachInput& in, const Knowledge& knowledge) {
  Walker walker{in, knowledge, std::vector<Reach>(in.nodes.size()),
                std::vector<std::vector<std::string>>(in.nodes.size()), {}};
  std::set<std::string> path_dirs, loader_dirs;
  for (const std::string& dir : in.path_dirs) path_dirs.insert(in.canonical_dir(Clean(dir)));
  std::string workdir = in.working_dir.empty() ? "" : in.canonical_dir(Clean(in.working_dir));
  for (const auto* list : {&in.ld_library_path, &in.ld_so_conf_dirs, &in.default_dirs})
    for (const std::string& dir : *list) loader_dirs.insert(in.canonical_dir(Clean(dir)));

  // The entrypoint's and the command's program: a path, or a name found on PATH.
  for (const std::string& program : in.programs) {
    if (program.empty()) continue;
    std::vector<std::string> candidates;
    if (program.find('/') != std::string::npos) candidates.push_back(program);
    else
      for (const std::string& dir : in.path_dirs) candidates.push_back(Clean(dir) + "/" + program);
    for (const std::string& candidate : candidates)
      if (auto node = in.lookup(Clean(DirName(Clean(candidate))), BaseName(candidate))) {
        walker.Mark(*node, "the image's entrypoint/command");
        break;
      }
  }
  for (size_t i = 0; i < in.nodes.size(); ++i) {
    const ReachNode& node = in.nodes[i];
    std::string dir = in.canonical_dir(Clean(DirName(node.path)));
    if (node.executable && path_dirs.count(dir)) walker.Mark(i, "an executable on PATH (" + Shown(dir) + ")");
    else if (node.executable && !workdir.empty() && dir == workdir)
      walker.Mark(i, "an executable in the working directory");
    std::string site = node.path;
    for (const char* marker : {"/site-packages/", "/dist-packages/"})
      if (size_t at = ("/" + site).find(marker); at != std::string::npos) {
        walker.Mark(i, "in a Python environment (" + Shown(site.substr(0, at + std::string(marker).size() - 2)) +
                           "): imported or loaded by its packages");
        break;
      }
    if (IsPythonExtension(BaseName(node.path)))
      walker.Mark(i, "a Python extension module: importable from any sys.path entry (PYTHONPATH, the working "
                     "directory, an editable install)");
    if (!node.executable && loader_dirs.count(dir))
      walker.Mark(i, "a library in a loader directory (" + Shown(dir) + "): any program can load it by name");
  }
  while (!walker.queue.empty()) {
    size_t node = walker.queue.front();
    walker.queue.pop_front();
    walker.Expand(node);
  }
  return std::move(walker.out);
}

namespace {

// The loader view's spelling of a directory (as src/nvidia compares them):
// /usr/local/cuda-X.Y → /usr/local/cuda, targets/<arch>/lib → lib64.
std::string FoldedDir(std::string dir) {
  dir = Clean(dir);
  static const std::string kCuda = "usr/local/cuda-";
  if (StartsWith(dir, kCuda)) {
    size_t end = dir.find('/', kCuda.size());
    dir = "usr/local/cuda" + (end == std::string::npos ? std::string() : dir.substr(end));
  }
  for (size_t at = dir.find("/targets/"); at != std::string::npos; at = dir.find("/targets/", at + 1)) {
    size_t target_end = dir.find('/', at + 9);
    if (target_end == std::string::npos) break;
    std::string_view rest = std::string_view(dir).substr(target_end);
    if (StartsWith(rest, "/lib") && (rest.size() == 4 || rest[4] == '/')) {
      dir = dir.substr(0, at) + "/lib64" + dir.substr(target_end + 4);
      break;
    }
  }
  return dir;
}

}  // namespace

void DeriveReachability(facts::Facts& facts, const Knowledge& knowledge) {
  if (!facts.binaries) return;
  std::vector<facts::Binary>& binaries = *facts.binaries;
  bool any_missing = false;
  for (const facts::Binary& b : binaries) any_missing = any_missing || !b.reachable;
  if (!any_missing) return;
  ReachInput in;
  std::multimap<std::pair<std::string, std::string>, size_t> by_dir_name;
  for (size_t i = 0; i < binaries.size(); ++i) {
    const facts::Binary& b = binaries[i];
    ReachNode node;
    node.path = Clean(b.path);
    node.soname = b.soname.value_or("");
    node.executable = b.type == "exec" || (b.type == "dyn" && b.cudart_lookup.has_value());
    node.needed = b.needed.value_or(std::vector<std::string>{});
    node.rpath = b.rpath.value_or(std::vector<std::string>{});
    node.runpath = b.runpath.value_or(std::vector<std::string>{});
    std::string dir = FoldedDir(DirName(node.path));
    by_dir_name.emplace(std::pair{dir, BaseName(node.path)}, i);
    if (!node.soname.empty()) by_dir_name.emplace(std::pair{dir, node.soname}, i);
    in.nodes.push_back(std::move(node));
  }
  auto env_path = facts.image.env.find("PATH");
  for (const std::string& dir :
       SplitOn(env_path != facts.image.env.end() ? env_path->second : std::string(kDefaultExecPath), ':'))
    if (!dir.empty()) in.path_dirs.push_back(dir);
  if (facts.cuda && facts.cuda->loader) {
    const facts::Loader& loader = *facts.cuda->loader;
    in.ld_library_path = loader.ld_library_path.value_or(std::vector<std::string>{});
    for (const facts::LdSoConfEntry& entry : loader.ld_so_conf.value_or(std::vector<facts::LdSoConfEntry>{}))
      in.ld_so_conf_dirs.push_back(entry.dir);
  }
  in.default_dirs = knowledge.LoaderDefaultDirectories();
  in.canonical_dir = [](const std::string& dir) { return FoldedDir(dir); };
  in.lookup = [&](const std::string& dir, const std::string& name) -> std::optional<size_t> {
    auto it = by_dir_name.find({FoldedDir(dir), name});
    if (it == by_dir_name.end()) return std::nullopt;
    return it->second;
  };
  std::vector<Reach> reach = ComputeReachability(in, knowledge);
  for (size_t i = 0; i < binaries.size(); ++i) {
    if (binaries[i].reachable) continue;
    binaries[i].reachable = reach[i].reachable;
    binaries[i].reachable_via = reach[i].via;
    // These facts list only the binaries that matter to CUDA: a path through
    // other objects cannot be seen, so say what the answer rests on.
    if (!reach[i].reachable)
      binaries[i].unreachable_reason = std::string(kUnreachable) +
                                       " (derived from the binaries these facts list; they were written without "
                                       "reachability)";
  }
}

}  // namespace imagelint::cuda
