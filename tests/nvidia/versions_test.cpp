// Version helpers.
#include "common.h"

using imagelint::nvidia::CompareToolkitVersions;
using imagelint::nvidia::CompareVersions;
using imagelint::nvidia::DriverBranch;
using imagelint::nvidia::MajorMinor;

TEST_CASE("driver and CUDA versions compare numerically") {
  CHECK(CompareVersions("470.256.02", "470.57.02") == std::optional<int>(1));
  CHECK(CompareVersions("470.57.02", "470") == std::optional<int>(1));
  CHECK(CompareVersions("12", "12.0.0") == std::optional<int>(0));
  CHECK(CompareVersions("535.104.05", "535.104.5") == std::optional<int>(0));
  CHECK(CompareVersions("11.8.89", "11.10") == std::optional<int>(-1));
  CHECK(CompareVersions("99.55.66", "222.88.99") == std::optional<int>(-1));  // numeric, not lexical
  CHECK_FALSE(CompareVersions("12.x", "12").has_value());
  CHECK_FALSE(CompareVersions("", "12").has_value());
  CHECK_FALSE(CompareVersions("1..2", "1").has_value());
  CHECK_FALSE(CompareVersions("99999999999999999999999", "1").has_value());
}

TEST_CASE("container-toolkit versions") {
  CHECK(CompareToolkitVersions("1.17.4", "1.17.3") == std::optional<int>(1));
  CHECK(CompareToolkitVersions("v1.18.0", "1.18.0") == std::optional<int>(0));
  CHECK(CompareToolkitVersions("1.18.0-rc.1", "1.18.0") == std::optional<int>(-1));
  CHECK(CompareToolkitVersions("1.19.0-rc.10", "1.19.0-rc.9") == std::optional<int>(1));
  CHECK(CompareToolkitVersions("1.9.0", "1.10.0") == std::optional<int>(-1));
  CHECK_FALSE(CompareToolkitVersions("latest", "1.0").has_value());
}

TEST_CASE("branch and major.minor") {
  CHECK(DriverBranch("460.67") == std::optional<int>(460));
  CHECK(DriverBranch("580") == std::optional<int>(580));
  CHECK_FALSE(DriverBranch("r460").has_value());
  CHECK(MajorMinor("11.8.89") == std::optional<std::string>("11.8"));
  CHECK(MajorMinor("12") == std::optional<std::string>("12.0"));
  CHECK_FALSE(MajorMinor("12.x").has_value());
}
