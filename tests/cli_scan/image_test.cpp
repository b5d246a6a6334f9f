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
#include "support/redis_server.h"
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
  // In a loader directory, so any program of the image can load it (reachable).
  image.Layer().File("etc/debian_version", "12.5\n").File("usr/lib/x86_64-linux-gnu/libk.so", FileText(dir / "libk.so"), 0755);
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
  for (const std::string format : {"text", "markdown", "html", "junit"}) {
    CAPTURE(format);
    auto result = RunImagelint({(dir / "latin1.tar").string(), "--fleet", (dir / "fleet.yaml").string(), "--format",
                                format, "--no-cache"});
    CHECK_MESSAGE(result.exit_code == 1, result.err);
    // Shown as an escape; Markdown escapes that backslash in turn, and renders it as caf\xe9.
    CHECK(result.out.find(format == "markdown" ? "caf\\\\xe9" : "caf\\xe9") != std::string::npos);
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

// --cache-backend: two CI runners (separate local caches) share one Redis;
// the verdicts are the same whether the layers came from Redis, from local
// work, or with Redis down (one warning). --images-from adds a list of images.
TEST_CASE("scan --cache-backend redis:// and --images-from: shared layers, the same verdicts, one warning when down") {
  if (!NeedExternal("NVIDIA packages", HaveDebs(), "genuine libcuda/libcudart (scripts/fetch-nvidia-debs.sh)")) return;
  std::string why;
  auto redis = imagelint::testing::RedisServer::Start(&why, "ci-pass");
  if (!NeedExternal("redis-server", redis != nullptr, why)) return;
  TempDir dir;
  WriteFileText(dir / "fleet.yaml", kSeedFleet);
  imagelint::testing::WriteImage(SeedImage(), ImageKind::kDockerArchive, dir / "seed.tar");
  const json expected = ScanJson(dir / "seed.tar", dir / "fleet.yaml", 1);
  const std::vector<std::string> password = {"IMAGELINT_REDIS_PASSWORD=ci-pass"};
  auto scan = [&](const std::string& cache, const std::string& backend, const std::vector<std::string>& env) {
    return RunImagelint({(dir / "seed.tar").string(), "--fleet", (dir / "fleet.yaml").string(), "--format", "json",
                         "--cache-dir", (dir / cache).string(), "--cache-backend", backend, "--cache-ttl", "1h"},
                        "", env);
  };
  auto first = scan("runner-a", redis->Url(), password);
  CHECK_MESSAGE(first.exit_code == 1, first.err);
  CHECK(first.err.find("warning") == std::string::npos);
  CHECK(json::parse(first.out) == expected);
  const auto keys = redis->Keys("imagelint:layer:*");
  CHECK(keys.size() >= 3);
  CHECK(std::stoll(redis->Cli({"TTL", keys.at(0)}).out) > 3000);  // --cache-ttl 1h

  // Runner B's local cache is empty: its layers come from Redis into it.
  auto second = scan("runner-b", redis->Url(), password);
  CHECK_MESSAGE(second.exit_code == 1, second.err);
  CHECK(second.err.find("warning") == std::string::npos);
  CHECK(json::parse(second.out) == expected);
  size_t local_files = 0;
  for (const auto& item : fs::recursive_directory_iterator(dir / "runner-b" / "layers")) local_files += item.is_regular_file();
  CHECK(local_files == keys.size());

  // No password: one warning, local work, the same report.
  auto denied = scan("runner-c", redis->Url(), {});
  CHECK(denied.exit_code == 1);
  CHECK(json::parse(denied.out) == expected);
  // Down: exactly one warning line.
  const std::string url = redis->Url();
  redis->Kill();
  auto down = scan("runner-d", url, password);
  CHECK(down.exit_code == 1);
  CHECK(json::parse(down.out) == expected);
  size_t warnings = 0;
  for (size_t at = down.err.find("warning:"); at != std::string::npos; at = down.err.find("warning:", at + 1)) ++warnings;
  CHECK_MESSAGE(warnings == 1, down.err);
  CHECK(down.err.find("shared cache not used") != std::string::npos);
  CHECK(denied.err.find("NOAUTH") != std::string::npos);

  // Bad flags are exit 2: a password in the URL, a TLS flag with redis://, a TTL without a backend.
  CHECK(scan("x", "redis://:pw@127.0.0.1:1", {}).exit_code == 2);
  CHECK(RunImagelint({(dir / "seed.tar").string(), "--cache-backend", "redis://127.0.0.1:1", "--redis-ca",
                      (dir / "fleet.yaml").string()})
            .exit_code == 2);
  CHECK(RunImagelint({(dir / "seed.tar").string(), "--cache-ttl", "1h"}).exit_code == 2);

  // --images-from: the same image twice (a comment and a blank line skipped), one report.
  WriteFileText(dir / "images.txt", "# nightly\n" + (dir / "seed.tar").string() + "\n\n  " +
                                        (dir / "seed.tar").string() + "  \n");
  auto listed = RunImagelint({"--images-from", (dir / "images.txt").string(), "--fleet",
                              (dir / "fleet.yaml").string(), "--format", "json", "--no-cache"});
  CHECK_MESSAGE(listed.exit_code == 1, listed.err);
  json both = json::parse(listed.out);
  REQUIRE(both["images"].size() == 2);
  CHECK(both["images"][0]["verdicts"] == expected["images"][0]["verdicts"]);
  CHECK(both["images"][1]["verdicts"] == expected["images"][0]["verdicts"]);
  // One image at a time gives the same report; 0 images at once is a bad flag.
  auto serial = RunImagelint({"--images-from", (dir / "images.txt").string(), "--fleet", (dir / "fleet.yaml").string(),
                              "--format", "json", "--no-cache", "--image-jobs", "1"});
  CHECK(serial.exit_code == 1);
  CHECK(json::parse(serial.out)["images"] == both["images"]);
  CHECK(RunImagelint({"--images-from", (dir / "images.txt").string(), "--image-jobs", "0"}).exit_code == 2);
  WriteFileText(dir / "empty.txt", "# nothing\n");
  CHECK(RunImagelint({"--images-from", (dir / "empty.txt").string()}).exit_code == 2);
  CHECK(RunImagelint({"--images-from", (dir / "missing.txt").string()}).exit_code == 2);
}

// rediss://: the same two runners through a TLS-only redis-server that wants
// client certificates (--redis-ca, --redis-cert, --redis-key); a CA that did
// not sign the server's certificate or a missing client certificate is one
// warning and the same report; the TLS flags' misuse is exit 2.
TEST_CASE("scan --cache-backend rediss://: verified TLS, client certificates, one warning when it does not verify") {
  if (!NeedExternal("NVIDIA packages", HaveDebs(), "genuine libcuda/libcudart (scripts/fetch-nvidia-debs.sh)")) return;
  std::string why;
  auto redis = imagelint::testing::RedisServer::StartTls(&why, "ci-pass");
  if (!NeedExternal("redis-server", redis != nullptr, why)) return;
  TempDir dir;
  WriteFileText(dir / "fleet.yaml", kSeedFleet);
  imagelint::testing::WriteImage(SeedImage(), ImageKind::kDockerArchive, dir / "seed.tar");
  const json expected = ScanJson(dir / "seed.tar", dir / "fleet.yaml", 1);
  const auto& pki = *redis->pki();
  auto scan = [&](const std::string& cache, const fs::path& ca, bool client_certificate) {
    std::vector<std::string> args = {(dir / "seed.tar").string(), "--fleet", (dir / "fleet.yaml").string(),
                                     "--format", "json", "--cache-dir", (dir / cache).string(), "--cache-backend",
                                     redis->Url("localhost"), "--redis-ca", ca.string()};
    if (client_certificate)
      args.insert(args.end(), {"--redis-cert", pki.client_cert.string(), "--redis-key", pki.client_key.string()});
    return RunImagelint(args, "", {"IMAGELINT_REDIS_PASSWORD=ci-pass"});
  };
  auto warnings = [](const std::string& err) {
    size_t count = 0;
    for (size_t at = err.find("warning:"); at != std::string::npos; at = err.find("warning:", at + 1)) ++count;
    return count;
  };
  auto first = scan("runner-a", pki.ca, true);
  CHECK_MESSAGE(first.exit_code == 1, first.err);
  CHECK(warnings(first.err) == 0);
  CHECK(json::parse(first.out) == expected);
  const auto keys = redis->Keys("imagelint:layer:*");
  CHECK(keys.size() >= 3);
  // Runner B's local cache is empty: its layers come from Redis over TLS.
  auto second = scan("runner-b", pki.ca, true);
  CHECK_MESSAGE(second.exit_code == 1, second.err);
  CHECK(warnings(second.err) == 0);
  CHECK(json::parse(second.out) == expected);
  size_t local_files = 0;
  for (const auto& item : fs::recursive_directory_iterator(dir / "runner-b" / "layers")) local_files += item.is_regular_file();
  CHECK(local_files == keys.size());

  // Another CA: the server's certificate does not verify.
  auto wrong_ca = scan("runner-c", pki.other_ca, true);
  CHECK(wrong_ca.exit_code == 1);
  CHECK(json::parse(wrong_ca.out) == expected);
  CHECK_MESSAGE(warnings(wrong_ca.err) == 1, wrong_ca.err);
  CHECK(wrong_ca.err.find("shared cache not used") != std::string::npos);
  CHECK(wrong_ca.err.find("certificate verify failed") != std::string::npos);
  // No client certificate for a server that requires one.
  auto anonymous = scan("runner-d", pki.ca, false);
  CHECK(anonymous.exit_code == 1);
  CHECK(json::parse(anonymous.out) == expected);
  CHECK_MESSAGE(warnings(anonymous.err) == 1, anonymous.err);
  CHECK(anonymous.err.find("asked for a client certificate") != std::string::npos);

  // Exit 2: TLS flags without a rediss:// backend, half a client identity,
  // files that cannot be read or hold the wrong thing (named).
  const std::string image = (dir / "seed.tar").string();
  const std::string tls_url = redis->Url();
  const std::string missing = (dir / "missing.pem").string();
  auto refused = [&](std::vector<std::string> args, const std::string& named) {
    args.insert(args.begin(), image);
    auto result = RunImagelint(args);
    CHECK_MESSAGE(result.exit_code == 2, result.err);
    CHECK_MESSAGE(result.err.find(named) != std::string::npos, result.err);
  };
  refused({"--redis-ca", pki.ca.string()}, "--redis-ca");
  refused({"--redis-cert", pki.client_cert.string(), "--redis-key", pki.client_key.string()}, "--redis-cert");
  refused({"--cache-backend", "redis://127.0.0.1:1", "--redis-key", pki.client_key.string()}, "rediss://");
  refused({"--cache-backend", tls_url, "--redis-cert", pki.client_cert.string()}, "go together");
  refused({"--cache-backend", tls_url, "--redis-ca", missing}, missing);
  refused({"--cache-backend", tls_url, "--redis-cert", pki.client_cert.string(), "--redis-key", pki.ca.string()},
          pki.ca.string());
}

// --baseline: a fleet change (a GeForce pool added: IL003 new on it), the
// same report again (nothing new: --fail-on-new passes an image that fails),
// and an image change (compat removed: IL003 fixed), in every format.
TEST_CASE("scan --baseline: new, unchanged and fixed findings; --fail-on-new gates new ones only") {
  if (!NeedExternal("NVIDIA packages", HaveDebs(), "genuine libcuda/libcudart (scripts/fetch-nvidia-debs.sh)")) return;
  TempDir dir;
  WriteFileText(dir / "fleet.yaml", kSeedFleet);
  WriteFileText(dir / "a100-only.yaml", R"(pools:
  - name: a100-460
    gpu: NVIDIA A100-SXM4-40GB
    driver: "460.32.03"
    container_toolkit: "1.4.0"
    runtime: docker-gpus
)");
  const std::string image = (dir / "app.tar").string();
  imagelint::testing::WriteImage(SeedImage(), ImageKind::kDockerArchive, dir / "app.tar");
  auto scan = [&](const std::string& fleet, std::vector<std::string> extra) {
    std::vector<std::string> args = {image, "--fleet", (dir / fleet).string(), "--no-cache"};
    args.insert(args.end(), extra.begin(), extra.end());
    return RunImagelint(args);
  };
  auto before = scan("a100-only.yaml", {"-f", "json=" + (dir / "before.json").string()});
  REQUIRE_MESSAGE(before.exit_code <= 1, before.err);

  // The fleet change: which images break if the GeForce pool joins?
  auto rolled = scan("fleet.yaml", {"--baseline", (dir / "before.json").string(), "-f", "json", "--fail-on-new"});
  CHECK_MESSAGE(rolled.exit_code == 1, rolled.err);
  json report = json::parse(rolled.out);
  bool il003_new = false;
  for (const auto& finding : report["images"][0]["findings"]) {
    CHECK(finding.contains("baseline_state"));
    if (finding["rule"] == "IL003") {
      il003_new = finding["baseline_state"] == "new";
      CHECK(finding["pools"] == json::array({"rtx3090-460"}));
    }
  }
  CHECK(il003_new);
  CHECK(report["summary"]["baseline"]["new"].get<int>() >= 1);
  CHECK(report["summary"]["baseline"]["unmatched_images"] == 0);
  // In Markdown and HTML a new finding is marked too.
  scan("fleet.yaml", {"--baseline", (dir / "before.json").string(), "-f", "markdown=" + (dir / "n.md").string(), "-f",
                      "html=" + (dir / "n.html").string()});
  CHECK(imagelint::testing::ReadFileText(dir / "n.md").find("new since the baseline") != std::string::npos);
  CHECK(imagelint::testing::ReadFileText(dir / "n.html").find("new since the baseline") != std::string::npos);

  WriteFileText(dir / "after.json", rolled.out);
  auto valid = RunCommand({"python3", (imagelint::testing::SourceDir() / "tests/support/validate_json_schema.py").string(),
                           (imagelint::testing::SourceDir() / "docs/report-schema.json").string(),
                           (dir / "after.json").string()});
  CHECK_MESSAGE(valid.exit_code == 0, valid.out << valid.err);

  // Nothing new since that report: --fail-on-new passes, the plain gate still fails.
  auto again = scan("fleet.yaml", {"--baseline", (dir / "after.json").string(), "--fail-on-new"});
  CHECK_MESSAGE(again.exit_code == 0, again.out << again.err);
  CHECK(again.out.find("since the baseline: 0 new") != std::string::npos);
  CHECK(scan("fleet.yaml", {"--baseline", (dir / "after.json").string()}).exit_code == 1);

  // The image change: compat deleted in a later layer, IL003 fixed.
  TestImage fixed = SeedImage();
  fixed.Layer().Whiteout("usr/local/cuda-11.3/compat");
  imagelint::testing::WriteImage(fixed, ImageKind::kDockerArchive, dir / "app.tar");
  auto repaired = scan("fleet.yaml", {"--baseline", (dir / "after.json").string(), "-f", "text", "-f",
                                      "json=" + (dir / "r.json").string(), "-f", "sarif=" + (dir / "r.sarif").string(),
                                      "-f", "markdown=" + (dir / "r.md").string(), "-f",
                                      "html=" + (dir / "r.html").string()});
  CHECK_MESSAGE(repaired.exit_code == 0, repaired.err);
  CHECK(repaired.out.find("Fixed since the baseline") != std::string::npos);
  json after = json::parse(imagelint::testing::ReadFileText(dir / "r.json"));
  bool il003_fixed = false;
  for (const auto& finding : after["images"][0]["fixed"]) il003_fixed |= finding["rule"] == "IL003";
  CHECK(il003_fixed);
  json sarif = json::parse(imagelint::testing::ReadFileText(dir / "r.sarif"));
  bool absent = false;
  for (const auto& result : sarif["runs"][0]["results"]) {
    CHECK(result.contains("baselineState"));
    absent |= result["ruleId"] == "IL003" && result["baselineState"] == "absent";
  }
  CHECK(absent);
  CHECK(imagelint::testing::ReadFileText(dir / "r.md").find("Fixed since the baseline") != std::string::npos);
  CHECK(imagelint::testing::ReadFileText(dir / "r.html").find("fixed since the baseline") != std::string::npos);
  // Not a report, or --fail-on-new alone: exit 2.
  CHECK(scan("fleet.yaml", {"--baseline", (dir / "fleet.yaml").string()}).exit_code == 2);
  CHECK(scan("fleet.yaml", {"--fail-on-new"}).exit_code == 2);
}
