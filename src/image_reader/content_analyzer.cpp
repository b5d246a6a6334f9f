// The "content" analyzer: what a file is by its magic bytes, and the sha256 of
// files up to 1 MiB (which proves the streaming path: the hash is fed chunk
// by chunk, never from a whole-file buffer).
#include "image_reader/content_analyzer.h"

#include <cstring>

#include <nlohmann/json.hpp>

#include "imagelint/digest.h"

namespace imagelint {
namespace {

constexpr uint64_t kHashLimit = 1 << 20;

std::string Sniff(std::span<const uint8_t> head) {
  auto starts = [&](std::initializer_list<uint8_t> magic, size_t offset = 0) {
    if (head.size() < offset + magic.size()) return false;
    return std::memcmp(head.data() + offset, std::data(magic), magic.size()) == 0;
  };
  if (starts({0x7f, 'E', 'L', 'F'})) return "elf";
  if (starts({0x1f, 0x8b})) return "gzip";
  if (starts({0x28, 0xb5, 0x2f, 0xfd})) return "zstd";
  if (starts({'#', '!'})) return "script";
  if (starts({'P', 'K', 0x03, 0x04})) return "zip";
  if (starts({0x50, 0xed, 0x55, 0xba})) return "fatbin";
  if (starts({'u', 's', 't', 'a', 'r'}, 257)) return "tar";
  if (starts({'!', '<', 'a', 'r', 'c', 'h', '>', '\n'})) return "ar";
  return "";
}

class ContentSink final : public FileSink {
 public:
  ContentSink(std::string type, bool hash) : type_(std::move(type)), hash_(hash) {}
  bool Consume(std::span<const uint8_t> chunk) override {
    if (!hash_) return false;
    hasher_.Update(chunk);
    return true;
  }
  nlohmann::json Finish(bool complete) override {
    nlohmann::json facts = nlohmann::json::object();
    if (!type_.empty()) facts["type"] = type_;
    if (hash_ && complete) facts["sha256"] = hasher_.FinishDigest();
    if (facts.empty()) return nullptr;
    return facts;
  }

 private:
  std::string type_;
  bool hash_;
  Sha256 hasher_;
};

class ContentAnalyzer final : public FileAnalyzer {
 public:
  std::string_view Name() const override { return "content"; }
  int Version() const override { return 1; }
  std::unique_ptr<FileSink> Open(const EntryInfo& entry, std::span<const uint8_t> head) override {
    std::string type = Sniff(head);
    bool hash = entry.size <= kHashLimit;
    if (type.empty() && !hash) return nullptr;
    return std::make_unique<ContentSink>(std::move(type), hash);
  }
};

}  // namespace

std::unique_ptr<FileAnalyzer> MakeContentAnalyzer() { return std::make_unique<ContentAnalyzer>(); }

}  // namespace imagelint
