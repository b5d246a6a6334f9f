#include "imagelint/stream.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace imagelint {
namespace {

class HostFileStream final : public ByteStream {
 public:
  HostFileStream(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  ~HostFileStream() override { ::close(fd_); }

  Result<size_t> Read(std::span<uint8_t> buffer) override {
    for (;;) {
      ssize_t n = ::read(fd_, buffer.data(), buffer.size());
      if (n >= 0) return static_cast<size_t>(n);
      if (errno == EINTR) continue;
      return MakeError(path_, std::string("read failed: ") + std::strerror(errno));
    }
  }
  std::string Name() const override { return path_; }

 private:
  int fd_;
  std::string path_;
};

class MemoryByteStream final : public ByteStream {
 public:
  MemoryByteStream(std::vector<uint8_t> bytes, std::string name)
      : bytes_(std::move(bytes)), name_(std::move(name)) {}
  Result<size_t> Read(std::span<uint8_t> buffer) override {
    size_t n = std::min(buffer.size(), bytes_.size() - position_);
    if (n == 0) return size_t{0};  // an empty vector's data() may be null: no memcpy from it
    std::memcpy(buffer.data(), bytes_.data() + position_, n);
    position_ += n;
    return n;
  }
  std::string Name() const override { return name_; }

 private:
  std::vector<uint8_t> bytes_;
  size_t position_ = 0;
  std::string name_;
};

}  // namespace

std::string FileTypePhrase(unsigned mode) {
  switch (mode & S_IFMT) {
    case S_IFREG: return "a regular file";
    case S_IFDIR: return "a directory";
    case S_IFLNK: return "a symbolic link";
    case S_IFIFO: return "a FIFO";
    case S_IFSOCK: return "a socket";
    case S_IFCHR: return "a character device";
    case S_IFBLK: return "a block device";
    default: return "an unknown file type";
  }
}

Result<std::unique_ptr<ByteStream>> OpenHostFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return MakeError(path, std::string("cannot open: ") + std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    const unsigned mode = ::fstat(fd, &st) == 0 ? st.st_mode : 0;
    ::close(fd);
    return MakeError(path, "not a regular file (" + FileTypePhrase(mode) + "): not read");
  }
  return std::unique_ptr<ByteStream>(std::make_unique<HostFileStream>(fd, path));
}

std::unique_ptr<ByteStream> MemoryStream(std::vector<uint8_t> bytes, std::string name) {
  return std::make_unique<MemoryByteStream>(std::move(bytes), std::move(name));
}

Result<std::vector<uint8_t>> ReadAll(ByteStream& stream, uint64_t limit) {
  std::vector<uint8_t> bytes;
  uint8_t chunk[65536];
  for (;;) {
    auto n = stream.Read(chunk);
    if (!n.ok()) return n.error();
    if (*n == 0) return bytes;
    if (bytes.size() + *n > limit) {
      return MakeError(stream.Name(), "larger than the limit of " + std::to_string(limit) + " bytes");
    }
    bytes.insert(bytes.end(), chunk, chunk + *n);
  }
}

}  // namespace imagelint
