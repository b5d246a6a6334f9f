#include "common/sealed_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <random>
#include <vector>

#include "common/json.h"
#include "imagelint/digest.h"

namespace imagelint {

namespace {

namespace fs = std::filesystem;

constexpr size_t kHeaderBytes = 8 + 8 + 32;

std::vector<uint8_t> RawSha256(std::span<const uint8_t> bytes) {
  const std::string hex = Sha256Digest(bytes).substr(7);
  std::vector<uint8_t> raw(32);
  for (size_t i = 0; i < 32; ++i) raw[i] = static_cast<uint8_t>(std::stoi(hex.substr(i * 2, 2), nullptr, 16));
  return raw;
}

}  // namespace

SealedRead ReadSealedFile(const fs::path& path, const char (&magic)[8], uint64_t max_bytes, nlohmann::json* payload) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno == ENOENT ? SealedRead::kMissing : SealedRead::kCorrupt;
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || static_cast<uint64_t>(st.st_size) > max_bytes) {
    ::close(fd);
    return SealedRead::kCorrupt;
  }
  std::vector<uint8_t> bytes;
  bytes.reserve(static_cast<size_t>(st.st_size));
  uint8_t chunk[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::close(fd);
      return SealedRead::kCorrupt;
    }
    if (n == 0) break;
    bytes.insert(bytes.end(), chunk, chunk + n);
    if (bytes.size() > max_bytes) {  // the file grew while read
      ::close(fd);
      return SealedRead::kCorrupt;
    }
  }
  ::close(fd);
  return UnsealPayload(bytes, magic, max_bytes, path.string(), payload) ? SealedRead::kOk : SealedRead::kCorrupt;
}

bool UnsealPayload(std::span<const uint8_t> bytes, const char (&magic)[8], uint64_t max_bytes, const std::string& name,
                   nlohmann::json* payload) {
  if (bytes.size() < kHeaderBytes || bytes.size() > max_bytes || std::memcmp(bytes.data(), magic, 8) != 0) return false;
  uint64_t length = 0;
  for (int i = 7; i >= 0; --i) length = (length << 8) | bytes[8 + i];
  if (length != bytes.size() - kHeaderBytes) return false;
  std::span<const uint8_t> body = bytes.subspan(kHeaderBytes);
  if (RawSha256(body) != std::vector<uint8_t>(bytes.begin() + 16, bytes.begin() + kHeaderBytes)) return false;
  auto parsed = ParseCbor(body, name);
  if (!parsed.ok()) return false;
  *payload = std::move(*parsed);
  return true;
}

std::vector<uint8_t> SealPayload(const char (&magic)[8], const nlohmann::json& payload) {
  std::vector<uint8_t> body = nlohmann::json::to_cbor(payload);
  std::vector<uint8_t> bytes(magic, magic + 8);
  const uint64_t length = body.size();
  for (int i = 0; i < 8; ++i) bytes.push_back(static_cast<uint8_t>(length >> (8 * i)));
  auto hash = RawSha256(body);
  bytes.insert(bytes.end(), hash.begin(), hash.end());
  bytes.insert(bytes.end(), body.begin(), body.end());
  return bytes;
}

Status WriteSealedFile(const fs::path& path, const char (&magic)[8], const nlohmann::json& payload) {
  return WriteFileAtomically(path, SealPayload(magic, payload));
}

Status WriteFileAtomically(const fs::path& path, std::span<const uint8_t> bytes) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  if (ec) return MakeError(path.parent_path().string(), "cannot create cache directory: " + ec.message());
  static std::atomic<uint64_t> counter{0};
  std::random_device random;
  fs::path temporary = path;
  temporary += ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++) + "." + std::to_string(random());
  int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return MakeError(temporary.string(), std::string("cannot write cache file: ") + std::strerror(errno));
  size_t written = 0;
  while (written < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int saved = errno;
      ::close(fd);
      ::unlink(temporary.c_str());
      return MakeError(temporary.string(), std::string("cannot write cache file: ") + std::strerror(saved));
    }
    written += static_cast<size_t>(n);
  }
  if (::close(fd) != 0 || ::rename(temporary.c_str(), path.c_str()) != 0) {
    const int saved = errno;
    ::unlink(temporary.c_str());
    return MakeError(path.string(), std::string("cannot store cache file: ") + std::strerror(saved));
  }
  return OkStatus();
}

}  // namespace imagelint
