// Files a cache keeps between runs, in a directory other processes (and other
// versions of imagelint) share: magic, payload length (u64 LE), SHA-256 of the
// payload, payload (CBOR). Written to a temporary name and renamed into
// place, so readers see the old file or the new one; a file that does not
// read back exactly (torn, truncated, corrupt, another format, too large) is
// reported as corrupt and the caller recomputes what it held.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "imagelint/result.h"

namespace imagelint {

enum class SealedRead { kMissing, kCorrupt, kOk };

// `magic`: 8 bytes naming the file's kind and format ("ILCACHE1").
SealedRead ReadSealedFile(const std::filesystem::path& path, const char (&magic)[8], uint64_t max_bytes,
                          nlohmann::json* payload);
Status WriteSealedFile(const std::filesystem::path& path, const char (&magic)[8], const nlohmann::json& payload);

// The same format as bytes (a shared store's values hold them too).
std::vector<uint8_t> SealPayload(const char (&magic)[8], const nlohmann::json& payload);
// False unless `bytes` are a sealed payload of `magic`, at most `max_bytes`;
// `name` is for the CBOR reader's messages.
bool UnsealPayload(std::span<const uint8_t> bytes, const char (&magic)[8], uint64_t max_bytes, const std::string& name,
                   nlohmann::json* payload);
// Writes `bytes` to a temporary name beside `path`, then renames it over `path`.
Status WriteFileAtomically(const std::filesystem::path& path, std::span<const uint8_t> bytes);

}  // namespace imagelint
