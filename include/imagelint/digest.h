// Content digests (OCI "algorithm:hex"), computed while bytes stream past.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "imagelint/result.h"

namespace imagelint {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void Update(std::span<const uint8_t> bytes);
  // "sha256:<64 lowercase hex>"; the hasher cannot be updated afterwards.
  std::string FinishDigest();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

std::string Sha256Digest(std::span<const uint8_t> bytes);

// Validates the OCI digest grammar; sha256 needs exactly 64 lowercase hex
// characters (image-spec descriptor.md). Returns the algorithm on success.
Result<std::string> ValidateDigest(std::string_view digest);

}  // namespace imagelint
