// The merged file system of an image: layers applied in order with OCI
// whiteouts and opaque directories (OCI image spec layer.md, "Whiteouts":
// https://github.com/opencontainers/image-spec/blob/main/layer.md), links resolved inside
// the tree only. Nothing here touches the host file system.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "imagelint/layer.h"
#include "imagelint/result.h"

namespace imagelint {

struct TreeNode {
  const LayerEntry* entry = nullptr;  // the entry that provides this path (analysis included);
                                      // for a hard link: the link's own entry
  const LayerEntry* content = nullptr;  // entry whose bytes this path has (hard links: the target)
  size_t layer = 0;                   // index of the layer that provided `entry`
};

struct TreeLimits {
  // Parent directories that no layer declares are created implicitly; their
  // names (full paths) may add up to this many bytes. A layer of a few
  // kilobytes can otherwise imply millions of deep directories.
  uint64_t max_implicit_directory_bytes = 64ull << 20;
};

class ImageTree {
 public:
  // Applies `layers` (base first). The tree keeps pointers into `layers`,
  // which must outlive it. Malformed combinations (whiteout of nothing, a
  // hard link to a missing file) are recorded in Problems(), not fatal.
  // Work is O(total path bytes x log entries): paths resolve with a binary
  // search over their components, not one lookup per component.
  static ImageTree Build(const std::vector<LayerResult>& layers);
  // The same, failing with an Error naming the limit when the merge would
  // exceed `limits` (ScanImage merges this way).
  static Result<ImageTree> BuildBounded(const std::vector<LayerResult>& layers, const TreeLimits& limits = {});

  // Exact path lookup without following symlinks in the last component;
  // intermediate symlinked directories ARE followed (inside the tree).
  const TreeNode* Lookup(std::string_view path) const;
  // Follows symlinks (absolute targets from the image root, ".." clamped at
  // the root, at most 40 hops). Returns the final path, or an Error naming
  // the loop / dangling link.
  Result<std::string> Resolve(std::string_view path) const;
  // Lookup(Resolve(path)) when it resolves.
  const TreeNode* LookupResolved(std::string_view path) const;

  // Every visible path in lexical order.
  void ForEach(const std::function<void(const std::string& path, const TreeNode&)>& visit) const;
  // Children names of a directory path ("" = root), following symlinks.
  std::vector<std::string> List(std::string_view directory) const;

  const std::vector<std::string>& Problems() const { return problems_; }

 private:
  // Where a Walk stopped at a missing name: the resolved directory it was in,
  // the names left (the missing one first), and whether that name belongs
  // to the walked path itself rather than to a symlink's target.
  struct WalkStop {
    bool missing = false;
    bool in_original_path = false;
    std::string directory;
    std::deque<std::string> rest;
  };
  Result<std::string> Walk(std::string_view path, bool follow_last, int& hops, WalkStop* stop = nullptr) const;
  void Apply(const std::vector<LayerResult>& layers, size_t index);
  void RemoveSubtree(const std::string& path, bool keep_self);
  void AddProblem(std::string problem);
  std::string EnsureParents(const std::string& parent, size_t layer);

  std::map<std::string, TreeNode, std::less<>> nodes_;
  std::vector<std::string> problems_;
  uint64_t dropped_problems_ = 0;
  // Directories created implicitly (a file whose parent no layer declares);
  // shared so that copies of the tree keep valid pointers.
  std::vector<std::shared_ptr<LayerEntry>> implicit_;
  // AUFS hard-link targets under .wh..wh.plnk/ (invisible, but linkable).
  std::map<std::string, const LayerEntry*, std::less<>> plnk_;
  TreeLimits limits_{UINT64_MAX};
  uint64_t implicit_bytes_ = 0;
  std::optional<Error> limit_error_;
};

}  // namespace imagelint
