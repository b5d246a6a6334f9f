// Fuzz targets over image bytes: layer blobs, whole archives, cache files,
// registry documents (source, scan, merge, cache, registry).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <optional>

#include "common/json.h"
#include "fuzz/support.h"
#include "fuzz/targets.h"
#include "imagelint/cache.h"
#include "imagelint/digest.h"
#include "registry/auth.h"
#include "registry/documents.h"
#include "imagelint/scan.h"
#include "imagelint/open_image.h"

namespace imagelint::fuzz {
namespace {

// Small enough that a decompression bomb ends quickly under the sanitizers.
constexpr uint64_t kMaxLayerBytes = 16u << 20;

ScanLimits FuzzScanLimits() {
  ScanLimits limits;
  limits.max_entries_per_layer = 50000;
  limits.max_entries_per_image = 100000;
  return limits;
}

// Reads every entry and all content of a layer blob.
Result<LayerResult> ReadLayer(std::string_view blob, size_t index) {
  LayerRef ref;
  ref.digest = "";
  LayerReadOptions options;
  options.max_uncompressed_bytes = kMaxLayerBytes;
  options.hash_threading = HashThreading::kInline;
  auto reader = OpenLayerStream(MemoryStream(std::vector<uint8_t>(blob.begin(), blob.end()), "fuzz layer"), ref, options);
  if (!reader.ok()) return reader.error();
  LayerResult layer;
  std::vector<uint8_t> buffer(4096 + index);
  for (;;) {
    auto next = (*reader)->Next();
    if (!next.ok()) return next.error();
    if (!next->has_value()) break;
    if (layer.entries.size() >= FuzzScanLimits().max_entries_per_layer) return MakeError("fuzz", "too many");
    LayerEntry entry;
    entry.info = std::move(**next);
    if (entry.info.type == EntryType::kRegular) {
      for (;;) {
        auto n = (*reader)->ReadContent(buffer);
        if (!n.ok()) return n.error();
        if (*n == 0) break;
      }
    }
    layer.entries.push_back(std::move(entry));
  }
  return layer;
}

// The tree's paths, for the reference resolver below.
using Nodes = std::map<std::string, const LayerEntry*>;

std::deque<std::string> Components(std::string_view path) {
  std::deque<std::string> parts;
  size_t start = 0;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) slash = path.size();
    if (slash > start) parts.emplace_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  return parts;
}

// Symlink resolution one component at a time, as ImageTree::Walk did before
// it learned to skip along canonical prefixes: the oracle that the fast walk
// must agree with (a disagreement aborts, i.e. is a finding).
std::optional<std::string> ReferenceResolve(const Nodes& nodes, std::string_view path) {
  std::deque<std::string> pending = Components(path);
  std::string current;
  int hops = 0;
  while (!pending.empty()) {
    std::string part = std::move(pending.front());
    pending.pop_front();
    if (part == ".") continue;
    if (part == "..") {
      size_t slash = current.rfind('/');
      current.resize(slash == std::string::npos ? 0 : slash);
      continue;
    }
    std::string candidate = current.empty() ? part : current + "/" + part;
    auto it = nodes.find(candidate);
    if (it == nodes.end()) return std::nullopt;
    const EntryInfo& info = it->second->info;
    if (info.type == EntryType::kSymlink) {
      if (++hops > 40) return std::nullopt;
      if (!info.link_target.empty() && info.link_target.front() == '/') current.clear();
      auto parts = Components(info.link_target);
      pending.insert(pending.begin(), parts.begin(), parts.end());
      continue;
    }
    if (!pending.empty() && info.type != EntryType::kDirectory) return std::nullopt;
    current = std::move(candidate);
  }
  return "/" + current;
}

void CheckResolve(const ImageTree& tree, const Nodes& nodes, std::string_view path) {
  auto fast = tree.Resolve(path);
  auto slow = ReferenceResolve(nodes, path);
  if (fast.ok() != slow.has_value() || (slow && *fast != *slow)) {
    std::fprintf(stderr, "Resolve(\"%.*s\") = %s, reference %s\n", static_cast<int>(path.size()), path.data(),
                 fast.ok() ? fast->c_str() : fast.error().ToString().c_str(), slow ? slow->c_str() : "(error)");
    std::abort();
  }
}

// Queries a merged tree the way the facts builder and `imagelint ls` do,
// and checks path resolution against the reference.
void Exercise(const ImageTree& tree, const std::vector<LayerResult>& layers) {
  Nodes nodes;
  tree.ForEach([&](const std::string& path, const TreeNode& node) { nodes[path] = node.entry; });
  size_t queries = 0;
  for (const auto& layer : layers) {
    for (const auto& entry : layer.entries) {
      if (++queries > 2000) return;
      (void)tree.Lookup(entry.info.path);
      (void)tree.LookupResolved(entry.info.path);
      (void)tree.List(entry.info.path);
      CheckResolve(tree, nodes, entry.info.path);
      if (!entry.info.link_target.empty()) CheckResolve(tree, nodes, entry.info.link_target);
    }
  }
}

}  // namespace

int FuzzLayerTar(const uint8_t* data, size_t size) {
  std::vector<LayerResult> layers;
  for (std::string_view part : SplitParts(data, size, 2)) {
    auto layer = ReadLayer(part, layers.size());
    if (!layer.ok()) return 0;
    layers.push_back(std::move(*layer));
  }
  auto tree = ImageTree::BuildBounded(layers, FuzzScanLimits().tree);
  if (tree.ok()) Exercise(*tree, layers);
  return 0;
}

int FuzzImageArchive(const uint8_t* data, size_t size) {
  const auto path = ScratchDirectory() / "image.tar";
  WriteScratchFile(path, AsText(data, size));
  OpenOptions open;
  open.max_uncompressed_layer_bytes = kMaxLayerBytes;
  open.max_metadata_bytes = 1 << 20;
  // Mutated layers rarely keep their digests: most runs skip verification
  // (and its hashing thread) so that the merge sees them; one in four checks.
  open.verify_digests = size % 4 == 0;
  auto source = OpenLocalImage(path.string(), open);
  if (!source.ok()) return 0;
  ScanOptions scan;
  scan.jobs = 1;
  scan.limits = FuzzScanLimits();
  auto image = ScanImage(**source, {}, scan);
  if (image.ok()) Exercise(image->tree, image->layers);
  return 0;
}

namespace {

class ProbeAnalyzer final : public FileAnalyzer {
 public:
  std::string_view Name() const override { return "probe"; }
  int Version() const override { return 1; }
  std::unique_ptr<FileSink> Open(const EntryInfo&, std::span<const uint8_t>) override { return nullptr; }
};

// The cache file format (cache.cpp): magic, payload length, sha256, payload.
std::string Seal(std::string_view payload) {
  std::string out = "ILCACHE1";
  for (int i = 0; i < 8; ++i) out += static_cast<char>(static_cast<uint64_t>(payload.size()) >> (8 * i));
  std::string hex = Sha256Digest(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(payload.data()),
                                                          payload.size()))
                        .substr(7);
  for (size_t i = 0; i < 32; ++i) out += static_cast<char>(std::stoi(hex.substr(i * 2, 2), nullptr, 16));
  out += payload;
  return out;
}

}  // namespace

int FuzzCacheEntry(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t mode = data[0] % 4;
  std::string_view rest = AsText(data + 1, size - 1);
  if (mode == 3) {  // LayerResult JSON (the form a layer hook may store)
    auto json = ParseJson(rest, "fuzz.json");
    if (json.ok()) (void)LayerResultFromJson(*json);
    return 0;
  }
  static const std::string hex(64, 'a');
  static auto cache = LayerCache::Open((ScratchDirectory() / "cache").string());
  if (!cache.ok()) return 0;
  const auto layer_dir = ScratchDirectory() / "cache" / "layers" / hex.substr(0, 2) / hex;
  std::error_code ec;
  std::filesystem::remove_all(layer_dir, ec);
  auto parts = SplitParts(data + 1, size - 1, 2);
  // mode 0: sealed entry list (+ sealed analyzer facts); 1: raw bytes; 2: entry list only.
  WriteScratchFile(layer_dir / "entries.cbor", mode == 1 ? std::string(parts[0]) : Seal(parts[0]));
  if (parts.size() > 1 && mode != 2) {
    WriteScratchFile(layer_dir / "analyzer-probe-v1.cbor", mode == 1 ? std::string(parts[1]) : Seal(parts[1]));
  }
  LayerRef ref;
  ref.diff_id = "sha256:" + hex;
  ProbeAnalyzer probe;
  std::vector<FileAnalyzer*> missing;
  auto found = (*cache)->Lookup(ref, {&probe}, &missing);
  if (found) {
    std::vector<LayerResult> layers;
    layers.push_back(std::move(*found));
    ImageTree tree = ImageTree::Build(layers);  // keeps pointers into `layers`
    Exercise(tree, layers);
  }
  return 0;
}

int FuzzRegistryDocuments(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static const char* kTypes[] = {registry::kOciIndex, registry::kOciManifest, registry::kDockerList,
                                 registry::kDockerManifest, "", "application/vnd.docker.distribution.manifest.v1+prettyjws",
                                 "application/json", "text/plain"};
  std::string type = kTypes[data[0] % 8];
  auto parts = SplitParts(data + 1, size - 1, 2);
  auto as_bytes = [](std::string_view text) {
    return std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size());
  };
  OpenOptions open;
  open.platform_explicit = data[0] & 8;
  auto step = registry::ReadManifestDocument(as_bytes(parts[0]), type, open, "reg.example/fuzz:1", "manifest 1");
  if (step.ok() && !step->is_index) {
    auto config = registry::ReadConfigDescriptor(step->manifest, "reg.example/fuzz:1");
    if (config.ok() && parts.size() > 1) {
      (void)registry::ReadConfigDocument(as_bytes(parts[1]), step->manifest, "reg.example/fuzz:1", "config",
                                         "sha256:m");
    }
  }
  (void)registry::TokenFromAnswer(parts[0], "token server");
  (void)registry::ParseChallenges(std::string(parts[0]));
  (void)registry::ReadErrorBody(parts[0]);
  return 0;
}

}  // namespace imagelint::fuzz
