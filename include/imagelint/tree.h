// The merged file system of an image: layers applied in order with OCI
// whiteouts and opaque directories (OCI image spec layer.md, "Whiteouts":
// https://github.com/opencontainers/image-spec/blob/main/layer.md), links resolved inside
// the tree only. Nothing here touches the host file system.
#pragma once

#include <cstddef>
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

class ImageTree {
 public:
  // Applies `layers` (base first). The tree keeps pointers into `layers`,
  // which must outlive it. Malformed combinations (whiteout of nothing, a
  // hard link to a missing file) are recorded in Problems(), not fatal.
  static ImageTree Build(const std::vector<LayerResult>& layers);

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
  Result<std::string> Walk(std::string_view path, bool follow_last, int& hops) const;
  void Apply(const std::vector<LayerResult>& layers, size_t index);
  void RemoveSubtree(const std::string& path, bool keep_self);
  std::string EnsureParents(const std::string& parent, size_t layer);

  std::map<std::string, TreeNode, std::less<>> nodes_;
  std::vector<std::string> problems_;
  // Directories created implicitly (a file whose parent no layer declares);
  // shared so that copies of the tree keep valid pointers.
  std::vector<std::shared_ptr<LayerEntry>> implicit_;
  // AUFS hard-link targets under .wh..wh.plnk/ (invisible, but linkable).
  std::map<std::string, const LayerEntry*, std::less<>> plnk_;
};

}  // namespace imagelint
