// The OpenSSL client context of rediss://: what to trust and who we are.
// PEM files are read by us (bounded) and parsed from memory, so a huge or
// odd file is an error naming it rather than whatever OpenSSL's file loader
// does with it; a private key is never decrypted with a prompt.
// OpenSSL: "SSL_CTX_set_verify", "SSL_CTX_use_certificate", "PEM_read_bio_PrivateKey",
// https://www.openssl.org/docs/man3.0/man3/
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "cache/tls_transport.h"
#include "common/file_text.h"

namespace imagelint::redis {
namespace {

constexpr size_t kMaxPemBytes = 1u << 20;

struct BioDeleter {
  void operator()(BIO* bio) const { BIO_free(bio); }
};
struct InfoStackDeleter {
  void operator()(STACK_OF(X509_INFO) * stack) const { sk_X509_INFO_pop_free(stack, X509_INFO_free); }
};
struct KeyDeleter {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};

// The reason of OpenSSL's first queued error ("" when none), queue cleared.
std::string OpenSslReason() {
  unsigned long code = ERR_get_error();
  ERR_clear_error();
  const char* reason = code ? ERR_reason_error_string(code) : nullptr;
  return reason ? reason : "";
}

// A path the user gives on the command line, so a pipe (<(cmd)) is read too.
Result<std::string> ReadPem(const std::string& path, const char* flag) {
  return ReadBoundedFile(path, kMaxPemBytes, std::string(flag) + " file");
}

// Every certificate of a PEM file, in order (a CA bundle; a certificate and its chain).
Result<std::unique_ptr<STACK_OF(X509_INFO), InfoStackDeleter>> ReadCertificates(const std::string& path,
                                                                                 const char* flag) {
  auto text = ReadPem(path, flag);
  if (!text.ok()) return text.error();
  std::unique_ptr<BIO, BioDeleter> bio(BIO_new_mem_buf(text->data(), static_cast<int>(text->size())));
  if (!bio) return MakeError(path, "out of memory");
  std::unique_ptr<STACK_OF(X509_INFO), InfoStackDeleter> infos(
      PEM_X509_INFO_read_bio(bio.get(), nullptr, nullptr, nullptr));
  std::string reason = OpenSslReason();
  int certificates = 0;
  for (int i = 0; infos && i < sk_X509_INFO_num(infos.get()); ++i)
    certificates += sk_X509_INFO_value(infos.get(), i)->x509 != nullptr;
  if (certificates == 0)
    return MakeError(path, std::string(flag) + " file holds no PEM certificate" +
                               (reason.empty() ? "" : " (" + reason + ")"));
  return infos;
}

Status LoadCa(SSL_CTX* context, const std::string& path) {
  auto infos = ReadCertificates(path, "--redis-ca");
  if (!infos.ok()) return infos.error();
  X509_STORE* store = SSL_CTX_get_cert_store(context);
  for (int i = 0; i < sk_X509_INFO_num(infos->get()); ++i) {
    X509* certificate = sk_X509_INFO_value(infos->get(), i)->x509;
    if (certificate && X509_STORE_add_cert(store, certificate) != 1)  // a duplicate is no error (OpenSSL 1.1.1+)
      return MakeError(path, "cannot use a --redis-ca certificate: " + OpenSslReason());
  }
  return OkStatus();
}

// A key that wants a passphrase fails to load instead of prompting on the terminal.
int NoPassphrase(char*, int, int, void*) { return -1; }

Status LoadClientIdentity(SSL_CTX* context, const std::string& cert_path, const std::string& key_path) {
  auto infos = ReadCertificates(cert_path, "--redis-cert");
  if (!infos.ok()) return infos.error();
  bool first = true;
  for (int i = 0; i < sk_X509_INFO_num(infos->get()); ++i) {
    X509* certificate = sk_X509_INFO_value(infos->get(), i)->x509;
    if (!certificate) continue;
    int ok = first ? SSL_CTX_use_certificate(context, certificate) : SSL_CTX_add1_chain_cert(context, certificate);
    if (ok != 1) return MakeError(cert_path, "cannot use the --redis-cert certificate: " + OpenSslReason());
    first = false;
  }
  auto text = ReadPem(key_path, "--redis-key");
  if (!text.ok()) return text.error();
  std::unique_ptr<BIO, BioDeleter> bio(BIO_new_mem_buf(text->data(), static_cast<int>(text->size())));
  std::unique_ptr<EVP_PKEY, KeyDeleter> key(
      bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, NoPassphrase, nullptr) : nullptr);
  OPENSSL_cleanse(text->data(), text->size());
  if (!key) {
    std::string reason = OpenSslReason();
    return MakeError(key_path, "--redis-key file holds no unencrypted PEM private key (imagelint never asks for a "
                               "passphrase)" + (reason.empty() ? "" : ": " + reason));
  }
  if (SSL_CTX_use_PrivateKey(context, key.get()) != 1 || SSL_CTX_check_private_key(context) != 1) {
    std::string reason = OpenSslReason();
    return MakeError(key_path, "the --redis-key does not go with the --redis-cert certificate " + cert_path +
                                   (reason.empty() ? "" : ": " + reason));
  }
  return OkStatus();
}

// Called when a server asks for a client certificate and none is loaded.
int NoteCertificateRequest(SSL* ssl, X509**, EVP_PKEY**) {
  if (auto* requested = static_cast<bool*>(SSL_get_app_data(ssl))) *requested = true;
  return 0;  // send none
}

}  // namespace

Result<TlsContext> MakeTlsContext(const RedisOptions& options) {
  ERR_clear_error();
  TlsContext context(SSL_CTX_new(TLS_client_method()), SSL_CTX_free);
  if (!context) return MakeError("rediss://", "cannot create a TLS context: " + OpenSslReason());
  SSL_CTX_set_min_proto_version(context.get(), TLS1_2_VERSION);
  SSL_CTX_set_verify(context.get(), SSL_VERIFY_PEER, nullptr);
  if (options.ca_file.empty()) {
    if (SSL_CTX_set_default_verify_paths(context.get()) != 1)
      return MakeError("rediss://", "cannot load the system's CA certificates: " + OpenSslReason());
  } else {
    IMAGELINT_TRY(LoadCa(context.get(), options.ca_file));
  }
  if (!options.cert_file.empty() || !options.key_file.empty()) {
    if (options.cert_file.empty() || options.key_file.empty())
      return MakeError("--redis-cert", "--redis-cert and --redis-key go together");
    IMAGELINT_TRY(LoadClientIdentity(context.get(), options.cert_file, options.key_file));
  } else {
    SSL_CTX_set_client_cert_cb(context.get(), NoteCertificateRequest);
  }
  return context;
}

}  // namespace imagelint::redis
