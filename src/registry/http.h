// One HTTP exchange over libcurl as a pull stream: Open() returns once the
// response head has arrived; Read() hands out the body as it comes (curl's
// multi interface pumped from the reading thread, so nothing is buffered
// beyond a few network chunks and no extra thread exists).
//
// Redirects are NOT followed here: the registry client follows them itself so
// that it can drop Authorization when the host changes.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "imagelint/result.h"
#include "imagelint/stream.h"

namespace imagelint::registry {

struct HttpConfig {
  std::string ca_file;
  std::vector<std::string> connect_to;  // CURLOPT_CONNECT_TO entries
  bool verify_tls = true;
  long connect_timeout_seconds = 30;
  long idle_timeout_seconds = 60;
  // When set, the whole exchange must be over by then: the connection, the
  // response's head and its body (a caller's time budget, to the
  // millisecond: the stall limit above counts whole seconds and lets a
  // server that drips a byte a second go on).
  std::optional<std::chrono::steady_clock::time_point> response_deadline;
  // Non-empty: the connection goes to this unix socket instead of the URL's
  // host (CURLOPT_UNIX_SOCKET_PATH; the Docker Engine API on docker.sock).
  std::string unix_socket_path;
};

struct HttpRequest {
  std::string url;
  std::string method = "GET";        // GET, HEAD, POST or PUT
  std::vector<std::string> headers;  // "Name: value"
  std::string authorization;         // value of the Authorization header; never logged
  std::string body;                  // POST / PUT body (bytes as they are)
  uint64_t range_start = 0;          // > 0: "Range: bytes=N-"
  std::string display;               // name for messages (URL without secrets)
};

struct HttpHead {
  long status = 0;
  std::multimap<std::string, std::string> headers;  // lowercase names
  std::string Header(const std::string& lowercase_name) const;  // first value or ""
  std::vector<std::string> All(const std::string& lowercase_name) const;
};

// Last failure of a stream that failed to open (Open returns only the error).
struct OpenFailure {
  bool retryable = false;
  bool tls = false;
};

class HttpStream final : public ByteStream {
 public:
  // Transport failures (no response at all) are errors; any HTTP status is a
  // success here. `retryable` tells whether a failure (here or in Read) was a
  // dropped connection / timeout worth another attempt.
  static Result<std::unique_ptr<HttpStream>> Open(const HttpRequest& request, const HttpConfig& config);
  ~HttpStream() override;

  const HttpHead& head() const { return head_; }
  Result<size_t> Read(std::span<uint8_t> buffer) override;
  std::string Name() const override { return name_; }
  // After a failed Open or Read: whether trying again may help.
  bool last_failure_retryable() const { return retryable_; }
  // Whether the failure was a TLS handshake problem (for the http fallback).
  bool last_failure_tls() const { return tls_failure_; }

  struct Impl;

 private:
  friend Result<std::unique_ptr<HttpStream>> OpenHttp(const HttpRequest& request, const HttpConfig& config,
                                                      OpenFailure* failure);
  HttpStream() = default;
  Status Pump(bool want_body);
  Error TransportError(int code);

  std::unique_ptr<Impl> impl_;
  HttpHead head_;
  std::string name_;
  bool retryable_ = false;
  bool tls_failure_ = false;
};

// Open() variant that also reports the failure kind.
Result<std::unique_ptr<HttpStream>> OpenHttp(const HttpRequest& request, const HttpConfig& config,
                                             OpenFailure* failure);

// "a%20b" style escaping for query values.
std::string UrlEscape(const std::string& text);
// Resolves a Location header against the URL it came from.
Result<std::string> ResolveUrl(const std::string& base, const std::string& location);
// scheme://host:port of a URL, lowercase, with the default port made explicit.
std::string UrlOrigin(const std::string& url);

}  // namespace imagelint::registry
