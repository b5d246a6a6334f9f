// Stream plumbing private to the scanner and the sources.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "imagelint/stream.h"

namespace imagelint {

enum class Codec { kNone, kGzip, kZstd };

Codec SniffCodec(std::span<const uint8_t> head);
std::string_view CodecName(Codec codec);
// Decompresses (or passes through) `input`, failing past `limit` output bytes.
std::unique_ptr<ByteStream> Decompressor(std::unique_ptr<ByteStream> input, Codec codec, uint64_t limit);

// Reads the first bytes of a stream ahead, then replays them.
class PeekStream final : public ByteStream {
 public:
  static Result<std::unique_ptr<PeekStream>> Open(std::unique_ptr<ByteStream> input, size_t want);
  std::span<const uint8_t> Head() const { return head_; }
  Result<size_t> Read(std::span<uint8_t> buffer) override;
  Result<std::span<const uint8_t>> ReadView(std::span<uint8_t> scratch) override;
  std::string Name() const override { return input_->Name(); }

 private:
  explicit PeekStream(std::unique_ptr<ByteStream> input) : input_(std::move(input)) {}
  std::unique_ptr<ByteStream> input_;
  std::vector<uint8_t> head_;
  size_t position_ = 0;
};

// Reads `input` on a thread of its own once `start_now()` says a core is
// free (asked again every few reads until it does): decompressing one
// layer then runs beside parsing and analysing it, which is what lets one
// big layer use two cores; reading and hashing a big blob runs beside
// inflating it. Bounded: at most 8 page-aligned chunks of 1 MiB ahead (1 MiB
// reads: a plain big layer hashed on this thread then reads as the SHA-256
// floor does; 512 KiB was ~2 % slower on the save, docs/PERFORMANCE.md).
// Before the thread starts, and with `start_now` null, reads pass through.
// `critical`: the thread is its image's critical path (EnterCriticalPath).
std::unique_ptr<ByteStream> ReadAhead(std::unique_ptr<ByteStream> input, bool (*start_now)(), bool critical = false);

}  // namespace imagelint
