// The byte stream under the Redis client (resp_client.h): plain TCP here,
// TLS over it in tls_transport.h, a scripted fake in tests. Every wait is
// bounded: a transport never blocks longer than its timeout for one read or
// write, and a server that goes away costs an error value, never the process
// (no SIGPIPE).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "imagelint/result.h"

namespace imagelint::redis {

class Transport {
 public:
  virtual ~Transport() = default;
  // Writes all of `bytes`. Errors: the connection broke, or the server took
  // no byte for the whole timeout.
  virtual Status Send(std::span<const uint8_t> bytes) = 0;
  // Reads 1 to buffer.size() bytes. Errors: the connection broke or was
  // closed, or nothing arrived for the whole timeout.
  virtual Result<size_t> Receive(std::span<uint8_t> buffer) = 0;
  // How long one Send or Receive may wait for the socket from now on.
  virtual void SetTimeout(std::chrono::milliseconds timeout) = 0;
};

// Resolves `host` (a name, an IPv4 or an IPv6 literal) and connects to the
// first of its addresses that answers, all within `connect_timeout` (name
// resolution included); Send and Receive then wait at most `io_timeout`.
// Errors name the cause: "Connection refused", "timed out after 2000 ms", a
// name that does not resolve.
Result<std::unique_ptr<Transport>> ConnectTcp(const std::string& host, int port,
                                              std::chrono::milliseconds connect_timeout,
                                              std::chrono::milliseconds io_timeout);

}  // namespace imagelint::redis
