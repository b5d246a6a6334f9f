// What a local argument is before anything is opened: a path or a registry
// reference (LooksLikeLocalPath), and whether a directory that is not an image
// layout is a root file system (LooksLikeRootFileSystem).
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>

#include "common/text.h"
#include "source/rootfs.h"

namespace imagelint {
namespace {

// Names of files that only ever live on the host: archives, facts and fleet
// documents. A reference's last path component may legally end in ".json",
// but nobody names an image that way, and a typo in a file name must not
// turn into a registry lookup.
constexpr std::array<std::string_view, 9> kLocalSuffixes = {".tar", ".tar.gz", ".tgz", ".tar.zst", ".tar.zstd",
                                                            ".oci", ".json", ".yaml", ".yml"};

// A first component that a registry reference would read as a host name.
bool LooksLikeRegistryHost(std::string_view component) {
  return component.find('.') != std::string_view::npos || component.find(':') != std::string_view::npos ||
         component == "localhost";
}

// An entry of `dir_fd` that exists, without following a final symlink.
bool HasEntry(int dir_fd, const char* name) {
  struct stat st;
  return ::fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

// Opens `relative` (components separated by '/') below `root_fd` as a real
// directory: every component must be a directory, never a symlink, so a
// probe can never leave the directory being classified. -1 when it is not.
int OpenRealDirectory(int root_fd, std::string_view relative) {
  int fd = ::dup(root_fd);
  for (const std::string& part : SplitOn(std::string(relative), '/')) {
    if (fd < 0) return -1;
    int next = ::openat(fd, part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    ::close(fd);
    fd = next;
  }
  return fd;
}

// A dynamic loader's file name (the ELF PT_INTERP of every glibc and musl
// program): ld-linux-x86-64.so.2, ld-linux-aarch64.so.1, ld-linux.so.2,
// ld-musl-x86_64.so.1, ld64.so.2 (ppc64le, s390x).
bool IsLoaderName(std::string_view name) {
  return StartsWith(name, "ld-linux") || StartsWith(name, "ld-musl-") || StartsWith(name, "ld64.so.");
}

bool DirectoryHoldsLoader(int root_fd, std::string_view relative) {
  constexpr size_t kMaxEntriesLooked = 100000;  // bounded, whatever the directory holds
  int fd = OpenRealDirectory(root_fd, relative);
  if (fd < 0) return false;
  DIR* dir = ::fdopendir(fd);
  if (!dir) {
    ::close(fd);
    return false;
  }
  bool found = false;
  size_t seen = 0;
  while (dirent* entry = ::readdir(dir)) {
    if (++seen > kMaxEntriesLooked) break;
    if (IsLoaderName(entry->d_name)) {
      found = true;
      break;
    }
  }
  ::closedir(dir);
  return found;
}

}  // namespace

bool LooksLikeLocalPath(std::string_view input) {
  if (input.empty()) return false;
  if (StartsWith(input, kRootfsPrefix)) return true;
  if (input.front() == '/' || input.front() == '.' || input.front() == '~') return true;
  std::string lower = ToLower(std::string(input));
  for (std::string_view suffix : kLocalSuffixes) {
    if (EndsWith(lower, suffix)) return true;
  }
  size_t slash = input.find('/');
  std::string_view base = slash == std::string_view::npos ? input : input.substr(input.rfind('/') + 1);
  if (IsDockerfileName(base)) return true;
  if (slash == std::string_view::npos) return false;
  std::string_view first = input.substr(0, slash);
  if (LooksLikeRegistryHost(first)) return false;
  struct stat st;
  return ::stat(std::string(first).c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool LooksLikeRootFileSystem(const std::string& path) {
  int root_fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (root_fd < 0) return false;
  bool found = false;
  // os-release names the distribution in every base image that has one
  // (freedesktop.org os-release(5): /etc/os-release, else /usr/lib/os-release).
  for (const char* release : {"etc", "usr/lib"}) {
    int fd = OpenRealDirectory(root_fd, release);
    if (fd < 0) continue;
    found = HasEntry(fd, "os-release");
    ::close(fd);
    if (found) break;
  }
  // Images without os-release (distroless-style, hand-made) still carry the
  // dynamic loader their programs name, in one of the library directories.
  for (const char* dir : {"lib64", "lib", "usr/lib64", "usr/lib"}) {
    if (found) break;
    found = DirectoryHoldsLoader(root_fd, dir);
  }
  ::close(root_fd);
  return found;
}

}  // namespace imagelint
