// An open file descriptor, closed with its holder (move-only): the
// directory walks that open each component without following links
// (common/sealed_file.cpp, probe/extract.cpp).
#pragma once

#include <unistd.h>

#include <utility>

namespace imagelint {

class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Fd& operator=(Fd&& other) noexcept {
    std::swap(fd_, other.fd_);
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }  // -1 when none

 private:
  int fd_;
};

}  // namespace imagelint
