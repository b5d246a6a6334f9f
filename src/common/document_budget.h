// The bounds every parsed JSON or CBOR document is held to while its value is
// built (json.cpp's DOM builder, cbor.cpp's reader): nesting depth, and an
// estimate of the memory the value takes.
//
// Depth: copying, comparing, dumping and destroying a value recurse, so a
// 16 MiB "[[[[..." would overflow the stack long after it was accepted.
//
// Memory: one CBOR byte (0xa0, an empty map) becomes an object of ~80 bytes,
// so a 28 MB cache value inflated to 3.6 GB. The budget is kBase plus
// kPerInputByte per byte of input; documents imagelint writes take about 4
// bytes per input byte. The charges below are what nlohmann's value of each
// kind costs (16-byte value, plus its map, vector or string).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace imagelint {

class DocumentBudget {
 public:
  static constexpr uint64_t kBase = 64ull << 20;
  static constexpr uint64_t kPerInputByte = 8;

  static constexpr uint64_t kObject = 16 + 48;
  static constexpr uint64_t kArray = 16 + 24;
  static constexpr uint64_t kKey = 64;     // plus the key's length
  static constexpr uint64_t kString = 16 + 32;  // plus the string's length
  static constexpr uint64_t kBinary = 16 + 48;  // plus the bytes' length
  static constexpr uint64_t kScalar = 16;

  DocumentBudget(size_t max_depth, size_t input_bytes)
      : max_depth_(max_depth), max_memory_(kBase + kPerInputByte * static_cast<uint64_t>(input_bytes)) {}

  // Opens a container; false (with the message set) past the depth limit.
  bool Enter() {
    if (++depth_ <= max_depth_) return true;
    Fail("nested deeper than " + std::to_string(max_depth_) + " levels");
    return false;
  }
  void Leave() { --depth_; }

  // Counts `bytes` more; false (with the message set) past the budget.
  bool Charge(uint64_t bytes) {
    memory_ += bytes;
    if (memory_ <= max_memory_) return true;
    Fail("holds more values than imagelint keeps for a document of its size (past " +
         std::to_string(max_memory_ >> 20) + " MiB in memory: 64 MiB plus 8 bytes per byte of input)");
    return false;
  }

  // Keeps the first failure's message.
  void Fail(std::string message) {
    if (failed_) return;
    failed_ = true;
    message_ = std::move(message);
  }
  bool failed() const { return failed_; }
  const std::string& message() const { return message_; }

 private:
  size_t max_depth_;
  uint64_t max_memory_;
  uint64_t memory_ = 0;
  size_t depth_ = 0;
  bool failed_ = false;
  std::string message_;
};

}  // namespace imagelint
