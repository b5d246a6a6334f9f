// Pull-based byte streams: the one way bytes enter imagelint.
//
// A layer blob, a file inside a tar, a registry response body: each is a
// ByteStream that hands out the next bytes on request. Streams never seek
// unless they say they can, so a registry body and a file on disk look alike
// to the layer scanner.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "imagelint/result.h"

namespace imagelint {

class ByteStream {
 public:
  virtual ~ByteStream() = default;
  // Reads up to buffer.size() bytes. Returns 0 at end of stream, an Error when
  // the bytes could not be produced (I/O, truncated input, bad digest...).
  virtual Result<size_t> Read(std::span<uint8_t> buffer) = 0;
  // The next bytes without a copy where the stream holds them already (a
  // read-ahead chunk): a view valid until the next call on this stream, or
  // bytes read into `scratch` (the default). Empty at the end of the stream.
  virtual Result<std::span<const uint8_t>> ReadView(std::span<uint8_t> scratch) {
    auto n = Read(scratch);
    if (!n.ok()) return n.error();
    return std::span<const uint8_t>(scratch.data(), *n);
  }
  // A human name for messages: file path, "blob sha256:...", URL without credentials.
  virtual std::string Name() const = 0;
};

// A host file that the user named on the command line (never a path that
// came from inside an image). Regular files only: a FIFO, socket or device is
// an Error, and is never opened for reading (the open does not block).
Result<std::unique_ptr<ByteStream>> OpenHostFile(const std::string& path);

// "a FIFO", "a socket", "a character device", "a directory"... for messages
// about a file that is not what a reader expected (`mode` as st_mode).
std::string FileTypePhrase(unsigned mode);

// Bytes held in memory (tests, small inline blobs).
std::unique_ptr<ByteStream> MemoryStream(std::vector<uint8_t> bytes, std::string name);

// Reads a whole stream, failing with an Error naming the stream when it holds
// more than `limit` bytes. For manifests, configs and other small documents.
Result<std::vector<uint8_t>> ReadAll(ByteStream& stream, uint64_t limit);

}  // namespace imagelint
