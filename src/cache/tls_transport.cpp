// TLS over a Transport: a BIO of our own hands OpenSSL's reads and writes to
// the inner transport, which blocks for at most its timeout and reports a
// failure as a value; OpenSSL then sees a plain blocking stream (no retry
// dance) and we keep the inner error to name it.
// OpenSSL: "BIO_meth_new", "SSL_set1_host", "X509_VERIFY_PARAM_set1_ip_asc",
// "SSL_get_error", https://www.openssl.org/docs/man3.0/man3/
#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <climits>
#include <optional>

#include "cache/tls_transport.h"

namespace imagelint::redis {
namespace {

bool IsIpLiteral(const std::string& host) {
  unsigned char address[16];
  return ::inet_pton(AF_INET, host.c_str(), address) == 1 || ::inet_pton(AF_INET6, host.c_str(), address) == 1;
}

class TlsTransport final : public Transport {
 public:
  TlsTransport(std::unique_ptr<Transport> inner, TlsContext context)
      : inner_(std::move(inner)), context_(std::move(context)) {}

  ~TlsTransport() override {
    if (ssl_) {
      // A polite close_notify on a healthy connection; never a wait for the reply.
      if (healthy_) {
        ERR_clear_error();
        SSL_shutdown(ssl_);
        ERR_clear_error();
      }
      SSL_free(ssl_);  // frees the BIO too
    }
  }

  Status Handshake(const std::string& host, std::chrono::milliseconds timeout) {
    ssl_ = SSL_new(context_.get());
    BIO* bio = BIO_new(Method());
    if (!ssl_ || !bio) {
      BIO_free(bio);
      return MakeError("", "TLS handshake: out of memory");
    }
    BIO_set_data(bio, this);
    BIO_set_init(bio, 1);
    SSL_set_bio(ssl_, bio, bio);
    SSL_set_app_data(ssl_, &certificate_requested_);  // see MakeTlsContext
    if (IsIpLiteral(host)) {
      // RFC 6066 allows no IP address in SNI; the certificate must name the IP.
      if (X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl_), host.c_str()) != 1)
        return MakeError("", "TLS handshake: cannot check the address " + host);
    } else {
      SSL_set_hostflags(ssl_, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
      if (SSL_set1_host(ssl_, host.c_str()) != 1 || SSL_set_tlsext_host_name(ssl_, host.c_str()) != 1)
        return MakeError("", "TLS handshake: cannot check the name " + host);
    }
    inner_->SetTimeout(timeout);
    ERR_clear_error();
    int rc = SSL_connect(ssl_);
    if (rc != 1) return MakeError("", "TLS handshake: " + Why(rc));
    healthy_ = true;
    return OkStatus();
  }

  Status Send(std::span<const uint8_t> bytes) override {
    while (!bytes.empty()) {
      size_t written = 0;
      size_t chunk = std::min<size_t>(bytes.size(), INT_MAX);
      ERR_clear_error();
      int rc = SSL_write_ex(ssl_, bytes.data(), chunk, &written);
      if (rc != 1) return Broken(rc);
      bytes = bytes.subspan(written);
    }
    return OkStatus();
  }

  Result<size_t> Receive(std::span<uint8_t> buffer) override {
    size_t got = 0;
    ERR_clear_error();
    int rc = SSL_read_ex(ssl_, buffer.data(), std::min<size_t>(buffer.size(), INT_MAX), &got);
    if (rc != 1) return Broken(rc);
    return got;
  }

  void SetTimeout(std::chrono::milliseconds timeout) override { inner_->SetTimeout(timeout); }

 private:
  Error Broken(int rc) {
    healthy_ = false;
    std::string why = Why(rc);
    if (certificate_requested_)
      why += " (the server asked for a client certificate and none was given: --redis-cert, --redis-key)";
    return MakeError("", "TLS: " + why);
  }

  // What made an SSL_* call fail: the inner transport's error when it was
  // that, else the certificate check, an alert or OpenSSL's reason.
  std::string Why(int rc) {
    int code = SSL_get_error(ssl_, rc);
    unsigned long queued = ERR_get_error();
    ERR_clear_error();
    if (inner_error_) {
      std::string message = inner_error_->message;
      inner_error_.reset();
      return message;
    }
    long verify = SSL_get_verify_result(ssl_);
    if (verify != X509_V_OK)
      return std::string("certificate verify failed: ") + X509_verify_cert_error_string(verify);
    if (code == SSL_ERROR_ZERO_RETURN) return "the server closed the connection";
    const char* reason = queued ? ERR_reason_error_string(queued) : nullptr;
    if (reason) return reason;
    return code == SSL_ERROR_SYSCALL ? "the server closed the connection" : "error " + std::to_string(code);
  }

  static int WriteEx(BIO* bio, const char* data, size_t size, size_t* written) {
    auto* self = static_cast<TlsTransport*>(BIO_get_data(bio));
    BIO_clear_retry_flags(bio);
    Status sent = self->inner_->Send(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(data), size));
    if (!sent.ok()) {
      self->inner_error_ = sent.error();
      return 0;
    }
    *written = size;
    return 1;
  }

  static int ReadEx(BIO* bio, char* data, size_t size, size_t* read) {
    auto* self = static_cast<TlsTransport*>(BIO_get_data(bio));
    BIO_clear_retry_flags(bio);
    auto got = self->inner_->Receive(std::span<uint8_t>(reinterpret_cast<uint8_t*>(data), size));
    if (!got.ok()) {
      self->inner_error_ = got.error();
      return 0;
    }
    *read = *got;
    return 1;
  }

  static long Control(BIO*, int command, long, void*) { return command == BIO_CTRL_FLUSH ? 1 : 0; }

  // One BIO method for the process (OpenSSL keeps a pointer to it per BIO).
  static BIO_METHOD* Method() {
    static BIO_METHOD* method = [] {
      BIO_METHOD* made = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "imagelint redis transport");
      BIO_meth_set_write_ex(made, WriteEx);
      BIO_meth_set_read_ex(made, ReadEx);
      BIO_meth_set_ctrl(made, Control);
      return made;
    }();
    return method;
  }

  std::unique_ptr<Transport> inner_;
  TlsContext context_;
  SSL* ssl_ = nullptr;
  bool healthy_ = false;
  bool certificate_requested_ = false;
  std::optional<Error> inner_error_;
};

}  // namespace

Result<std::unique_ptr<Transport>> StartTls(std::unique_ptr<Transport> inner, const TlsContext& context,
                                            const std::string& host, std::chrono::milliseconds handshake_timeout,
                                            std::chrono::milliseconds io_timeout) {
  auto tls = std::make_unique<TlsTransport>(std::move(inner), context);
  IMAGELINT_TRY(tls->Handshake(host, handshake_timeout));
  tls->SetTimeout(io_timeout);
  return std::unique_ptr<Transport>(std::move(tls));
}

}  // namespace imagelint::redis
