// The C probe and `imagelint probe` on a machine without a GPU: the probe's
// glibc baseline, its watchdog against a libcuda whose cuInit hangs, and
// direct mode on root file systems and OCI images made of this host's Debian
// files (tests/probe/CMakeLists.txt).
#include <doctest/doctest.h>

#include <chrono>
#include <regex>

#include <nlohmann/json.hpp>

#include "imagelint/probe.h"
#include "support/test_support.h"
#include "validation/workshop.h"

namespace {

namespace fs = std::filesystem;
using imagelint::testing::RunCommand;
using imagelint::testing::RunImagelint;
using imagelint::validation::ImageConfig;
using imagelint::validation::Rootfs;
using imagelint::validation::WriteOciLayout;
using nlohmann::json;

const fs::path kProbe = PROBE_PROGRAM;

struct Scratch {
  fs::path path;
  Scratch() {
    std::string pattern = (fs::temp_directory_path() / "imagelint-probe-test-XXXXXX").string();
    path = mkdtemp(pattern.data());
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

// (major, minor) of "GLIBC_2.17".
std::pair<int, int> GlibcVersion(const std::string& name) {
  std::smatch m;
  std::regex pattern(R"(GLIBC_(\d+)\.(\d+))");
  REQUIRE(std::regex_search(name, m, pattern));
  return {std::stoi(m[1]), std::stoi(m[2])};
}

// A one-GPU host as `nvidia-smi -q -x` prints it (the H100 of docs/VALIDATION.md).
std::string H100Xml(int gpus = 1) {
  std::string xml = "<?xml version=\"1.0\" ?>\n<nvidia_smi_log>\n<driver_version>580.159.04</driver_version>\n"
                    "<cuda_version>13.0</cuda_version>\n<attached_gpus>" + std::to_string(gpus) + "</attached_gpus>\n";
  for (int i = 0; i < gpus; ++i)
    xml += "<gpu id=\"00000000:0" + std::to_string(i + 1) + ":00.0\">\n<product_name>NVIDIA H100 80GB HBM3</product_name>\n"
           "<product_brand>NVIDIA</product_brand>\n<product_architecture>Hopper</product_architecture>\n</gpu>\n";
  return xml + "</nvidia_smi_log>\n";
}

}  // namespace

TEST_CASE("the probe binds only symbol versions every glibc of its architecture has") {
  REQUIRE(fs::is_regular_file(kProbe));
  auto readelf = RunCommand({"readelf", "--version-info", "--dynamic", kProbe.string()});
  REQUIRE(readelf.exit_code == 0);
  std::regex needed_version(R"(Name: (GLIBC_[0-9.]+))");
  int versions = 0;
  for (std::sregex_iterator it(readelf.out.begin(), readelf.out.end(), needed_version), end; it != end; ++it) {
    ++versions;
    auto [major, minor] = GlibcVersion((*it)[1]);
    // x86_64's first glibc symbol set is 2.2.5, aarch64's 2.17.
    INFO((*it)[1].str());
    CHECK((major < 2 || (major == 2 && minor <= 17)));
  }
  CHECK(versions > 0);
  std::regex needed_library(R"(\(NEEDED\)\s+Shared library: \[([^\]]+)\])");
  for (std::sregex_iterator it(readelf.out.begin(), readelf.out.end(), needed_library), end; it != end; ++it) {
    INFO((*it)[1].str());
    CHECK(((*it)[1] == "libc.so.6" || (*it)[1] == "libdl.so.2"));
  }
}

TEST_CASE("a cuInit that never returns is killed by the probe's watchdog and named") {
  const fs::path fake_dir = fs::path(FAKE_LIBCUDA_HANG).parent_path();
  auto start = std::chrono::steady_clock::now();
  auto run = RunCommand({kProbe.string(), "--timeout", "1"}, "", 60, {"LD_LIBRARY_PATH=" + fake_dir.string()});
  auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(run.exit_code == 4);
  CHECK(seconds < 10);
  auto record = imagelint::probe::ParseRecord(run.out, "probe");
  REQUIRE_MESSAGE(record.ok(), run.out);
  REQUIRE(record->hung);
  CHECK(*record->hung == "drv.cuInit");
  CHECK_FALSE(record->complete);
  auto outcome = imagelint::probe::FirstError(*record);
  CHECK(outcome.hung);
  CHECK(outcome.api == "drv.cuInit");
}

TEST_CASE("the probe reports what a stale libcuda returns, in call order") {
  const fs::path fake_dir = fs::path(FAKE_LIBCUDA_MISMATCH).parent_path();
  auto run = RunCommand({kProbe.string(), "--module-loading", "eager"}, "", 60,
                        {"LD_LIBRARY_PATH=" + fake_dir.string()});
  CHECK(run.exit_code == 0);
  auto record = imagelint::probe::ParseRecord(run.out, "probe");
  REQUIRE_MESSAGE(record.ok(), run.out);
  CHECK(record->complete);
  CHECK(record->mode == "eager");
  REQUIRE(record->calls.size() >= 4);
  CHECK(record->calls[1].api == "drv.cuDriverGetVersion");
  CHECK(record->calls[1].detail == "version=12040");
  CHECK(record->calls[2].api == "drv.cuInit");
  CHECK(record->calls[2].code == 803);
  CHECK(record->calls[2].name == "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH");
  auto outcome = imagelint::probe::FirstError(*record);
  CHECK(outcome.code == 803);
  CHECK(outcome.api == "drv.cuInit");
  bool loaded_fake = false;
  for (const auto& file : record->loaded) loaded_fake |= file.find("fake-mismatch") != std::string::npos;
  CHECK(loaded_fake);
}

TEST_CASE("the probe's record is read as hostile input") {
  using imagelint::probe::ParseRecord;
  CHECK_FALSE(ParseRecord("", "r").ok());
  CHECK_FALSE(ParseRecord("call\tdrv.cuInit\t0\tok\t-\n", "r").ok());            // no header
  CHECK_FALSE(ParseRecord("probe\t2\n", "r").ok());                              // another version
  CHECK_FALSE(ParseRecord("probe\t1\ncall\tdrv.cuInit\tx\tok\t-\n", "r").ok());  // code not a number
  CHECK_FALSE(ParseRecord("probe\t1\nsomething\telse\n", "r").ok());
  CHECK_FALSE(ParseRecord(std::string(imagelint::probe::kMaxRecordBytes + 1, 'x'), "r").ok());
  auto fine = ParseRecord("probe\t1\nmode\tlazy\ncall\tdrv.dlopen\t-1\tdlopen_failed\tnot found\nend\tcomplete\n", "r");
  REQUIRE(fine.ok());
  // No libcuda the loader can load is what the CUDA runtime calls an insufficient driver.
  CHECK(imagelint::probe::FirstError(*fine).code == 35);
}

TEST_CASE("direct mode on a root file system of a host without a GPU says so, exit 3") {
  Scratch scratch;
  Rootfs rootfs(scratch.path / "root");
  rootfs.DebianBase();
  const fs::path no_gpu = scratch.path / "no-gpu.xml";
  imagelint::testing::WriteFileText(no_gpu, "<?xml version=\"1.0\" ?>\n<nvidia_smi_log>\n<driver_version>580.159.04"
                                            "</driver_version>\n<attached_gpus>0</attached_gpus>\n</nvidia_smi_log>\n");
  fs::create_directories(scratch.path / "no-driver");
  std::vector<std::string> args = {"probe", "rootfs:" + (scratch.path / "root").string(), "--mode", "direct",
                                   "--probe", kProbe.string(), "--driver-dir", (scratch.path / "no-driver").string()};
  SUBCASE("the host as nvidia-smi would describe it: no GPU") {
    args.insert(args.end(), {"--nvidia-smi-xml", no_gpu.string()});
  }
  SUBCASE("this machine itself, when it has no nvidia-smi") {
    if (imagelint::testing::HaveProgram("nvidia-smi")) return;  // a GPU machine: the subcase above covers it
  }
  auto text = RunImagelint(args);
  CHECK_MESSAGE(text.exit_code == 3, text.out << text.err);
  CHECK(text.out.find("no GPU on this host: nothing to compare") != std::string::npos);
  args.insert(args.end(), {"--format", "json"});
  auto run = RunImagelint(args);
  REQUIRE_MESSAGE(run.exit_code == 3, run.err);
  json report = json::parse(run.out);
  CHECK(report["status"] == "no-gpu");
  CHECK(report["host"]["has_gpu"] == false);
  CHECK_FALSE(report.contains("observation"));
  // The probe ran in the image's loader and found no driver to load.
  REQUIRE(report["runs"].size() == 1);
  const json& first = report["runs"][0]["calls"][0];
  CHECK(first["api"] == "drv.dlopen");
  CHECK(first["code"] == -1);
}

TEST_CASE("direct mode on an OCI image whose libcuda hangs: killed, reported, exit 1") {
  Scratch scratch;
  Rootfs rootfs(scratch.path / "root");
  rootfs.DebianBase();
  rootfs.Library("/opt/driver", fs::canonical(FAKE_LIBCUDA_HANG), {"libcuda.so.1"});
  ImageConfig config;
  config.env = {"PATH=/usr/bin:/bin", "LD_LIBRARY_PATH=/opt/driver"};
  config.cmd = {"/bin/true"};
  std::string why;
  REQUIRE_MESSAGE(WriteOciLayout(scratch.path / "root", config, scratch.path / "image", &why), why);
  imagelint::testing::WriteFileText(scratch.path / "host.xml", H100Xml());
  fs::create_directories(scratch.path / "no-driver");
  auto start = std::chrono::steady_clock::now();
  auto run = RunImagelint({"probe", (scratch.path / "image").string(), "--probe", kProbe.string(), "--nvidia-smi-xml",
                           (scratch.path / "host.xml").string(), "--driver-dir", (scratch.path / "no-driver").string(),
                           "--timeout", "6"},
                          "", {"XDG_CACHE_HOME=" + (scratch.path / "cache").string()});
  auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK_MESSAGE(run.exit_code == 1, run.out << run.err);
  CHECK(seconds < 60);
  CHECK(run.out.find("drv.cuInit did not return: killed by the watchdog") != std::string::npos);
  // The extracted files are gone; nothing was written into the image.
  std::error_code ec;
  CHECK(fs::is_empty(scratch.path / "cache" / "imagelint" / "probe", ec));
}
