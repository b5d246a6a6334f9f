#include "common/sealed_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <isa-l/crc64.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <optional>
#include <random>
#include <vector>

#include "common/fd.h"
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

// The header's 32-byte check field for `body`.
std::vector<uint8_t> CheckField(std::span<const uint8_t> body, SealCheck check) {
  if (check == SealCheck::kSha256) return RawSha256(body);
  const uint64_t crc = crc64_ecma_refl(0, body.data(), body.size());
  std::vector<uint8_t> field(32, 0);
  for (int i = 0; i < 8; ++i) field[i] = static_cast<uint8_t>(crc >> (8 * i));
  return field;
}

}  // namespace

namespace {

bool TrustedOwner(const struct stat& st) { return st.st_uid == ::geteuid() || st.st_uid == 0; }

std::string RootProblem(const struct stat& st) {
  if (!S_ISDIR(st.st_mode)) return "not a directory";
  if (!TrustedOwner(st)) return "owned by user " + std::to_string(st.st_uid) + ", not by this user or root";
  if ((st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX))
    return "writable by every user without the sticky bit (anyone could replace its entries)";
  return "";
}

// `path` below `root` as its components; nullopt when it is not below it.
std::optional<std::vector<std::string>> Below(const fs::path& root, const fs::path& path) {
  const fs::path relative = path.lexically_normal().lexically_relative(root.lexically_normal());
  if (relative.empty()) return std::nullopt;
  std::vector<std::string> parts;
  for (const auto& part : relative) {
    const std::string name = part.string();
    if (name.empty() || name == "." ) continue;
    if (name == "..") return std::nullopt;
    parts.push_back(name);
  }
  if (parts.empty()) return std::nullopt;
  return parts;
}

// The directory holding `parts`' last component, reached from `root`
// without following links; each directory checked (and made, with `create`).
Result<Fd> OpenParent(const fs::path& root, const std::vector<std::string>& parts, bool create) {
  if (create) IMAGELINT_TRY(MakeCacheDirectory(root));
  Fd dir(::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir.get() < 0) return MakeError(root.string(), std::string("cannot open the cache directory: ") + std::strerror(errno));
  struct stat st;
  if (::fstat(dir.get(), &st) != 0) return MakeError(root.string(), "cannot stat the cache directory");
  if (std::string problem = RootProblem(st); !problem.empty()) return MakeError(root.string(), problem);
  fs::path where = root;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    where /= parts[i];
    if (create && ::mkdirat(dir.get(), parts[i].c_str(), 0755) != 0 && errno != EEXIST)
      return MakeError(where.string(), std::string("cannot create cache directory: ") + std::strerror(errno));
    Fd next(::openat(dir.get(), parts[i].c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (next.get() < 0)
      return MakeError(where.string(), errno == ELOOP || errno == ENOTDIR
                                           ? "not a directory of the cache (a symbolic link or another file): not used"
                                           : std::string("cannot open: ") + std::strerror(errno));
    if (::fstat(next.get(), &st) != 0 || !S_ISDIR(st.st_mode) || !TrustedOwner(st))
      return MakeError(where.string(), "not a directory of this user's in the cache: not used");
    dir = std::move(next);
  }
  return dir;
}

}  // namespace

Status MakeCacheDirectory(const fs::path& root) {
  fs::path prefix;
  for (const auto& part : root) {
    prefix /= part;
    if (part == "/" || part.empty()) continue;
    if (::mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST)
      return MakeError(prefix.string(), std::string("cannot create the cache directory: ") + std::strerror(errno));
  }
  return OkStatus();
}

std::string UntrustedCacheDirectory(const fs::path& root) {
  struct stat st;
  if (::stat(root.c_str(), &st) != 0) return "";
  return RootProblem(st);
}

bool TrustedFileExists(const fs::path& root, const fs::path& path) {
  auto parts = Below(root, path);
  if (!parts) return false;
  auto dir = OpenParent(root, *parts, false);
  if (!dir.ok()) return false;
  struct stat st;
  return ::fstatat(dir->get(), parts->back().c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
         TrustedOwner(st);
}

SealedRead ReadSealedFile(const fs::path& root, const fs::path& path, const char (&magic)[8], uint64_t max_bytes,
                          nlohmann::json* payload, SealCheck check) {
  auto parts = Below(root, path);
  if (!parts) return SealedRead::kCorrupt;
  auto dir = OpenParent(root, *parts, false);
  if (!dir.ok()) return SealedRead::kMissing;
  // O_NONBLOCK: a FIFO placed here must not block the open.
  int fd = ::openat(dir->get(), parts->back().c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return errno == ENOENT ? SealedRead::kMissing : SealedRead::kCorrupt;
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || !TrustedOwner(st) ||
      static_cast<uint64_t>(st.st_size) > max_bytes) {
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
  return UnsealPayload(bytes, magic, max_bytes, path.string(), payload, check) ? SealedRead::kOk : SealedRead::kCorrupt;
}

bool UnsealPayload(std::span<const uint8_t> bytes, const char (&magic)[8], uint64_t max_bytes, const std::string& name,
                   nlohmann::json* payload, SealCheck check) {
  if (bytes.size() < kHeaderBytes || bytes.size() > max_bytes || std::memcmp(bytes.data(), magic, 8) != 0) return false;
  uint64_t length = 0;
  for (int i = 7; i >= 0; --i) length = (length << 8) | bytes[8 + i];
  if (length != bytes.size() - kHeaderBytes) return false;
  std::span<const uint8_t> body = bytes.subspan(kHeaderBytes);
  if (CheckField(body, check) != std::vector<uint8_t>(bytes.begin() + 16, bytes.begin() + kHeaderBytes)) return false;
  auto parsed = ParseCbor(body, name);
  if (!parsed.ok()) return false;
  *payload = std::move(*parsed);
  return true;
}

std::vector<uint8_t> SealPayload(const char (&magic)[8], const nlohmann::json& payload, SealCheck check) {
  std::vector<uint8_t> body = nlohmann::json::to_cbor(payload);
  std::vector<uint8_t> bytes(magic, magic + 8);
  const uint64_t length = body.size();
  for (int i = 0; i < 8; ++i) bytes.push_back(static_cast<uint8_t>(length >> (8 * i)));
  auto field = CheckField(body, check);
  bytes.insert(bytes.end(), field.begin(), field.end());
  bytes.insert(bytes.end(), body.begin(), body.end());
  return bytes;
}

Status WriteSealedFile(const fs::path& root, const fs::path& path, const char (&magic)[8],
                       const nlohmann::json& payload, SealCheck check) {
  return WriteFileAtomically(root, path, SealPayload(magic, payload, check));
}

Status WriteFileAtomically(const fs::path& root, const fs::path& path, std::span<const uint8_t> bytes) {
  auto parts = Below(root, path);
  if (!parts) return MakeError(path.string(), "not inside the cache directory " + root.string());
  auto dir = OpenParent(root, *parts, true);
  if (!dir.ok()) return dir.error();
  static std::atomic<uint64_t> counter{0};
  std::random_device random;
  const std::string name = parts->back();
  const std::string temporary_name =
      name + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++) + "." + std::to_string(random());
  fs::path temporary = path;
  temporary += temporary_name.substr(name.size());
  int fd = ::openat(dir->get(), temporary_name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) return MakeError(temporary.string(), std::string("cannot write cache file: ") + std::strerror(errno));
  size_t written = 0;
  while (written < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int saved = errno;
      ::close(fd);
      ::unlinkat(dir->get(), temporary_name.c_str(), 0);
      return MakeError(temporary.string(), std::string("cannot write cache file: ") + std::strerror(saved));
    }
    written += static_cast<size_t>(n);
  }
  // renameat replaces whatever is at `name`, a link included, never what a link points to.
  if (::close(fd) != 0 || ::renameat(dir->get(), temporary_name.c_str(), dir->get(), name.c_str()) != 0) {
    const int saved = errno;
    ::unlinkat(dir->get(), temporary_name.c_str(), 0);
    return MakeError(path.string(), std::string("cannot store cache file: ") + std::strerror(saved));
  }
  return OkStatus();
}

}  // namespace imagelint
