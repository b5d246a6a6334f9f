#include "hostile_inputs/hostile_support.h"

#include <doctest/doctest.h>


#include "cuda/fixtures.h"

#include <poll.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace imagelint::testing {

std::vector<uint8_t> LibcudaElf() {
  cuda::testing::ElfSpec spec;
  spec.soname = "libcuda.so.1";
  return cuda::testing::MakeElf(spec);
}

void CheckBounded(const TimedResult& run, std::initializer_list<int> codes) {
  CAPTURE(run.result.err.substr(0, 2000));
  CAPTURE(run.result.exit_code);
  CHECK(std::find(codes.begin(), codes.end(), run.result.exit_code) != codes.end());
  CHECK(run.cpu_seconds < kHostileSeconds);
}

TimedResult RunBounded(std::vector<std::string> args, const std::vector<std::string>& env) {
  // The commands that read images take the run's budget flags.
  if (!args.empty() && (args[0] == "scan" || args[0] == "facts" || args[0] == "ls")) {
    args.push_back("--max-memory");
    args.push_back("512M");
  }
  args.insert(args.begin(), ImagelintBinary().string());
  const auto start = std::chrono::steady_clock::now();
  struct rusage before {};
  ::getrusage(RUSAGE_CHILDREN, &before);
  TimedResult out;
  std::vector<std::string> environment = env;
  // As RunImagelint: bases from the knowledge tables, no engine or registry lookups.
  if (std::none_of(env.begin(), env.end(), [](const std::string& e) { return e.starts_with("IMAGELINT_BASE_FROM="); }))
    environment.push_back("IMAGELINT_BASE_FROM=knowledge");
  out.result = RunCommand(args, "", 240, environment);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  struct rusage after {};
  ::getrusage(RUSAGE_CHILDREN, &after);
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; };
  out.cpu_seconds = seconds(after.ru_utime) - seconds(before.ru_utime) + seconds(after.ru_stime) -
                    seconds(before.ru_stime);
  return out;
}

namespace {

// A numeric tar field: octal when it fits, else base 256 (GNU).
void PutNumber(uint8_t* field, size_t width, uint64_t value) {
  if (width == 12 ? value < (1ull << 33) : value < (1ull << 21)) {
    std::snprintf(reinterpret_cast<char*>(field), width, "%0*llo", static_cast<int>(width - 1),
                  static_cast<unsigned long long>(value));
    return;
  }
  std::memset(field, 0, width);
  field[0] = 0x80;
  for (size_t i = 0; i < 8; ++i) field[width - 1 - i] = static_cast<uint8_t>(value >> (8 * i));
}

}  // namespace

std::vector<uint8_t> GnuSparseTar(const std::string& name,
                                  const std::vector<std::pair<uint64_t, std::vector<uint8_t>>>& data,
                                  uint64_t real_size) {
  if (data.size() > 4) throw std::runtime_error("GnuSparseTar: at most 4 pieces (no extension headers)");
  uint8_t header[512] = {};
  std::memcpy(header, name.data(), std::min<size_t>(name.size(), 99));
  std::snprintf(reinterpret_cast<char*>(header + 100), 8, "%07o", 0755);
  std::snprintf(reinterpret_cast<char*>(header + 108), 8, "%07o", 0);
  std::snprintf(reinterpret_cast<char*>(header + 116), 8, "%07o", 0);
  uint64_t stored = 0;
  for (const auto& [offset, bytes] : data) stored += bytes.size();
  PutNumber(header + 124, 12, stored);
  std::snprintf(reinterpret_cast<char*>(header + 136), 12, "%011o", 0);
  header[156] = 'S';
  std::memcpy(header + 257, "ustar  ", 8);  // old GNU magic and version
  for (size_t i = 0; i < data.size(); ++i) {
    PutNumber(header + 386 + 24 * i, 12, data[i].first);
    PutNumber(header + 386 + 24 * i + 12, 12, data[i].second.size());
  }
  header[482] = 0;  // no extension headers
  PutNumber(header + 483, 12, real_size);
  std::memset(header + 148, ' ', 8);
  unsigned sum = 0;
  for (uint8_t b : header) sum += b;
  std::snprintf(reinterpret_cast<char*>(header + 148), 8, "%06o", sum);
  std::vector<uint8_t> out(header, header + 512);
  for (const auto& [offset, bytes] : data) out.insert(out.end(), bytes.begin(), bytes.end());
  out.resize((out.size() + 511) / 512 * 512 + 1024);
  return out;
}

std::vector<uint8_t> AnyNameTar(const std::vector<RawEntry>& entries) {
  std::vector<RawEntry> out;
  for (RawEntry entry : entries) {
    if (entry.link.size() > 99) {
      out.push_back({"././@LongLink", 'K', entry.link + std::string(1, '\0'), ""});
      entry.link = entry.link.substr(0, 99);
    }
    if (entry.name.size() > 99) {
      out.push_back({"././@LongLink", 'L', entry.name + std::string(1, '\0'), ""});
      entry.name = entry.name.substr(0, 99);
    }
    out.push_back(std::move(entry));
  }
  return UstarTar(out);
}

FakeEngine::FakeEngine(const std::filesystem::path& socket, std::string body, int status)
    : socket_(socket), body_(std::move(body)), status_(status) {
  fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (socket_.string().size() >= sizeof address.sun_path) throw std::runtime_error("socket path too long");
  std::strcpy(address.sun_path, socket_.c_str());
  if (::bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 || ::listen(fd_, 16) != 0)
    throw std::runtime_error("cannot listen on " + socket_.string());
  thread_ = std::thread([this] { Serve(); });
}

FakeEngine::~FakeEngine() {
  stop_ = true;
  thread_.join();
  ::close(fd_);
  std::filesystem::remove(socket_);
}

void FakeEngine::Serve() {
  while (!stop_) {
    pollfd ready{fd_, POLLIN, 0};
    if (::poll(&ready, 1, 100) <= 0) continue;
    int client = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) continue;
    ++requests_;
    std::string head;
    char chunk[4096];
    while (head.find("\r\n\r\n") == std::string::npos) {
      pollfd in{client, POLLIN, 0};
      if (::poll(&in, 1, 2000) <= 0) break;
      ssize_t n = ::read(client, chunk, sizeof chunk);
      if (n <= 0) break;
      head.append(chunk, static_cast<size_t>(n));
    }
    std::string answer = "HTTP/1.1 " + std::to_string(status_) + " X\r\nContent-Type: application/json\r\n" +
                         "Content-Length: " + std::to_string(body_.size()) + "\r\nConnection: close\r\n\r\n" + body_;
    size_t sent = 0;
    while (sent < answer.size()) {
      ssize_t n = ::send(client, answer.data() + sent, answer.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) break;
      sent += static_cast<size_t>(n);
    }
    ::close(client);
  }
}

DripServer::DripServer(std::string head, std::string body, int interval_ms)
    : head_(std::move(head)), body_(std::move(body)), interval_ms_(interval_ms) {
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 || ::listen(fd_, 16) != 0)
    throw std::runtime_error("cannot listen on loopback");
  socklen_t length = sizeof address;
  ::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length);
  port_ = ntohs(address.sin_port);
  thread_ = std::thread([this] { Serve(); });
}

DripServer::~DripServer() {
  stop_ = true;
  thread_.join();
  ::close(fd_);
}

// One connection at a time: the clients under test use one.
void DripServer::Serve() {
  while (!stop_) {
    pollfd ready{fd_, POLLIN, 0};
    if (::poll(&ready, 1, 100) <= 0) continue;
    int client = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) continue;
    ++connections_;
    char chunk[4096];
    pollfd in{client, POLLIN, 0};
    if (::poll(&in, 1, 2000) > 0) (void)::read(client, chunk, sizeof chunk);
    bool open = ::send(client, head_.data(), head_.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(head_.size());
    for (size_t i = 0; open && i < body_.size() && !stop_; ++i) {
      for (int waited = 0; waited < interval_ms_ && !stop_; waited += 50) ::usleep(50 * 1000);
      open = ::send(client, body_.data() + i, 1, MSG_NOSIGNAL) == 1;
      pollfd gone{client, POLLIN, 0};  // the client hung up (or sent more): stop dripping
      if (open && ::poll(&gone, 1, 0) > 0 && ::recv(client, chunk, sizeof chunk, MSG_DONTWAIT) == 0) open = false;
    }
    ::close(client);
  }
}

}  // namespace imagelint::testing
