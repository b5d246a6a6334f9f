// Driver <-> runtime compatibility: backward, minor-version floors, forward
// compatibility through the matrix, and the error each failure predicts.
#include "common.h"

using imagelint::nvidia::CheckDriverCompat;
using imagelint::nvidia::CompatSupportsBranch;
using imagelint::nvidia::ForwardCompatEligible;
using imagelint::nvidia::LibcudaSelection;
using nvtest::K;
using nvtest::MakePool;

namespace {
LibcudaSelection Host(const std::string& driver) {
  LibcudaSelection s;
  s.kind = "host";
  s.version = driver;
  return s;
}
LibcudaSelection Compat(const std::string& version, const std::string& toolkit_dir) {
  LibcudaSelection s;
  s.kind = "compat";
  s.version = version;
  s.path = "/usr/local/cuda-" + toolkit_dir + "/compat/libcuda.so." + version;
  s.toolkit_dir = toolkit_dir;
  return s;
}
}  // namespace

TEST_CASE("backward and minor-version compatibility with the host libcuda") {
  struct Case {
    const char* runtime;
    const char* driver;
    bool ok;
    const char* mode;
    int error;
  };
  const Case cases[] = {
      {"10.2.89", "460.32.03", true, "native", 0},          // worked example 4: plain backward compatibility
      {"11.2.152", "460.32.03", true, "native", 0},
      {"11.3.109", "460.67", true, "minor-version", 0},     // >= 450.80.02
      {"11.8.89", "450.80.02", true, "minor-version", 0},   // exactly the floor
      {"11.0.221", "450.51.06", true, "native", 0},         // R450 natively supports 11.0
      {"11.1.74", "450.51.06", false, "none", 35},          // below the 11.x floor
      {"11.2.152", "440.64", false, "none", 35},            // worked example 5: 440 nodes
      {"10.2.89", "418.87.01", false, "none", 35},          // 10.x has no minor-version compatibility
      {"12.4.127", "525.60.13", true, "minor-version", 0},
      {"12.4.127", "470.182.03", false, "none", 35},
      {"12.9.79", "575.57.08", true, "native", 0},
      {"12.9.79", "580.65.06", true, "native", 0},
      {"13.2.51", "580.126.09", true, "minor-version", 0},  // nvbandwidth #61's host (PTX is the limit)
      {"13.0.48", "575.57.08", false, "none", 35},          // below the 13.x floor 580.65.06
  };
  for (const auto& c : cases) {
    CAPTURE(c.runtime);
    CAPTURE(c.driver);
    auto pool = MakePool("NVIDIA A100-SXM4-80GB", c.driver);
    auto result = CheckDriverCompat(c.runtime, Host(c.driver), pool, K());
    CHECK(result.ok == c.ok);
    CHECK(result.mode == c.mode);
    CHECK(result.error == c.error);
    if (c.error == 35) CHECK(result.error_name == "cudaErrorInsufficientDriver");
  }
  auto pool = MakePool("NVIDIA A100-SXM4-80GB", "440.64");
  auto msg = CheckDriverCompat("11.2.152", Host("440.64"), pool, K()).message;
  CHECK(msg.find(">= 460.27.03") != std::string::npos);
  CHECK(msg.find("450.80.02") != std::string::npos);
}

TEST_CASE("forward compatibility: eligibility, matrix and notes") {
  SUBCASE("eligible data-center GPU on a supported LTS branch") {
    auto pool = MakePool("NVIDIA H100 80GB HBM3", "535.104.05");
    auto result = CheckDriverCompat("12.8.90", Compat("570.124.06", "12.8"), pool, K());
    CHECK(result.ok);
    CHECK(result.mode == "forward-compat");
    CHECK(result.certain);
  }
  SUBCASE("branch not in the official matrix (end of life) -> 803") {
    auto pool = MakePool("NVIDIA H100 80GB HBM3", "550.54.15");
    auto result = CheckDriverCompat("12.8.90", Compat("570.124.06", "12.8"), pool, K());
    CHECK(result.error == 803);
    CHECK(result.message.find("end of life") != std::string::npos);
    CHECK_FALSE(result.certain);  // older matrix editions may have listed it
  }
  SUBCASE("an older compat library than the kernel driver -> 803, certain") {
    auto pool = MakePool("NVIDIA H100 80GB HBM3", "580.95.05");
    auto result = CheckDriverCompat("12.9.79", Compat("575.57.08", "12.9"), pool, K());
    CHECK(result.error == 803);
    CHECK(result.certain);
  }
  SUBCASE("new feature branch R610 is doubtful for 13.4") {
    CHECK(CompatSupportsBranch("13.4", 610, K()) == std::optional<bool>(true));
    CHECK(CompatSupportsBranch("13.2", 610, K()) == std::optional<bool>(false));
    CHECK(CompatSupportsBranch("12.9", 580, K()) == std::optional<bool>(false));
    CHECK_FALSE(CompatSupportsBranch("9.2", 396, K()).has_value());
  }
  SUBCASE("compat package too old for the runtime -> 35 even with forward compatibility") {
    auto pool = MakePool("NVIDIA A100-SXM4-80GB", "470.57.02");
    auto result = CheckDriverCompat("12.4.127", Compat("515.43.04", "11.7"), pool, K());
    CHECK(result.error == 35);
  }
  SUBCASE("unknown eligibility (NGC-Server-Ready RTX) -> 804, uncertain") {
    auto pool = MakePool("NVIDIA RTX A6000", "535.104.05");
    auto result = CheckDriverCompat("12.8.90", Compat("570.124.06", "12.8"), pool, K());
    CHECK(result.error == 804);
    CHECK_FALSE(result.certain);
    pool.datacenter = true;  // the fleet file says it is an NGC-ready SKU
    CHECK(CheckDriverCompat("12.8.90", Compat("570.124.06", "12.8"), pool, K()).ok);
  }
  SUBCASE("eligibility from brand when the product is unknown") {
    imagelint::Pool pool;
    pool.driver = "535.104.05";
    pool.brand = "geforce";
    CHECK(ForwardCompatEligible(pool, K()) == std::optional<bool>(false));
    pool.brand = "tesla";
    CHECK_FALSE(ForwardCompatEligible(pool, K()).has_value());
    CHECK(ForwardCompatEligible(MakePool("Jetson AGX Orin", "540.4.0"), K()) == std::optional<bool>(true));
  }
  SUBCASE("worked example 3: compat 510.108.03 on kernel 470.182.03 on a workstation GPU -> 804") {
    auto pool = MakePool("NVIDIA GeForce RTX 3080", "470.182.03");
    CHECK(CheckDriverCompat("11.6.55", Compat("510.108.03", "11.6"), pool, K()).error == 804);
    // relinked to the host library: 11.6 runs through minor-version compatibility
    auto relinked = CheckDriverCompat("11.6.55", Host("470.182.03"), pool, K());
    CHECK(relinked.ok);
    CHECK(relinked.mode == "minor-version");
  }
  SUBCASE("no runtime known: only cuInit is judged") {
    auto pool = MakePool("Tesla T4", "470.57.02");
    CHECK(CheckDriverCompat("", Host("470.57.02"), pool, K()).ok);
  }
}

// What CUDA returned on an H100 with driver 580.159.04 (docs/VALIDATION.md,
// batches 1 and 2): a program linked to one libcudart with an older
// user-mode libcuda from the image first on the loader path.
TEST_CASE("an image's libcuda older than the kernel module: the first error CUDA returns") {
  struct Case {
    const char* scenario;
    const char* runtime;
    const char* libcuda;
    int error;
  };
  const Case cases[] = {
      {"G1", "12.4.127", "550.163.01", 803},
      {"G2", "13.0.96", "550.163.01", 35},   // cudart 13.0 checks the loaded libcuda (12.4) first
      {"G3", "12.4.127", "535.216.03", 803},  // 12.x minor-version compatibility holds, then cuInit
      {"K1", "11.2.152", "460.106.00", 803},
      {"K2", "11.2.152", "450.248.02", 100},  // an R450 library reports no device
      {"K4", "12.4.127", "470.256.02", 35},   // below 12.x's minor-version floor
      {"K5", "11.8.89", "470.256.02", 803},   // 11.x minor-version compatibility holds
  };
  auto pool = MakePool("NVIDIA H100 80GB HBM3", "580.159.04", "", "cdi");
  for (const auto& c : cases) {
    CAPTURE(c.scenario);
    LibcudaSelection copy = Compat(c.libcuda, "12.4");
    copy.via = "LD_LIBRARY_PATH";
    auto result = CheckDriverCompat(c.runtime, copy, pool, K());
    CHECK(result.error == c.error);
    CHECK_FALSE(result.ok);
  }
}

TEST_CASE("a libcuda copy whose own NEEDED libraries are missing cannot load: no driver, 35") {
  auto pool = MakePool("NVIDIA H100 80GB HBM3", "580.159.04", "", "cdi");
  LibcudaSelection copy = Compat("418.226.00", "10.1");
  copy.missing_needed = {"libnvidia-fatbinaryloader.so.418.226.00"};
  for (const char* runtime : {"11.2.152", "11.8.89", ""}) {  // K3, K6, and a driver-API program
    CAPTURE(runtime);
    auto result = CheckDriverCompat(runtime, copy, pool, K());
    CHECK(result.error == 35);
    CHECK(result.message.find("libnvidia-fatbinaryloader.so.418.226.00") != std::string::npos);
  }
  // The same copy with its library present is the older-library case (803 via 11.x minor compatibility).
  copy.missing_needed.clear();
  CHECK(CheckDriverCompat("11.2.152", copy, pool, K()).error == 35);  // 11.2 > 10.1 and R418 is below the 11.x floor
}
