// The layer cache: hits skip the layer entirely, a new analyzer version
// re-reads only for that analyzer, corrupt files are discarded, concurrent
// writers never produce torn entries.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "imagelint/cache.h"
#include "imagelint/scan.h"
#include "imagelint/open_image.h"
#include "support/image_builder.h"
#include "support/raw_tar.h"
#include "support/test_support.h"

using namespace imagelint;
using namespace imagelint::testing;
namespace fs = std::filesystem;

namespace {

// Reports each file's size and first byte; counts the files it was offered.
class ProbeAnalyzer final : public FileAnalyzer {
 public:
  ProbeAnalyzer(std::string name, int version) : name_(std::move(name)), version_(version) {}
  std::string_view Name() const override { return name_; }
  int Version() const override { return version_; }
  std::unique_ptr<FileSink> Open(const EntryInfo& entry, std::span<const uint8_t> head) override {
    opened_++;
    class Sink final : public FileSink {
     public:
      Sink(std::string tag, uint64_t size, int first) : tag_(std::move(tag)), size_(size), first_(first) {}
      bool Consume(std::span<const uint8_t> chunk) override {
        seen_ += chunk.size();
        return true;
      }
      nlohmann::json Finish(bool complete) override {
        return {{"tag", tag_}, {"size", size_}, {"first", first_}, {"seen", seen_}, {"complete", complete}};
      }

     private:
      std::string tag_;
      uint64_t size_;
      int first_;
      uint64_t seen_ = 0;
    };
    return std::make_unique<Sink>(name_ + "@" + std::to_string(version_), entry.size, head.empty() ? -1 : head[0]);
  }
  int opened() const { return opened_.load(); }

 private:
  std::string name_;
  int version_;
  std::atomic<int> opened_{0};
};

TestImage CacheImage(const std::string& marker) {
  TestImage image;
  image.Layer().File("etc/os-release", "ID=debian\n").File("usr/lib/libbase.so.1", std::string(5000, 'b'));
  image.Layer(Compression::kZstd).File("usr/lib/libshared.so.2", std::string(7000, 's')).Symlink("usr/lib/s", "libshared.so.2");
  image.Layer(Compression::kNone).File("app/" + marker, marker + marker);
  return image;
}

std::unique_ptr<ImageSource> Open(const fs::path& path) {
  auto source = OpenLocalImage(path.string(), OpenOptions{});
  INFO((source.ok() ? std::string() : source.error().ToString()));
  REQUIRE(source.ok());
  return std::move(*source);
}

std::string Dump(const ScannedImage& image) {
  nlohmann::json all = nlohmann::json::array();
  for (const auto& layer : image.layers) all.push_back(LayerResultToJson(layer));
  return all.dump();
}

ScannedImage ScanWith(ImageSource& source, LayerCache& cache, const std::vector<FileAnalyzer*>& analyzers) {
  ScanOptions options;
  options.jobs = 2;
  options.layer_scanner = cache.Scanner();
  auto image = ScanImage(source, analyzers, options);
  INFO((image.ok() ? std::string() : image.error().ToString()));
  REQUIRE(image.ok());
  return std::move(*image);
}

std::vector<fs::path> CacheFiles(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& item : fs::recursive_directory_iterator(dir)) {
    if (item.is_regular_file()) files.push_back(item.path());
  }
  return files;
}

}  // namespace

TEST_CASE("a warm scan reads no layer and gives the same result") {
  for (ImageKind kind : {ImageKind::kDockerArchive, ImageKind::kOciLayout}) {
    TempDir dir;
    WriteImage(CacheImage("one"), kind, dir / "img");
    auto cache = LayerCache::Open((dir / "cache").string());
    REQUIRE(cache.ok());
    ProbeAnalyzer probe("probe", 1);

    auto source = Open(dir / "img");
    ScannedImage plain = [&] {
      auto image = ScanImage(*source, {&probe});
      REQUIRE(image.ok());
      return std::move(*image);
    }();
    int plain_opened = probe.opened();
    CHECK(plain_opened == 4);

    ScannedImage cold = ScanWith(*source, **cache, {&probe});
    CHECK((*cache)->Stats().misses == 3);
    CHECK(Dump(cold) == Dump(plain));

    auto again = Open(dir / "img");
    ScannedImage warm = ScanWith(*again, **cache, {&probe});
    CHECK((*cache)->Stats().hits == 3);
    CHECK(probe.opened() == 2 * plain_opened);  // the warm scan offered no file
    CHECK(Dump(warm) == Dump(plain));
    CHECK(warm.tree.LookupResolved("usr/lib/s") != nullptr);
  }
}

TEST_CASE("a warm cache does not vouch for a corrupted or missing local blob") {
  // The cache is keyed by diff ID; a copy of the image whose blob was
  // damaged after the first scan must still be exit-2 material, not a hit.
  for (ImageKind kind : {ImageKind::kDockerArchive, ImageKind::kOciLayout, ImageKind::kOciArchive}) {
    CAPTURE(static_cast<int>(kind));
    TempDir dir;
    WriteImage(CacheImage("same"), kind, dir / "good");
    auto cache = LayerCache::Open((dir / "cache").string());
    REQUIRE(cache.ok());
    ProbeAnalyzer probe("probe", 1);
    auto good = Open(dir / "good");
    ScanWith(*good, **cache, {&probe});

    WriteOptions corrupt;
    corrupt.corrupt_layer_blob = true;
    WriteImage(CacheImage("same"), kind, dir / "corrupt", corrupt);
    auto damaged = OpenLocalImage((dir / "corrupt").string(), OpenOptions{});
    REQUIRE(damaged.ok());
    ScanOptions options;
    options.layer_scanner = (*cache)->Scanner();
    auto result = ScanImage(**damaged, {&probe}, options);
    REQUIRE_FALSE(result.ok());
    INFO(result.error().ToString());
    // A flipped byte shows as a digest mismatch, or, inside a legacy gzip'd
    // layer.tar (only its diff ID is known), as the gzip stream's own error.
    std::string message = result.error().ToString();
    CHECK((message.find("mismatch") != std::string::npos || message.find("gzip") != std::string::npos));

    WriteOptions missing;
    missing.omit_layer_blob = true;
    WriteImage(CacheImage("same"), kind, dir / "missing", missing);
    auto incomplete = OpenLocalImage((dir / "missing").string(), OpenOptions{});
    if (incomplete.ok()) {  // some kinds already refuse to open without the blob
      auto scanned = ScanImage(**incomplete, {&probe}, options);
      REQUIRE_FALSE(scanned.ok());
      CHECK(scanned.error().ToString().find("missing") != std::string::npos);
    }
  }
}

TEST_CASE("an unchanged local blob is hashed once; a rewritten one is hashed again") {
  TempDir dir;
  const std::vector<ImageKind> kinds = {ImageKind::kDockerArchive, ImageKind::kOciLayout, ImageKind::kOciArchive};
  for (size_t i = 0; i < kinds.size(); ++i) WriteImage(CacheImage("memo"), kinds[i], dir / std::to_string(i));
  // Files changed within the last second are never remembered ("racy clean").
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  for (size_t i = 0; i < kinds.size(); ++i) {
    CAPTURE(static_cast<int>(kinds[i]));
    const fs::path image = dir / std::to_string(i);
    const fs::path cache_dir = dir / ("cache" + std::to_string(i));
    ProbeAnalyzer probe("probe", 1);
    auto scan = [&] {
      auto cache = LayerCache::Open(cache_dir.string());
      REQUIRE(cache.ok());
      auto source = Open(image);
      ScanWith(*source, **cache, {&probe});
      return (*cache)->Stats();
    };
    CHECK(scan().misses == 3);  // the cold scan verified every blob and remembers it
    CacheStats warm = scan();   // nothing changed: no blob hashed
    CHECK(warm.hits == 3);
    CHECK(warm.blobs_vouched == 3);
  }

  // Flip one byte of a layer blob in place and put its mtime back: the inode
  // and size are the same, but ctime moved, so the blob is hashed again.
  const fs::path layout = dir / "1";
  fs::path largest;
  for (const auto& item : fs::directory_iterator(layout / "blobs" / "sha256")) {
    if (largest.empty() || fs::file_size(item.path()) > fs::file_size(largest)) largest = item.path();
  }
  struct stat before;
  REQUIRE(::stat(largest.c_str(), &before) == 0);
  {
    std::fstream file(largest, std::ios::in | std::ios::out | std::ios::binary);
    file.seekg(static_cast<std::streamoff>(fs::file_size(largest) / 2));
    char byte = 0;
    file.get(byte);
    file.seekp(static_cast<std::streamoff>(fs::file_size(largest) / 2));
    file.put(static_cast<char>(byte ^ 0x40));
  }
  struct timespec times[2] = {before.st_atim, before.st_mtim};
  REQUIRE(::utimensat(AT_FDCWD, largest.c_str(), times, 0) == 0);
  auto cache = LayerCache::Open((dir / "cache1").string());
  REQUIRE(cache.ok());
  auto damaged = Open(layout);
  ScanOptions options;
  options.layer_scanner = (*cache)->Scanner();
  ProbeAnalyzer probe("probe", 1);
  auto result = ScanImage(*damaged, {&probe}, options);
  REQUIRE_FALSE(result.ok());
  CHECK(result.error().ToString().find("mismatch") != std::string::npos);
  CHECK((*cache)->Stats().blobs_vouched < 3);

  // Removing the blob is never answered from the memo either.
  fs::remove(largest);
  auto cache_again = LayerCache::Open((dir / "cache1").string());
  REQUIRE(cache_again.ok());
  auto incomplete = Open(layout);
  options.layer_scanner = (*cache_again)->Scanner();
  auto scanned = ScanImage(*incomplete, {&probe}, options);
  REQUIRE_FALSE(scanned.ok());
  CHECK(scanned.error().ToString().find("missing") != std::string::npos);
}

TEST_CASE("the blob memo remembers only settled, unchanged stamps") {
  TempDir dir;
  auto cache = LayerCache::Open((dir / "cache").string());
  REQUIRE(cache.ok());
  const int64_t now_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  StoredBlobStamp settled{"blob 1:2:3:4:5 digest sha256:aa", now_ns - 5000000000};
  StoredBlobStamp fresh{"blob 1:2:3:4:6 digest sha256:aa", now_ns - 100000000};
  StoredBlobStamp moved{"blob 1:2:3:4:7 digest sha256:aa", now_ns - 5000000000};
  (*cache)->Remember(fresh, fresh);      // changed 0.1 s ago: could change again unseen
  (*cache)->Remember(settled, moved);    // changed while it was hashed
  CHECK_FALSE((*cache)->Contains(fresh));
  CHECK_FALSE((*cache)->Contains(settled));
  CHECK_FALSE((*cache)->Contains(moved));
  (*cache)->Remember(settled, settled);
  CHECK((*cache)->Contains(settled));
  CHECK_FALSE((*cache)->Contains(StoredBlobStamp{settled.key + "0", settled.newest_change_ns}));
  // A damaged memo file is discarded, never trusted.
  for (const auto& file : CacheFiles(dir / "cache" / "verified")) {
    std::ofstream(file, std::ios::binary | std::ios::trunc) << "garbage";
  }
  CHECK_FALSE((*cache)->Contains(settled));
  CHECK((*cache)->Stats().discarded == 1);
}

TEST_CASE("a second image shares the cached base layers") {
  // A docker save hashes every layer's tar (its diff ID), so its entries are
  // filed under diff IDs, where the OCI layout's compressed layers look first.
  TempDir dir;
  WriteImage(CacheImage("first"), ImageKind::kDockerArchive, dir / "a.tar");
  WriteImage(CacheImage("second"), ImageKind::kOciLayout, dir / "b");
  auto cache = LayerCache::Open((dir / "cache").string());
  REQUIRE(cache.ok());
  ProbeAnalyzer probe("probe", 1);
  auto a = Open(dir / "a.tar");
  ScanWith(*a, **cache, {&probe});
  auto b = Open(dir / "b");
  ScannedImage second = ScanWith(*b, **cache, {&probe});
  CacheStats stats = (*cache)->Stats();
  CHECK(stats.misses == 4);  // 3 for the first image + its own top layer
  CHECK(stats.hits == 2);    // the two shared base layers
  CHECK(probe.opened() == 4 + 1);
  bool found = false;
  second.tree.ForEach([&](const std::string& path, const TreeNode&) { found = found || path == "app/second"; });
  CHECK(found);
}

TEST_CASE("a new analyzer version re-runs only that analyzer") {
  TempDir dir;
  WriteImage(CacheImage("v"), ImageKind::kOciLayout, dir / "img");
  auto cache = LayerCache::Open((dir / "cache").string());
  REQUIRE(cache.ok());
  ProbeAnalyzer a1("alpha", 1), b1("beta", 1);
  auto source = Open(dir / "img");
  ScanWith(*source, **cache, {&a1, &b1});

  ProbeAnalyzer a1_again("alpha", 1), b2("beta", 2);
  ScannedImage image = ScanWith(*source, **cache, {&a1_again, &b2});
  CHECK(a1_again.opened() == 0);  // alpha's facts came from the cache
  CHECK(b2.opened() == 4);        // beta v2 saw every file again
  CHECK((*cache)->Stats().partial == 3);
  const LayerEntry* lib = nullptr;
  for (const auto& entry : image.layers[0].entries) {
    if (entry.info.path == "usr/lib/libbase.so.1") lib = &entry;
  }
  REQUIRE(lib != nullptr);
  CHECK(lib->analysis.at("alpha")["tag"] == "alpha@1");
  CHECK(lib->analysis.at("beta")["tag"] == "beta@2");
  CHECK(lib->analysis.at("beta")["seen"] == 5000);

  // Both versions of beta now live side by side; v1 is still a full hit.
  ProbeAnalyzer a1_third("alpha", 1), b1_again("beta", 1);
  ScanWith(*source, **cache, {&a1_third, &b1_again});
  CHECK(a1_third.opened() + b1_again.opened() == 0);
}

TEST_CASE("corrupt, truncated and foreign cache files are discarded") {
  TempDir dir;
  WriteImage(CacheImage("c"), ImageKind::kOciLayout, dir / "img");
  const fs::path cache_dir = dir / "cache";
  auto source = Open(dir / "img");
  ProbeAnalyzer probe("probe", 1);
  std::string expected;
  {
    auto cache = LayerCache::Open(cache_dir.string());
    expected = Dump(ScanWith(*source, **cache, {&probe}));
  }
  auto files = CacheFiles(cache_dir);
  REQUIRE(files.size() == 6);  // 3 layers x (entries + probe)
  int damaged = 0;
  for (const auto& file : files) {
    auto bytes = ReadFileBytes(file);
    switch (damaged++ % 3) {
      case 0: bytes[bytes.size() / 2] ^= 0x40; break;  // a flipped bit
      case 1: bytes.resize(bytes.size() / 2); break;     // torn
      case 2: bytes = {'{', '}'}; break;                 // not ours
    }
    WriteFileBytes(file, bytes);
  }
  auto cache = LayerCache::Open(cache_dir.string());
  ProbeAnalyzer fresh("probe", 1);
  ScannedImage image = ScanWith(*source, **cache, {&fresh});
  CHECK(Dump(image) == expected);
  CHECK((*cache)->Stats().discarded >= 3);
  CHECK(fresh.opened() == 4);
  // Rewritten: the next scan is a clean hit.
  ProbeAnalyzer third("probe", 1);
  ScanWith(*source, **cache, {&third});
  CHECK(third.opened() == 0);
}

TEST_CASE("concurrent writers and readers never see a torn entry") {
  TempDir dir;
  WriteImage(CacheImage("race"), ImageKind::kOciLayout, dir / "img");
  const std::string cache_dir = (dir / "cache").string();
  std::string expected;
  {
    ProbeAnalyzer probe("probe", 1);
    auto source = Open(dir / "img");
    auto image = ScanImage(*source, {&probe});
    REQUIRE(image.ok());
    expected = Dump(*image);
  }
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      // Separate caches over one directory: what separate processes do.
      auto cache = LayerCache::Open(cache_dir);
      if (!cache.ok()) {
        mismatches++;
        return;
      }
      for (int round = 0; round < 5; ++round) {
        auto source = OpenLocalImage((dir / "img").string(), OpenOptions{});
        if (!source.ok()) {
          mismatches++;
          return;
        }
        ProbeAnalyzer probe("probe", 1);
        ScanOptions options;
        options.jobs = 1;
        options.layer_scanner = (*cache)->Scanner();
        auto image = ScanImage(**source, {&probe}, options);
        if (!image.ok() || Dump(*image) != expected) mismatches++;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  CHECK(mismatches == 0);
  for (const auto& file : CacheFiles(cache_dir)) {
    CHECK(file.string().find(".tmp.") == std::string::npos);  // no leftovers
  }
}

TEST_CASE("layers without a digest are never cached; directories are checked") {
  TempDir dir;
  auto cache = LayerCache::Open((dir / "cache").string());
  REQUIRE(cache.ok());
  LayerRef rootfs;  // a rootfs "layer" has no blob digest
  CHECK_FALSE(LayerCache::Cacheable(rootfs));
  LayerResult result;
  CHECK((*cache)->Store(rootfs, result, {}).ok());
  CHECK(CacheFiles(dir / "cache").empty());
  CHECK_FALSE((*cache)->Lookup(rootfs, {}, nullptr).has_value());
  LayerRef weird;
  weird.digest = "sha256:../../etc";
  CHECK_FALSE(LayerCache::Cacheable(weird));

  WriteFileText(dir / "file", "x");
  CHECK_FALSE(LayerCache::Open((dir / "file" / "sub").string()).ok());
  CHECK_FALSE(LayerCache::Open("").ok());
}

TEST_CASE("default cache directory follows XDG_CACHE_HOME") {
  CHECK(DefaultCacheDirectory("/tmp/xdg-test", "/home/u") == "/tmp/xdg-test/imagelint");
  // the spec ignores relative paths
  CHECK(DefaultCacheDirectory("relative", "/home/u") == "/home/u/.cache/imagelint");
  CHECK(DefaultCacheDirectory("", "").empty());
}

TEST_CASE("prune: least recently used first, unused-for, stale temporaries; never outside its own names") {
  TempDir dir;
  const fs::path cache_dir = dir / "cache";
  std::vector<std::string> markers = {"old", "middle", "new"};
  {
    auto cache = LayerCache::Open(cache_dir.string());
    REQUIRE(cache.ok());
    ProbeAnalyzer probe("probe", 1);
    for (const auto& marker : markers) {
      WriteImage(CacheImage(marker), ImageKind::kOciLayout, dir / marker);
      auto source = Open(dir / marker);
      ScanWith(*source, **cache, {&probe});
    }
  }
  auto before = MeasureCache(cache_dir.string());
  REQUIRE(before.ok());
  CHECK(before->layers == 5);  // two shared base layers + one top layer per image

  // Age every layer, then make each image's own top layer younger in order.
  const int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  auto set_age = [](const fs::path& file, int64_t seconds_since_epoch) {
    struct timespec times[2] = {{seconds_since_epoch, 0}, {seconds_since_epoch, 0}};
    REQUIRE(::utimensat(AT_FDCWD, file.c_str(), times, 0) == 0);
  };
  std::vector<fs::path> entries;
  for (const auto& file : CacheFiles(cache_dir / "layers")) {
    if (file.filename() == "entries.cbor") {
      entries.push_back(file);
      set_age(file, now - 40 * 86400);
    }
  }
  REQUIRE(entries.size() == 5);
  // Layers served from the cache for a scan of "new" (a hit refreshes entries.cbor's time).
  auto hits_scanning_new = [&] {
    auto cache = LayerCache::Open(cache_dir.string());
    REQUIRE(cache.ok());
    ProbeAnalyzer probe("probe", 1);
    auto source = Open(dir / "new");
    ScanWith(*source, **cache, {&probe});
    return (*cache)->Stats().hits;
  };
  CHECK(hits_scanning_new() == 3);
  // Things prune must not touch: a symlink and a foreign file in the cache.
  fs::create_directories(dir / "outside");
  WriteFileText(dir / "outside" / "keep", "x");
  fs::create_directory_symlink(dir / "outside", cache_dir / "layers" / "ab");
  WriteFileText(cache_dir / "notes.txt", "mine");
  fs::path temporary = entries[0].parent_path() / "entries.cbor.tmp.1.2.3";
  WriteFileText(temporary, "torn");
  set_age(temporary, now - 7200);

  PruneOptions unused;
  unused.unused_for_seconds = 30 * 86400;
  auto pruned = PruneCache(cache_dir.string(), unused);
  REQUIRE(pruned.ok());
  CHECK(pruned->layers_removed == 2);  // the top layers of "old" and "middle"
  CHECK(pruned->temporaries_removed == 1);
  CHECK(pruned->after.layers == 3);
  CHECK(fs::exists(dir / "outside" / "keep"));
  CHECK(fs::exists(cache_dir / "notes.txt"));

  // The image scanned last still hits entirely.
  CHECK(hits_scanning_new() == 3);

  // A size bound evicts until the rest fits; zero empties the cache.
  PruneOptions bounded;
  bounded.max_bytes = pruned->after.TotalBytes() - 1;
  auto smaller = PruneCache(cache_dir.string(), bounded);
  REQUIRE(smaller.ok());
  CHECK(smaller->after.TotalBytes() < pruned->after.TotalBytes());
  bounded.max_bytes = 0;
  auto empty = PruneCache(cache_dir.string(), bounded);
  REQUIRE(empty.ok());
  CHECK(empty->after.TotalBytes() == 0);
  CHECK(empty->after.layers == 0);
  CHECK(fs::exists(dir / "outside" / "keep"));
  CHECK_FALSE(MeasureCache((dir / "nowhere").string()).ok());
}

namespace {

// A cache file as LayerCache writes it (magic, length, sha256, payload), so
// that the checksum holds and only the payload is hostile.
std::vector<uint8_t> SealedCacheFile(const std::vector<uint8_t>& payload) {
  std::vector<uint8_t> bytes = {'I', 'L', 'C', 'A', 'C', 'H', 'E', '1'};
  for (int i = 0; i < 8; ++i) bytes.push_back(static_cast<uint8_t>(static_cast<uint64_t>(payload.size()) >> (8 * i)));
  std::string hex = TestDigest(payload).substr(7);
  for (size_t i = 0; i < 32; ++i) bytes.push_back(static_cast<uint8_t>(std::stoi(hex.substr(i * 2, 2), nullptr, 16)));
  bytes.insert(bytes.end(), payload.begin(), payload.end());
  return bytes;
}

}  // namespace

TEST_CASE("checksummed cache files with hostile payloads are discarded, never thrown on") {
  TempDir dir;
  WriteImage(CacheImage("h"), ImageKind::kOciLayout, dir / "img");
  const fs::path cache_dir = dir / "cache";
  auto source = Open(dir / "img");
  ProbeAnalyzer probe("probe", 1);
  nlohmann::json expected;
  {
    auto cache = LayerCache::Open(cache_dir.string());
    expected = LayerResultToJson(ScanWith(*source, **cache, {&probe}).layers[0]);
  }
  std::vector<fs::path> files = CacheFiles(cache_dir);
  std::vector<std::vector<uint8_t>> payloads;
  std::vector<uint8_t> deep(100000, 0x81);  // CBOR arrays nested 100,000 deep
  deep.push_back(0x00);
  payloads.push_back(deep);
  payloads.push_back(nlohmann::json::to_cbor({{"format", "1"}, {"key", 5}}));
  payloads.push_back(nlohmann::json::to_cbor({{"format", 1}, {"entries", {{1, 2, 3}}}, {"facts", {{99999, 1}}}}));
  payloads.push_back({0xbf, 0x61});  // truncated indefinite map
  for (size_t round = 0; round < payloads.size(); ++round) {
    CAPTURE(round);
    for (const auto& file : files) WriteFileBytes(file, SealedCacheFile(payloads[round]));
    auto cache = LayerCache::Open(cache_dir.string());
    ProbeAnalyzer fresh("probe", 1);
    ScannedImage image = ScanWith(*source, **cache, {&fresh});
    CHECK(LayerResultToJson(image.layers[0]) == expected);
    CHECK((*cache)->Stats().discarded >= files.size() / 2);
  }
}

TEST_CASE("names that are not UTF-8 round-trip through the cache") {
  TempDir dir;
  TestImage image;
  image.Layer(Compression::kNone).raw_blob =
      UstarTar({{"caf\xe9/", '5', "", ""}, {"caf\xe9/men\xfc", '0', "abc", ""}, {"l\xff", '2', "", "\xfe"}});
  WriteImage(image, ImageKind::kOciLayout, dir / "img");
  auto source = Open(dir / "img");
  ProbeAnalyzer probe("probe", 1);
  auto cache = LayerCache::Open((dir / "cache").string());
  ScannedImage cold = ScanWith(*source, **cache, {&probe});
  CHECK((*cache)->Stats().write_errors == 0);
  ScannedImage warm = ScanWith(*source, **cache, {&probe});
  CHECK((*cache)->Stats().hits == 1);
  CHECK(LayerResultToJson(warm.layers[0]) == LayerResultToJson(cold.layers[0]));
  CHECK(warm.layers[0].entries[1].info.path == "caf\xe9/men\xfc");
  CHECK(warm.layers[0].entries[2].info.link_target == "\xfe");
}

TEST_CASE("an exception inside a layer scan (out of memory) is an error, not std::terminate") {
  TempDir dir;
  WriteImage(CacheImage("x"), ImageKind::kOciLayout, dir / "img");
  auto source = Open(dir / "img");
  ScanOptions options;
  options.jobs = 2;
  options.layer_scanner = [](ImageSource&, size_t index, const std::vector<FileAnalyzer*>&,
                             const ScanOptions&) -> Result<LayerResult> {
    if (index == 1) throw std::bad_alloc();
    return LayerResult{};
  };
  auto image = ScanImage(*source, {}, options);
  REQUIRE_FALSE(image.ok());
  CHECK(image.error().ToString() == (dir / "img").string() + ": layer 1: out of memory while scanning it");
}

TEST_CASE("a compressed layer is filed under the digest its scan checked") {
  // Verify-once: a compressed layer's scan hashes its blob, not its tar, so
  // its facts are filed under the blob digest, never under the diff ID the
  // config only claims. The uncompressed docker save of the same layers then
  // misses (its diff IDs name entries nobody proved), unless the first scan
  // checked the diff IDs too (--verify-diff-ids).
  for (bool verify_diff_ids : {false, true}) {
    CAPTURE(verify_diff_ids);
    TempDir dir;
    WriteImage(CacheImage("first"), ImageKind::kOciLayout, dir / "a");
    WriteImage(CacheImage("second"), ImageKind::kDockerArchive, dir / "b.tar");
    auto cache = LayerCache::Open((dir / "cache").string());
    REQUIRE(cache.ok());
    ProbeAnalyzer probe("probe", 1);
    OpenOptions open;
    open.verify_diff_ids = verify_diff_ids;
    auto a = OpenLocalImage((dir / "a").string(), open);
    REQUIRE(a.ok());
    ScannedImage first = ScanWith(**a, **cache, {&probe});
    const auto& layers = (*a)->Metadata().layers;
    for (size_t i = 0; i < 2; ++i) {  // the gzip and zstd layers
      REQUIRE(layers[i].digest != layers[i].diff_id);
      CHECK(first.layers[i].verified_digest == (verify_diff_ids ? layers[i].diff_id : layers[i].digest));
      const std::string filed = first.layers[i].verified_digest.substr(7);
      CHECK(fs::exists(dir / "cache" / "layers" / filed.substr(0, 2) / filed / "entries.cbor"));
    }
    CHECK(first.layers[2].verified_digest == layers[2].diff_id);  // plain: one hash, both digests

    // The same OCI layout again: found under its blob digests.
    auto again = OpenLocalImage((dir / "a").string(), OpenOptions{});
    REQUIRE(again.ok());
    ScanWith(**again, **cache, {&probe});
    CHECK((*cache)->Stats().hits == 3);

    auto b = Open(dir / "b.tar");
    ScanWith(*b, **cache, {&probe});
    CacheStats stats = (*cache)->Stats();
    CHECK(stats.hits == (verify_diff_ids ? 3u + 2u : 3u));
    CHECK(stats.misses == (verify_diff_ids ? 3u + 1u : 3u + 3u));
  }
}

TEST_CASE("a partial hit under the diff ID is completed under the blob digest and found there next time") {
  // A docker save files its layers under diff IDs; a later analyzer version
  // makes those entries partial for the OCI layout of the same layers, whose
  // rescan checks (and files under) the blob digest of a compressed layer.
  TempDir dir;
  WriteImage(CacheImage("one"), ImageKind::kDockerArchive, dir / "a.tar");
  WriteImage(CacheImage("one"), ImageKind::kOciLayout, dir / "b");
  auto cache = LayerCache::Open((dir / "cache").string());
  REQUIRE(cache.ok());
  ProbeAnalyzer old_probe("probe", 1);
  ProbeAnalyzer new_probe("probe", 2);
  auto a = Open(dir / "a.tar");
  ScanWith(*a, **cache, {&old_probe});
  auto b = Open(dir / "b");
  ScanWith(*b, **cache, {&new_probe});
  CHECK((*cache)->Stats().partial == 3);  // every layer: its new analyzer's facts are missing
  auto again = Open(dir / "b");
  ScanWith(*again, **cache, {&new_probe});
  // Whole hits: the plain layer completed in place, the two compressed ones
  // under their blob digests (not the partial diff-ID entries again).
  CHECK((*cache)->Stats().partial == 3);
  CHECK((*cache)->Stats().hits == 3);
}
