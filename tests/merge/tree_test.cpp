// Layer application per the OCI image spec's whiteout rules (layer.md), on
// hand-built layer results.
#include <doctest/doctest.h>

#include "imagelint/tree.h"

using namespace imagelint;

namespace {

LayerEntry File(const std::string& path, uint64_t size = 1) {
  LayerEntry e;
  e.info = {path, EntryType::kRegular, size, 0644, ""};
  return e;
}
LayerEntry Dir(const std::string& path, uint32_t mode = 0755) {
  LayerEntry e;
  e.info = {path, EntryType::kDirectory, 0, mode, ""};
  return e;
}
LayerEntry Link(const std::string& path, const std::string& target) {
  LayerEntry e;
  e.info = {path, EntryType::kSymlink, 0, 0777, target};
  return e;
}
LayerEntry Hard(const std::string& path, const std::string& target) {
  LayerEntry e;
  e.info = {path, EntryType::kHardlink, 0, 0644, target};
  return e;
}
LayerResult Layer(std::vector<LayerEntry> entries) {
  LayerResult layer;
  layer.entries = std::move(entries);
  return layer;
}
std::vector<std::string> Paths(const ImageTree& tree) {
  std::vector<std::string> paths;
  tree.ForEach([&](const std::string& path, const TreeNode&) { paths.push_back(path); });
  return paths;
}

}  // namespace

TEST_CASE("whiteouts delete lower-layer files and subtrees, never same-layer entries") {
  std::vector<LayerResult> layers;
  layers.push_back(Layer({Dir("a"), File("a/x"), Dir("a/sub"), File("a/sub/y"), File("b")}));
  layers.push_back(Layer({File("a/.wh.sub"), File("a/sub"), File(".wh.b"), File("a/.wh.x")}));
  ImageTree tree = ImageTree::Build(layers);
  CHECK(Paths(tree) == std::vector<std::string>{"a", "a/sub"});
  REQUIRE(tree.Lookup("a/sub"));
  CHECK(tree.Lookup("a/sub")->layer == 1);
  CHECK(tree.Lookup("a/sub")->entry->info.type == EntryType::kRegular);
  CHECK(tree.Problems().empty());
}

TEST_CASE("opaque directory hides lower children, keeps its own wherever the marker sits") {
  std::vector<LayerResult> layers;
  layers.push_back(Layer({Dir("etc"), File("etc/old"), Dir("etc/deep"), File("etc/deep/z"), File("keep")}));
  layers.push_back(Layer({File("etc/before"), File("etc/.wh..wh..opq"), File("etc/after")}));
  ImageTree tree = ImageTree::Build(layers);
  CHECK(Paths(tree) == std::vector<std::string>{"etc", "etc/after", "etc/before", "keep"});
  CHECK(tree.Lookup("etc")->layer == 0);  // the directory itself stays
}

TEST_CASE("directory over directory updates attributes; a file replaces a directory and its subtree") {
  std::vector<LayerResult> layers;
  layers.push_back(Layer({Dir("d", 0700), File("d/f"), Dir("e"), File("e/g")}));
  layers.push_back(Layer({Dir("d", 0755), File("e")}));
  ImageTree tree = ImageTree::Build(layers);
  CHECK(Paths(tree) == std::vector<std::string>{"d", "d/f", "e"});
  CHECK(tree.Lookup("d")->entry->info.mode == 0755);
  CHECK(tree.Lookup("d")->layer == 1);
  CHECK(tree.Lookup("d/f")->layer == 0);
}

TEST_CASE("duplicate paths in one layer: last one wins; implicit parents are created") {
  std::vector<LayerResult> layers;
  layers.push_back(Layer({File("x/y/z", 1), File("x/y/z", 7)}));
  ImageTree tree = ImageTree::Build(layers);
  CHECK(Paths(tree) == std::vector<std::string>{"x", "x/y", "x/y/z"});
  CHECK(tree.Lookup("x/y/z")->content->info.size == 7);
  CHECK(tree.Lookup("x")->entry->info.type == EntryType::kDirectory);
}

TEST_CASE("hard links share the target's content, across layers, and survive its deletion") {
  std::vector<LayerResult> layers;
  layers.push_back(Layer({Dir("usr"), File("usr/lib.so", 42)}));
  layers.push_back(Layer({Hard("usr/lib2.so", "usr/lib.so"), Hard("usr/bad", "usr/missing")}));
  layers.push_back(Layer({File("usr/.wh.lib.so")}));
  ImageTree tree = ImageTree::Build(layers);
  const TreeNode* link = tree.Lookup("usr/lib2.so");
  REQUIRE(link);
  REQUIRE(link->content);
  CHECK(link->content->info.size == 42);
  CHECK(link->entry->info.type == EntryType::kHardlink);
  CHECK_FALSE(tree.Lookup("usr/lib.so"));
  REQUIRE(tree.Problems().size() == 1);
  CHECK(tree.Problems()[0].find("hard link to missing file usr/missing") != std::string::npos);
}

TEST_CASE("symlinks resolve inside the tree: absolute targets from the root, '..' clamped, loops detected") {
  std::vector<LayerResult> layers;
  layers.push_back(Layer({Dir("usr"), Dir("usr/lib"), File("usr/lib/libcuda.so.1", 5),
                          Link("usr/lib/libcuda.so", "libcuda.so.1"), Link("lib", "usr/lib"),
                          Link("abs", "/usr/lib/libcuda.so"), Link("up", "../../../usr/lib"),
                          Link("loop1", "loop2"), Link("loop2", "loop1"), Link("dangling", "/nowhere"),
                          Link("etc-passwd", "/etc/passwd")}));
  // A later layer writes through the symlinked directory: lands in usr/lib.
  layers.push_back(Layer({File("lib/libnew.so", 3)}));
  ImageTree tree = ImageTree::Build(layers);
  CHECK(*tree.Resolve("/abs") == "/usr/lib/libcuda.so.1");
  CHECK(*tree.Resolve("lib/libcuda.so") == "/usr/lib/libcuda.so.1");
  CHECK(*tree.Resolve("up/libcuda.so.1") == "/usr/lib/libcuda.so.1");
  REQUIRE(tree.LookupResolved("/lib/libcuda.so"));
  CHECK(tree.LookupResolved("/lib/libcuda.so")->content->info.size == 5);
  CHECK(tree.Lookup("lib/libcuda.so")->entry->info.type == EntryType::kSymlink);
  auto loop = tree.Resolve("loop1");
  REQUIRE_FALSE(loop.ok());
  CHECK(loop.error().message.find("too many levels of symbolic links") != std::string::npos);
  CHECK_FALSE(tree.Resolve("dangling").ok());
  CHECK_FALSE(tree.Resolve("etc-passwd").ok());  // never the host's /etc/passwd
  REQUIRE(tree.Lookup("usr/lib/libnew.so"));
  CHECK(tree.Lookup("usr/lib/libnew.so")->layer == 1);
  CHECK(tree.List("lib") == std::vector<std::string>{"libcuda.so", "libcuda.so.1", "libnew.so"});
}

TEST_CASE("whiteout of nothing and bare .wh. are recorded, not fatal; AUFS metadata is invisible") {
  std::vector<LayerResult> layers;
  layers.push_back(Layer({File("a")}));
  layers.push_back(Layer({File(".wh.ghost"), File(".wh."), File(".wh..wh.plnk/123.456", 9),
                          Hard("b", ".wh..wh.plnk/123.456"), File(".wh..wh.aufs")}));
  ImageTree tree = ImageTree::Build(layers);
  CHECK(Paths(tree) == std::vector<std::string>{"a", "b"});
  CHECK(tree.Lookup("b")->content->info.size == 9);
  CHECK(tree.Problems().size() == 2);
}

TEST_CASE("problems are capped: the first ones, then a count") {
  std::vector<LayerEntry> whiteouts;
  for (int i = 0; i < 5000; ++i) whiteouts.push_back(File(".wh.missing" + std::to_string(i), 0));
  std::vector<LayerResult> layers;
  layers.push_back(Layer({Dir("a")}));
  layers.push_back(Layer(whiteouts));
  ImageTree tree = ImageTree::Build(layers);
  REQUIRE(tree.Problems().size() == 1000);
  CHECK(tree.Problems()[0] == ".wh.missing0: whiteout of nothing (layer 1)");
  CHECK(tree.Problems().back() == "... and 4001 more problems");
}

TEST_CASE("paths resolve through symlinks at any depth, as component-by-component resolution would") {
  std::string deep = "d";
  for (int i = 0; i < 300; ++i) deep += "/d";
  std::vector<LayerResult> layers;
  layers.push_back(Layer({File(deep + "/f"), Link("short", deep), Link(deep + "/up", "../../.."),
                          Link("abs", "/short/f"), Dir("real"), Link("real/loop", "../real/loop")}));
  layers.push_back(Layer({File("short/g"), File(deep + "/missing-parent/x")}));
  ImageTree tree = ImageTree::Build(layers);
  CHECK(*tree.Resolve("short/f") == "/" + deep + "/f");
  CHECK(*tree.Resolve("abs") == "/" + deep + "/f");
  CHECK(tree.Lookup(deep + "/g"));  // written through the symlinked directory
  CHECK(tree.Lookup(deep + "/missing-parent")->entry->info.type == EntryType::kDirectory);
  std::string up = deep.substr(0, deep.size() - 6);  // three levels up
  CHECK(*tree.Resolve(deep + "/up") == "/" + up);
  CHECK_FALSE(tree.Resolve("real/loop").ok());
  CHECK_FALSE(tree.Resolve("short/nothing/x").ok());
  CHECK_FALSE(tree.Resolve(deep + "/f/under-a-file").ok());
}
