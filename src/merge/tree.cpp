// Applying layers (OCI image spec, "Image Layer Filesystem Changeset",
// https://github.com/opencontainers/image-spec/blob/main/layer.md#whiteouts):
// per layer, first the whiteouts and
// opaque markers delete from what the lower layers built (they never hide
// entries of their own layer, wherever they sit in the tar), then the layer's
// entries are added: directory over directory updates attributes, anything
// else replaces (a replaced directory takes its subtree with it). Parent
// directories are resolved through symlinks inside the tree, as an extracting
// runtime would; nothing here touches the host.
#include "imagelint/tree.h"

#include <deque>
#include <iterator>

#include "common/text.h"

namespace imagelint {
namespace {

constexpr int kMaxHops = 40;
constexpr std::string_view kWhiteoutPrefix = ".wh.";
constexpr std::string_view kMetaPrefix = ".wh..wh.";
constexpr std::string_view kOpaque = ".wh..wh..opq";
constexpr std::string_view kPlnkDir = ".wh..wh.plnk";

std::string_view TrimSlashes(std::string_view path) {
  while (!path.empty() && path.front() == '/') path.remove_prefix(1);
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  return path;
}

std::string Join(const std::string& dir, std::string_view name) {
  return dir.empty() ? std::string(name) : dir + "/" + std::string(name);
}

std::deque<std::string> Split(std::string_view path) {
  std::vector<std::string> parts = SplitNonEmpty(path, '/');
  return {std::make_move_iterator(parts.begin()), std::make_move_iterator(parts.end())};
}

bool IsDir(const TreeNode& node) { return node.entry && node.entry->info.type == EntryType::kDirectory; }

}  // namespace

// Problems are for people: the first kMaxProblems, then a count (a hostile
// layer can make one per entry).
void ImageTree::AddProblem(std::string problem) {
  constexpr size_t kMaxProblems = 1000;
  if (problems_.size() + 1 < kMaxProblems) {
    problems_.push_back(std::move(problem));
    return;
  }
  std::string summary = "... and " + std::to_string(++dropped_problems_) + " more problems";
  if (problems_.size() + 1 == kMaxProblems) {
    problems_.push_back(std::move(summary));
  } else {
    problems_.back() = std::move(summary);
  }
}

ImageTree ImageTree::Build(const std::vector<LayerResult>& layers) {
  ImageTree tree;
  for (size_t i = 0; i < layers.size(); ++i) tree.Apply(layers, i);
  return tree;
}

Result<ImageTree> ImageTree::BuildBounded(const std::vector<LayerResult>& layers, const TreeLimits& limits) {
  ImageTree tree;
  tree.limits_ = limits;
  for (size_t i = 0; i < layers.size(); ++i) {
    tree.Apply(layers, i);
    if (tree.limit_error_) return *tree.limit_error_;
  }
  return tree;
}

void ImageTree::RemoveSubtree(const std::string& path, bool keep_self) {
  if (!keep_self) nodes_.erase(path);
  std::string prefix = path.empty() ? std::string() : path + "/";
  auto it = nodes_.lower_bound(prefix);
  while (it != nodes_.end() && it->first.compare(0, prefix.size(), prefix) == 0) {
    if (it->first == path) {
      ++it;
      continue;
    }
    it = nodes_.erase(it);
  }
}

// Resolves `parent` for writing into it, creating missing directories.
// Returns the canonical directory path, or "\x01" when it cannot hold children.
std::string ImageTree::EnsureParents(const std::string& parent, size_t layer) {
  if (parent.empty()) return parent;
  int hops = 0;
  WalkStop stop;
  auto resolved = Walk(parent, true, hops, &stop);
  if (resolved.ok()) {
    auto it = nodes_.find(*resolved);
    if (resolved->empty() || (it != nodes_.end() && IsDir(it->second))) return *resolved;
    return "\x01";
  }
  // Only a component of `parent` itself that is missing is created; one
  // missing inside a symlink's target (a dangling link) blocks, as does a
  // file in the way or a loop.
  if (!stop.missing || !stop.in_original_path) return "\x01";
  std::string current = std::move(stop.directory);
  for (const auto& part : stop.rest) {
    if (part == ".") continue;
    if (part == "..") return "\x01";
    std::string candidate = Join(current, part);
    implicit_bytes_ += candidate.size();
    if (implicit_bytes_ > limits_.max_implicit_directory_bytes) {
      if (!limit_error_) {
        limit_error_ = MakeError("/" + parent, "the merged tree would hold more than " +
                                                   std::to_string(limits_.max_implicit_directory_bytes) +
                                                   " bytes of implicit parent directory names (entries whose "
                                                   "parent directories no layer declares)");
      }
      return "\x01";
    }
    auto entry = std::make_shared<LayerEntry>();
    entry->info.path = candidate;
    entry->info.type = EntryType::kDirectory;
    entry->info.mode = 0755;
    implicit_.push_back(entry);
    nodes_[candidate] = TreeNode{entry.get(), nullptr, layer};
    current = std::move(candidate);
  }
  return current;
}

void ImageTree::Apply(const std::vector<LayerResult>& layers, size_t index) {
  const LayerResult& layer = layers[index];
  const std::string where = " (layer " + std::to_string(index) + ")";
  // 1. Deletions of lower-layer content.
  for (const auto& entry : layer.entries) {
    std::string base = BaseName(entry.info.path);
    if (base.compare(0, kWhiteoutPrefix.size(), kWhiteoutPrefix) != 0) continue;
    int hops = 0;
    auto dir = Walk(DirName(entry.info.path), true, hops);
    if (base == kOpaque) {
      if (dir.ok()) RemoveSubtree(*dir, true);
      continue;
    }
    if (base.compare(0, kMetaPrefix.size(), kMetaPrefix) == 0) continue;  // AUFS metadata
    std::string name = base.substr(kWhiteoutPrefix.size());
    if (name.empty() || name == "." || name == "..") {
      AddProblem(entry.info.path + ": invalid whiteout" + where);
      continue;
    }
    if (!dir.ok()) {
      AddProblem(entry.info.path + ": whiteout in a directory that does not exist" + where);
      continue;
    }
    std::string target = Join(*dir, name);
    if (!nodes_.count(target)) {
      AddProblem(entry.info.path + ": whiteout of nothing" + where);
      continue;
    }
    RemoveSubtree(target, false);
  }
  // 2. Additions.
  for (const auto& entry : layer.entries) {
    const std::string& path = entry.info.path;
    std::string base = BaseName(path);
    if (path.compare(0, kPlnkDir.size(), kPlnkDir) == 0) {
      if (entry.info.type == EntryType::kRegular) plnk_[path] = &entry;
      continue;
    }
    if (base.compare(0, kWhiteoutPrefix.size(), kWhiteoutPrefix) == 0) continue;
    std::string parent = EnsureParents(DirName(path), index);
    if (parent == "\x01") {
      AddProblem(path + ": a parent is not a directory" + where);
      continue;
    }
    std::string key = Join(parent, base);
    TreeNode node{&entry, nullptr, index};
    if (entry.info.type == EntryType::kRegular) node.content = &entry;
    if (entry.info.type == EntryType::kHardlink) {
      const LayerEntry* content = nullptr;
      if (auto plnk = plnk_.find(entry.info.link_target); plnk != plnk_.end()) {
        content = plnk->second;
      } else if (const TreeNode* target = Lookup(entry.info.link_target)) {
        content = target->content;
      }
      if (!content) AddProblem(path + ": hard link to missing file " + entry.info.link_target + where);
      node.content = content;
    }
    auto existing = nodes_.find(key);
    if (existing != nodes_.end()) {
      if (IsDir(existing->second) && entry.info.type == EntryType::kDirectory) {
        existing->second = node;
        continue;
      }
      RemoveSubtree(key, false);
    }
    nodes_[key] = node;
  }
}

// Keys of nodes_ are canonical: every proper prefix of a key is itself a
// key, of a directory (entries are added under resolved parents, and
// replacing or deleting a directory removes its subtree). So along a run of
// plain names, "prefix k exists" holds for every k up to some point and for
// none after it: a binary search finds how far the run goes, and a path is
// resolved with O(log depth) lookups per symlink rather than one lookup per
// component (which made deep paths quadratic).
Result<std::string> ImageTree::Walk(std::string_view path, bool follow_last, int& hops, WalkStop* stop) const {
  std::deque<std::string> pending = Split(path);
  size_t original_left = pending.size();  // the last ones of `pending` come from `path` itself
  std::string current;
  auto fail = [&](const std::string& message) {
    return MakeError("/" + std::string(TrimSlashes(path)), message);
  };
  auto consume = [&](size_t count) {
    pending.erase(pending.begin(), pending.begin() + static_cast<long>(count));
    original_left = std::min(original_left, pending.size());
  };
  while (!pending.empty()) {
    const std::string& front = pending.front();
    if (front == ".") {
      consume(1);
      continue;
    }
    if (front == "..") {
      size_t slash = current.rfind('/');
      current.resize(slash == std::string::npos ? 0 : slash);  // clamped at the root
      consume(1);
      continue;
    }
    // The run of plain names at the front, as one candidate path.
    size_t run = 0;
    std::string full = current;
    std::vector<size_t> ends;
    while (run < pending.size() && pending[run] != "." && pending[run] != "..") {
      if (!full.empty()) full += '/';
      full += pending[run];
      ends.push_back(full.size());
      ++run;
    }
    auto present = [&](size_t k) { return nodes_.find(std::string_view(full).substr(0, ends[k - 1])) != nodes_.end(); };
    size_t found = 0;  // how many names of the run exist
    if (present(run)) {
      found = run;
    } else {
      size_t low = 0, high = run - 1;
      while (low < high) {
        size_t mid = (low + high + 1) / 2;
        if (present(mid)) {
          low = mid;
        } else {
          high = mid - 1;
        }
      }
      found = low;
    }
    if (found == 0) {
      if (stop) *stop = {true, pending.size() <= original_left, current, pending};
      return fail("/" + Join(current, front) + " does not exist in the image");
    }
    std::string_view reached = std::string_view(full).substr(0, ends[found - 1]);
    const LayerEntry* entry = nodes_.find(reached)->second.entry;
    bool more = found < pending.size();
    if (entry->info.type == EntryType::kSymlink && (more || follow_last)) {
      if (++hops > kMaxHops) {
        return fail("too many levels of symbolic links (a loop through /" + std::string(reached) + ")");
      }
      current = found == 1 ? current : std::string(std::string_view(full).substr(0, ends[found - 2]));
      consume(found);
      const std::string& target = entry->info.link_target;
      if (!target.empty() && target.front() == '/') current.clear();
      auto parts = Split(target);
      pending.insert(pending.begin(), parts.begin(), parts.end());
      continue;
    }
    if (more && entry->info.type != EntryType::kDirectory) {
      return fail("/" + std::string(reached) + " is not a directory");
    }
    current = std::string(reached);
    consume(found);
    if (found < run) {  // the next name of the run is missing
      if (stop) *stop = {true, pending.size() <= original_left, current, pending};
      return fail("/" + Join(current, pending.front()) + " does not exist in the image");
    }
  }
  return current;
}

const TreeNode* ImageTree::Lookup(std::string_view path) const {
  path = TrimSlashes(path);
  if (path.empty()) return nullptr;
  int hops = 0;
  auto parent = Walk(DirName(path), true, hops);
  if (!parent.ok()) return nullptr;
  auto it = nodes_.find(Join(*parent, BaseName(path)));
  return it == nodes_.end() ? nullptr : &it->second;
}

Result<std::string> ImageTree::Resolve(std::string_view path) const {
  int hops = 0;
  auto resolved = Walk(TrimSlashes(path), true, hops);
  if (!resolved.ok()) return resolved.error();
  return "/" + *resolved;
}

const TreeNode* ImageTree::LookupResolved(std::string_view path) const {
  auto resolved = Resolve(path);
  if (!resolved.ok()) return nullptr;
  return Lookup(*resolved);
}

void ImageTree::ForEach(const std::function<void(const std::string& path, const TreeNode&)>& visit) const {
  for (const auto& [path, node] : nodes_) visit(path, node);
}

std::vector<std::string> ImageTree::List(std::string_view directory) const {
  std::vector<std::string> names;
  int hops = 0;
  auto dir = Walk(TrimSlashes(directory), true, hops);
  if (!dir.ok()) return names;
  std::string prefix = dir->empty() ? std::string() : *dir + "/";
  for (auto it = nodes_.lower_bound(prefix); it != nodes_.end(); ++it) {
    if (it->first.compare(0, prefix.size(), prefix) != 0) break;
    if (it->first.size() == prefix.size()) continue;
    std::string_view rest = std::string_view(it->first).substr(prefix.size());
    if (rest.find('/') == std::string_view::npos) names.emplace_back(rest);
  }
  return names;
}

}  // namespace imagelint
