// Files a cache keeps between runs, in a directory other processes (and other
// versions of imagelint) share: magic, payload length (u64 LE), a 32-byte check
// of the payload, payload (CBOR). The check is the payload's SHA-256, or for
// SealCheck::kCrc64 its CRC-64 (ECMA-182, 8 bytes LE, then 24 zero bytes). Written to a temporary name and renamed into
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

// How a payload is checked. Either finds a torn or corrupted file; neither
// stops someone who may write the cache directory (the directory checks
// below do). CRC-64 costs a few percent of SHA-256: a cache read on every
// run of a short command (the knowledge tables, ~1 MB) uses it, with a magic
// of its own, since a file written with one check does not read with the
// other.
enum class SealCheck { kSha256, kCrc64 };

// Every file below a cache directory `root` is reached from a handle on
// `root`, one component at a time, without following symbolic links
// (O_NOFOLLOW): a component that is a link, not a directory / regular file,
// or not owned by this user (or root) is refused, so entries someone else
// placed in a shared directory can neither redirect a write outside it nor
// stand for a cached result. `path` must lie below `root` (root / ...);
// `root` itself is opened as named (it may be a link the user made) and must
// be owned by this user or root and not writable by others unless sticky.
// A refused file reads as corrupt and is not written (an Error).

// Creates `root` and its missing parents as directories of mode 0755 (not
// 0777 less the umask: under umask 0 a cache directory must not come out
// writable by everyone).
Status MakeCacheDirectory(const std::filesystem::path& root);

// Why `root` cannot be trusted as a cache directory ("world-writable without
// the sticky bit"), or "" when it can (or does not exist yet).
std::string UntrustedCacheDirectory(const std::filesystem::path& root);

// `magic`: 8 bytes naming the file's kind and format ("ILCACHE1").
SealedRead ReadSealedFile(const std::filesystem::path& root, const std::filesystem::path& path,
                          const char (&magic)[8], uint64_t max_bytes, nlohmann::json* payload,
                          SealCheck check = SealCheck::kSha256);
Status WriteSealedFile(const std::filesystem::path& root, const std::filesystem::path& path, const char (&magic)[8],
                       const nlohmann::json& payload, SealCheck check = SealCheck::kSha256);

// The same format as bytes (a shared store's values hold them too).
std::vector<uint8_t> SealPayload(const char (&magic)[8], const nlohmann::json& payload,
                                 SealCheck check = SealCheck::kSha256);
// False unless `bytes` are a sealed payload of `magic`, at most `max_bytes`;
// `name` is for the CBOR reader's messages.
bool UnsealPayload(std::span<const uint8_t> bytes, const char (&magic)[8], uint64_t max_bytes, const std::string& name,
                   nlohmann::json* payload, SealCheck check = SealCheck::kSha256);
// Writes `bytes` to a temporary name beside `path`, then renames it over
// `path`; missing directories between `root` and `path` are created.
Status WriteFileAtomically(const std::filesystem::path& root, const std::filesystem::path& path,
                           std::span<const uint8_t> bytes);
// Whether `path` below `root` is a regular file of this user (or root),
// reached as above.
bool TrustedFileExists(const std::filesystem::path& root, const std::filesystem::path& path);

}  // namespace imagelint
