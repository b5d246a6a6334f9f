// What the shared-cache tests share: a CI runner (its own local cache, the
// shared store), an analyzer that counts the files it is offered (a layer
// served from a cache offers none), the image the runners scan, and the
// Redis store the command line would open.
#pragma once

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <mutex>

#include <nlohmann/json.hpp>

#include "imagelint/cache.h"
#include "imagelint/layer_store.h"
#include "imagelint/open_image.h"
#include "imagelint/scan.h"
#include "support/image_builder.h"
#include "support/test_support.h"

namespace imagelint::testing::shared_cache {

namespace fs = std::filesystem;

// Counts the files it is offered: a layer served from a cache offers none.
class CountingAnalyzer final : public FileAnalyzer {
 public:
  std::string_view Name() const override { return "counting"; }
  int Version() const override { return 1; }
  std::unique_ptr<FileSink> Open(const EntryInfo& entry, std::span<const uint8_t> head) override {
    opened_++;
    class Sink final : public FileSink {
     public:
      explicit Sink(uint64_t size) : size_(size) {}
      bool Consume(std::span<const uint8_t>) override { return true; }
      nlohmann::json Finish(bool complete) override { return {{"size", size_}, {"complete", complete}}; }

     private:
      uint64_t size_;
    };
    return std::make_unique<Sink>(entry.size);
  }
  int opened() const { return opened_.load(); }

 private:
  std::atomic<int> opened_{0};
};

inline TestImage SharedImage() {
  TestImage image;
  image.Layer().File("etc/os-release", "ID=debian\n").File("usr/lib/libbase.so.1", std::string(5000, 'b'));
  image.Layer(Compression::kZstd).File("usr/lib/libshared.so.2", std::string(7000, 's'));
  image.Layer(Compression::kNone).File("app/run", "#!/bin/sh\n");
  return image;
}

struct Warnings {
  std::vector<std::string> messages;
  std::mutex mutex;
  std::function<void(const std::string&)> Sink() {
    return [this](const std::string& message) {
      std::lock_guard<std::mutex> lock(mutex);
      messages.push_back(message);
    };
  }
};

// One CI runner: its own local cache directory, the shared store.
struct Runner {
  fs::path image;
  fs::path cache_dir;
  std::shared_ptr<LayerStore> store;
  Warnings warnings;
  CountingAnalyzer analyzer;
  std::unique_ptr<LayerCache> cache;
  bool verify = true;  // false: a --no-verify runner

  std::string Scan(LayerScanFunction inner = {}) {
    if (!cache) {
      auto opened = LayerCache::Open(cache_dir.string(), {store, warnings.Sink()});
      REQUIRE(opened.ok());
      cache = std::move(*opened);
    }
    OpenOptions open;
    open.verify_digests = verify;
    auto source = OpenLocalImage(image.string(), open);
    REQUIRE(source.ok());
    ScanOptions options;
    options.jobs = 2;
    options.layer_scanner = cache->Scanner(inner);
    auto scanned = ScanImage(**source, {&analyzer}, options);
    INFO((scanned.ok() ? std::string() : scanned.error().ToString()));
    REQUIRE(scanned.ok());
    nlohmann::json all = nlohmann::json::array();
    for (const auto& layer : scanned->layers) all.push_back(LayerResultToJson(layer));
    return all.dump();
  }
};

inline std::string PlainScan(const fs::path& image) {
  CountingAnalyzer analyzer;
  auto source = OpenLocalImage(image.string(), OpenOptions{});
  REQUIRE(source.ok());
  auto scanned = ScanImage(**source, {&analyzer});
  REQUIRE(scanned.ok());
  nlohmann::json all = nlohmann::json::array();
  for (const auto& layer : scanned->layers) all.push_back(LayerResultToJson(layer));
  return all.dump();
}

// `options` with `password` and both timeouts set, as a command line would
// open it: failing soft into `warnings`.
inline std::shared_ptr<LayerStore> RedisStoreFor(RedisOptions options, Warnings& warnings,
                                                 const std::string& password = "", int timeout_ms = 2000) {
  options.password = password;
  options.connect_timeout = std::chrono::milliseconds(timeout_ms);
  options.command_timeout = std::chrono::milliseconds(timeout_ms);
  return FailSoft(OpenRedisStore(options), warnings.Sink());
}

inline std::shared_ptr<LayerStore> RedisStoreFor(const std::string& url, Warnings& warnings,
                                                 const std::string& password = "", int timeout_ms = 2000) {
  auto options = ParseRedisUrl(url);
  REQUIRE(options.ok());
  return RedisStoreFor(*options, warnings, password, timeout_ms);
}

}  // namespace imagelint::testing::shared_cache
