// Helpers for the hostile-input tests: a timed run of the binary, a GNU
// sparse tar entry, and a one-answer HTTP server on a unix socket (a Docker
// engine that says what the test wants).
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "support/raw_tar.h"
#include "support/test_support.h"

namespace imagelint::testing {

// Every reproducer of the campaign must end within this many seconds of
// CPU in a release build; the sanitizer build (scripts/test.sh) runs the
// same code three to four times slower, and gets four times the bound.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr double kHostileSeconds = 40;
#else
inline constexpr double kHostileSeconds = 10;
#endif

struct TimedResult {
  CommandResult result;
  double seconds = 0;      // wall clock
  double cpu_seconds = 0;  // the child's user + system time: what the input made imagelint spend,
                           // whatever else loads the machine (CI runs suites side by side)
};
// The run ended with one of `codes` within the campaign's CPU bound (checks
// in the calling test case, with the error output and exit code captured).
void CheckBounded(const TimedResult& run, std::initializer_list<int> codes);

// A small shared library ELF whose soname is libcuda.so.1.
std::vector<uint8_t> LibcudaElf();

// RunImagelint with `--max-memory 512M` added to scan, facts and ls (the
// campaign's memory bound; the process's data limit, so no test can pass by
// taking more),
// killed after 240 s of wall clock (a hang shows as exit 137; a loaded CI
// machine stretches the wall clock, so bounds are checked on CPU seconds).
TimedResult RunBounded(std::vector<std::string> args, const std::vector<std::string>& env = {});

// An old-GNU sparse tar ('S') member: `data` pieces at their offsets of a
// file of `real_size` bytes (the rest are holes), followed by the end of the
// archive. Sizes past 8 GiB are written in base 256, as GNU tar does.
std::vector<uint8_t> GnuSparseTar(const std::string& name,
                                  const std::vector<std::pair<uint64_t, std::vector<uint8_t>>>& data,
                                  uint64_t real_size);

// A plain tar of `entries` whose names and link targets may be any bytes of
// any length: longer ones go into GNU long-name records ('L', 'K'), as GNU
// tar writes them (libarchive's writer refuses names it cannot translate).
std::vector<uint8_t> AnyNameTar(const std::vector<RawEntry>& entries);

// Answers every request on a unix socket with `status` and `body` (JSON),
// then closes the connection. Stops when destroyed.
class FakeEngine {
 public:
  FakeEngine(const std::filesystem::path& socket, std::string body, int status = 200);
  ~FakeEngine();
  FakeEngine(const FakeEngine&) = delete;
  FakeEngine& operator=(const FakeEngine&) = delete;
  std::string Host() const { return "unix://" + socket_.string(); }
  int requests() const { return requests_.load(); }

 private:
  void Serve();
  std::filesystem::path socket_;
  std::string body_;
  int status_;
  int fd_ = -1;
  std::atomic<bool> stop_{false};
  std::atomic<int> requests_{0};
  std::thread thread_;
};

// A loopback TCP server that, on each connection, waits for the first bytes
// of a request, sends `head` at once, then drips `body` a byte every
// `interval_ms` (a server slow enough never to trip a per-read timeout).
class DripServer {
 public:
  DripServer(std::string head, std::string body, int interval_ms);
  ~DripServer();
  DripServer(const DripServer&) = delete;
  DripServer& operator=(const DripServer&) = delete;
  int port() const { return port_; }
  int connections() const { return connections_.load(); }

 private:
  void Serve();
  std::string head_, body_;
  int interval_ms_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> connections_{0};
  std::thread thread_;
};

}  // namespace imagelint::testing
