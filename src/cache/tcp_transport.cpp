// Plain TCP to a Redis server: the name resolved on a helper thread so that
// a DNS server that never answers is bounded by the connect timeout too, a
// non-blocking connect, then every read and write waits with poll(). Writes
// use MSG_NOSIGNAL (SO_NOSIGPIPE where that is the platform's way), so a
// server that goes away mid-write is an EPIPE error value, not a SIGPIPE that
// ends the process — without touching the process's signal dispositions.
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "cache/redis_transport.h"

namespace imagelint::redis {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

#ifndef MSG_NOSIGNAL
constexpr int MSG_NOSIGNAL = 0;  // platforms with SO_NOSIGPIPE instead (set on the socket)
#endif

std::string TimedOut(milliseconds timeout) { return "timed out after " + std::to_string(timeout.count()) + " ms"; }

int RemainingMs(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now()).count();
  return left <= 0 ? 0 : static_cast<int>(std::min<int64_t>(left, 1 << 30));
}

// Waits until `fd` is ready for `events` or `deadline` passes. False on timeout.
bool WaitReady(int fd, short events, Clock::time_point deadline) {
  while (true) {
    pollfd entry{fd, events, 0};
    int ready = ::poll(&entry, 1, RemainingMs(deadline));
    if (ready > 0) return true;  // readiness or an error condition: the next call reports which
    if (ready == 0) return false;
    if (errno != EINTR) return true;
  }
}

struct AddressList {
  addrinfo* head = nullptr;
  ~AddressList() {
    if (head) ::freeaddrinfo(head);
  }
};

// getaddrinfo has no timeout: it runs on a detached thread that owns its
// state jointly with the caller, so a caller that gives up leaves it to
// finish (and free) on its own.
Status Resolve(const std::string& host, int port, Clock::time_point deadline, milliseconds timeout,
               AddressList& out) {
  struct Lookup {
    std::mutex mutex;
    std::condition_variable done_cv;
    bool done = false;
    int code = 0;
    addrinfo* result = nullptr;
    ~Lookup() {
      if (result) ::freeaddrinfo(result);
    }
  };
  auto lookup = std::make_shared<Lookup>();
  std::thread([lookup, host, port] {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* result = nullptr;
    int code = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &result);
    std::lock_guard<std::mutex> lock(lookup->mutex);
    lookup->code = code;
    lookup->result = result;
    lookup->done = true;
    lookup->done_cv.notify_all();
  }).detach();
  std::unique_lock<std::mutex> lock(lookup->mutex);
  if (!lookup->done_cv.wait_until(lock, deadline, [&] { return lookup->done; }))
    return MakeError("", "cannot resolve '" + host + "': " + TimedOut(timeout));
  if (lookup->code != 0) return MakeError("", "cannot resolve '" + host + "': " + ::gai_strerror(lookup->code));
  out.head = lookup->result;
  lookup->result = nullptr;
  return OkStatus();
}

class TcpTransport final : public Transport {
 public:
  TcpTransport(int fd, milliseconds timeout) : fd_(fd), timeout_(timeout) {}
  ~TcpTransport() override { ::close(fd_); }

  Status Send(std::span<const uint8_t> bytes) override {
    while (!bytes.empty()) {
      ssize_t sent = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (sent > 0) {
        bytes = bytes.subspan(static_cast<size_t>(sent));
        continue;
      }
      if (sent < 0 && errno == EINTR) continue;
      if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        if (!WaitReady(fd_, POLLOUT, Clock::now() + timeout_)) return MakeError("", TimedOut(timeout_));
        continue;
      }
      return MakeError("", std::strerror(sent < 0 ? errno : EIO));
    }
    return OkStatus();
  }

  Result<size_t> Receive(std::span<uint8_t> buffer) override {
    if (buffer.empty()) return size_t{0};
    while (true) {
      ssize_t got = ::recv(fd_, buffer.data(), buffer.size(), 0);
      if (got > 0) return static_cast<size_t>(got);
      if (got == 0) return MakeError("", "the server closed the connection");
      if (errno == EINTR) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) return MakeError("", std::strerror(errno));
      if (!WaitReady(fd_, POLLIN, Clock::now() + timeout_)) return MakeError("", TimedOut(timeout_));
    }
  }

  void SetTimeout(milliseconds timeout) override { timeout_ = timeout; }

 private:
  int fd_;
  milliseconds timeout_;
};

// One address: a non-blocking connect finished (or not) by `deadline`.
Result<int> ConnectOne(const addrinfo& address, Clock::time_point deadline, milliseconds timeout) {
  int fd = ::socket(address.ai_family, address.ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, address.ai_protocol);
  if (fd < 0) return MakeError("", std::strerror(errno));
#ifdef SO_NOSIGPIPE
  int one_nosigpipe = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one_nosigpipe, sizeof one_nosigpipe);
#endif
  int rc = ::connect(fd, address.ai_addr, address.ai_addrlen);
  if (rc != 0 && errno != EINPROGRESS && errno != EINTR) {
    int error = errno;
    ::close(fd);
    return MakeError("", std::strerror(error));
  }
  if (rc != 0) {
    if (!WaitReady(fd, POLLOUT, deadline)) {
      ::close(fd);
      return MakeError("", TimedOut(timeout));
    }
    int error = 0;
    socklen_t length = sizeof error;
    if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) != 0) error = errno;
    if (error != 0) {
      ::close(fd);
      return MakeError("", std::strerror(error));
    }
  }
  // Commands are small and answered one at a time: no Nagle delay.
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

}  // namespace

Result<std::unique_ptr<Transport>> ConnectTcp(const std::string& host, int port, milliseconds connect_timeout,
                                              milliseconds io_timeout) {
  const auto deadline = Clock::now() + connect_timeout;
  AddressList addresses;
  IMAGELINT_TRY(Resolve(host, port, deadline, connect_timeout, addresses));
  Error last = MakeError("", "'" + host + "' has no address");
  for (const addrinfo* address = addresses.head; address != nullptr; address = address->ai_next) {
    auto fd = ConnectOne(*address, deadline, connect_timeout);
    if (fd.ok()) return std::unique_ptr<Transport>(std::make_unique<TcpTransport>(*fd, io_timeout));
    last = fd.error();
    if (RemainingMs(deadline) == 0) break;
  }
  return last;
}

}  // namespace imagelint::redis
