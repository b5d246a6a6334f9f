// Direct mode: the image's merged root file system written into a directory
// of imagelint's cache. Layers in order, OCI whiteouts applied. Every path
// is walked one component at a time with O_NOFOLLOW, so that a link the
// image planted never leads a write outside the directory; a component that
// is a link (or an entry whose parent is one) is not written through.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <span>

#include "common/fd.h"
#include "common/text.h"
#include "imagelint/open_image.h"
#include "imagelint/probe.h"

namespace imagelint::probe {
namespace {

namespace fs = std::filesystem;

// The directory holding `relative`'s last component, walked from `root`
// without following links (created when `create`); -1 when a component is
// a link or not a directory.
Fd OpenParent(int root, const std::string& relative, std::string* leaf, bool create) {
  std::vector<std::string> parts;
  for (const std::string& part : SplitOn(relative, '/'))
    if (!part.empty() && part != ".") parts.push_back(part);
  if (parts.empty() || parts.back() == "..") return Fd();
  *leaf = parts.back();
  Fd current(dup(root));
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    if (parts[i] == "..") return Fd();
    int next = openat(current.get(), parts[i].c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (next < 0 && errno == ENOENT && create) {
      mkdirat(current.get(), parts[i].c_str(), 0755);
      next = openat(current.get(), parts[i].c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    }
    if (next < 0) return Fd();
    current = Fd(next);
  }
  return current;
}

void RemoveEntry(int parent, const std::string& leaf, const fs::path& full) {
  if (unlinkat(parent, leaf.c_str(), 0) == 0 || errno == ENOENT) return;
  std::error_code ec;
  fs::remove_all(full, ec);  // a directory: remove_all never follows links
}

}  // namespace

Status ExtractRootfs(const std::string& image, const fs::path& dir, const ExtractLimits& limits) {
  OpenOptions options;
  auto source = OpenLocalImage(image, options);
  if (!source.ok()) return source.error();
  std::error_code ec;
  fs::create_directories(dir, ec);
  Fd root(open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (root.get() < 0) return MakeError(dir.string(), "cannot create the directory for the image's files");
  uint64_t total = 0, entries = 0;
  std::vector<uint8_t> buffer(1 << 20);
  const size_t layers = (*source)->Metadata().layers.size();
  for (size_t index = 0; index < layers; ++index) {
    auto reader = (*source)->OpenLayer(index);
    if (!reader.ok()) return reader.error();
    for (;;) {
      auto next = (*reader)->Next();
      if (!next.ok()) return next.error();
      if (!*next) break;
      const EntryInfo& entry = **next;
      if (++entries > limits.max_entries)
        return MakeError(image, "more than " + std::to_string(limits.max_entries) + " entries");
      std::string leaf;
      Fd parent = OpenParent(root.get(), entry.path, &leaf, true);
      if (parent.get() < 0) continue;  // through a link, or the root itself
      const fs::path full = dir / entry.path;
      if (leaf == ".wh..wh..opq") {
        for (const auto& child : fs::directory_iterator(full.parent_path(), ec)) fs::remove_all(child.path(), ec);
        continue;
      }
      if (leaf.rfind(".wh.", 0) == 0) {
        RemoveEntry(parent.get(), leaf.substr(4), full.parent_path() / leaf.substr(4));
        continue;
      }
      switch (entry.type) {
        case EntryType::kDirectory: {
          struct stat st {};
          if (fstatat(parent.get(), leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(st.st_mode))
            RemoveEntry(parent.get(), leaf, full);
          mkdirat(parent.get(), leaf.c_str(), 0755);
          fchmodat(parent.get(), leaf.c_str(), (entry.mode & 0777) | 0700, 0);
          break;
        }
        case EntryType::kSymlink:
          RemoveEntry(parent.get(), leaf, full);
          if (symlinkat(entry.link_target.c_str(), parent.get(), leaf.c_str()) != 0)
            return MakeError(image, entry.path + ": cannot write the link");
          break;
        case EntryType::kHardlink: {
          std::string target_leaf;
          Fd target_parent = OpenParent(root.get(), entry.link_target, &target_leaf, false);
          if (target_parent.get() < 0) break;
          RemoveEntry(parent.get(), leaf, full);
          linkat(target_parent.get(), target_leaf.c_str(), parent.get(), leaf.c_str(), 0);
          break;
        }
        case EntryType::kRegular: {
          RemoveEntry(parent.get(), leaf, full);
          Fd out(openat(parent.get(), leaf.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                        (entry.mode & 0777) | 0600));
          if (out.get() < 0) return MakeError(image, entry.path + ": cannot write the file");
          for (;;) {
            auto got = (*reader)->ReadContent(std::span<uint8_t>(buffer));
            if (!got.ok()) return got.error();
            if (*got == 0) break;
            total += *got;
            if (total > limits.max_total_bytes)
              return MakeError(image, "the image's files exceed " + std::to_string(limits.max_total_bytes >> 30) + " GiB");
            for (size_t written = 0; written < *got;) {
              ssize_t n = write(out.get(), buffer.data() + written, *got - written);
              if (n < 0 && errno == EINTR) continue;
              if (n <= 0) return MakeError(dir.string(), "write failed (disk full?)");
              written += static_cast<size_t>(n);
            }
          }
          break;
        }
        case EntryType::kOther:
          break;  // devices, pipes: never created
      }
    }
  }
  return OkStatus();
}

fs::path ResolveInRoot(const fs::path& root, const std::string& image_path) {
  std::vector<std::string> pending;
  for (const std::string& part : SplitOn(image_path, '/'))
    if (!part.empty() && part != ".") pending.push_back(part);
  std::reverse(pending.begin(), pending.end());
  std::vector<std::string> done;
  int hops = 0;
  while (!pending.empty()) {
    std::string part = pending.back();
    pending.pop_back();
    if (part == "..") {
      if (!done.empty()) done.pop_back();  // never above the root
      continue;
    }
    fs::path here = root;
    for (const auto& d : done) here /= d;
    here /= part;
    std::error_code ec;
    if (fs::is_symlink(here, ec) && ++hops <= 40) {
      fs::path link = fs::read_symlink(here, ec);
      if (link.is_absolute()) done.clear();
      std::vector<std::string> more;
      for (const std::string& p : SplitOn(link.string(), '/'))
        if (!p.empty() && p != ".") more.push_back(p);
      for (auto it = more.rbegin(); it != more.rend(); ++it) pending.push_back(*it);
      continue;
    }
    done.push_back(part);
  }
  fs::path out = root;
  for (const auto& d : done) out /= d;
  return out;
}

Result<fs::path> FindLoader(const fs::path& root) {
  // The loaders glibc installs, by architecture (PT_INTERP of its programs).
  for (const char* name : {"/lib64/ld-linux-x86-64.so.2", "/lib/ld-linux-aarch64.so.1"}) {
    fs::path target = ResolveInRoot(root, name);
    std::error_code ec;
    if (fs::is_regular_file(target, ec)) return target;
  }
  return MakeError(root.string(), "no glibc dynamic loader (/lib64/ld-linux-x86-64.so.2, /lib/ld-linux-aarch64.so.1): "
                                  "the probe runs only in glibc images");
}

}  // namespace imagelint::probe
