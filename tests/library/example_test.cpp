// docs/library.md's example (examples/library/scan_example.cpp), built against
// the library alone, scans an image built by the fixtures: its verdicts and
// exit codes are what the command line says for the same image.
#include <doctest/doctest.h>

#include "support/image_builder.h"
#include "support/test_support.h"

namespace {

using imagelint::testing::ImageKind;
using imagelint::testing::RunCommand;
using imagelint::testing::SourceDir;
using imagelint::testing::TempDir;
using imagelint::testing::TestImage;
using imagelint::testing::WriteFileText;

const char* kExampleFleet = R"(defaults:
  runtime: docker-gpus
pools:
  - name: old-470
    gpu: NVIDIA A100-SXM4-40GB
    driver: "470.256.02"
  - name: new-550
    gpu: NVIDIA A100-SXM4-40GB
    driver: "550.54.15"
)";

// The NVIDIA runtime refuses this image on drivers older than CUDA 12.4's.
TestImage NeedsCuda124() {
  TestImage image;
  image.ref = "example.com/team/train:1";
  image.env = {"PATH=/usr/bin:/bin", "NVIDIA_REQUIRE_CUDA=cuda>=12.4", "NVIDIA_VISIBLE_DEVICES=all"};
  image.Layer().File("etc/debian_version", "12.5\n").Dir("usr/bin");
  return image;
}

}  // namespace

TEST_CASE("library example: verdicts per pool, exit 1 on an error finding, 2 when it cannot scan") {
  TempDir dir;
  WriteFileText(dir / "fleet.yaml", kExampleFleet);
  imagelint::testing::WriteImage(NeedsCuda124(), ImageKind::kOciArchive, dir / "train.tar");
  const std::string example = IMAGELINT_SCAN_EXAMPLE;

  auto run = RunCommand({example, SourceDir().string(), (dir / "fleet.yaml").string(), (dir / "train.tar").string()});
  INFO(run.out << run.err);
  CHECK(run.exit_code == 1);
  CHECK(run.out.find("old-470 fail requirement-unsatisfied\n") != std::string::npos);
  CHECK(run.out.find("new-550 pass -\n") != std::string::npos);

  // The same image through the command line agrees.
  auto cli = imagelint::testing::RunImagelint(
      {(dir / "train.tar").string(), "--fleet", (dir / "fleet.yaml").string(), "--no-cache"});
  CHECK(cli.exit_code == 1);
  CHECK(cli.out.find("  old-470  fail     requirement-unsatisfied") != std::string::npos);

  auto unreadable = RunCommand({example, SourceDir().string(), (dir / "fleet.yaml").string(), (dir / "nope.tar").string()});
  CHECK(unreadable.exit_code == 2);
  CHECK(unreadable.err.find("nope.tar") != std::string::npos);
  auto no_data = RunCommand({example, (dir / "no-data").string(), (dir / "fleet.yaml").string(), (dir / "train.tar").string()});
  CHECK(no_data.exit_code == 2);
  CHECK(no_data.out.empty());
}

TEST_CASE("library example: built with find_package(imagelint) against an installed prefix") {
  if (!imagelint::testing::NeedExternal("cmake", imagelint::testing::HaveProgram("cmake"), "configures the example"))
    return;
  TempDir dir;
  const std::filesystem::path prefix = dir / "prefix";
  // The whole install (the data for the run, and the development component).
  auto installed = RunCommand({"cmake", "--install", imagelint::testing::BinaryDir().string(), "--prefix", prefix.string()},
                              "", 300);
  REQUIRE_MESSAGE(installed.exit_code == 0, (installed.out + installed.err));
  CHECK(std::filesystem::is_regular_file(prefix / "include/imagelint/pipeline.h"));

  // examples/library/CMakeLists.txt as a user builds it; it sees the
  // installed prefix only (no checkout include path, no module archives).
  std::vector<std::string> configure = {"cmake", "-G", "Ninja", "-S", (SourceDir() / "examples/library").string(),
                                        "-B", (dir / "build").string(), "-DCMAKE_PREFIX_PATH=" + prefix.string(),
                                        "-DCMAKE_BUILD_TYPE=Release"};
  if (std::string(IMAGELINT_EXAMPLE_FLAGS) != "")
    configure.push_back(std::string("-DCMAKE_EXE_LINKER_FLAGS=") + IMAGELINT_EXAMPLE_FLAGS);
  auto configured = RunCommand(configure, "", 300);
  REQUIRE_MESSAGE(configured.exit_code == 0, (configured.out + configured.err));
  auto built = RunCommand({"cmake", "--build", (dir / "build").string()}, "", 600);
  REQUIRE_MESSAGE(built.exit_code == 0, (built.out + built.err));
  const std::string compile_commands = RunCommand({"cmake", "--build", (dir / "build").string(), "--", "-t", "commands"}).out;
  CHECK(compile_commands.find((SourceDir() / "include").string()) == std::string::npos);
  CHECK(compile_commands.find("libimagelint.a") != std::string::npos);

  WriteFileText(dir / "fleet.yaml", kExampleFleet);
  imagelint::testing::WriteImage(NeedsCuda124(), ImageKind::kOciArchive, dir / "train.tar");
  auto run = RunCommand({(dir / "build/scan_example").string(), (prefix / "share/imagelint").string(),
                         (dir / "fleet.yaml").string(), (dir / "train.tar").string()});
  INFO(run.out << run.err);
  CHECK(run.exit_code == 1);
  CHECK(run.out.find("old-470 fail requirement-unsatisfied\n") != std::string::npos);
  CHECK(run.out.find("new-550 pass -\n") != std::string::npos);
}
