// Image-level rule tests: images built by tests/support/image_builder with
// genuine NVIDIA libraries (scripts/fetch-nvidia-debs.sh) and, where a rule
// needs device code, nvcc; scanned by the real binary end to end.
#include <cstdlib>
#include <filesystem>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "analysis/rules_fixture.h"
#include "common/json.h"
#include "support/image_builder.h"
#include "support/raw_tar.h"
#include "support/test_support.h"

namespace fs = std::filesystem;
using imagelint::testing::HaveProgram;
using imagelint::testing::ImageKind;
using imagelint::testing::NeedExternal;
using imagelint::testing::ReadFileBytes;
using imagelint::testing::RunCommand;
using imagelint::testing::RunImagelint;
using imagelint::testing::TempDir;
using imagelint::testing::TestImage;
using imagelint::testing::WriteFileText;
using imagelint::testing::rules_fixture::kSeedFleet;
using nlohmann::json;

namespace {

fs::path DebRoot(const std::string& package_suite) {
  const char* home = std::getenv("HOME");
  return fs::path(home ? home : "/root") / ".cache/imagelint/nvidia-debs/root" / package_suite;
}

std::string FileText(const fs::path& path) {
  auto bytes = ReadFileBytes(path);
  return std::string(bytes.begin(), bytes.end());
}

const fs::path kLibcuda470 = "usr/lib/x86_64-linux-gnu/nvidia/current/libcuda.so.470.256.02";
const fs::path kLibcudart112 = "usr/lib/x86_64-linux-gnu/libcudart.so.11.2.152";

bool HaveDebs() {
  return fs::exists(DebRoot("libcuda1_bullseye") / kLibcuda470) &&
         fs::exists(DebRoot("libcudart11.0_bullseye") / kLibcudart112);
}

// FROM nvidia/cuda:11.3-style base: cudart in the toolkit dir, the official
// env, and a compat libcuda (the genuine 470.256.02 library) that is newer
// than a 460 host driver.
TestImage SeedImage() {
  TestImage image;
  image.ref = "example.com/seed/cuda-11.3:compat";
  image.env = {"PATH=/usr/local/nvidia/bin:/usr/local/cuda/bin:/usr/sbin:/usr/bin:/sbin:/bin",
               "CUDA_VERSION=11.3.1",
               "NVIDIA_REQUIRE_CUDA=cuda>=11.3 brand=tesla,driver>=418,driver<419 brand=tesla,driver>=440,driver<441 "
               "driver>=450",
               "NVIDIA_VISIBLE_DEVICES=all", "NVIDIA_DRIVER_CAPABILITIES=compute,utility",
               "LD_LIBRARY_PATH=/usr/local/nvidia/lib:/usr/local/nvidia/lib64",
               "NV_CUDA_COMPAT_PACKAGE=cuda-compat-11-3"};
  image.Layer().File("etc/debian_version", "11.9\n").Dir("usr/local/bin");
  std::string cudart = FileText(DebRoot("libcudart11.0_bullseye") / kLibcudart112);
  std::string libcuda = FileText(DebRoot("libcuda1_bullseye") / kLibcuda470);
  image.Layer()
      .File("usr/local/cuda-11.3/targets/x86_64-linux/lib/libcudart.so.11.2.152", cudart, 0755)
      .Symlink("usr/local/cuda-11.3/targets/x86_64-linux/lib/libcudart.so.11.0", "libcudart.so.11.2.152")
      .Symlink("usr/local/cuda-11.3/lib64", "targets/x86_64-linux/lib")
      .Symlink("usr/local/cuda", "cuda-11.3")
      .File("etc/ld.so.conf.d/000_cuda.conf", "/usr/local/cuda/targets/x86_64-linux/lib\n")
      .File("usr/local/cuda-11.3/compat/libcuda.so.470.256.02", libcuda, 0755)
      .Symlink("usr/local/cuda-11.3/compat/libcuda.so.1", "libcuda.so.470.256.02")
      .Symlink("usr/local/cuda-11.3/compat/libcuda.so", "libcuda.so.1");
  return image;
}

json ScanJson(const fs::path& image, const fs::path& fleet, int expected_exit) {
  auto result = RunImagelint({image.string(), "--fleet", fleet.string(), "--format", "json", "--no-cache"});
  CHECK_MESSAGE(result.exit_code == expected_exit, result.err);
  // imagelint's own reader: a report may hold \udcXX escapes (names that are
  // not UTF-8), which nlohmann's parser alone refuses.
  auto report = imagelint::ParseJson(result.out, "report");
  REQUIRE_MESSAGE(report.ok(), result.out << result.err);
  return *report;
}

json VerdictOf(const json& report, const std::string& pool) {
  for (const auto& verdict : report["images"][0]["verdicts"])
    if (verdict["pool"] == pool) return verdict;
  FAIL("no verdict for " << pool);
  return nullptr;
}

}  // namespace

TEST_CASE("seed story end to end: compat libcuda 804 on GeForce 460, fixed by deleting compat in a later layer") {
  if (!NeedExternal("NVIDIA packages", HaveDebs(), "genuine libcuda/libcudart (scripts/fetch-nvidia-debs.sh)")) return;
  TempDir dir;
  WriteFileText(dir / "fleet.yaml", kSeedFleet);
  TestImage broken = SeedImage();
  imagelint::testing::WriteImage(broken, ImageKind::kDockerArchive, dir / "seed.tar");
  json report = ScanJson(dir / "seed.tar", dir / "fleet.yaml", 1);
  json geforce = VerdictOf(report, "rtx3090-460");
  CHECK(geforce["status"] == "fail");
  REQUIRE(geforce["predicted_error"].is_object());
  CHECK(geforce["predicted_error"]["code"] == 804);
  CHECK(geforce["predicted_error"]["rule"] == "IL003");
  bool evidence_found = false;
  for (const auto& finding : report["images"][0]["findings"]) {
    if (finding["rule"] != "IL003") continue;
    for (const auto& item : finding["evidence"]) {
      if (item.value("path", "") == "/usr/local/cuda-11.3/compat/libcuda.so.470.256.02") {
        evidence_found = true;
        CHECK(item["layer"] == 1);
      }
    }
  }
  CHECK(evidence_found);
  CHECK(VerdictOf(report, "a100-460")["predicted_error"].is_null());  // data-center GPU: forward compat works

  TestImage fixed = SeedImage();
  fixed.Layer().Whiteout("usr/local/cuda-11.3/compat");
  imagelint::testing::WriteImage(fixed, ImageKind::kDockerArchive, dir / "fixed.tar");
  json after = ScanJson(dir / "fixed.tar", dir / "fleet.yaml", 0);
  json verdict = VerdictOf(after, "rtx3090-460");
  CHECK(verdict["status"] == "pass");  // the 11.2 runtime runs natively on 460
  CHECK(verdict["predicted_error"].is_null());

  // The default text output names the error in the matrix.
  auto text = RunImagelint({(dir / "seed.tar").string(), "--fleet", (dir / "fleet.yaml").string(), "--no-cache"});
  CHECK(text.exit_code == 1);
  CHECK(text.out.find("804 cudaErrorCompatNotSupportedOnDevice") != std::string::npos);
}

TEST_CASE("image: stub libcuda on LD_LIBRARY_PATH (IL005, 34) and a baked-in libcuda (IL006)") {
  if (!NeedExternal("NVIDIA packages", HaveDebs(), "genuine libcuda/libcudart (scripts/fetch-nvidia-debs.sh)")) return;
  TempDir dir;
  WriteFileText(dir / "fleet.yaml", kSeedFleet);
  TestImage stub = SeedImage();
  stub.Layer().Whiteout("usr/local/cuda-11.3/compat");
  std::string libcuda = FileText(DebRoot("libcuda1_bullseye") / kLibcuda470);
  stub.Layer()
      .File("usr/local/cuda-11.3/targets/x86_64-linux/lib/stubs/libcuda.so", libcuda, 0755)
      .Symlink("usr/local/cuda-11.3/targets/x86_64-linux/lib/stubs/libcuda.so.1", "libcuda.so");
  stub.env.push_back("LD_LIBRARY_PATH=/usr/local/cuda/lib64/stubs:/usr/local/nvidia/lib64");
  imagelint::testing::WriteImage(stub, ImageKind::kDockerArchive, dir / "stub.tar");
  json report = ScanJson(dir / "stub.tar", dir / "fleet.yaml", 1);
  CHECK(VerdictOf(report, "a100-460")["predicted_error"]["code"] == 34);

  TestImage baked = SeedImage();
  baked.Layer().Whiteout("usr/local/cuda-11.3/compat");
  baked.Layer()
      .File("usr/lib/x86_64-linux-gnu/libcuda.so.470.256.02", libcuda, 0755)
      .Symlink("usr/lib/x86_64-linux-gnu/libcuda.so.1", "libcuda.so.470.256.02");
  imagelint::testing::WriteImage(baked, ImageKind::kDockerArchive, dir / "baked.tar");
  json baked_report = ScanJson(dir / "baked.tar", dir / "fleet.yaml", 1);
  json geforce = VerdictOf(baked_report, "rtx3090-460");
  CHECK(geforce["status"] == "fail");  // 470 > 460 in the same lib dir: ldconfig picks it -> 804
  CHECK(geforce["predicted_error"]["code"] == 804);
  bool il006 = false;
  for (const auto& finding : baked_report["images"][0]["findings"]) il006 = il006 || finding["rule"] == "IL006";
  CHECK(il006);
}

TEST_CASE("image: kernels built by nvcc (IL007 209) and a missing libcudart (IL012)") {
  const std::string nvcc = "/usr/local/cuda/bin/nvcc";
  if (!NeedExternal("nvcc", fs::exists(nvcc), "CUDA toolkit in /usr/local/cuda")) return;
  TempDir dir;
  WriteFileText(dir / "k.cu", "__global__ void k(int* p) { p[0] = 1; }\n"
                              "extern \"C\" void launch(int* p) { k<<<1, 1>>>(p); }\n");
  auto built = RunCommand({nvcc, "-shared", "-Xcompiler", "-fPIC", "-cudart=shared", "-gencode",
                           "arch=compute_90,code=sm_90", "-o", (dir / "libk.so").string(), (dir / "k.cu").string()},
                          "", 300);
  REQUIRE_MESSAGE(built.exit_code == 0, built.err);
  TestImage image;
  image.ref = "example.com/app:sm90-only";
  image.Layer().File("etc/debian_version", "12.5\n").File("opt/app/libk.so", FileText(dir / "libk.so"), 0755);
  imagelint::testing::WriteImage(image, ImageKind::kDockerArchive, dir / "app.tar");
  WriteFileText(dir / "fleet.yaml", R"(pools:
  - name: a100-580
    gpu: NVIDIA A100-SXM4-40GB
    driver: "580.95.05"
  - name: h100-580
    gpu: NVIDIA H100 80GB HBM3
    driver: "580.95.05"
)");
  json report = ScanJson(dir / "app.tar", dir / "fleet.yaml", 1);
  json a100 = VerdictOf(report, "a100-580");
  json h100 = VerdictOf(report, "h100-580");
  // libcudart.so.13 is nowhere in the image: the loader fails first, on every pool.
  CHECK(a100["predicted_error"]["name"] == "library-not-found");
  CHECK(h100["predicted_error"]["name"] == "library-not-found");
  bool il007_on_a100 = false, il007_on_h100 = false;
  for (const auto& finding : report["images"][0]["findings"]) {
    if (finding["rule"] != "IL007") continue;
    for (const auto& pool : finding["pools"]) {
      il007_on_a100 = il007_on_a100 || pool == "a100-580";
      il007_on_h100 = il007_on_h100 || pool == "h100-580";
    }
  }
  CHECK(il007_on_a100);   // sm_90 SASS only: no kernel image for 8.0
  CHECK(!il007_on_h100);
}

TEST_CASE("a name that is not UTF-8 (Latin-1) reaches every output, losslessly, and a facts file reads back") {
  if (!NeedExternal("NVIDIA packages", HaveDebs(), "genuine libcuda/libcudart (scripts/fetch-nvidia-debs.sh)")) return;
  TempDir dir;
  WriteFileText(dir / "fleet.yaml", kSeedFleet);
  TestImage image = SeedImage();
  // A second libcuda under a Latin-1 directory that ld.so.conf.d puts on the
  // loader path (a config's environment is JSON, so UTF-8, in real images).
  const std::string latin1_dir = "opt/caf\xe9";
  // libarchive's writer refuses such names in pax headers: a plain ustar layer.
  image.Layer(imagelint::testing::Compression::kNone).raw_blob = imagelint::testing::UstarTar(
      {{"opt/", '5', "", ""},
       {"etc/ld.so.conf.d/", '5', "", ""},
       {"etc/ld.so.conf.d/000-cafe.conf", '0', "/" + latin1_dir + "\n", ""},
       {latin1_dir + "/", '5', "", ""},
       {latin1_dir + "/libcuda.so.470.256.02", '0', FileText(DebRoot("libcuda1_bullseye") / kLibcuda470), ""}});
  imagelint::testing::WriteImage(image, ImageKind::kDockerArchive, dir / "latin1.tar");
  const std::string raw_path = "/" + latin1_dir + "/libcuda.so.470.256.02";

  for (const char* format : {"json", "sarif", "gitlab"}) {
    CAPTURE(format);
    auto result = RunImagelint({(dir / "latin1.tar").string(), "--fleet", (dir / "fleet.yaml").string(), "--format",
                                format, "--no-cache"});
    CHECK_MESSAGE(result.exit_code == 1, result.err);
    CHECK(result.err.find("internal error") == std::string::npos);
    CHECK(result.out.find("/opt/caf\\udce9/libcuda.so.470.256.02") != std::string::npos);
    CHECK(result.out.find('\xe9') == std::string::npos);  // never the raw byte in JSON
  }
  for (const char* format : {"text", "markdown", "html", "junit"}) {
    CAPTURE(format);
    auto result = RunImagelint({(dir / "latin1.tar").string(), "--fleet", (dir / "fleet.yaml").string(), "--format",
                                format, "--no-cache"});
    CHECK_MESSAGE(result.exit_code == 1, result.err);
    CHECK(result.out.find("caf\\xe9") != std::string::npos);
    CHECK(result.out.find('\xe9') == std::string::npos);
  }

  // The facts, written and read back: the same bytes, the same verdicts.
  auto facts = RunImagelint({"facts", (dir / "latin1.tar").string(), "--no-cache"});
  REQUIRE_MESSAGE(facts.exit_code == 0, facts.err);
  WriteFileText(dir / "latin1.facts.json", facts.out);
  json from_image = ScanJson(dir / "latin1.tar", dir / "fleet.yaml", 1);
  json from_facts = ScanJson(dir / "latin1.facts.json", dir / "fleet.yaml", 1);
  for (const char* pool : {"rtx3090-460", "a100-460"}) {
    CAPTURE(pool);
    CHECK(VerdictOf(from_facts, pool)["status"] == VerdictOf(from_image, pool)["status"]);
    CHECK(VerdictOf(from_facts, pool)["predicted_error"] == VerdictOf(from_image, pool)["predicted_error"]);
  }
  // Python's reading of the escape (PEP 383) gives the original bytes back.
  if (HaveProgram("python3")) {
    auto python = RunCommand({"python3", "-c",
                              "import json,sys; f=json.load(open(sys.argv[1])); "
                              "print(any(d['path'].encode('utf-8','surrogateescape')==sys.argv[2].encode('utf-8','surrogateescape') "
                              "for d in f['cuda']['drivers']))",
                              (dir / "latin1.facts.json").string(), raw_path});
    CHECK_MESSAGE(python.out == "True\n", python.out << python.err);
  }
}
