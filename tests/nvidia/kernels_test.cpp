// SASS/PTX vs compute capability and PTX JIT by the driver.
#include "common.h"

using imagelint::nvidia::ArchitectureSupportedByDriver;
using imagelint::nvidia::CheckKernels;
using imagelint::nvidia::MaxPtxIsaForDriver;
using imagelint::nvidia::PtxIsaCudaVersion;
using imagelint::nvidia::PtxTargetsCc;
using imagelint::nvidia::SassRunsOn;
using nlohmann::json;
using nvtest::K;

TEST_CASE("SASS compatibility rules") {
  struct Case {
    const char* sass;
    const char* cc;
    bool runs;
  };
  const Case cases[] = {
      {"sm_86", "8.6", true},   {"sm_80", "8.6", true},   {"sm_86", "8.0", false}, {"sm_80", "8.9", true},
      {"sm_80", "9.0", false},  {"sm_75", "8.0", false},  {"sm_70", "7.5", true},  {"sm_90", "9.0", true},
      {"sm_90a", "9.0", true},  {"sm_90a", "10.0", false}, {"sm_100a", "10.3", false}, {"sm_100", "10.3", true},
      {"sm_100f", "10.3", true}, {"sm_100f", "10.0", true}, {"sm_103f", "10.0", false}, {"sm_100f", "12.0", false},
      // integrated exceptions
      {"sm_50", "5.3", false},  {"sm_53", "5.3", true},   {"sm_53", "6.0", false}, {"sm_80", "8.7", false},
      {"sm_86", "8.7", false},  {"sm_87", "8.7", true},   {"sm_87", "8.9", false}, {"sm_60", "6.2", false},
      {"sm_70", "7.2", false},  {"sm_100", "11.0", false}, {"sm_100", "10.1", false}, {"sm_100f", "11.0", false},
      // renamed Thor: 10.1 == 11.0
      {"sm_101", "11.0", true}, {"sm_110", "10.1", true}, {"sm_110a", "11.0", true},
      {"sm_120", "12.1", true}, {"sm_121", "12.0", false}, {"sm_37", "3.5", false}, {"sm_35", "3.7", true},
      // spellings
      {"86", "8.6", true},      {"8.0", "8.6", true},     {"compute_80", "8.0", true}, {"bogus", "8.0", false},
      {"sm_86", "eight", false},
  };
  for (const auto& c : cases) {
    CAPTURE(c.sass);
    CAPTURE(c.cc);
    CHECK(SassRunsOn(c.sass, c.cc, K()) == c.runs);
  }
}

TEST_CASE("PTX targets") {
  CHECK(PtxTargetsCc("compute_80", "8.0"));
  CHECK(PtxTargetsCc("compute_80", "9.0"));
  CHECK(PtxTargetsCc("compute_80", "8.7"));   // JIT works on integrated parts
  CHECK(PtxTargetsCc("compute_50", "12.0"));
  CHECK_FALSE(PtxTargetsCc("compute_90", "8.9"));
  CHECK(PtxTargetsCc("compute_90a", "9.0"));
  CHECK_FALSE(PtxTargetsCc("compute_90a", "10.0"));
  CHECK(PtxTargetsCc("compute_100f", "10.3"));
  CHECK_FALSE(PtxTargetsCc("compute_100f", "12.0"));
}

TEST_CASE("PTX ISA the driver can JIT") {
  CHECK(MaxPtxIsaForDriver("460.67", K()) == std::optional<std::string>("7.2"));
  CHECK(MaxPtxIsaForDriver("470.57.02", K()) == std::optional<std::string>("7.4"));
  CHECK(MaxPtxIsaForDriver("580.126.09", K()) == std::optional<std::string>("9.0"));
  CHECK(MaxPtxIsaForDriver("560.35.03", K()) == std::optional<std::string>("8.5"));
  CHECK(MaxPtxIsaForDriver("471.11", K()) == std::optional<std::string>("7.4"));  // nearest branch below
  CHECK_FALSE(MaxPtxIsaForDriver("300.1", K()).has_value());
  CHECK(PtxIsaCudaVersion("9.2", K()) == std::optional<std::string>("13.2"));
  CHECK(PtxIsaCudaVersion("8.6", K()) == std::optional<std::string>("12.7"));
}

TEST_CASE("kernel coverage of a binary: 209, 222, SASS, PTX JIT") {
  SUBCASE("worked example 4: torch 1.12.1+cu102 on A100 -> 209") {
    json binary = {{"sass", {"sm_37", "sm_50", "sm_60", "sm_70"}}, {"ptx", json::array()}};
    auto result = CheckKernels(binary, "8.0", "460.32.03", K());
    CHECK_FALSE(result.runs);
    CHECK(result.error == 209);
    CHECK(result.error_name == "cudaErrorNoKernelImageForDevice");
  }
  SUBCASE("matching SASS") {
    json binary = {{"sass", {"sm_75", "sm_80", "sm_86", "sm_90"}}};
    auto result = CheckKernels(binary, "8.9", "550.54.15", K());
    CHECK(result.runs);
    CHECK(result.via == "sm_86");
    CHECK_FALSE(result.ptx_only);
  }
  SUBCASE("only PTX, driver new enough") {
    json binary = {{"sass", {"sm_80", "sm_90"}}, {"ptx", {{{"arch", "compute_90"}, {"isa", "8.4"}}}}};
    auto result = CheckKernels(binary, "12.0", "570.124.06", K());
    CHECK(result.runs);
    CHECK(result.ptx_only);
    CHECK(result.via == "compute_90");
  }
  SUBCASE("nvbandwidth #61: CUDA 13.2 PTX on driver 580.126.09 -> 222") {
    json binary = {{"sass", {"sm_90"}}, {"ptx", {{{"arch", "compute_100"}, {"isa", "9.2"}}}}};
    auto result = CheckKernels(binary, "10.0", "580.126.09", K());
    CHECK_FALSE(result.runs);
    CHECK(result.error == 222);
    CHECK(result.error_name == "cudaErrorUnsupportedPtxVersion");
    CHECK(result.message.find("up to 9.0") != std::string::npos);
    // ...the compat libcuda 595.45.04 would JIT it (forward compatibility includes the JIT)
    CHECK(CheckKernels(binary, "10.0", "595.45.04", K()).runs);
  }
  SUBCASE("PTX for a newer CC than the GPU does not help") {
    json binary = {{"ptx", {{{"arch", "compute_90"}, {"isa", "8.0"}}}}};
    CHECK(CheckKernels(binary, "8.6", "535.104.05", K()).error == 209);
  }
  SUBCASE("no GPU code at all") {
    CHECK(CheckKernels(json::object(), "8.6", "535.104.05", K()).runs);
  }
}

TEST_CASE("architecture support by driver branch") {
  CHECK(ArchitectureSupportedByDriver("3.7", "470.182.03", K()) == std::optional<bool>(true));
  CHECK(ArchitectureSupportedByDriver("3.7", "495.29.05", K()) == std::optional<bool>(false));  // Kepler after R470
  CHECK(ArchitectureSupportedByDriver("6.1", "580.95.05", K()) == std::optional<bool>(true));
  CHECK(ArchitectureSupportedByDriver("6.1", "590.44.01", K()) == std::optional<bool>(false));  // Pascal after R580
  CHECK(ArchitectureSupportedByDriver("9.0", "615.1", K()) == std::optional<bool>(true));
  CHECK_FALSE(ArchitectureSupportedByDriver("4.2", "535.1", K()).has_value());
}
