// What a local argument is: image layouts in directories (extracted docker
// saves, OCI layouts), root file systems only when asked for or recognised,
// everything else an error saying what was expected; layouts real tools
// write that were refused before (kaniko's "/" entry, Docker 25's
// `"manifests": null`); paths that never become registry lookups.
#include <doctest/doctest.h>

#include <unistd.h>

#include "imagelint/read_image.h"
#include "support/image_builder.h"
#include "support/test_support.h"
#include "support/checkout_knowledge.h"

using namespace imagelint;
using namespace imagelint::testing;
namespace fs = std::filesystem;

namespace {

Result<ScannedImage> ReadLayout(const std::string& input) { return ReadImage(input, ReadImageOptions{}, imagelint::testing::CheckoutKnowledge()); }

TestImage Small() {
  TestImage image;
  image.Layer(testing::Compression::kGzip).Dir("usr").Dir("usr/lib").File("usr/lib/libcudart.so.12", "cudart");
  image.Layer(testing::Compression::kNone).File("top", "t");
  return image;
}

// `tar -xf` / `tar -cf` of the host: what a user does with a docker save.
void Extract(const fs::path& archive, const fs::path& into) {
  fs::create_directories(into);
  auto result = RunCommand({"tar", "-xf", archive.string(), "-C", into.string()});
  REQUIRE_MESSAGE(result.exit_code == 0, result.err);
}
void Archive(const fs::path& dir, const fs::path& archive) {
  auto result = RunCommand({"tar", "-cf", archive.string(), "-C", dir.string(), "."});
  REQUIRE_MESSAGE(result.exit_code == 0, result.err);
}

std::string ErrorOf(const std::string& input) {
  auto read = ReadLayout(input);
  REQUIRE_FALSE_MESSAGE(read.ok(), "expected an error reading " << input);
  std::string text = read.error().ToString();
  CHECK(text.find('\n') == std::string::npos);
  return text;
}

// Changes the working directory for one test and back.
struct ChangeDirectory {
  explicit ChangeDirectory(const fs::path& to) : before(fs::current_path()) { fs::current_path(to); }
  ~ChangeDirectory() { fs::current_path(before); }
  fs::path before;
};

constexpr const char* kExpected =
    "not an image: expected an OCI layout directory (oci-layout, index.json), an extracted `docker save` "
    "(manifest.json) or a root file system";

}  // namespace

TEST_CASE("a directory that is no image is an error saying what was expected") {
  TempDir dir;
  fs::create_directories(dir / "empty");
  fs::create_directories(dir / "repo" / "src");
  WriteFileText(dir / "repo" / "README.md", "# a project\n");
  WriteFileText(dir / "repo" / "Dockerfile", "FROM debian:12\n");
  WriteFileText(dir / "repo" / "src" / "main.cpp", "int main() {}\n");
  fs::create_directories(dir / "repo" / ".git");
  // Symlinks to the host's own /etc and /lib64 (which do hold os-release and
  // a loader) must not make a directory look like a root file system.
  fs::create_directories(dir / "links");
  fs::create_directory_symlink("/etc", dir / "links" / "etc");
  fs::create_directory_symlink("/usr", dir / "links" / "usr");
  fs::create_directory_symlink("/lib64", dir / "links" / "lib64");
  for (const char* name : {"empty", "repo", "links"}) {
    CAPTURE(name);
    std::string text = ErrorOf((dir / name).string());
    CHECK(text.rfind((dir / name).string() + ": " + kExpected, 0) == 0);
    CHECK(text.find("rootfs:DIR") != std::string::npos);
  }
}

TEST_CASE("root file systems: recognised by os-release or a dynamic loader, or asked for with rootfs:") {
  TempDir dir;
  fs::create_directories(dir / "debian" / "etc");
  WriteFileText(dir / "debian" / "etc" / "os-release", "ID=debian\n");
  fs::create_directories(dir / "usrlib" / "usr" / "lib");
  fs::create_directories(dir / "usrlib" / "etc");
  fs::create_symlink("../usr/lib/os-release", dir / "usrlib" / "etc" / "os-release");  // Debian's layout
  WriteFileText(dir / "usrlib" / "usr" / "lib" / "os-release", "ID=debian\n");
  fs::create_directories(dir / "glibc" / "lib64");
  WriteFileText(dir / "glibc" / "lib64" / "ld-linux-x86-64.so.2", "\x7f" "ELF");
  fs::create_directories(dir / "musl" / "lib");
  WriteFileText(dir / "musl" / "lib" / "ld-musl-x86_64.so.1", "\x7f" "ELF");
  fs::create_directories(dir / "merged" / "usr" / "lib64");
  fs::create_directory_symlink("usr/lib64", dir / "merged" / "lib64");
  fs::create_symlink("../lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", dir / "merged" / "usr" / "lib64" / "ld-linux-x86-64.so.2");
  for (const char* name : {"debian", "usrlib", "glibc", "musl", "merged"}) {
    CAPTURE(name);
    auto read = ReadLayout((dir / name).string());
    REQUIRE_MESSAGE(read.ok(), imagelint::testing::ErrorText(read));
    CHECK(read->metadata.kind == "rootfs");
  }
  // Any directory, when asked for.
  fs::create_directories(dir / "bare" / "opt");
  WriteFileText(dir / "bare" / "opt" / "x", "x");
  auto asked = ReadLayout("rootfs:" + (dir / "bare").string());
  REQUIRE_MESSAGE(asked.ok(), imagelint::testing::ErrorText(asked));
  CHECK(asked->metadata.kind == "rootfs");
  CHECK(ListTree(*asked, "") == "dir 0755 0 L0 /opt\nfile 0644 1 L0 /opt/x\n");
  CHECK(ErrorOf("rootfs:" + (dir / "nowhere").string()) == (dir / "nowhere").string() + ": no such file or directory");
  CHECK(ErrorOf("rootfs:" + (dir / "bare" / "opt" / "x").string()).find("rootfs: names a directory") !=
        std::string::npos);
}

TEST_CASE("extracted docker saves and OCI archives are read as what they are") {
  TempDir dir;
  TestImage image = Small();
  struct Case {
    ImageKind kind;
    const char* name;
    const char* expected_kind;
  };
  for (const Case& c : {Case{ImageKind::kDockerArchive, "legacy", "docker-archive"},
                        Case{ImageKind::kDockerArchiveSkopeo, "skopeo", "docker-archive"},
                        Case{ImageKind::kDockerArchiveOci, "docker25", "docker-archive"},
                        Case{ImageKind::kOciArchive, "oci", "oci-layout"}}) {
    CAPTURE(c.name);
    fs::path archive = dir / (std::string(c.name) + ".tar");
    WriteImage(image, c.kind, archive);
    Extract(archive, dir / c.name);
    auto from_dir = ReadLayout((dir / c.name).string());
    REQUIRE_MESSAGE(from_dir.ok(), imagelint::testing::ErrorText(from_dir));
    CHECK(from_dir->metadata.kind == c.expected_kind);
    auto from_archive = ReadLayout(archive.string());
    REQUIRE(from_archive.ok());
    CHECK(ListTree(*from_dir, "") == ListTree(*from_archive, ""));
    CHECK(from_dir->metadata.ref == "example.com/test/image:latest");
  }
}

TEST_CASE("an extracted docker save cannot reach host files through its names or symlinks") {
  TempDir dir;
  WriteImage(Small(), ImageKind::kDockerArchive, dir / "save.tar");
  Extract(dir / "save.tar", dir / "save");
  auto manifest = nlohmann::json::parse(ReadFileText(dir / "save" / "manifest.json"));
  // A layer named through a symlink to a host file, and a config named with
  // an absolute path: both resolve inside the directory, where they are not.
  fs::create_directories(dir / "save" / "evil");
  fs::create_symlink("/etc/passwd", dir / "save" / "evil" / "layer.tar");
  manifest[0]["Layers"][0] = "evil/layer.tar";
  WriteFileText(dir / "save" / "manifest.json", manifest.dump());
  std::string text = ErrorOf((dir / "save").string());
  CHECK(text.find("evil/layer.tar") != std::string::npos);
  CHECK(text.find("missing") != std::string::npos);
  manifest[0]["Config"] = "/etc/hostname";
  WriteFileText(dir / "save" / "manifest.json", manifest.dump());
  CHECK(ErrorOf((dir / "save").string()).find("config named by manifest.json is missing") != std::string::npos);
  manifest[0]["Config"] = "../../../../../../etc/hostname";
  WriteFileText(dir / "save" / "manifest.json", manifest.dump());
  CHECK(ErrorOf((dir / "save").string()).find("config named by manifest.json is missing") != std::string::npos);
}

TEST_CASE("Docker 25 save whose index.json has \"manifests\": null reads manifest.json beside it") {
  TempDir dir;
  WriteImage(Small(), ImageKind::kDockerArchiveOci, dir / "save.tar");
  Extract(dir / "save.tar", dir / "save");
  auto index = nlohmann::json::parse(ReadFileText(dir / "save" / "index.json"));
  index["manifests"] = nullptr;
  WriteFileText(dir / "save" / "index.json", index.dump());
  Archive(dir / "save", dir / "null.tar");
  auto reference = ReadLayout((dir / "save.tar").string());
  REQUIRE(reference.ok());
  for (const fs::path& input : {dir / "save", dir / "null.tar"}) {
    CAPTURE(input);
    auto read = ReadLayout(input.string());
    REQUIRE_MESSAGE(read.ok(), imagelint::testing::ErrorText(read));
    CHECK(read->metadata.kind == "docker-archive");
    CHECK(read->metadata.ref == "example.com/test/image:latest");
    CHECK(ListTree(*read, "") == ListTree(*reference, ""));
  }
  // Without manifest.json there is nothing to read: an error, never an empty image.
  fs::remove(dir / "save" / "manifest.json");
  CHECK(ErrorOf((dir / "save").string()).find("image index without a manifests list") != std::string::npos);
}

TEST_CASE("kaniko: a \"/\" root entry and absolute hard-link targets in every layer") {
  TempDir dir;
  TestImage image;
  image.Layer(testing::Compression::kGzip)
      .Dir("/", 0755)
      .Dir("usr/")
      .Dir("usr/lib/")
      .File("usr/lib/libcudart.so.12.4.127", "cudart")
      .Hardlink("usr/lib/libcudart.hard", "/usr/lib/libcudart.so.12.4.127");
  image.Layer(testing::Compression::kGzip).Dir("/", 0755).Dir("etc/").File("etc/os-release", "ID=debian\n");
  for (ImageKind kind : {ImageKind::kDockerArchive, ImageKind::kOciArchive}) {
    CAPTURE(static_cast<int>(kind));
    fs::path path = dir / ("kaniko" + std::to_string(static_cast<int>(kind)) + ".tar");
    WriteImage(image, kind, path);
    auto read = ReadLayout(path.string());
    REQUIRE_MESSAGE(read.ok(), imagelint::testing::ErrorText(read));
    CHECK(ListTree(*read, "") ==
          "dir 0755 0 L1 /etc\n"
          "file 0644 10 L1 /etc/os-release\n"
          "dir 0755 0 L0 /usr\n"
          "dir 0755 0 L0 /usr/lib\n"
          "hardlink 0644 6 L0 /usr/lib/libcudart.hard => /usr/lib/libcudart.so.12.4.127\n"
          "file 0644 6 L0 /usr/lib/libcudart.so.12.4.127\n");
  }
}

TEST_CASE("local-looking inputs are never registry references") {
  for (const char* local : {"app.tar", "saved.tar.gz", "x.tgz", "image.oci", "facts.json", "fleet.yaml", "./app",
                            "../app", "/abs/app", "~/app", "Dockerfile", "train.Dockerfile", "Containerfile",
                            "rootfs:dir", "services/api/Dockerfile.prod"}) {
    CAPTURE(local);
    CHECK(LooksLikeLocalPath(local));
  }
  for (const char* reference : {"ubuntu", "nvidia/cuda:12.4.1-runtime-ubuntu22.04", "registry.example.com/team/train:1.4",
                                "localhost:5000/app", "ghcr.io/org/app@sha256:0123", "team/app"}) {
    CAPTURE(reference);
    CHECK_FALSE(LooksLikeLocalPath(reference));
  }
  // "build/app" is a path when ./build is a directory here, a reference otherwise.
  TempDir dir;
  ChangeDirectory into(dir.path());
  CHECK_FALSE(LooksLikeLocalPath("build/app"));
  fs::create_directories("build");
  CHECK(LooksLikeLocalPath("build/app"));
  CHECK_FALSE(LooksLikeLocalPath("build.example.com/app"));
  CHECK(ErrorOf("build/app") == "build/app: no such file or directory");
}
