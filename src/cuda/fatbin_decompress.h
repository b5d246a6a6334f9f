// Decompression of fatbin entry payloads (LZ4 block, zstd frame) with hard
// limits: a hostile entry can neither ask for unbounded output nor for a
// zstd window of gigabytes.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace imagelint::cuda {

// Output holds at most `max_output` bytes; `partial` allows stopping there
// (the rest of the input is then not checked).
struct DecompressResult {
  std::vector<uint8_t> data;
  std::optional<std::string> error;
};
DecompressResult DecompressLz4Block(std::span<const uint8_t> input, uint64_t declared_size,
                                    uint64_t max_output, bool partial);
DecompressResult DecompressZstd(std::span<const uint8_t> input, uint64_t declared_size,
                                uint64_t max_output, bool partial);

}  // namespace imagelint::cuda
