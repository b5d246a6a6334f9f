// Inputs that made imagelint wait: sparse files declaring far more bytes
// than they hold (in a layer tar and in a root file system), and FIFOs,
// sockets and devices where a layout or a root file system has files. Holes
// are never read byte by byte (past a limit the file is refused), and only
// regular files are opened for reading.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "cuda/fixtures.h"
#include "hostile_inputs/hostile_support.h"
#include "support/image_builder.h"

using namespace imagelint::testing;
namespace fs = std::filesystem;

namespace {

std::vector<uint8_t> SmallElf() { return LibcudaElf(); }

}  // namespace

TEST_CASE("a layer holding a sparse ELF declared at 1 TiB or 4 EiB: refused naming the file and the limit") {
  TempDir dir;
  for (uint64_t declared : {uint64_t{1} << 40, uint64_t{4} << 60}) {
    CAPTURE(declared);
    TestImage image;
    image.Layer().File("etc/os-release", "ID=debian\n");
    TestLayer& sparse = image.Layer(Compression::kNone);
    sparse.raw_blob = GnuSparseTar("usr/lib/x86_64-linux-gnu/libcuda.so.1", {{0, SmallElf()}}, declared);
    fs::path tar = dir / ("sparse-" + std::to_string(declared) + ".tar");
    WriteImage(image, ImageKind::kDockerArchive, tar, {.gzip_outer = true});
    CHECK(fs::file_size(tar) < 16 * 1024);
    auto run = RunBounded({"facts", tar.string(), "--no-cache"});
    CheckBounded(run, {2});
    CHECK(run.result.err.find(tar.string()) != std::string::npos);
    CHECK(run.result.err.find("usr/lib/x86_64-linux-gnu/libcuda.so.1") != std::string::npos);
    CHECK(run.result.err.find("max_sparse_hole_bytes") != std::string::npos);
  }
  // A sparse file with small holes reads as its zeros, like any file.
  TestImage image;
  image.Layer().File("etc/os-release", "ID=debian\n");
  TestLayer& sparse = image.Layer(Compression::kNone);
  auto elf = SmallElf();
  sparse.raw_blob = GnuSparseTar("usr/lib/x86_64-linux-gnu/libcuda.so.1", {{0, elf}, {1 << 20, {1, 2, 3}}}, 2 << 20);
  WriteImage(image, ImageKind::kDockerArchive, dir / "small-holes.tar");
  auto run = RunBounded({"facts", (dir / "small-holes.tar").string(), "--no-cache"});
  CheckBounded(run, {0});
  CHECK(run.result.err.find("max_sparse_hole_bytes") == std::string::npos);
  // The holes read as zeros: the entry has its declared size.
  auto listing = RunBounded({"ls", (dir / "small-holes.tar").string(), "--no-cache"});
  CHECK(listing.result.out.find(" 2097152 L1 /usr/lib/x86_64-linux-gnu/libcuda.so.1") != std::string::npos);
}

TEST_CASE("a root file system with a 1 TiB sparse file, a FIFO, a socket: bounded, never opened") {
  TempDir dir;
  fs::path root = dir / "rootfs";
  fs::create_directories(root / "etc");
  fs::create_directories(root / "usr/lib/x86_64-linux-gnu");
  WriteFileText(root / "etc/os-release", "ID=debian\n");
  REQUIRE(::mkfifo((root / "usr/lib/x86_64-linux-gnu/libfifo.so.1").c_str(), 0644) == 0);
  int sock = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::string sock_path = (root / "usr/lib/x86_64-linux-gnu/libsock.so.1").string();
  REQUIRE(sock_path.size() < sizeof address.sun_path);
  std::strcpy(address.sun_path, sock_path.c_str());
  REQUIRE(::bind(sock, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);

  auto plain = RunBounded({"facts", "rootfs:" + root.string(), "--no-cache"});
  CheckBounded(plain, {0});

  fs::path sparse = root / "usr/lib/x86_64-linux-gnu/libcuda.so.1";
  auto elf = SmallElf();
  WriteFileBytes(sparse, elf);
  if (::truncate(sparse.c_str(), off_t{1} << 40) != 0) {
    MESSAGE("this file system takes no 1 TiB sparse file: that part is not checked");
  } else {
    auto run = RunBounded({"facts", "rootfs:" + root.string(), "--no-cache"});
    CheckBounded(run, {2});
    CHECK(run.result.err.find("libcuda.so.1") != std::string::npos);
    CHECK(run.result.err.find("max_sparse_hole_bytes") != std::string::npos);
    // Small holes are read as zeros.
    REQUIRE(::truncate(sparse.c_str(), off_t{8} << 20) == 0);
    auto small = RunBounded({"facts", "rootfs:" + root.string(), "--no-cache"});
    CheckBounded(small, {0});
  }
  ::close(sock);
}

TEST_CASE("a FIFO where an OCI layout's index.json or an archive should be: exit 2, no open that blocks") {
  TempDir dir;
  TestImage image;
  image.Layer().File("etc/os-release", "ID=debian\n");
  fs::path layout = dir / "layout";
  WriteImage(image, ImageKind::kOciLayout, layout);
  fs::remove(layout / "index.json");
  REQUIRE(::mkfifo((layout / "index.json").c_str(), 0644) == 0);
  auto run = RunBounded({"facts", layout.string(), "--no-cache"});
  CheckBounded(run, {2});
  CHECK(run.result.err.find("index.json") != std::string::npos);

  REQUIRE(::mkfifo((dir / "image.tar").c_str(), 0644) == 0);
  auto archive = RunBounded({"facts", (dir / "image.tar").string(), "--no-cache"});
  CheckBounded(archive, {2});
  CHECK(archive.result.err.find("image.tar") != std::string::npos);
}
