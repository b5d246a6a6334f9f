// A small RESP2 client: the commands the shared layer store sends (AUTH,
// SELECT, GETRANGE, SET) and the replies they get: +status, -error,
// :integer, $bulk and the $-1 nil. The server's bytes are hostile: a line
// longer than 64 KiB, a bulk longer than the caller asked for, a length that
// is not a number, a missing CRLF or a reply type these commands never get
// (arrays included) is an error value; a bulk is read as it arrives, never
// allocated ahead from the length the server claims.
// Protocol: "Redis serialization protocol specification",
// https://redis.io/docs/latest/develop/reference/protocol-spec/
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cache/redis_transport.h"

namespace imagelint::redis {

struct Reply {
  enum class Kind { kStatus, kError, kInteger, kBulk, kNil };
  Kind kind = Kind::kNil;
  std::string text;            // kStatus, kError: the line after the type byte
  int64_t integer = 0;         // kInteger
  std::vector<uint8_t> bulk;   // kBulk
};

class RespClient {
 public:
  static constexpr size_t kMaxLineBytes = 64 * 1024;

  // Does not own `transport`; it must outlive the client.
  explicit RespClient(Transport& transport) : transport_(transport) {}

  // Sends one command and reads its reply. An error reply (-ERR ...) is a
  // Reply of kind kError; the Error cases are the transport's and a reply
  // that breaks the framing or holds a bulk longer than `max_bulk` bytes.
  // After an Error the connection is out of step: drop it. With a `whole`
  // budget, the command's send and its whole reply must fit in it (each
  // wait on the transport is cut to what is left), so a server that drips
  // its answer a byte at a time cannot stretch one call without end.
  Result<Reply> Call(const std::vector<std::string_view>& args, size_t max_bulk,
                     std::chrono::milliseconds whole = std::chrono::milliseconds::zero());

 private:
  Result<Reply> Exchange(const std::vector<std::string_view>& args, size_t max_bulk);
  Result<std::string> ReadLine();
  Result<std::vector<uint8_t>> ReadBulk(size_t length);
  Status Fill();
  // Before each wait: what is left of the call's budget, as the transport's timeout.
  Status Arm();

  std::optional<std::chrono::steady_clock::time_point> deadline_;
  std::chrono::milliseconds whole_{0};

  Transport& transport_;
  std::vector<uint8_t> buffer_;  // received, not yet parsed: buffer_[start_, end)
  size_t start_ = 0;
};

// RESP2's encoding of a command: an array of bulk strings.
std::string EncodeCommand(const std::vector<std::string_view>& args);

// `text` fit for a one-line message: control bytes as '?', at most 200 bytes.
std::string PrintableReply(std::string_view text);

}  // namespace imagelint::redis
