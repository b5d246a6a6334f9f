#include "imagelint/digest.h"

#include <openssl/evp.h>

#include "imagelint/bytes.h"

namespace imagelint {

struct Sha256::Impl {
  EVP_MD_CTX* context = EVP_MD_CTX_new();
  ~Impl() { EVP_MD_CTX_free(context); }
};

namespace {
// The SHA-256 implementation, fetched from OpenSSL's provider once per
// process: EVP_sha256() makes every EVP_DigestInit_ex fetch it again (the
// implicit fetch of OpenSSL 3), which cost more than hashing a small text.
const EVP_MD* Sha256Method() {
  static const EVP_MD* const method = [] {
    const EVP_MD* fetched = EVP_MD_fetch(nullptr, "SHA256", nullptr);
    return fetched != nullptr ? fetched : EVP_sha256();
  }();
  return method;
}
}  // namespace

Sha256::Sha256() : impl_(std::make_unique<Impl>()) {
  EVP_DigestInit_ex(impl_->context, Sha256Method(), nullptr);
}
Sha256::~Sha256() = default;

void Sha256::Update(std::span<const uint8_t> bytes) {
  EVP_DigestUpdate(impl_->context, bytes.data(), bytes.size());
}

std::string Sha256::FinishDigest() {
  uint8_t out[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_DigestFinal_ex(impl_->context, out, &length);
  return "sha256:" + ToHex({out, length});
}

std::string Sha256Digest(std::span<const uint8_t> bytes) {
  Sha256 hasher;
  hasher.Update(bytes);
  return hasher.FinishDigest();
}

Result<std::string> ValidateDigest(std::string_view digest) {
  size_t colon = digest.find(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == digest.size()) {
    return MakeError(std::string(digest), "not a digest (expected algorithm:hex)");
  }
  std::string algorithm(digest.substr(0, colon));
  std::string_view encoded = digest.substr(colon + 1);
  for (char c : algorithm) {
    bool allowed = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '.' ||
                   c == '_' || c == '-';
    if (!allowed) return MakeError(std::string(digest), "invalid digest algorithm");
  }
  if (algorithm == "sha256") {
    if (encoded.size() != 64) return MakeError(std::string(digest), "sha256 digest must have 64 hex digits");
    for (char c : encoded) {
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
        return MakeError(std::string(digest), "sha256 digest must be lowercase hex");
      }
    }
  } else {
    for (char c : encoded) {
      bool allowed = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                     c == '=' || c == '_' || c == '-';
      if (!allowed) return MakeError(std::string(digest), "invalid digest encoding");
    }
  }
  return algorithm;
}

}  // namespace imagelint
