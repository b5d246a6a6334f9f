// Bounded work per image. Deep implied directories merge in time
// linear in the names, entries and name bytes per layer and per image are
// limited (exit 2 naming the limit), entry names longer than PATH_MAX are
// refused.
#include <doctest/doctest.h>

#include <chrono>

#include "imagelint/scan.h"
#include "imagelint/open_image.h"
#include "support/image_builder.h"
#include "support/test_support.h"

using namespace imagelint;
using namespace imagelint::testing;
namespace fs = std::filesystem;

namespace {

Result<ScannedImage> Scan(const fs::path& path, const ScanOptions& options = {}) {
  auto source = OpenLocalImage(path.string(), {});
  if (!source.ok()) return source.error();
  return ScanImage(**source, {}, options);
}

std::string Chain(const std::string& top, int depth) {
  std::string path = top;
  for (int i = 1; i < depth; ++i) path += "/d";
  return path;
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

TEST_CASE("a layer implying 2,000-deep directories x8 merges in linear time") {
  TempDir dir;
  TestImage image;
  TestLayer& layer = image.Layer();
  for (int chain = 0; chain < 8; ++chain) layer.File(Chain("c" + std::to_string(chain), 2000) + "/f", "x");
  // And entries deep under an existing chain whose last parent is missing.
  for (int i = 0; i < 300; ++i) layer.File(Chain("c0", 1990) + "/m" + std::to_string(i) + "/f", "y");
  WriteImage(image, ImageKind::kOciArchive, dir / "deep.tar");
  CHECK(fs::file_size(dir / "deep.tar") < 200000);
  auto start = std::chrono::steady_clock::now();
  auto scanned = Scan(dir / "deep.tar");
  double seconds = SecondsSince(start);
  REQUIRE_MESSAGE(scanned.ok(), imagelint::testing::ErrorText(scanned));
  CHECK(seconds < 5);  // quadratic lookups took minutes
  const TreeNode* leaf = scanned->tree.Lookup(Chain("c7", 2000) + "/f");
  REQUIRE(leaf);
  CHECK(scanned->tree.Lookup(Chain("c7", 1000))->entry->info.type == EntryType::kDirectory);
  CHECK(scanned->tree.Lookup(Chain("c0", 1990) + "/m299/f"));
}

TEST_CASE("entry names longer than PATH_MAX are refused") {
  TempDir dir;
  TestImage image;
  image.Layer().File(Chain("a", 4000) + "/f", "x");  // 7,999 bytes: the 4,000-deep chain
  WriteImage(image, ImageKind::kOciArchive, dir / "long.tar");
  auto start = std::chrono::steady_clock::now();
  auto scanned = Scan(dir / "long.tar");
  CHECK(SecondsSince(start) < 5);
  REQUIRE_FALSE(scanned.ok());
  std::string text = scanned.error().ToString();
  CAPTURE(text);
  CHECK(text.rfind((dir / "long.tar").string(), 0) == 0);
  CHECK(text.find("entry name longer than 4096 bytes") != std::string::npos);
  TestImage link;
  link.Layer().Symlink("l", std::string(5000, 'x'));
  WriteImage(link, ImageKind::kOciArchive, dir / "link.tar");
  auto linked = Scan(dir / "link.tar");
  REQUIRE_FALSE(linked.ok());
  CHECK(linked.error().message.find("target longer than 4096 bytes") != std::string::npos);
}

TEST_CASE("limits on entries and name bytes, per layer and per image, name the limit") {
  TempDir dir;
  TestImage image;
  for (int l = 0; l < 2; ++l) {
    TestLayer& layer = image.Layer();
    for (int i = 0; i < 40; ++i) layer.File("l" + std::to_string(l) + "/f" + std::to_string(i), "");
  }
  WriteImage(image, ImageKind::kOciArchive, dir / "many.tar");
  CHECK(Scan(dir / "many.tar").ok());

  ScanOptions per_layer;
  per_layer.limits.max_entries_per_layer = 30;
  auto layer_error = Scan(dir / "many.tar", per_layer);
  REQUIRE_FALSE(layer_error.ok());
  CHECK(layer_error.error().ToString().find("more than 30 entries in one layer (imagelint's limit per layer)") !=
        std::string::npos);
  CHECK(layer_error.error().subject.find((dir / "many.tar").string()) == 0);

  for (int jobs : {1, 2}) {
    ScanOptions per_image;
    per_image.jobs = jobs;
    per_image.limits.max_entries_per_image = 60;
    auto image_error = Scan(dir / "many.tar", per_image);
    REQUIRE_FALSE(image_error.ok());
    CHECK(image_error.error().message.find("more than 60 entries in the image's layers") != std::string::npos);
  }

  ScanOptions names;
  names.limits.max_name_bytes_per_layer = 100;
  auto name_error = Scan(dir / "many.tar", names);
  REQUIRE_FALSE(name_error.ok());
  CHECK(name_error.error().message.find("more than 100 bytes of entry names") != std::string::npos);

  ScanOptions image_names;
  image_names.limits.max_name_bytes_per_image = 300;
  auto image_name_error = Scan(dir / "many.tar", image_names);
  REQUIRE_FALSE(image_name_error.ok());
  CHECK(image_name_error.error().message.find("per image") != std::string::npos);

  // A layer served by a cache (not ScanLayer) counts too.
  ScanOptions cached;
  cached.limits.max_entries_per_layer = 5;
  cached.layer_scanner = [](ImageSource&, size_t, const std::vector<FileAnalyzer*>&, const ScanOptions&) {
    LayerResult layer;
    layer.entries.resize(6);
    return Result<LayerResult>(std::move(layer));
  };
  auto cached_error = Scan(dir / "many.tar", cached);
  REQUIRE_FALSE(cached_error.ok());
  CHECK(cached_error.error().message.find("more than 5 entries in one layer") != std::string::npos);
}

TEST_CASE("implicit parent directories are bounded by TreeLimits") {
  TempDir dir;
  TestImage image;
  TestLayer& layer = image.Layer();
  for (int chain = 0; chain < 4; ++chain) layer.File(Chain("c" + std::to_string(chain), 600) + "/f", "x");
  WriteImage(image, ImageKind::kOciArchive, dir / "implicit.tar");
  ScanOptions tight;
  tight.limits.tree.max_implicit_directory_bytes = 1 << 20;
  auto scanned = Scan(dir / "implicit.tar", tight);
  REQUIRE_FALSE(scanned.ok());
  CHECK(scanned.error().message.find("more than 1048576 bytes of implicit parent directory names") !=
        std::string::npos);
  CHECK(Scan(dir / "implicit.tar").ok());
}
