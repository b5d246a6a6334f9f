// The upstream unit-test vectors of nvidia-container-toolkit
// (https://github.com/NVIDIA/nvidia-container-toolkit): the Go evaluator of
// CSV/Tegra mode (internal/requirements/constraints), capabilities and
// devices (cmd/nvidia-container-runtime-hook, internal/config/image).
#include "common.h"

using imagelint::nvidia::DriverCapabilities;
using imagelint::nvidia::EvaluateRequirementGo;
using imagelint::nvidia::GoRequirementHost;
using imagelint::nvidia::ParseRequirementGo;
using imagelint::nvidia::VisibleDevices;
using nlohmann::json;

TEST_CASE("Go parse of a single factor (upstream constraints/factory_test.go TestParse)") {
  auto parsed = [](const char* text) { return ParseRequirementGo(text); };
  CHECK(*parsed("") == "");                  // A1 nil
  CHECK_FALSE(parsed("notvalid").ok());      // A2
  CHECK(*parsed("foo=45") == "");            // A3 unsupported property: nil
  CHECK_FALSE(parsed("cuda=foo").ok());      // A4 value not semver
  CHECK(*parsed("cuda>=11.6") == "cuda>=11.6");  // A5
  CHECK(*parsed("cuda>11.6") == "cuda>11.6");    // A6
  CHECK(*parsed("cuda<=11.6") == "cuda<=11.6");  // A7
  CHECK(*parsed("cuda<11.6") == "cuda<11.6");    // A8
  CHECK(*parsed("cuda=11.6") == "cuda=11.6");    // A9
  CHECK(*parsed("cuda!=11.6") == "cuda!=11.6");  // A10
  // Own: "==" leaves "=12" as the value (not semver); leading zeros are invalid for x/mod semver.
  CHECK_FALSE(parsed("cuda==12").ok());
  CHECK_FALSE(parsed("driver>=535.104.05").ok());
  CHECK(*parsed("CUDA>=11.6") == "");  // case-sensitive: unknown, skipped
}

TEST_CASE("Go constraint structure, space = OR, comma = AND (upstream TestNewConstraintFromRequirement)") {
  CHECK(*ParseRequirementGo("") == "");                                                       // B1
  CHECK_FALSE(ParseRequirementGo("notvalid").ok());                                           // B2
  CHECK(*ParseRequirementGo("cuda>=11.6 foo=bar") == "cuda>=11.6");                           // B3
  CHECK(*ParseRequirementGo("cuda>=11.6 arch=5.3") == "OR(cuda>=11.6, arch=5.3)");            // B4
  CHECK(*ParseRequirementGo("cuda>=11.6,arch=5.3") == "AND(cuda>=11.6, arch=5.3)");           // B5
  CHECK(*ParseRequirementGo("cuda<13.6 cuda>=11.6,arch=5.3") == "OR(cuda<13.6, AND(cuda>=11.6, arch=5.3))");  // B6
}

TEST_CASE("logical combinators through requirement strings (upstream logical_test.go)") {
  GoRequirementHost host{"12.0", "8.7"};
  const std::string T = "cuda>=1.0", F = "cuda<1.0";
  auto sat = [&](const std::string& requirement) { return EvaluateRequirementGo(requirement, host).satisfied; };
  CHECK(sat(""));                 // C1: AND() is true (an empty requirement builds nil: nothing to check)
  CHECK(sat(T));                  // C2
  CHECK_FALSE(sat(F));            // C3
  CHECK(sat(T + "," + T));        // C4
  CHECK_FALSE(sat(T + "," + F));  // C5
  CHECK_FALSE(sat(F + "," + T));  // C6
  // C7: OR() is false only when built directly; a requirement string never builds it (OR([]) = nil).
  CHECK(sat(T));                  // C8
  CHECK_FALSE(sat(F));            // C9
  CHECK(sat(T + " " + T));        // C10
  CHECK(sat(T + " " + F));        // C11
  CHECK(sat(F + " " + T));        // C12
}

TEST_CASE("Go evaluator facts and messages (CSV mode: driver and brand never set)") {
  GoRequirementHost host{"12.6", "8.7"};
  auto r = EvaluateRequirementGo("cuda>=12.8", host);
  CHECK_FALSE(r.satisfied);
  CHECK(r.message == "requirements not met: unsatisfied condition: cuda>=12.8 (cuda=12.6)");
  CHECK_FALSE(EvaluateRequirementGo("driver>=500", host).satisfied);
  CHECK_FALSE(EvaluateRequirementGo("brand=tesla", host).satisfied);
  CHECK(EvaluateRequirementGo("brand!=tesla", host).satisfied);
  CHECK(EvaluateRequirementGo("arch>=8.7", host).satisfied);
  CHECK(EvaluateRequirementGo("foo=bar", host).satisfied);  // unknown keys are skipped (C evaluator: invalid)
  auto or_fail = EvaluateRequirementGo("cuda>=12.8 brand=tesla,driver>=535", host);
  CHECK(or_fail.message == "requirements not met: cuda>=12.8||brand=tesla&&driver>=535 not met");
}

TEST_CASE("capability resolution (upstream container_config_test.go TestGetDriverCapabilities)") {
  const std::vector<std::string> supported = {"compute", "display", "utility", "video"};
  using V = std::vector<std::string>;
  auto caps = [&](json env, const std::vector<std::string>& sup) {
    auto r = DriverCapabilities(env, sup);
    REQUIRE(r.ok());
    return *r;
  };
  json legacy = {{"CUDA_VERSION", "11.0"}};
  auto with = [](json env, const char* ndc) {
    env["NVIDIA_DRIVER_CAPABILITIES"] = ndc;
    return env;
  };
  CHECK(caps(with(legacy, "display,video"), supported) == V{"display", "video"});                    // G1
  CHECK(caps(with(legacy, "all"), supported) == V{"compute", "display", "utility", "video"});        // G2
  CHECK(caps(with(legacy, ""), supported) == V{"compute", "utility"});                               // G3
  CHECK(caps(legacy, supported) == V{"compute", "display", "utility", "video"});                     // G4
  json modern = {{"NVIDIA_REQUIRE_CUDA", "cuda>=11.0"}};
  CHECK(caps(with(modern, "display,video"), supported) == V{"display", "video"});                    // G5
  CHECK(caps(modern, supported) == V{"compute", "utility"});                                         // G6
  CHECK(caps(with(modern, "all"), supported) == V{"compute", "display", "utility", "video"});        // G7
  CHECK(caps(with(modern, ""), supported) == V{"compute", "utility"});                               // G8
  CHECK_FALSE(DriverCapabilities(with(modern, "compute,utility"), {"not-compute", "not-utility"}).ok());  // G9
  CHECK(caps(modern, {"compute"}) == V{"compute"});                                                  // G10
}

TEST_CASE("device selection from env, default config, privileged (upstream TestGetDevicesFromEnvvar)") {
  using V = std::vector<std::string>;
  CHECK_FALSE(VisibleDevices(json::object()).has_value());                                       // H1
  CHECK_FALSE(VisibleDevices({{"NVIDIA_VISIBLE_DEVICES", ""}}).has_value());                      // H2
  CHECK_FALSE(VisibleDevices({{"NVIDIA_VISIBLE_DEVICES", "void"}}).has_value());                  // H3
  CHECK(*VisibleDevices({{"NVIDIA_VISIBLE_DEVICES", "none"}}) == V{""});                          // H4
  CHECK(*VisibleDevices({{"NVIDIA_VISIBLE_DEVICES", "GPU-12345"}}) == V{"GPU-12345"});            // H5
  CHECK(*VisibleDevices({{"NVIDIA_VISIBLE_DEVICES", "GPU-12345"}, {"CUDA_VERSION", "legacy"}}) == V{"GPU-12345"});  // H6
  CHECK(*VisibleDevices({{"CUDA_VERSION", "legacy"}}) == V{"all"});                               // H7
  // H8-H14 depend on host config (swarm-resource, volume-mount device lists, unprivileged
  // acceptance) that a fleet file does not describe; the image env alone decides as above.
  CHECK(*VisibleDevices({{"NVIDIA_VISIBLE_DEVICES", "gpu0, gpu1"}}) == V{"gpu0", "gpu1"});
  CHECK(*VisibleDevices({{"NVIDIA_VISIBLE_DEVICES", "0,all"}}) == V{"all"});
}
