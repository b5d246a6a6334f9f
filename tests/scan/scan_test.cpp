// The layer scanner: decompression by magic, streaming to analyzers in
// bounded chunks, the cache hook, parallel == sequential, JSON round trip.
#include <doctest/doctest.h>

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>

#include "imagelint/read_image.h"
#include "imagelint/digest.h"
#include "scan/sized_source.h"
#include "support/image_builder.h"
#include "support/test_support.h"
#include "support/checkout_knowledge.h"

using namespace imagelint;
using namespace imagelint::testing;
namespace fs = std::filesystem;

namespace {

// Records what the scanner hands to a sink.
class RecordingAnalyzer final : public FileAnalyzer {
 public:
  explicit RecordingAnalyzer(uint64_t stop_after = UINT64_MAX) : stop_after_(stop_after) {}
  std::string_view Name() const override { return "recording"; }
  int Version() const override { return 1; }
  std::unique_ptr<FileSink> Open(const EntryInfo& entry, std::span<const uint8_t> head) override {
    if (entry.path.find("skip") != std::string::npos) return nullptr;
    return std::make_unique<Sink>(head.size(), stop_after_, &max_chunk_);
  }
  std::atomic<size_t> max_chunk_{0};

 private:
  class Sink final : public FileSink {
   public:
    Sink(size_t head, uint64_t stop_after, std::atomic<size_t>* max_chunk)
        : head_(head), stop_after_(stop_after), max_chunk_(max_chunk) {}
    bool Consume(std::span<const uint8_t> chunk) override {
      hasher_.Update(chunk);
      bytes_ += chunk.size();
      ++chunks_;
      size_t seen = max_chunk_->load();
      while (chunk.size() > seen && !max_chunk_->compare_exchange_weak(seen, chunk.size())) {
      }
      return bytes_ < stop_after_;
    }
    nlohmann::json Finish(bool complete) override {
      return {{"head", head_}, {"bytes", bytes_}, {"chunks", chunks_}, {"complete", complete},
              {"sha256", hasher_.FinishDigest()}};
    }

   private:
    size_t head_;
    uint64_t stop_after_;
    std::atomic<size_t>* max_chunk_;
    Sha256 hasher_;
    uint64_t bytes_ = 0;
    int chunks_ = 0;
  };
  uint64_t stop_after_;
};

std::string Pattern(size_t size) {
  std::string text(size, '\0');
  for (size_t i = 0; i < size; ++i) text[i] = static_cast<char>((i * 2654435761u) >> 13);
  return text;
}

int ThreadNice() {
  return ::getpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)));
}

// The nice value of the thread that scanned each layer, with two workers.
std::map<size_t, int> NiceByLayer(std::vector<int64_t> sizes) {
  const size_t largest = static_cast<size_t>(std::max_element(sizes.begin(), sizes.end()) - sizes.begin());
  SizedSource source(std::move(sizes));
  std::mutex mutex;
  std::condition_variable scanned_other;
  std::map<size_t, int> nice;
  ScanOptions options;
  options.jobs = 2;
  options.layer_scanner = [&](ImageSource&, size_t index, const std::vector<FileAnalyzer*>&, const ScanOptions&) {
    std::unique_lock<std::mutex> lock(mutex);
    nice[index] = ThreadNice();
    // The largest layer lasts until the other worker has scanned a layer, as
    // a real big layer would (else one worker could take every layer).
    if (index == largest) {
      scanned_other.wait_for(lock, std::chrono::seconds(10), [&] { return nice.size() > 1; });
    } else {
      scanned_other.notify_all();
    }
    return Result<LayerResult>(LayerResult{});
  };
  auto scanned = ScanImage(source, {}, options);
  REQUIRE(scanned.ok());
  return nice;
}

}  // namespace

TEST_CASE("beside a big critical layer, the other layers' workers yield their cores (nice +10)") {
  const int base = ThreadNice();
  if (base > 9) return;  // already as low as it goes: nothing to tell apart
  // The big layer is scheduled first, whatever its index; its thread keeps
  // the caller's priority, every thread that scans another layer gives way.
  auto nice = NiceByLayer({1 << 20, int64_t{200} << 20, 2 << 20, 3 << 20});
  REQUIRE(nice.size() == 4);
  CHECK(nice[1] == base);
  for (size_t small : {0, 2, 3}) {
    INFO("layer " << small << " scanned at nice " << nice[small]);
    // Either a yielded worker, or the big layer's own worker once it is done.
    CHECK((nice[small] == base + 10 || nice[small] == base));
  }
  CHECK(std::count_if(nice.begin(), nice.end(), [&](const auto& n) { return n.second == base + 10; }) >= 1);
  CHECK(ThreadNice() == base);
  // No big layer: nobody yields, and the calling thread is never touched.
  for (const auto& [layer, value] : NiceByLayer({1 << 20, 2 << 20, 3 << 20})) CHECK(value == base);
  CHECK(ThreadNice() == base);
}

TEST_CASE("file contents stream to analyzers once, in bounded chunks, head first") {
  TempDir dir;
  std::string big = Pattern(3 << 20);
  TestImage image;
  image.Layer(testing::Compression::kZstd).File("big.bin", big).File("small", "abc").File("skip-me", "zzz").File("empty", "");
  WriteImage(image, ImageKind::kOciArchive, dir / "img.tar");
  auto source = OpenLocalImage((dir / "img.tar").string(), {});
  REQUIRE(source.ok());
  RecordingAnalyzer analyzer;
  auto layer = ScanLayer(**source, 0, {&analyzer}, {});
  REQUIRE_MESSAGE(layer.ok(), imagelint::testing::ErrorText(layer));
  REQUIRE(layer->entries.size() == 4);
  const auto& facts = layer->entries[0].analysis.at("recording");
  CHECK(facts["head"] == kHeadBytes);
  CHECK(facts["bytes"] == big.size());
  CHECK(facts["chunks"].get<int>() >= 12);
  CHECK(facts["complete"] == true);
  CHECK(facts["sha256"] == Sha256Digest(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(big.data()), big.size())));
  CHECK(analyzer.max_chunk_.load() <= 256 * 1024);
  CHECK(layer->entries[1].analysis.at("recording")["head"] == 3);
  CHECK(layer->entries[2].analysis.empty());  // analyzer declined
  CHECK(layer->entries[3].analysis.empty());  // empty files are not analysed
}

TEST_CASE("a sink that has seen enough stops being fed; the scan goes on") {
  TempDir dir;
  TestImage image;
  image.Layer().File("a", Pattern(2 << 20)).File("b", "after");
  WriteImage(image, ImageKind::kOciArchive, dir / "img.tar");
  auto source = OpenLocalImage((dir / "img.tar").string(), {});
  REQUIRE(source.ok());
  RecordingAnalyzer analyzer(100000);
  auto layer = ScanLayer(**source, 0, {&analyzer}, {});
  REQUIRE(layer.ok());
  CHECK(layer->entries[0].analysis.at("recording")["bytes"].get<uint64_t>() < (1u << 20));
  CHECK(layer->entries[0].analysis.at("recording")["complete"] == true);
  CHECK(layer->entries[1].analysis.at("recording")["bytes"] == 5);
}

TEST_CASE("the default content analyzer: magic sniffing and sha256 of small files") {
  TempDir dir;
  TestImage image;
  image.Layer().File("bin/tool", std::string("\x7f" "ELF\x02\x01\x01", 7) + std::string(100, '\0')).File("run.sh", "#!/bin/sh\n");
  WriteImage(image, ImageKind::kOciArchive, dir / "img.tar");
  auto scanned = ReadImage((dir / "img.tar").string(), {}, imagelint::testing::CheckoutKnowledge());
  REQUIRE(scanned.ok());
  const auto* tool = scanned->tree.Lookup("bin/tool");
  REQUIRE(tool);
  CHECK(tool->entry->analysis.at("content")["type"] == "elf");
  CHECK(scanned->tree.Lookup("run.sh")->entry->analysis.at("content")["type"] == "script");
  CHECK(scanned->tree.Lookup("run.sh")->entry->analysis.at("content")["sha256"] ==
        Sha256Digest(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>("#!/bin/sh\n"), 10)));
}

TEST_CASE("layers in parallel give the same result as one by one; the layer hook sees every layer") {
  TempDir dir;
  TestImage image;
  for (int i = 0; i < 6; ++i) {
    image.Layer(i % 2 ? testing::Compression::kGzip : testing::Compression::kZstd)
        .File("layer" + std::to_string(i), Pattern(100000 + i))
        .File("shared", std::to_string(i));
  }
  WriteImage(image, ImageKind::kDockerArchiveOci, dir / "img.tar");
  auto source = OpenLocalImage((dir / "img.tar").string(), {});
  REQUIRE(source.ok());
  auto analyzers = DefaultAnalyzers(imagelint::testing::CheckoutKnowledge());
  ScanOptions sequential;
  sequential.jobs = 1;
  auto one = ScanImage(**source, AnalyzerPointers(analyzers), sequential);
  REQUIRE(one.ok());

  std::mutex mutex;
  std::vector<size_t> seen;
  size_t progress_calls = 0;
  ScanOptions parallel;
  parallel.jobs = 4;
  parallel.layer_scanner = [&](ImageSource& s, size_t index, const std::vector<FileAnalyzer*>& a,
                               const ScanOptions& o) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      seen.push_back(index);
    }
    return ScanLayer(s, index, a, o);
  };
  parallel.progress = [&](const ScanProgress& p) {
    ++progress_calls;
    CHECK(p.layers_total == 6);
  };
  auto many = ScanImage(**source, AnalyzerPointers(analyzers), parallel);
  REQUIRE(many.ok());
  std::sort(seen.begin(), seen.end());
  CHECK(seen == std::vector<size_t>{0, 1, 2, 3, 4, 5});
  CHECK(progress_calls == 6);
  REQUIRE(one->layers.size() == many->layers.size());
  for (size_t i = 0; i < one->layers.size(); ++i) {
    CHECK(LayerResultToJson(one->layers[i]) == LayerResultToJson(many->layers[i]));
  }
  CHECK(ListTree(*one, "") == ListTree(*many, ""));
  CHECK(many->tree.Lookup("shared")->layer == 5);
}

TEST_CASE("a cached layer result stands in for the scan (hook returning stored JSON)") {
  TempDir dir;
  TestImage image;
  image.Layer().File("a", "1");
  image.Layer().File("b", "2");
  WriteImage(image, ImageKind::kOciArchive, dir / "img.tar");
  auto source = OpenLocalImage((dir / "img.tar").string(), {});
  REQUIRE(source.ok());
  auto first = ScanImage(**source, {}, {});
  REQUIRE(first.ok());
  std::vector<nlohmann::json> cache;
  for (const auto& layer : first->layers) cache.push_back(LayerResultToJson(layer));
  ScanOptions options;
  int scanned = 0;
  options.layer_scanner = [&](ImageSource& s, size_t index, const std::vector<FileAnalyzer*>& a,
                              const ScanOptions& o) -> Result<LayerResult> {
    if (index == 0) return LayerResultFromJson(cache[0]);
    ++scanned;
    return ScanLayer(s, index, a, o);
  };
  auto second = ScanImage(**source, {}, options);
  REQUIRE(second.ok());
  CHECK(scanned == 1);
  CHECK(ListTree(*first, "") == ListTree(*second, ""));
}

TEST_CASE("LayerResult JSON round trip and malformed JSON") {
  LayerResult layer;
  layer.digest = "sha256:" + std::string(64, 'a');
  layer.diff_id = "sha256:" + std::string(64, 'b');
  layer.blob_bytes = 10;
  layer.tar_bytes = 20;
  LayerEntry entry;
  entry.info = {"usr/lib/x.so", EntryType::kRegular, 123, 0755, ""};
  entry.analysis["elf"] = {{"soname", "x.so"}};
  layer.entries.push_back(entry);
  entry.info = {"usr/lib/y", EntryType::kSymlink, 0, 0777, "x.so"};
  entry.analysis.clear();
  layer.entries.push_back(entry);
  layer.problems.push_back({"p", "m"});
  nlohmann::json json = LayerResultToJson(layer);
  auto back = LayerResultFromJson(json);
  REQUIRE(back.ok());
  CHECK(LayerResultToJson(*back) == json);
  CHECK(back->entries[0].analysis.at("elf")["soname"] == "x.so");
  CHECK(back->entries[1].info.link_target == "x.so");
  CHECK_FALSE(LayerResultFromJson(nlohmann::json::array()).ok());
  json["entries"][0]["type"] = "bogus";
  CHECK_FALSE(LayerResultFromJson(json).ok());
  json.erase("entries");
  CHECK_FALSE(LayerResultFromJson(json).ok());
}

TEST_CASE("multi-member gzip layers, zero padding tolerated, trailing garbage rejected") {
  TestLayer layer;
  layer.File("one", Pattern(5000)).File("two", Pattern(7000));
  std::vector<uint8_t> tar = BuildLayerTar(layer);
  size_t split = 512 * 3;
  std::vector<uint8_t> first(tar.begin(), tar.begin() + static_cast<long>(split));
  std::vector<uint8_t> second(tar.begin() + static_cast<long>(split), tar.end());
  std::vector<uint8_t> blob = Compress(first, testing::Compression::kGzip);
  std::vector<uint8_t> tail = Compress(second, testing::Compression::kGzip);
  blob.insert(blob.end(), tail.begin(), tail.end());

  auto read = [&](std::vector<uint8_t> bytes, bool verify) -> Result<std::vector<std::string>> {
    LayerRef ref;
    if (verify) {
      ref.digest = TestDigest(bytes);
      ref.diff_id = TestDigest(tar);
    }
    auto reader = OpenLayerStream(MemoryStream(bytes, "blob"), ref, {});
    if (!reader.ok()) return reader.error();
    std::vector<std::string> names;
    for (;;) {
      auto next = (*reader)->Next();
      if (!next.ok()) return next.error();
      if (!*next) return names;
      names.push_back((*next)->path);
    }
  };
  auto names = read(blob, true);
  REQUIRE_MESSAGE(names.ok(), imagelint::testing::ErrorText(names));
  CHECK(*names == std::vector<std::string>{"one", "two"});
  std::vector<uint8_t> padded = blob;
  padded.resize(padded.size() + 1000, 0);
  CHECK(read(padded, true).ok());
  std::vector<uint8_t> garbage = blob;
  garbage.push_back('x');
  auto bad = read(garbage, false);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().ToString().find("unexpected bytes after the gzip stream") != std::string::npos);
}

TEST_CASE("entry names are cleaned; absolute names are rooted; escapes are errors") {
  CHECK(*CleanEntryPath("./usr//lib/./x/") == "usr/lib/x");
  CHECK(*CleanEntryPath("a/b/../c") == "a/c");
  CHECK(*CleanEntryPath("./") == "");
  CHECK_FALSE(CleanEntryPath("../x").ok());
  CHECK_FALSE(CleanEntryPath("a/../../x").ok());
  // Absolute names are rooted (kaniko's "/" entry, absolute hard-link targets).
  CHECK(*CleanEntryPath("/") == "");
  CHECK(*CleanEntryPath("/etc/passwd") == "etc/passwd");
  CHECK(*CleanEntryPath("/../../etc/passwd") == "etc/passwd");
}

TEST_CASE("both digests are checked whether hashing runs inline or on a helper thread") {
  // 6 MiB of content: more chunks than the helper's queue holds, so the
  // reader blocks on it and the order of chunks matters.
  TestLayer layer;
  layer.File("big", Pattern(6 << 20)).File("small", "x").Symlink("link", "big");
  std::vector<uint8_t> tar = BuildLayerTar(layer);
  for (auto compression : {testing::Compression::kGzip, testing::Compression::kZstd, testing::Compression::kNone}) {
    std::vector<uint8_t> blob = Compress(tar, compression);
    // blob_mode kHelperThread: the blob read and hashed on a read-ahead thread of its own.
    for (auto [mode, blob_mode] : {std::pair{HashThreading::kInline, HashThreading::kAuto},
                                   {HashThreading::kHelperThread, HashThreading::kAuto},
                                   {HashThreading::kAuto, HashThreading::kAuto},
                                   {HashThreading::kInline, HashThreading::kHelperThread},
                                   {HashThreading::kHelperThread, HashThreading::kHelperThread}}) {
      CAPTURE(static_cast<int>(compression));
      CAPTURE(static_cast<int>(mode));
      CAPTURE(static_cast<int>(blob_mode));
      auto read_all = [&](const LayerRef& ref, size_t stop_after = SIZE_MAX) -> Status {
        LayerReadOptions options;
        options.hash_threading = mode;
        options.blob_threading = blob_mode;
        auto reader = OpenLayerStream(MemoryStream(blob, "blob"), ref, options);
        if (!reader.ok()) return reader.error();
        std::vector<uint8_t> buffer(100000);
        for (size_t entries = 0; entries < stop_after; ++entries) {
          auto next = (*reader)->Next();
          if (!next.ok()) return next.error();
          if (!*next) return OkStatus();
          if ((*next)->path == "big") {  // read part of the content, skip the rest
            auto n = (*reader)->ReadContent(buffer);
            if (!n.ok()) return n.error();
          }
        }
        return OkStatus();  // abandoned mid-layer: the helper must stop cleanly
      };
      LayerRef good;
      good.digest = TestDigest(blob);
      good.diff_id = TestDigest(tar);
      Status ok = read_all(good);
      CHECK_MESSAGE(ok.ok(), imagelint::testing::ErrorText(ok));
      CHECK(read_all(good, 1).ok());

      LayerRef wrong_blob = good;
      wrong_blob.digest = TestDigest(std::vector<uint8_t>{1, 2, 3});
      Status bad_blob = read_all(wrong_blob);
      REQUIRE_FALSE(bad_blob.ok());
      // A plain tar's blob digest is its diff ID, hashed once as the blob is read.
      CHECK(bad_blob.error().ToString().find("blob digest mismatch") != std::string::npos);

      // The diff ID: hashed where the blob is the tar, else only when asked
      // (the checked blob digest already fixes the tar inside it).
      LayerRef wrong_diff = good;
      wrong_diff.diff_id = TestDigest(std::vector<uint8_t>{4, 5, 6});
      const bool plain = compression == testing::Compression::kNone;
      for (bool verify_diff_ids : {false, true}) {
        CAPTURE(verify_diff_ids);
        auto reader_options = [&] {
          LayerReadOptions options;
          options.hash_threading = mode;
          options.blob_threading = blob_mode;
          options.verify_diff_ids = verify_diff_ids;
          return options;
        };
        auto reader = OpenLayerStream(MemoryStream(blob, "blob"), wrong_diff, reader_options());
        REQUIRE(reader.ok());
        Status bad_diff = OkStatus();
        for (;;) {
          auto next = (*reader)->Next();
          if (!next.ok()) {
            bad_diff = next.error();
            break;
          }
          if (!*next) break;
        }
        if (plain || verify_diff_ids) {
          REQUIRE_FALSE(bad_diff.ok());
          CHECK(bad_diff.error().ToString().find("diff ID mismatch") != std::string::npos);
        } else {
          CHECK(bad_diff.ok());
          CHECK((*reader)->VerifiedDigest() == good.digest);  // what the bytes were checked against
        }
        // Where the tar was hashed and matched, the diff ID is what was proven.
        auto right = OpenLayerStream(MemoryStream(blob, "blob"), good, reader_options());
        REQUIRE(right.ok());
        for (;;) {
          auto next = (*right)->Next();
          REQUIRE(next.ok());
          if (!*next) break;
        }
        CHECK((*right)->VerifiedDigest() == (plain || verify_diff_ids ? good.diff_id : good.digest));
      }
    }
  }
}

TEST_CASE("inflating on a read-ahead thread reads the same entries, ends cleanly and passes errors on") {
  TestLayer layer;
  layer.File("big", Pattern(6 << 20)).File("small", "x").Symlink("link", "big").File("tail", Pattern(70000));
  std::vector<uint8_t> tar = BuildLayerTar(layer);
  for (auto compression : {testing::Compression::kGzip, testing::Compression::kZstd}) {
    CAPTURE(static_cast<int>(compression));
    std::vector<uint8_t> blob = Compress(tar, compression);
    LayerRef ref;
    ref.digest = TestDigest(blob);
    ref.diff_id = TestDigest(tar);
    // Entry names and content bytes read, the checked digest, or the error.
    auto read = [&](const std::vector<uint8_t>& bytes, HashThreading decompress, size_t stop_after = SIZE_MAX) {
      LayerReadOptions options;
      options.decompress_threading = decompress;
      options.blob_threading = decompress;  // both read-ahead threads, or neither
      options.verify_diff_ids = true;
      auto reader = OpenLayerStream(MemoryStream(bytes, "blob"), ref, options);
      if (!reader.ok()) return reader.error().message;
      std::string out;
      std::vector<uint8_t> buffer(100000);
      for (size_t entries = 0; entries < stop_after; ++entries) {
        auto next = (*reader)->Next();
        if (!next.ok()) return next.error().message;
        if (!*next) return out + "checked " + (*reader)->VerifiedDigest();
        out += (*next)->path + ":";
        for (;;) {
          auto n = (*reader)->ReadContent(buffer);
          if (!n.ok()) return n.error().message;
          if (*n == 0) break;
          out += std::to_string(*n) + ",";
        }
      }
      return out;  // abandoned mid-layer: the read-ahead thread must stop
    };
    const std::string inline_read = read(blob, HashThreading::kInline);
    CHECK(inline_read.find("checked " + ref.diff_id) != std::string::npos);
    CHECK(read(blob, HashThreading::kHelperThread) == inline_read);
    CHECK(read(blob, HashThreading::kHelperThread, 1) == read(blob, HashThreading::kInline, 1));
    // A flipped byte: an error either way (corrupt data or a digest mismatch), never a result.
    std::vector<uint8_t> corrupt = blob;
    corrupt[corrupt.size() / 2] ^= 0x40;
    const std::string ahead = read(corrupt, HashThreading::kHelperThread);
    CHECK(ahead.find("checked") == std::string::npos);
    CHECK(ahead == read(corrupt, HashThreading::kInline));
  }
}
