// Which ELF objects of an image a workload can load, and why.
//
// A finding about device code matters only if some process of the container
// can load that code. Roots are what a container runs or imports by name:
//  - the entrypoint and command, and executables in the PATH directories and
//    the working directory;
//  - native objects under a Python environment's site-packages/dist-packages
//    (Python imports modules by name; frameworks dlopen their own libraries),
//    and Python extension modules anywhere (PYTHONPATH, in-place builds,
//    editable installs put them outside site-packages);
//  - shared objects directly in a directory the loader searches for every
//    program (LD_LIBRARY_PATH, the ld.so.conf directories, the defaults):
//    any program may dlopen them by name.
// From the roots, the dynamic loader's NEEDED closure (RPATH of the object and
// of its loaders, LD_LIBRARY_PATH, RUNPATH with $ORIGIN, ld.so.conf, defaults:
// ld.so(8)) and the libraries known to be dlopen'ed by name by a reachable
// library (loader-dlopen.yaml). Everything else — a profiler's private
// target libraries, samples, a second toolkit nothing links — is unreachable.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "imagelint/facts.h"
#include "imagelint/knowledge.h"

namespace imagelint::cuda {

// One ELF object. Paths without a leading '/'.
struct ReachNode {
  std::string path;
  std::string soname;
  bool executable = false;  // ET_EXEC, or ET_DYN with a program interpreter
  std::vector<std::string> needed, rpath, runpath;
};

struct ReachInput {
  std::vector<ReachNode> nodes;
  std::vector<std::string> path_dirs;         // PATH of the image (or the default one)
  // The first word of the Entrypoint and of the Cmd: a wrapper script as
  // entrypoint usually ends in `exec "$@"`, so the command runs too.
  std::vector<std::string> programs;
  std::string working_dir;                    // "" when none
  std::vector<std::string> ld_library_path;
  std::vector<std::string> ld_so_conf_dirs;
  std::vector<std::string> default_dirs;
  // The node index a file `name` in directory `dir` leads to (through links);
  // nothing when the directory has no such file or it is not an ELF node.
  std::function<std::optional<size_t>(const std::string& dir, const std::string& name)> lookup;
  // Canonical form of a directory for comparisons (links resolved where known).
  std::function<std::string(const std::string& dir)> canonical_dir;
};

struct Reach {
  bool reachable = false;
  std::vector<std::string> via;  // why, first reason first (at most a few)
};

// The PATH a container gets when its image sets none (Docker's default).
inline constexpr const char* kDefaultExecPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

// Why an object is unreachable, in one line (facts' `unreachable_reason`).
inline constexpr const char* kUnreachable =
    "not on any load path of this image: not the entrypoint, not on PATH, not in a Python environment or a loader "
    "directory, and nothing reachable NEEDs or dlopens it";

// Reachability of every node, by index. Linear in nodes × NEEDED × search
// directories; every node is expanded once.
std::vector<Reach> ComputeReachability(const ReachInput& input, const Knowledge& knowledge);

// Facts written without reachability (older imagelint, other producers): the
// same model over the binaries the facts list, with directories compared as
// the loader view does (/usr/local/cuda-X.Y and lib64 spellings folded).
// Binaries that already say whether they are reachable are left as they are.
void DeriveReachability(facts::Facts& facts, const Knowledge& knowledge);

}  // namespace imagelint::cuda
