#include "common/file_text.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "imagelint/stream.h"

namespace imagelint {
namespace {

// Closes the descriptor on every way out.
class OpenFile {
 public:
  explicit OpenFile(int fd) : fd_(fd) {}
  ~OpenFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  OpenFile(const OpenFile&) = delete;
  OpenFile& operator=(const OpenFile&) = delete;
  int fd() const { return fd_; }

 private:
  int fd_;
};

// Opened without blocking (a FIFO with no writer must not hold the open), then
// read blocking like any file when its kind is accepted.
Result<int> OpenForReading(const std::string& path, const std::string& what, FileKinds kinds) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return MakeError(path, "cannot read the " + what + ": " + std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int error = errno;
    ::close(fd);
    return MakeError(path, "cannot read the " + what + ": " + std::strerror(error));
  }
  if (kinds == FileKinds::kRegularOnly && !S_ISREG(st.st_mode)) {
    ::close(fd);
    return MakeError(path, what + " is not a regular file (" + FileTypePhrase(st.st_mode) + ")");
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

}  // namespace

std::string LimitText(size_t limit) {
  constexpr size_t kMiB = size_t{1} << 20;
  if (limit >= kMiB && limit % kMiB == 0) return std::to_string(limit / kMiB) + " MiB";
  return std::to_string(limit) + " bytes";
}

Result<std::string> ReadBoundedStream(std::istream& in, size_t limit, const std::string& name, const std::string& what) {
  std::string text;
  char chunk[65536];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    text.append(chunk, static_cast<size_t>(in.gcount()));
    if (text.size() > limit) return MakeError(name, what + " larger than " + LimitText(limit));
  }
  if (in.bad()) return MakeError(name, "cannot read the " + what);
  return text;
}

Result<std::string> ReadBoundedFile(const std::string& path, size_t limit, const std::string& what, FileKinds kinds) {
  auto opened = OpenForReading(path, what, kinds);
  if (!opened.ok()) return opened.error();
  OpenFile file(*opened);
  std::string text;
  char chunk[65536];
  for (;;) {
    ssize_t n = ::read(file.fd(), chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return MakeError(path, "cannot read the " + what + ": " + std::strerror(errno));
    if (n == 0) return text;
    text.append(chunk, static_cast<size_t>(n));
    // A file that grows while it is read stops at the limit all the same.
    if (text.size() > limit) return MakeError(path, what + " larger than " + LimitText(limit));
  }
}

std::string ReadFileHead(const std::string& path, size_t limit) {
  auto opened = OpenForReading(path, "file", FileKinds::kRegularOnly);
  if (!opened.ok()) return "";
  OpenFile file(*opened);
  std::string head(limit, '\0');
  size_t filled = 0;
  while (filled < limit) {
    ssize_t n = ::read(file.fd(), head.data() + filled, limit - filled);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    filled += static_cast<size_t>(n);
  }
  head.resize(filled);
  return head;
}

}  // namespace imagelint
