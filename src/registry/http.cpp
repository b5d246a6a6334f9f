#include "registry/http.h"


#include <algorithm>
#include <cctype>
#include <cstring>
#include <mutex>

#include "common/text.h"
#include "registry/curl_library.h"

namespace imagelint::registry {
namespace {

constexpr size_t kMaxHeaderBytes = 256 * 1024;

bool Retryable(CURLcode code) {
  switch (code) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:  // transient DNS failures happen
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_PARTIAL_FILE:
    case CURLE_GOT_NOTHING:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
    case CURLE_BAD_CONTENT_ENCODING:
      return true;
    default:
      return false;
  }
}

bool TlsFailure(CURLcode code) {
  return code == CURLE_SSL_CONNECT_ERROR || code == CURLE_PEER_FAILED_VERIFICATION ||
         code == CURLE_SSL_CERTPROBLEM || code == CURLE_SSL_CACERT_BADFILE || code == CURLE_RECV_ERROR ||
         code == CURLE_GOT_NOTHING || code == CURLE_SEND_ERROR;
}

}  // namespace

std::string HttpHead::Header(const std::string& name) const {
  auto it = headers.find(name);
  return it == headers.end() ? std::string() : it->second;
}

std::vector<std::string> HttpHead::All(const std::string& name) const {
  std::vector<std::string> values;
  auto [b, e] = headers.equal_range(name);
  for (auto it = b; it != e; ++it) values.push_back(it->second);
  return values;
}

struct HttpStream::Impl {
  const CurlLibrary* curl = nullptr;
  CURL* easy = nullptr;
  CURLM* multi = nullptr;
  curl_slist* header_list = nullptr;
  curl_slist* connect_to = nullptr;
  std::vector<uint8_t> body;  // received, not yet handed out
  size_t body_position = 0;
  bool head_done = false;
  bool done = false;
  CURLcode result = CURLE_OK;
  size_t header_bytes = 0;
  HttpHead* head = nullptr;
  std::optional<std::chrono::steady_clock::time_point> head_deadline;
  std::string post_body;
  char error_buffer[CURL_ERROR_SIZE] = {0};

  ~Impl() {
    if (curl == nullptr) return;
    if (multi && easy) curl->multi_remove_handle(multi, easy);
    if (easy) curl->easy_cleanup(easy);
    if (multi) curl->multi_cleanup(multi);
    if (header_list) curl->slist_free_all(header_list);
    if (connect_to) curl->slist_free_all(connect_to);
  }

  static size_t OnHeader(char* data, size_t size, size_t count, void* user) {
    auto* self = static_cast<Impl*>(user);
    size_t n = size * count;
    self->header_bytes += n;
    if (self->header_bytes > kMaxHeaderBytes) return 0;  // aborts the transfer
    std::string_view line(data, n);
    if (line.starts_with("HTTP/")) {
      // A new response (after 1xx): start over.
      self->head->headers.clear();
      self->head_done = false;
      return n;
    }
    std::string trimmed = Trim(line);
    if (trimmed.empty()) {
      long status = 0;
      self->curl->easy_getinfo(self->easy, CURLINFO_RESPONSE_CODE, &status);
      if (status >= 200) {
        self->head->status = status;
        self->head_done = true;
      }
      return n;
    }
    size_t colon = trimmed.find(':');
    if (colon != std::string::npos) {
      self->head->headers.emplace(ToLower(trimmed.substr(0, colon)), Trim(std::string_view(trimmed).substr(colon + 1)));
    }
    return n;
  }

  static size_t OnBody(char* data, size_t size, size_t count, void* user) {
    auto* self = static_cast<Impl*>(user);
    size_t n = size * count;
    if (!self->head_done) {
      long status = 0;
      self->curl->easy_getinfo(self->easy, CURLINFO_RESPONSE_CODE, &status);
      self->head->status = status;
      self->head_done = true;
    }
    if (self->body_position == self->body.size()) {
      self->body.clear();
      self->body_position = 0;
    }
    self->body.insert(self->body.end(), reinterpret_cast<uint8_t*>(data), reinterpret_cast<uint8_t*>(data) + n);
    return n;
  }
};

HttpStream::~HttpStream() = default;

Result<std::unique_ptr<HttpStream>> HttpStream::Open(const HttpRequest& request, const HttpConfig& config) {
  return OpenHttp(request, config, nullptr);
}

Result<std::unique_ptr<HttpStream>> OpenHttp(const HttpRequest& request, const HttpConfig& config,
                                             OpenFailure* failure) {
  const std::string name = request.display.empty() ? request.url : request.display;
  auto library = LoadCurl();
  if (!library.ok()) return MakeError(name, library.error().ToString());
  const CurlLibrary& curl = **library;
  std::unique_ptr<HttpStream> stream(new HttpStream());
  stream->impl_ = std::make_unique<HttpStream::Impl>();
  auto& impl = *stream->impl_;
  impl.curl = &curl;
  impl.head = &stream->head_;
  stream->name_ = name;
  impl.easy = curl.easy_init();
  impl.multi = curl.multi_init();
  if (!impl.easy || !impl.multi) return MakeError(stream->name_, "cannot initialise libcurl");
  CURL* easy = impl.easy;
  curl.easy_setopt(easy, CURLOPT_URL, request.url.c_str());
  curl.easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
  curl.easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 0L);
  curl.easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  curl.easy_setopt(easy, CURLOPT_USERAGENT, "imagelint/" IMAGELINT_VERSION);
  curl.easy_setopt(easy, CURLOPT_CONNECTTIMEOUT, config.connect_timeout_seconds);
  if (config.response_deadline) {
    impl.head_deadline = config.response_deadline;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*config.response_deadline -
                                                                      std::chrono::steady_clock::now());
    long ms = std::clamp<long>(static_cast<long>(left.count()), 1L, config.connect_timeout_seconds * 1000L);
    curl.easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, ms);
  }
  curl.easy_setopt(easy, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl.easy_setopt(easy, CURLOPT_LOW_SPEED_TIME, config.idle_timeout_seconds);
  curl.easy_setopt(easy, CURLOPT_BUFFERSIZE, 256L * 1024L);
  curl.easy_setopt(easy, CURLOPT_ERRORBUFFER, impl.error_buffer);
  // Proxies from the environment would see Authorization; registries are
  // reached directly unless the user configured a proxy for curl itself.
  curl.easy_setopt(easy, CURLOPT_SSL_VERIFYPEER, config.verify_tls ? 1L : 0L);
  curl.easy_setopt(easy, CURLOPT_SSL_VERIFYHOST, config.verify_tls ? 2L : 0L);
  if (!config.ca_file.empty()) curl.easy_setopt(easy, CURLOPT_CAINFO, config.ca_file.c_str());
  for (const auto& entry : config.connect_to) impl.connect_to = curl.slist_append(impl.connect_to, entry.c_str());
  if (impl.connect_to) curl.easy_setopt(easy, CURLOPT_CONNECT_TO, impl.connect_to);
  if (!config.unix_socket_path.empty()) curl.easy_setopt(easy, CURLOPT_UNIX_SOCKET_PATH, config.unix_socket_path.c_str());
  curl.easy_setopt(easy, CURLOPT_HEADERFUNCTION, &HttpStream::Impl::OnHeader);
  curl.easy_setopt(easy, CURLOPT_HEADERDATA, &impl);
  curl.easy_setopt(easy, CURLOPT_WRITEFUNCTION, &HttpStream::Impl::OnBody);
  curl.easy_setopt(easy, CURLOPT_WRITEDATA, &impl);
  for (const auto& header : request.headers) impl.header_list = curl.slist_append(impl.header_list, header.c_str());
  if (!request.authorization.empty()) {
    std::string header = "Authorization: " + request.authorization;
    impl.header_list = curl.slist_append(impl.header_list, header.c_str());
  }
  if (request.range_start > 0) {
    std::string header = "Range: bytes=" + std::to_string(request.range_start) + "-";
    impl.header_list = curl.slist_append(impl.header_list, header.c_str());
  }
  if (impl.header_list) curl.easy_setopt(easy, CURLOPT_HTTPHEADER, impl.header_list);
  if (request.method == "HEAD") {
    curl.easy_setopt(easy, CURLOPT_NOBODY, 1L);
  } else if (request.method == "POST" || request.method == "PUT") {
    impl.post_body = request.body;
    curl.easy_setopt(easy, CURLOPT_POST, 1L);
    if (request.method == "PUT") curl.easy_setopt(easy, CURLOPT_CUSTOMREQUEST, "PUT");
    curl.easy_setopt(easy, CURLOPT_POSTFIELDS, impl.post_body.data());
    curl.easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(impl.post_body.size()));
  }
  curl.multi_add_handle(impl.multi, easy);
  while (!impl.head_done && !impl.done) {
    Status status = stream->Pump(false);
    if (!status.ok()) {
      if (failure) *failure = {stream->retryable_, stream->tls_failure_};
      return status.error();
    }
  }
  if (!impl.head_done) {
    // Finished without a response (cannot happen with a CURLE_OK result).
    if (failure) *failure = {true, false};
    return MakeError(stream->name_, "no HTTP response");
  }
  return stream;
}

Error HttpStream::TransportError(int code) {
  auto curl_code = static_cast<CURLcode>(code);
  retryable_ = Retryable(curl_code);
  tls_failure_ = TlsFailure(curl_code);
  std::string detail = impl_->error_buffer[0] ? impl_->error_buffer : impl_->curl->easy_strerror(curl_code);
  // curl's messages name host and port, never credentials (they travel in
  // headers, not in the URL).
  return MakeError(name_, "network error: " + detail);
}

Status HttpStream::Pump(bool want_body) {
  auto& impl = *impl_;
  for (;;) {
    int running = 0;
    CURLMcode mc = impl.curl->multi_perform(impl.multi, &running);
    if (mc != CURLM_OK) return MakeError(name_, std::string("libcurl: ") + impl.curl->multi_strerror(mc));
    if (running == 0) {
      int pending = 0;
      while (CURLMsg* message = impl.curl->multi_info_read(impl.multi, &pending)) {
        if (message->msg == CURLMSG_DONE) impl.result = message->data.result;
      }
      impl.done = true;
      // A failure after the head (a body cut short) surfaces from Read, once
      // the bytes that did arrive are handed out.
      bool deferred = want_body ? impl.body_position < impl.body.size() : impl.head_done;
      if (impl.result != CURLE_OK && !deferred) {
        return TransportError(impl.result);
      }
      return OkStatus();
    }
    int wait_ms = 1000;
    // The budget bounds the whole exchange, the body included: curl's stall
    // limit (a byte per second) lets a server that drips its answer run on.
    if (impl.head_deadline) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*impl.head_deadline -
                                                                        std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        retryable_ = false;  // the budget is spent: another attempt would overrun it
        return MakeError(name_, impl.head_done ? "network error: the response was not whole within the time budget"
                                               : "network error: no response within the time budget");
      }
      wait_ms = static_cast<int>(std::min<int64_t>(wait_ms, left.count()));
    }
    if (want_body ? impl.body_position < impl.body.size() : impl.head_done) return OkStatus();
    impl.curl->multi_poll(impl.multi, nullptr, 0, wait_ms, nullptr);
  }
}

Result<size_t> HttpStream::Read(std::span<uint8_t> buffer) {
  auto& impl = *impl_;
  while (impl.body_position >= impl.body.size()) {
    if (impl.done) {
      if (impl.result != CURLE_OK) return TransportError(impl.result);
      return size_t{0};
    }
    impl.body.clear();
    impl.body_position = 0;
    IMAGELINT_TRY(Pump(true));
  }
  size_t n = std::min(buffer.size(), impl.body.size() - impl.body_position);
  std::memcpy(buffer.data(), impl.body.data() + impl.body_position, n);
  impl.body_position += n;
  return n;
}

std::string UrlEscape(const std::string& text) { return PercentEncode(text); }

Result<std::string> ResolveUrl(const std::string& base, const std::string& location) {
  auto library = LoadCurl();
  if (!library.ok()) return MakeError(base, library.error().ToString());
  const CurlLibrary& curl = **library;
  CURLU* url = curl.url();
  if (!url) return MakeError(base, "out of memory");
  std::string result;
  if (curl.url_set(url, CURLUPART_URL, base.c_str(), 0) == CURLUE_OK &&
      curl.url_set(url, CURLUPART_URL, location.c_str(), 0) == CURLUE_OK) {
    char* text = nullptr;
    if (curl.url_get(url, CURLUPART_URL, &text, 0) == CURLUE_OK && text) {
      result = text;
      curl.free(text);
    }
  }
  curl.url_cleanup(url);
  if (result.empty()) return MakeError(base, "invalid redirect location \"" + location + "\"");
  std::string lower = ToLower(result);
  if (!lower.starts_with("http://") && !lower.starts_with("https://")) {
    return MakeError(base, "redirect to a non-HTTP URL");
  }
  return result;
}

std::string UrlOrigin(const std::string& text) {
  auto library = LoadCurl();
  if (!library.ok()) return {};  // no origin: nothing is treated as the same origin
  const CurlLibrary& curl = **library;
  CURLU* url = curl.url();
  if (!url) return {};
  std::string origin;
  if (curl.url_set(url, CURLUPART_URL, text.c_str(), 0) == CURLUE_OK) {
    char* scheme = nullptr;
    char* host = nullptr;
    char* port = nullptr;
    curl.url_get(url, CURLUPART_SCHEME, &scheme, 0);
    curl.url_get(url, CURLUPART_HOST, &host, 0);
    curl.url_get(url, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT);
    if (scheme && host) origin = ToLower(scheme) + "://" + ToLower(host) + ":" + (port ? port : "");
    curl.free(scheme);
    curl.free(host);
    curl.free(port);
  }
  curl.url_cleanup(url);
  return origin;
}

}  // namespace imagelint::registry
