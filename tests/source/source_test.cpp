// Every input kind of the same image reads the same; platforms; real images.
#include <doctest/doctest.h>

#include "imagelint/read_image.h"
#include "imagelint/open_image.h"
#include "source/store.h"
#include "support/image_builder.h"
#include "support/test_support.h"
#include "support/checkout_knowledge.h"

using namespace imagelint;
using namespace imagelint::testing;
namespace fs = std::filesystem;

namespace {

TestImage SampleImage(testing::Compression compression) {
  TestImage image;
  image.env = {"PATH=/usr/local/cuda/bin:/usr/bin", "NVIDIA_REQUIRE_CUDA=cuda>=12.4"};
  image.labels = {{"maintainer", "test"}};
  image.Layer(compression)
      .Dir("usr")
      .Dir("usr/lib")
      .File("usr/lib/libcudart.so.12.4.127", std::string(70000, 'c'))
      .Symlink("usr/lib/libcudart.so.12", "libcudart.so.12.4.127")
      .Dir("etc")
      .File("etc/old.conf", "old")
      .File("etc/keep.conf", "keep")
      .Symlink("lib", "usr/lib");
  TestLayer& top = image.Layer(compression);
  top.created_by = "RUN apt-get install thing";
  top.Whiteout("etc/old.conf")
      .Hardlink("usr/lib/libcudart.so.hard", "usr/lib/libcudart.so.12.4.127")
      .File("lib/through-symlink", "x")
      .Opaque("usr/share")
      .File("usr/share/doc", "doc");
  return image;
}

Result<ScannedImage> Read(const fs::path& path, const std::string& platform = "") {
  ReadImageOptions options;
  if (!platform.empty()) {
    options.open.platform = *Platform::Parse(platform);
    options.open.platform_explicit = true;
  }
  return ReadImage(path.string(), options, imagelint::testing::CheckoutKnowledge());
}

// Blob digests, sizes and media types legitimately differ between input kinds.
void Scrub(nlohmann::json& value) {
  if (value.is_object()) {
    for (const char* key : {"digest", "layer_digest", "media_type", "size", "kind", "ref"}) {
      value.erase(std::string(key));
    }
  }
  if (value.is_object() || value.is_array()) {
    for (auto it = value.begin(); it != value.end(); ++it) Scrub(*it);
  }
}

nlohmann::json ComparableFacts(const ScannedImage& image) {
  static const Knowledge knowledge = *Knowledge::LoadDefault(imagelint::testing::SourceDir());
  nlohmann::json facts = BuildFacts(image, knowledge);
  Scrub(facts);
  return facts;
}

const char* kExpectedListing =
    "dir 0755 0 L0 /etc\n"
    "file 0644 4 L0 /etc/keep.conf\n"
    "symlink 0777 0 L0 /lib -> usr/lib\n"
    "dir 0755 0 L0 /usr\n"
    "dir 0755 0 L0 /usr/lib\n"
    "symlink 0777 0 L0 /usr/lib/libcudart.so.12 -> libcudart.so.12.4.127\n"
    "file 0644 70000 L0 /usr/lib/libcudart.so.12.4.127\n"
    "hardlink 0644 70000 L1 /usr/lib/libcudart.so.hard => /usr/lib/libcudart.so.12.4.127\n"
    "file 0644 1 L1 /usr/lib/through-symlink\n"
    "dir 0755 0 L1 /usr/share\n"
    "file 0644 3 L1 /usr/share/doc\n";

}  // namespace

TEST_CASE("every input kind and layer compression gives the same tree and facts") {
  TempDir dir;
  struct Kind {
    ImageKind kind;
    const char* name;
    bool gzip_outer;
    const char* expected_kind;
  };
  std::vector<Kind> kinds = {
      {ImageKind::kDockerArchive, "legacy.tar", false, "docker-archive"},
      {ImageKind::kDockerArchive, "legacy.tar.gz", true, "docker-archive"},
      {ImageKind::kDockerArchiveSkopeo, "skopeo.tar", false, "docker-archive"},
      {ImageKind::kDockerArchiveOci, "docker25.tar", false, "docker-archive"},
      {ImageKind::kOciLayout, "layout", false, "oci-layout"},
      {ImageKind::kOciArchive, "oci.tar", false, "oci-archive"},
      {ImageKind::kOciArchive, "oci.tar.gz", true, "oci-archive"},
  };
  std::optional<nlohmann::json> reference;
  for (auto compression : {testing::Compression::kNone, testing::Compression::kGzip, testing::Compression::kZstd}) {
    TestImage image = SampleImage(compression);
    for (const auto& kind : kinds) {
      CAPTURE(kind.name);
      CAPTURE(static_cast<int>(compression));
      fs::path path = dir / (std::to_string(static_cast<int>(compression)) + kind.name);
      WriteImage(image, kind.kind, path, {.gzip_outer = kind.gzip_outer});
      auto scanned = Read(path);
      REQUIRE_MESSAGE(scanned.ok(), imagelint::testing::ErrorText(scanned));
      CHECK(ListTree(*scanned, "") == kExpectedListing);
      CHECK(scanned->metadata.kind == kind.expected_kind);
      CHECK(scanned->metadata.ref == "example.com/test/image:latest");
      nlohmann::json facts = ComparableFacts(*scanned);
      if (!reference) reference = facts;
      CHECK(facts == *reference);
    }
  }
  REQUIRE(reference);
  const auto& image = (*reference)["image"];
  CHECK(image["env"]["NVIDIA_REQUIRE_CUDA"] == "cuda>=12.4");
  CHECK(image["labels"]["maintainer"] == "test");
  CHECK(image["os"] == "linux");
  CHECK(image["architecture"] == "amd64");
  REQUIRE(image["layers"].size() == 2);
  CHECK(image["layers"][1]["created_by"] == "RUN apt-get install thing");
  CHECK((*reference)["schema"] == "imagelint.facts/v1");
}

TEST_CASE("layer digests: OCI uses the blob digest, legacy docker-archive the diff ID; both verified") {
  TempDir dir;
  TestImage image = SampleImage(testing::Compression::kGzip);
  WriteImage(image, ImageKind::kOciArchive, dir / "oci.tar");
  auto oci = Read(dir / "oci.tar");
  REQUIRE(oci.ok());
  std::vector<uint8_t> blob = Compress(BuildLayerTar(image.layers[0]), testing::Compression::kGzip);
  CHECK(oci->layers[0].digest == TestDigest(blob));
  CHECK(oci->layers[0].diff_id == TestDigest(BuildLayerTar(image.layers[0])));
  CHECK(oci->layers[0].blob_bytes == blob.size());
  CHECK(oci->layers[0].tar_bytes == BuildLayerTar(image.layers[0]).size());
}

TEST_CASE("a legacy docker save's layers are scheduled by the bytes it holds for them (no size is declared)") {
  // The scanner starts the largest layer first and gives it the read-ahead
  // threads; a legacy manifest.json declares no sizes, so the archive's
  // member sizes stand in (an OCI layout's declared sizes come first).
  TempDir dir;
  TestImage image = SampleImage(testing::Compression::kNone);
  for (auto kind : {ImageKind::kDockerArchive, ImageKind::kDockerArchiveSkopeo}) {
    CAPTURE(static_cast<int>(kind));
    WriteImage(image, kind, dir / "save.tar");
    auto source = OpenLocalImage((dir / "save.tar").string(), OpenOptions{});
    REQUIRE(source.ok());
    const auto& layers = (*source)->Metadata().layers;
    REQUIRE(layers.size() == 2);
    for (size_t i = 0; i < 2; ++i) {
      CHECK(layers[i].size == -1);
      CHECK(layers[i].stored_bytes == static_cast<int64_t>(BuildLayerTar(image.layers[i]).size()));
      CHECK(layers[i].ScheduleBytes() == layers[i].stored_bytes);
    }
  }
  WriteImage(image, ImageKind::kOciLayout, dir / "layout");
  auto oci = OpenLocalImage((dir / "layout").string(), OpenOptions{});
  REQUIRE(oci.ok());
  CHECK((*oci)->Metadata().layers[0].stored_bytes == -1);
  CHECK((*oci)->Metadata().layers[0].ScheduleBytes() == (*oci)->Metadata().layers[0].size);
}

TEST_CASE("multi-platform index: --platform picks, default linux/amd64, absent platform lists what exists") {
  TempDir dir;
  TestImage amd = SampleImage(testing::Compression::kGzip);
  TestImage arm = amd;
  arm.architecture = "arm64";
  arm.layers[0].File("arm-only", "1");
  TestImage armv7 = amd;
  armv7.architecture = "arm";
  armv7.variant = "v7";
  for (bool nested : {false, true}) {
    CAPTURE(nested);
    fs::path path = dir / (nested ? "nested.tar" : "flat.tar");
    WriteMultiPlatform({arm, amd, armv7}, ImageKind::kOciArchive, path, {.nested_index = nested});
    auto def = Read(path);
    REQUIRE(def.ok());
    CHECK(def->metadata.platform.architecture == "amd64");
    auto arm64 = Read(path, "linux/aarch64");
    REQUIRE(arm64.ok());
    CHECK(arm64->metadata.platform.architecture == "arm64");
    CHECK(arm64->tree.Lookup("arm-only"));
    auto v7 = Read(path, "linux/arm/v7");
    REQUIRE(v7.ok());
    CHECK(v7->metadata.platform.variant == "v7");
    auto missing = Read(path, "linux/s390x");
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.error().message ==
          "no image for platform linux/s390x; platforms present: linux/amd64, linux/arm/v7, linux/arm64 "
          "(choose one with --platform)");
  }
  // A multi-platform index without the default platform is an error too.
  WriteMultiPlatform({arm, armv7}, ImageKind::kOciLayout, dir / "noamd");
  auto none = Read(dir / "noamd");
  REQUIRE_FALSE(none.ok());
  CHECK(none.error().message.find("platforms present: linux/arm/v7, linux/arm64") != std::string::npos);
}

TEST_CASE("an archive or layout holding several images: --image picks one, none picked is an error listing them") {
  TempDir dir;
  TestImage cuda = SampleImage(testing::Compression::kGzip);
  cuda.ref = "nvidia/cuda:12.4";
  cuda.layers[0].File("which", "cuda");
  TestImage app = SampleImage(testing::Compression::kGzip);
  app.ref = "registry.example.com/team/train:1.4";
  app.layers[0].File("which", "train");
  auto which = [](const ScannedImage& image) {
    const TreeNode* node = image.tree.Lookup("which");
    return node && node->entry ? node->entry->info.size : uint64_t{0};
  };
  for (ImageKind kind : {ImageKind::kDockerArchive, ImageKind::kDockerArchiveSkopeo, ImageKind::kDockerArchiveOci,
                         ImageKind::kOciLayout, ImageKind::kOciArchive}) {
    CAPTURE(static_cast<int>(kind));
    fs::path path = dir / ("several" + std::to_string(static_cast<int>(kind)));
    WriteImages({cuda, app}, kind, path);
    auto read = [&](const std::string& name) {
      ReadImageOptions options;
      options.open.image_name = name;
      return ReadImage(path.string(), options, imagelint::testing::CheckoutKnowledge());
    };
    auto unpicked = read("");
    REQUIRE_FALSE(unpicked.ok());
    INFO(unpicked.error().ToString());
    CHECK(unpicked.error().message.find("holds 2 images: @0 ") != std::string::npos);
    CHECK(unpicked.error().message.find("train:1.4") != std::string::npos);
    CHECK(unpicked.error().message.find("choose one with --image NAME or --image @N") != std::string::npos);

    auto by_name = read("registry.example.com/team/train:1.4");
    REQUIRE(by_name.ok());
    CHECK(which(*by_name) == 5);
    auto normalized = read("docker.io/nvidia/cuda:12.4");  // Docker's spelling of the same name
    REQUIRE(normalized.ok());
    CHECK(which(*normalized) == 4);
    auto by_position = read("@1");
    REQUIRE(by_position.ok());
    CHECK(which(*by_position) == 5);
    for (const char* bad : {"@2", "@x", "nvidia/cuda:11.8"}) {
      auto missing = read(bad);
      REQUIRE_FALSE(missing.ok());
      CHECK(missing.error().message.find("images: @0 ") != std::string::npos);
    }
  }
  // One manifest saved under two names (docker save a:1 a:2) is one image.
  WriteImage(cuda, ImageKind::kOciLayout, dir / "one");
  auto index = nlohmann::json::parse(ReadFileText(dir / "one" / "index.json"));
  nlohmann::json alias = index["manifests"][0];
  alias["annotations"]["io.containerd.image.name"] = "docker.io/nvidia/cuda:latest";
  index["manifests"].push_back(alias);
  WriteFileText(dir / "one" / "index.json", index.dump());
  auto one = Read(dir / "one");
  INFO((one.ok() ? std::string() : one.error().ToString()));
  CHECK(one.ok());
}

TEST_CASE("platform strings are normalised like containerd") {
  CHECK(Platform::Parse("linux/x86_64")->ToString() == "linux/amd64");
  CHECK(Platform::Parse("aarch64")->ToString() == "linux/arm64");
  CHECK(Platform::Parse("linux/arm64/v8")->ToString() == "linux/arm64");
  CHECK(Platform::Parse("linux/armhf")->ToString() == "linux/arm/v7");
  CHECK(Platform::Parse("linux/arm")->ToString() == "linux/arm/v7");
  CHECK_FALSE(Platform::Parse("linux//amd64").ok());
  CHECK_FALSE(Platform::Parse("a/b/c/d").ok());
}

TEST_CASE("root file system directory: symlinks recorded, never followed; hard links detected") {
  TempDir dir;
  fs::path root = dir / "rootfs";
  fs::create_directories(root / "usr" / "lib");
  WriteFileText(root / "usr/lib/libx.so.1", "elf?");
  fs::create_symlink("/etc/shadow", root / "usr/lib/evil");  // must stay a link in the tree
  fs::create_symlink("libx.so.1", root / "usr/lib/libx.so");
  fs::create_hard_link(root / "usr/lib/libx.so.1", root / "usr/lib/libx.hard");
  auto scanned = ReadImage("rootfs:" + root.string(), ReadImageOptions{}, imagelint::testing::CheckoutKnowledge());  // no os-release: asked for by name
  REQUIRE_MESSAGE(scanned.ok(), imagelint::testing::ErrorText(scanned));
  CHECK(scanned->metadata.kind == "rootfs");
  CHECK(ListTree(*scanned, "") ==
        "dir 0755 0 L0 /usr\n"
        "dir 0755 0 L0 /usr/lib\n"
        "symlink 0777 0 L0 /usr/lib/evil -> /etc/shadow\n"
        "file 0644 4 L0 /usr/lib/libx.hard\n"
        "symlink 0777 0 L0 /usr/lib/libx.so -> libx.so.1\n"
        "hardlink 0644 4 L0 /usr/lib/libx.so.1 => /usr/lib/libx.hard\n");
}

TEST_CASE("a gzip'd docker save is decompressed once, not once per layer") {
  // Layers over the 1 MiB in-memory capture limit, so each is read from the stream.
  auto noise = [](size_t size, uint32_t seed) {
    std::string text(size, '\0');
    for (size_t i = 0; i < size; ++i) {
      seed = seed * 1664525u + 1013904223u;
      text[i] = static_cast<char>(seed >> 24);
    }
    return text;
  };
  TestImage image;
  for (uint32_t i = 0; i < 4; ++i) {
    image.Layer(testing::Compression::kNone).File("layer" + std::to_string(i), noise((3u << 19) + i, i + 1));
  }
  TempDir dir;
  WriteImage(image, ImageKind::kDockerArchive, dir / "plain.tar");
  WriteImage(image, ImageKind::kDockerArchive, dir / "saved.tar.gz", {.gzip_outer = true});

  auto store = OpenArchiveStore((dir / "saved.tar.gz").string(), 16 << 20);
  REQUIRE(store.ok());
  auto manifest = (*store)->ReadSmall("manifest.json", 1 << 20);
  REQUIRE(manifest.ok());
  std::vector<std::string> layers;
  const nlohmann::json items = nlohmann::json::parse(manifest->begin(), manifest->end());
  for (const auto& path : items[0]["Layers"]) {
    layers.push_back(path.get<std::string>());
  }
  REQUIRE(layers.size() == 4);
  auto read_in = [&](const std::vector<std::string>& order) {
    for (const auto& path : order) {
      REQUIRE((*store)->SequentialOffset(path).has_value());
      auto stream = (*store)->Open(path);
      REQUIRE(stream.ok());
      auto bytes = ReadAll(**stream, 64 << 20);
      REQUIRE(bytes.ok());
      CHECK(bytes->size() > (3u << 19));
    }
  };
  read_in(layers);  // archive order: one decompressor carried from member to member
  CHECK((*store)->RestartsFromStart() == 1);
  std::vector<std::string> reversed(layers.rbegin(), layers.rend());
  read_in(reversed);  // backwards: correct, but each member starts over
  CHECK((*store)->RestartsFromStart() >= 4);

  // The image source reads its layers in stream order, and the result is the
  // same as from the plain tarball.
  auto source = OpenLocalImage((dir / "saved.tar.gz").string(), OpenOptions{});
  REQUIRE(source.ok());
  auto order = (*source)->SequentialLayerOrder();
  REQUIRE(order.has_value());
  CHECK(*order == std::vector<size_t>{0, 1, 2, 3});
  auto plain = OpenLocalImage((dir / "plain.tar").string(), OpenOptions{});
  REQUIRE(plain.ok());
  CHECK_FALSE((*plain)->SequentialLayerOrder().has_value());
  auto from_gzip = Read(dir / "saved.tar.gz");
  auto from_plain = Read(dir / "plain.tar");
  REQUIRE(from_gzip.ok());
  REQUIRE(from_plain.ok());
  CHECK(from_gzip->layers.size() == 4);
  for (size_t i = 0; i < 4; ++i) CHECK(from_gzip->layers[i].diff_id == from_plain->layers[i].diff_id);
  CHECK(from_gzip->tree.Lookup("layer3") != nullptr);
}
