// The budget of a run (--timeout per input, --max-memory): the backstop that
// keeps a CI gate from hanging or taking the runner's memory, whatever the
// readers' own limits miss. Past either one: exit 2 and a message naming
// the input and the limit.
#include <doctest/doctest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>

#include "support/image_builder.h"
#include "support/raw_tar.h"
#include "support/test_support.h"

namespace fs = std::filesystem;
using namespace imagelint::testing;

namespace {

// A loopback port whose connections are queued by the kernel and never
// answered: a registry that hangs.
struct SilentServer {
  int fd = -1;
  int port = 0;
  SilentServer() {
    fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
    REQUIRE(::listen(fd, 16) == 0);
    socklen_t length = sizeof address;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
    port = ntohs(address.sin_port);
  }
  ~SilentServer() { ::close(fd); }
};

constexpr bool kSanitized =
#if defined(__SANITIZE_ADDRESS__)
    true;
#else
    false;
#endif

}  // namespace

TEST_CASE("--timeout: a registry that never answers ends in exit 2 naming the input and the limit") {
  SilentServer server;
  const std::string ref = "127.0.0.1:" + std::to_string(server.port) + "/team/app:1";
  const auto start = std::chrono::steady_clock::now();
  auto result = RunImagelint({"facts", ref, "--insecure-registry", "127.0.0.1:" + std::to_string(server.port),
                              "--timeout", "2s", "--no-cache", "--quiet"});
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(result.exit_code == 2);
  CHECK(took < 30);
  // Either the registry client's own timeouts or the budget, whichever is
  // first: never a hang, never a pass.
  if (result.err.find("time limit") != std::string::npos) {
    CHECK(result.err.find(ref) != std::string::npos);
    CHECK(result.err.find("2 s per input") != std::string::npos);
    CHECK(took < 10);
  }
}

TEST_CASE("--timeout and --max-memory: values are checked; 0 turns a limit off") {
  TempDir dir;
  TestImage image;
  image.Layer().File("etc/os-release", "ID=debian\n");
  WriteImage(image, ImageKind::kDockerArchive, dir / "small.tar");
  CHECK(RunImagelint({"facts", (dir / "small.tar").string(), "--timeout", "0", "--max-memory", "0"}).exit_code == 0);
  auto bad_time = RunImagelint({"facts", (dir / "small.tar").string(), "--timeout", "soon"});
  CHECK(bad_time.exit_code == 2);
  CHECK(bad_time.err.find("--timeout") != std::string::npos);
  auto tiny = RunImagelint({"ls", (dir / "small.tar").string(), "--max-memory", "1M"});
  CHECK(tiny.exit_code == 2);
  CHECK(tiny.err.find("at least 64M") != std::string::npos);
}

TEST_CASE("--max-memory: an input that needs more ends in exit 2 naming it and the limit") {
  if (kSanitized) return;  // the sanitizer's shadow memory is mapped up front: no limit is set there
  TempDir dir;
  // 400,000 empty files: within the per-layer entry limit, but their facts
  // take a few hundred MB.
  std::vector<RawEntry> entries;
  entries.reserve(400000);
  for (int i = 0; i < 400000; ++i) entries.push_back({"d" + std::to_string(i % 500) + "/f" + std::to_string(i), '0', "", ""});
  TestImage image;
  image.Layer(Compression::kNone).raw_blob = UstarTar(entries);
  WriteImage(image, ImageKind::kDockerArchive, dir / "many.tar");
  entries.clear();
  auto result = RunImagelint({"facts", (dir / "many.tar").string(), "--no-cache", "--max-memory", "64M"});
  CHECK(result.exit_code == 2);
  CHECK_MESSAGE(result.err.find("memory limit of 64.0 MiB") != std::string::npos, result.err);
  CHECK(result.err.find("many.tar") != std::string::npos);
  CHECK(result.err.find("internal error") == std::string::npos);
  // The default leaves room for it.
  CHECK(RunImagelint({"facts", (dir / "many.tar").string(), "--no-cache"}).exit_code == 0);
}
