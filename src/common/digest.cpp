#include "imagelint/digest.h"

// OpenSSL's SHA-256 compression function through its low-level interface.
// The EVP interface would fetch the algorithm from a provider first, and
// OpenSSL 3's first fetch in a process initialises the library (reads its
// configuration, registers every algorithm name): 5.4 M instructions, 7 % of a
// whole Dockerfile check, for a digest the same code computes either way.
// OpenSSL 3 marks this interface deprecated in favour of EVP, not removed.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>

#include "imagelint/bytes.h"

namespace imagelint {

struct Sha256::Impl {
  SHA256_CTX context;
};

Sha256::Sha256() : impl_(std::make_unique<Impl>()) { SHA256_Init(&impl_->context); }
Sha256::~Sha256() = default;

void Sha256::Update(std::span<const uint8_t> bytes) { SHA256_Update(&impl_->context, bytes.data(), bytes.size()); }

std::string Sha256::FinishDigest() {
  uint8_t out[SHA256_DIGEST_LENGTH];
  SHA256_Final(out, &impl_->context);
  return "sha256:" + ToHex({out, sizeof out});
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
