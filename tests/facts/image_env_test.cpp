// src/nvidia/image_env.h: the container toolkit's reading of an image env
// (cases from NVIDIA/nvidia-container-toolkit v1.20.0
// internal/config/image/cuda_image_test.go, TestParseMajorMinorVersion*),
// Go's strconv.ParseBool, and Debian upstream versions.
#include <doctest/doctest.h>

#include "imagelint/image_env.h"

using namespace imagelint;
using namespace imagelint::nvidia;

TEST_CASE("GoParseBool and NVIDIA_DISABLE_REQUIRE: exactly Go's strconv.ParseBool") {
  for (const char* yes : {"1", "t", "T", "TRUE", "true", "True"}) {
    CHECK(GoParseBool(yes) == true);
    CHECK(DisableRequireIsTrue(std::string_view(yes)));
  }
  for (const char* no : {"0", "f", "F", "FALSE", "false", "False"}) {
    CHECK(GoParseBool(no) == false);
    CHECK(!DisableRequireIsTrue(std::string_view(no)));
  }
  // Errors in Go, so false for the toolkit: case variants, words, blanks.
  for (const char* odd : {"", "yes", "on", "tRUE", "tRuE", "TrUe", " true", "true ", "2", "y"}) {
    CHECK(!GoParseBool(odd).has_value());
    CHECK(!DisableRequireIsTrue(std::string_view(odd)));
  }
  CHECK(!DisableRequireIsTrue(std::nullopt));
}

TEST_CASE("legacy CUDA_VERSION -> cuda>=MAJOR.MINOR as the toolkit parses it") {
  // Upstream's valid cases.
  CHECK(LegacyCudaRequirementVersion("0") == "0.0");
  CHECK(LegacyCudaRequirementVersion("8") == "8.0");
  CHECK(LegacyCudaRequirementVersion("7.5") == "7.5");
  CHECK(LegacyCudaRequirementVersion("9.0.116") == "9.0");
  CHECK(LegacyCudaRequirementVersion("4294967295.4294967295.4294967295") == "4294967295.4294967295");
  CHECK(LegacyCudaRequirementVersion("v11.6") == "11.6");
  // Upstream's invalid cases.
  for (const char* invalid : {"foo", "foo.5.10", "9.0.116.50", "9.0.116foo", "7.foo", "9.0.bar", "9.4294967296",
                              "9.0.116.", "9..0", "9.", ".5.10", "-9", "+9", "-9.1.116", "-9.-1.-116"})
    CHECK_MESSAGE(!LegacyCudaRequirementVersion(invalid).has_value(), invalid);
  // The spellings images use.
  CHECK(LegacyCudaRequirementVersion("12") == "12.0");
  CHECK(LegacyCudaRequirementVersion("v12") == "12.0");
  CHECK(LegacyCudaRequirementVersion("12.4.1") == "12.4");
  CHECK(LegacyCudaRequirementVersion("v12.4.1") == "12.4");
  // semver: a prerelease or build only after a full MAJOR.MINOR.PATCH.
  CHECK(LegacyCudaRequirementVersion("12.4.1-rc.1") == "12.4");
  CHECK(LegacyCudaRequirementVersion("12.4.1+build.5") == "12.4");
  CHECK(LegacyCudaRequirementVersion("12.4.1-rc.1+b") == "12.4");
  CHECK(!LegacyCudaRequirementVersion("12.4-rc1").has_value());
  CHECK(!LegacyCudaRequirementVersion("12-rc1").has_value());
  CHECK(!LegacyCudaRequirementVersion("12.4.1-").has_value());
  CHECK(!LegacyCudaRequirementVersion("12.4.1-rc..1").has_value());
  CHECK(!LegacyCudaRequirementVersion("12.4.1-01").has_value());   // leading zero in a numeric prerelease
  CHECK(LegacyCudaRequirementVersion("12.4.1-0a") == "12.4");      // not numeric: allowed
  CHECK(LegacyCudaRequirementVersion("12.4.1+01") == "12.4");      // builds may have leading zeros
  CHECK(!LegacyCudaRequirementVersion("12.4.1+").has_value());
  CHECK(!LegacyCudaRequirementVersion("12.4.1_b").has_value());
  // No leading zeros in numbers, one "v" only, nothing around it.
  CHECK(!LegacyCudaRequirementVersion("11.03").has_value());
  CHECK(!LegacyCudaRequirementVersion("012.4").has_value());
  CHECK(LegacyCudaRequirementVersion("12.0.0") == "12.0");
  CHECK(!LegacyCudaRequirementVersion("vv12").has_value());
  CHECK(!LegacyCudaRequirementVersion("V12").has_value());
  CHECK(!LegacyCudaRequirementVersion(" 12.4").has_value());
  CHECK(!LegacyCudaRequirementVersion("12.4 ").has_value());
  CHECK(!LegacyCudaRequirementVersion("").has_value());
  CHECK(!LegacyCudaRequirementVersion("v").has_value());
  // Only major and minor must fit 32 bits; the patch is any number.
  CHECK(LegacyCudaRequirementVersion("12.4.99999999999999999999") == "12.4");
  CHECK(!LegacyCudaRequirementVersion("4294967296").has_value());
  CHECK(!LegacyCudaRequirementVersion(std::string(100000, '9')).has_value());
}

TEST_CASE("IsLegacyCudaImage: CUDA_VERSION set, NVIDIA_REQUIRE_CUDA empty or unset") {
  CHECK(IsLegacyCudaImage("10.2", ""));
  CHECK(!IsLegacyCudaImage("10.2", "cuda>=10.2"));
  CHECK(!IsLegacyCudaImage("", ""));
  CHECK(!IsLegacyCudaImage("", "cuda>=10.2"));
}

TEST_CASE("PackageUpstreamVersion drops epoch, revision and ~/+ suffixes") {
  CHECK(PackageUpstreamVersion("12.4.127-1") == "12.4.127");
  CHECK(PackageUpstreamVersion("1:550.54.15-1") == "550.54.15");
  CHECK(PackageUpstreamVersion("11.2.152~11.2.2-3+deb11u3") == "11.2.152");
  CHECK(PackageUpstreamVersion("11.8.89~11.8.0-5~deb12u1") == "11.8.89");
  CHECK(PackageUpstreamVersion("8.6.1.6-1+cuda12.0") == "8.6.1.6");
  CHECK(PackageUpstreamVersion("470.256.02-1~deb11u1") == "470.256.02");
  CHECK(PackageUpstreamVersion("10.1.243+dfsg-1") == "10.1.243");
  CHECK(PackageUpstreamVersion("550.163.01") == "550.163.01");
  // The revision is after the LAST hyphen: hyphens inside upstream stay.
  CHECK(PackageUpstreamVersion("2:1.0-beta-3") == "1.0-beta");
  CHECK(PackageUpstreamVersion("") == "");
  CHECK(PackageUpstreamVersion("1:") == "");
}

TEST_CASE("RequirementsFromEnv: what cuda.requirements says for an env") {
  auto requirements = RequirementsFromEnv({{"PATH", "/usr/bin"},
                                           {"CUDA_VERSION", "12.4.1"},
                                           {"NVIDIA_REQUIRE_CUDA", "cuda>=12.4 brand=tesla,driver>=470,driver<471"},
                                           {"NVIDIA_REQUIRE_JETPACK", "csv-mounts=all"},
                                           {"NV_CUDA_CUDART_VERSION", "12.4.127-1"},
                                           {"NVARCH", "x86_64"},
                                           {"NVIDIA_VISIBLE_DEVICES", "all"}});
  CHECK(requirements.variables ==
        std::map<std::string, std::string>{{"CUDA_VERSION", "12.4.1"},
                                           {"NVIDIA_REQUIRE_CUDA", "cuda>=12.4 brand=tesla,driver>=470,driver<471"},
                                           {"NVIDIA_REQUIRE_JETPACK", "csv-mounts=all"},
                                           {"NV_CUDA_CUDART_VERSION", "12.4.127-1"},
                                           {"NVARCH", "x86_64"},
                                           {"NVIDIA_VISIBLE_DEVICES", "all"}});
  CHECK(!requirements.disabled);
  CHECK(requirements.legacy == false);
  CHECK(!requirements.legacy_cuda_version);
  CHECK(!requirements.legacy_cuda_version_invalid);

  auto legacy = RequirementsFromEnv({{"CUDA_VERSION", "v12"}, {"NVIDIA_DISABLE_REQUIRE", "True"}});
  CHECK(legacy.disabled);
  CHECK(legacy.legacy == true);
  CHECK(legacy.legacy_cuda_version == "12.0");
  auto invalid = RequirementsFromEnv({{"CUDA_VERSION", "11.03"}, {"NVIDIA_REQUIRE_CUDA", ""},
                                      {"NVIDIA_DISABLE_REQUIRE", "yes"}});
  CHECK(!invalid.disabled);
  CHECK(invalid.legacy == true);
  CHECK(!invalid.legacy_cuda_version);
  CHECK(invalid.legacy_cuda_version_invalid == true);
  CHECK(invalid.variables.at("NVIDIA_REQUIRE_CUDA") == "");
}
