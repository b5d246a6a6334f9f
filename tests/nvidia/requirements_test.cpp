// NVIDIA_REQUIRE_* as libnvidia-container's C evaluator (src/cli/dsl.c; it has
// no upstream unit tests, so these vectors are our own, read from the C), the
// upstream vectors of nvidia-container-toolkit for the requirement strings an
// env yields, and the start check per launch path.
#include "common.h"
#include "imagelint/image_env.h"

using imagelint::nvidia::CheckStart;
using imagelint::nvidia::CollectRequirements;
using imagelint::nvidia::EvaluateRequirement;
using imagelint::nvidia::DisableRequireIsTrue;
using imagelint::nvidia::LegacyCudaRequirementVersion;
using imagelint::nvidia::RequirementDevice;
using imagelint::nvidia::RequirementHost;
using nlohmann::json;
using nvtest::K;
using nvtest::MakePool;

namespace {
const std::string kPrefix = "nvidia-container-cli: requirement error: ";
const std::string kSuffix = ", please update your driver to a newer version, or use an earlier cuda container";

RequirementHost Host460() { return RequirementHost{"11.2", "460.67", {RequirementDevice{"8.6", "GeForce"}}}; }

enum Expect { kSat, kUnsat, kInvalid };
void Check(const std::string& requirement, const RequirementHost& host, Expect expect, const std::string& message = "",
           const std::string& lnc = "") {
  CAPTURE(requirement);
  auto result = EvaluateRequirement(requirement, host, imagelint::nvidia::RequirementMessageStyle(lnc, K()));
  CHECK(result.satisfied == (expect == kSat));
  CHECK(result.invalid == (expect == kInvalid));
  if (expect == kInvalid) CHECK(result.message == kPrefix + "invalid expression");
  if (!message.empty()) CHECK(result.message == kPrefix + message);
  if (expect != kSat) CHECK(result.requirement == requirement);
}
}  // namespace

TEST_CASE("C evaluator: OR of space-separated terms, AND of comma-separated factors") {
  auto host = Host460();
  Check("cuda>=11.2", host, kSat);
  Check("cuda>=11.3", host, kUnsat, "unsatisfied condition: cuda>=11.3" + kSuffix);
  // The seed image's requirement on a GeForce R460 host: the bare driver>=450 term admits it.
  Check("cuda>=11.3 brand=tesla,driver>=418,driver<419 brand=tesla,driver>=450,driver<451 driver>=450", host, kSat);
  Check("cuda>=11.3 brand=tesla,driver>=460,driver<461", host, kUnsat, "unsatisfied condition: cuda>=11.3" + kSuffix);
  // The message names the first token of the whole string, not the failing factor.
  Check("brand=tesla,driver>=460 cuda>=11.3", host, kUnsat, "unsatisfied condition: brand=tesla,driver>=460");
  Check("driver>=470 cuda>=11.3", host, kUnsat, "unsatisfied condition: driver>=470");
  // AND binds tighter: (cuda<13.6) OR (cuda>=11.6 AND arch=5.3)
  Check("cuda<13.6 cuda>=11.6,arch=5.3", host, kSat);
  Check("cuda>=11.6,arch=8.6 cuda>13.6", host, kUnsat);
  Check("cuda>=11.0,arch=8.6,brand=geforce,driver>=460", host, kSat);
}

TEST_CASE("C evaluator: empty pieces, short-circuiting and unknown keys") {
  auto host = Host460();
  Check("", host, kSat);
  Check("   ", host, kSat);
  Check("cuda>=99  cuda>=11", host, kSat);     // double space: empty term skipped
  Check(",,cuda>=11,,", host, kSat);           // stray commas skipped
  Check("cuda>=99 ,", host, kUnsat);           // a trailing empty term does not rescue it
  Check(", cuda>=99", host, kSat);             // ...but a leading one is a term whose factors are all true
  Check("foo=bar", host, kInvalid);            // unknown key: invalid (the Go evaluator would skip it)
  Check("cuda>=11.0 foo=bar", host, kSat);     // never reached
  Check("foo=bar cuda>=11.0", host, kInvalid);
  Check("cuda>=12.0,foo=bar", host, kUnsat);   // first factor false stops the term before foo
  Check("cuda>=11.0,foo=bar", host, kInvalid);
  Check("CUDA>=11.0", host, kSat);             // keys are case-insensitive
  Check("Driver>=460,ARCH=8.6,Brand=geforce", host, kSat);
  // The suffix is only added to a first token starting with "cuda>=" (case-sensitive).
  Check("CUDA>=11.3", host, kUnsat, "unsatisfied condition: CUDA>=11.3");
}

TEST_CASE("C evaluator: operator parsing") {
  auto host = Host460();
  Check("cuda==11.2", host, kInvalid);
  Check("cuda=>11.2", host, kInvalid);
  Check("cuda<>11.2", host, kInvalid);
  Check("cuda!!11.2", host, kInvalid);
  Check("cuda<==12", host, kInvalid);
  Check("cuda", host, kInvalid);
  Check("cuda>=", host, kInvalid);
  Check(">=11", host, kInvalid);
  Check("cuda!11.3", host, kSat);    // a lone "!" matches "!=" (strncmp over the run length)
  Check("cuda!11.2", host, kUnsat);
  Check("cuda!=11.3", host, kSat);
  Check("cuda=11.2", host, kSat);
  Check("cuda<11.2", host, kUnsat);
  Check("cuda<=11.2", host, kSat);
  Check("cuda>11.1", host, kSat);
  Check("cuda>11.2", host, kUnsat);
}

TEST_CASE("C evaluator: dsl_compare_version") {
  auto host = Host460();
  Check("driver>=460", host, kSat);
  Check("driver=460.67.0", host, kSat);       // missing trailing components are 0
  Check("driver<460.67.1", host, kSat);
  Check("driver>460.67", host, kUnsat);
  Check("driver=460.067", host, kSat);        // numeric components
  Check("driver<461", host, kSat);
  Check("driver>=470", host, kUnsat);
  Check("cuda=11..2", host, kSat);            // runs of dots are skipped
  Check("cuda=11.2.0.0", host, kSat);
  Check("cuda!=11.2.0", host, kUnsat);
  Check("cuda>=v11", host, kInvalid);
  Check("cuda>=11.x", host, kInvalid);
  Check("cuda>=12.2-rc", host, kInvalid);
  Check("cuda>=.5", host, kInvalid);          // a component with a leading dot
  Check("cuda>=99999999999999999999999", host, kInvalid);  // overflows uintmax_t
  RequirementHost h535{"12.2", "535.104.05", {RequirementDevice{"8.0", "Nvidia"}}};
  Check("driver=535.104.5", h535, kSat);
  Check("driver>=535,driver<536", h535, kSat);
  Check("cuda>=12", h535, kSat);
  Check("cuda=12.2.0", h535, kSat);
  Check("arch>=8.0,arch<9", h535, kSat);
  Check("arch=8", h535, kSat);
}

TEST_CASE("C evaluator: brand rules") {
  auto host = Host460();
  Check("brand=geforce", host, kSat);
  Check("brand=GEFORCE", host, kSat);        // case-insensitive
  Check("brand!=tesla", host, kSat);
  Check("brand=tesla", host, kUnsat, "unsatisfied condition: brand=tesla");
  Check("brand>geforce", host, kInvalid);    // only = and != for strings
  Check("brand>=geforce", host, kInvalid);
}

TEST_CASE("C evaluator: devices - none, several, missing facts") {
  RequirementHost none{"11.2", "460.67", {}};  // NVIDIA_VISIBLE_DEVICES=none: no device selected
  Check("arch>=9.0", none, kSat);
  Check("brand=tesla", none, kSat);
  Check("cuda>=11.3", none, kUnsat);
  Check("brand>tesla", none, kSat);           // no device: the brand check returns true before comparing
  RequirementHost two{"12.2", "535.104.05", {RequirementDevice{"8.6", "GeForce"}, RequirementDevice{"9.0", "Tesla"}}};
  Check("arch>=9.0", two, kUnsat);            // must hold for every selected device
  Check("arch>=8.6", two, kSat);
  Check("brand=tesla brand=geforce", two, kSat);
  RequirementHost missing{"", "", {}};
  Check("cuda>=99,driver>=999", missing, kSat);  // missing facts pass
}

TEST_CASE("C evaluator: message style by libnvidia-container version") {
  auto host = Host460();
  Check("cuda>=11.3 brand=tesla,driver>=460", host, kUnsat, "unsatisfied condition: brand = tesla", "1.0.0");
  Check("cuda>=11.3", host, kUnsat, "unsatisfied condition: cuda >= 11.3", "1.0.3");
  Check("cuda>=11.3", host, kUnsat, "unsatisfied condition: cuda>=11.3", "1.0.5");
  Check("cuda>=11.3", host, kUnsat, "unsatisfied condition: cuda>=11.3" + kSuffix, "1.0.6");
  Check("cuda!11.2", host, kUnsat, "unsatisfied condition: cuda != 11.2", "1.0.0");
}

TEST_CASE("the message style of a libnvidia-container version is container-toolkit.yaml's") {
  using imagelint::nvidia::RequirementMessageStyle;
  CHECK(RequirementMessageStyle("1.0.0", K()) == "factor");
  CHECK(RequirementMessageStyle("0.9.0", K()) == "factor");  // older than every row: the oldest style
  CHECK(RequirementMessageStyle("1.0.5", K()) == "token");
  CHECK(RequirementMessageStyle("1.17.4", K()) == "token-suffix");
  CHECK(RequirementMessageStyle("", K()) == "token-suffix");
  // The style is data: a row saying otherwise changes the answer without C++ changes.
  for (const auto& row : K().Table("container_toolkit"))
    CHECK(RequirementMessageStyle(row.at("version").get<std::string>(), K()) == row.at("lnc_message_style"));
  auto host = Host460();
  CHECK(EvaluateRequirement("cuda>=11.3", host, "token").message == kPrefix + "unsatisfied condition: cuda>=11.3");
  CHECK(EvaluateRequirement("cuda>=11.3", host).message == kPrefix + "unsatisfied condition: cuda>=11.3" + kSuffix);
}

TEST_CASE("NVIDIA_DISABLE_REQUIRE is Go strconv.ParseBool") {
  for (const char* yes : {"1", "t", "T", "TRUE", "true", "True"}) CHECK(DisableRequireIsTrue(std::string_view(yes)));
  for (const char* no : {"", "0", "yes", "y", "on", "TrUe", "false", " true"}) CHECK_FALSE(DisableRequireIsTrue(std::string_view(no)));
}

TEST_CASE("env -> requirement strings (upstream cuda_image_test.go TestGetRequirements)") {
  auto reqs = [](json env) {
    auto r = CollectRequirements(env);
    REQUIRE(r.ok());
    auto v = *r;
    std::sort(v.begin(), v.end());
    return v;
  };
  using V = std::vector<std::string>;
  CHECK(reqs({{"NVIDIA_REQUIRE_JETPACK", "csv-mounts=all"}}) == V{});                        // D1
  CHECK(reqs({{"NVIDIA_REQUIRE_JETPACK_HOST_MOUNTS", "base-only"}}) == V{});                 // D2
  CHECK(reqs({{"NVIDIA_REQUIRE_CUDA", "cuda>=11.6"}}) == V{"cuda>=11.6"});                   // D3
  CHECK(reqs({{"NVIDIA_REQUIRE_CUDA", "cuda>=11.6"}, {"NVIDIA_REQUIRE_BRAND", "brand=tesla"}}) ==
        V{"brand=tesla", "cuda>=11.6"});                                                     // D4
  CHECK(reqs({{"CUDA_VERSION", "11.6"}}) == V{"cuda>=11.6"});                                 // D5
  CHECK(reqs({{"CUDA_VERSION", "11.6"}, {"NVIDIA_REQUIRE_BRAND", "brand=tesla"}}) == V{"brand=tesla", "cuda>=11.6"});  // D6
  CHECK(reqs({{"NVIDIA_REQUIRE_CUDA", "cuda>=11.6"},
              {"NVIDIA_REQUIRE_BRAND", "brand=tesla"},
              {"NVIDIA_DISABLE_REQUIRE", "true"}}) == V{});                                  // D7
  CHECK(reqs({{"CUDA_VERSION", "11.6"}, {"NVIDIA_REQUIRE_BRAND", "brand=tesla"}, {"NVIDIA_DISABLE_REQUIRE", "true"}}) ==
        V{});                                                                                // D8
  // Own: a set NVIDIA_REQUIRE_CUDA makes the image non-legacy; "yes" does not disable.
  CHECK(reqs({{"CUDA_VERSION", "11.6.2"}, {"NVIDIA_REQUIRE_CUDA", "cuda>=11.0"}}) == V{"cuda>=11.0"});
  // An empty NVIDIA_REQUIRE_CUDA is still passed (and is satisfied); the image counts as legacy.
  CHECK(reqs({{"CUDA_VERSION", "11.6.2"}, {"NVIDIA_REQUIRE_CUDA", ""}}) == V{"", "cuda>=11.6"});
  CHECK(reqs({{"NVIDIA_REQUIRE_CUDA", "cuda>=11.6"}, {"NVIDIA_DISABLE_REQUIRE", "yes"}}) == V{"cuda>=11.6"});
  CHECK(reqs(json::array({"NVIDIA_REQUIRE_CUDA=cuda>=12.0", "PATH=/bin"})) == V{"cuda>=12.0"});  // ["K=V"] form
  CHECK_FALSE(CollectRequirements({{"CUDA_VERSION", "9.0.bar"}}).ok());
}

TEST_CASE("CUDA_VERSION -> major.minor for the legacy cuda>= (upstream TestParseMajorMinorVersionValid/Invalid)") {
  CHECK(LegacyCudaRequirementVersion("0") == std::optional<std::string>("0.0"));
  CHECK(LegacyCudaRequirementVersion("8") == std::optional<std::string>("8.0"));
  CHECK(LegacyCudaRequirementVersion("7.5") == std::optional<std::string>("7.5"));
  CHECK(LegacyCudaRequirementVersion("9.0.116") == std::optional<std::string>("9.0"));
  CHECK(LegacyCudaRequirementVersion("4294967295.4294967295.4294967295") == std::optional<std::string>("4294967295.4294967295"));
  CHECK(LegacyCudaRequirementVersion("v11.6") == std::optional<std::string>("11.6"));
  for (const char* bad : {"foo", "foo.5.10", "9.0.116.50", "9.0.116foo", "7.foo", "9.0.bar", "9.4294967296", "9.0.116.",
                          "9..0", "9.", ".5.10", "-9", "+9", "-9.1.116", "-9.-1.-116", ""}) {
    CAPTURE(bad);
    CHECK_FALSE(LegacyCudaRequirementVersion(bad).has_value());
  }
}

namespace {
json EnvFacts(json env) { return {{"image", {{"env", env}}}}; }
}  // namespace

TEST_CASE("requirements of the hook config (upstream container_config_test.go TestGetNvidiaConfig) and device gating on the legacy runtime path") {
  auto pool = MakePool("Tesla T4", "470.57.02", "1.17.3", "nvidia-runtime");
  auto start = [&](json env) { return CheckStart(EnvFacts(env), pool, K()); };
  // F1/F2: no env -> not a GPU container
  CHECK_FALSE(start(json::object()).gpu_container);
  // F3/F4: legacy image -> all devices, cuda>=9.0
  auto f3 = start({{"CUDA_VERSION", "9.0"}});
  CHECK(f3.gpu_container);
  CHECK(f3.requirements == std::vector<std::string>{"cuda>=9.0"});
  CHECK(start({{"CUDA_VERSION", "9.0"}, {"NVIDIA_VISIBLE_DEVICES", "all"}}).requirements ==
        std::vector<std::string>{"cuda>=9.0"});
  CHECK_FALSE(start({{"CUDA_VERSION", "9.0"}, {"NVIDIA_VISIBLE_DEVICES", ""}}).gpu_container);      // F5
  CHECK_FALSE(start({{"CUDA_VERSION", "9.0"}, {"NVIDIA_VISIBLE_DEVICES", "void"}}).gpu_container);  // F6
  auto f7 = start({{"CUDA_VERSION", "9.0"}, {"NVIDIA_VISIBLE_DEVICES", "none"}});                    // F7
  CHECK(f7.gpu_container);
  CHECK(f7.requirements == std::vector<std::string>{"cuda>=9.0"});
  auto f12 = start({{"CUDA_VERSION", "9.0"},
                    {"NVIDIA_VISIBLE_DEVICES", "gpu0,gpu1"},
                    {"NVIDIA_REQUIRE_REQ0", "req0=true"},
                    {"NVIDIA_REQUIRE_REQ1", "req1=false"}});
  // F12 (order: variables by name, the legacy cuda>= last; the runtime's own order is random)
  CHECK(f12.requirements == std::vector<std::string>{"req0=true", "req1=false", "cuda>=9.0"});
  CHECK_FALSE(f12.satisfied);  // the C evaluator rejects the unknown keys
  CHECK(f12.message == kPrefix + "invalid expression");
  auto f13 = start({{"CUDA_VERSION", "9.0"}, {"NVIDIA_VISIBLE_DEVICES", "gpu0,gpu1"}, {"NVIDIA_REQUIRE_REQ0", "req0=true"},
                    {"NVIDIA_DISABLE_REQUIRE", "true"}});
  CHECK(f13.requirements.empty());  // F13
  CHECK(f13.satisfied);
  CHECK_FALSE(start({{"NVIDIA_REQUIRE_CUDA", "cuda>=9.0"}}).gpu_container);                              // F14
  CHECK_FALSE(start({{"CUDA_VERSION", "9.0"}, {"NVIDIA_REQUIRE_CUDA", "cuda>=9.0"}}).gpu_container);     // F15
  CHECK(start({{"NVIDIA_REQUIRE_CUDA", "cuda>=9.0"}, {"NVIDIA_VISIBLE_DEVICES", "all"}}).requirements ==
        std::vector<std::string>{"cuda>=9.0"});                                                        // F16
  CHECK(start({{"NVIDIA_VISIBLE_DEVICES", "all"}}).requirements.empty());                              // F26
}

TEST_CASE("start check per launch path and toolkit version (container-toolkit.yaml)") {
  json seed_env = {{"CUDA_VERSION", "11.3.0"},
                   {"NVIDIA_REQUIRE_CUDA",
                    "cuda>=11.3 brand=tesla,driver>=418,driver<419 brand=tesla,driver>=450,driver<451 driver>=450"}};
  json strict_env = {{"CUDA_VERSION", "12.4.1"},
                     {"NVIDIA_VISIBLE_DEVICES", "all"},
                     {"NVIDIA_REQUIRE_CUDA", "cuda>=12.4 brand=tesla,driver>=470,driver<471 brand=geforce,driver>=535,driver<536"}};
  SUBCASE("docker --gpus always checks") {
    auto pool = MakePool("NVIDIA GeForce RTX 3090", "460.67", "1.4.0");
    auto seed = CheckStart(EnvFacts(seed_env), pool, K());
    CHECK(seed.checked);
    CHECK(seed.satisfied);
    auto strict = CheckStart(EnvFacts(strict_env), pool, K());
    CHECK_FALSE(strict.satisfied);
    CHECK(strict.message == kPrefix + "unsatisfied condition: cuda>=12.4" + kSuffix);
    auto newest = CheckStart(EnvFacts(strict_env), MakePool("NVIDIA GeForce RTX 3090", "460.67", "1.20.0"), K());
    CHECK(newest.checked);
    CHECK_FALSE(newest.satisfied);
  }
  SUBCASE("brand clauses admit an older branch") {
    auto pool = MakePool("NVIDIA GeForce RTX 3090", "535.104.05", "1.17.7");
    CHECK(CheckStart(EnvFacts(strict_env), pool, K()).satisfied);
  }
  SUBCASE("--runtime=nvidia: legacy before 1.18.0, jit-cdi (no check) after") {
    auto old_pool = MakePool("NVIDIA GeForce RTX 3090", "460.67", "1.17.8", "nvidia-runtime");
    auto old_check = CheckStart(EnvFacts(strict_env), old_pool, K());
    CHECK(old_check.checked);
    CHECK_FALSE(old_check.satisfied);
    auto new_pool = MakePool("NVIDIA GeForce RTX 3090", "460.67", "1.18.0", "nvidia-runtime");
    auto new_check = CheckStart(EnvFacts(strict_env), new_pool, K());
    CHECK_FALSE(new_check.checked);
    CHECK(new_check.satisfied);
    CHECK(new_check.path.mode == "jit-cdi");
  }
  SUBCASE("CDI never checks; host disable-require skips") {
    CHECK_FALSE(CheckStart(EnvFacts(strict_env), MakePool("NVIDIA GeForce RTX 3090", "460.67", "1.17.0", "cdi"), K()).checked);
    auto pool = MakePool("NVIDIA GeForce RTX 3090", "460.67", "1.4.0");
    pool.disable_require = true;
    auto check = CheckStart(EnvFacts(strict_env), pool, K());
    CHECK(check.satisfied);
    CHECK(check.disabled);
  }
  SUBCASE("brands beyond GeForce/TITAN read Unknown before LNC 1.9.0") {
    json env = {{"NVIDIA_REQUIRE_CUDA", "cuda>=12.0 brand=unknown,driver>=460,driver<461"}};
    auto old_pool = MakePool("NVIDIA A100-PCIE-40GB", "460.32.03", "1.4.0");
    CHECK(CheckStart(EnvFacts(env), old_pool, K()).satisfied);
    auto new_pool = MakePool("NVIDIA A100-PCIE-40GB", "460.32.03", "1.9.0");
    CHECK_FALSE(CheckStart(EnvFacts(env), new_pool, K()).satisfied);
    json nvidia_env = {{"NVIDIA_REQUIRE_CUDA", "cuda>=12.0 brand=nvidia,driver>=460,driver<461"}};
    CHECK(CheckStart(EnvFacts(nvidia_env), new_pool, K()).satisfied);
  }
  SUBCASE("invalid CUDA_VERSION fails the container; 33 requirements are too many") {
    auto pool = MakePool("Tesla T4", "470.57.02", "1.17.3");
    auto bad = CheckStart(EnvFacts({{"CUDA_VERSION", "11.x"}}), pool, K());
    CHECK_FALSE(bad.satisfied);
    CHECK(bad.message.find("failed to get requirements") != std::string::npos);
    json many = json::object();
    for (int i = 0; i < 33; ++i) many["NVIDIA_REQUIRE_X" + std::to_string(100 + i)] = "cuda>=1.0";
    auto too_many = CheckStart(EnvFacts(many), pool, K());
    CHECK_FALSE(too_many.satisfied);
    CHECK(too_many.message == "nvidia-container-cli: input error: too many requirements");
  }
}
