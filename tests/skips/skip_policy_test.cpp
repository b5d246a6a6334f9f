// A check skipped for a missing external tool shows as skipped in ctest's
// summary (exit 77 with SKIP_RETURN_CODE 77 on every doctest test), never as
// a pass; a failure still wins over a skip; in CI (CI=true or
// IMAGELINT_REQUIRE_EXTERNAL=1) the missing tool fails the test.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "support/test_support.h"

using namespace imagelint::testing;
namespace fs = std::filesystem;

namespace {

// The probe outside CI unless `env` says otherwise (later entries win).
CommandResult Probe(const std::vector<std::string>& env) {
  std::vector<std::string> all = {"CI=", "IMAGELINT_REQUIRE_EXTERNAL="};
  all.insert(all.end(), env.begin(), env.end());
  return RunCommand({IMAGELINT_SKIP_PROBE}, "", 60, all);
}

}  // namespace

TEST_CASE("a test executable: 0 when all ran, 77 when a tool was missing, 1 on failure or in CI") {
  auto ran = Probe({"PROBE_HAVE_TOOL=1"});
  CHECK_MESSAGE(ran.exit_code == 0, (ran.out + ran.err));

  auto skipped = Probe({});
  CHECK_MESSAGE(skipped.exit_code == kSkipExitCode, (skipped.out + skipped.err));
  CHECK(skipped.out.find("SKIPPED: probe-tool is not available") != std::string::npos);
  CHECK(skipped.err.find("1 check(s) SKIPPED") != std::string::npos);

  auto failed = Probe({"PROBE_FAIL=1"});
  CHECK_MESSAGE(failed.exit_code == 1, (failed.out + failed.err));

  for (const char* strict : {"CI=true", "IMAGELINT_REQUIRE_EXTERNAL=1"}) {
    CAPTURE(strict);
    auto in_ci = Probe({strict});
    CHECK(in_ci.exit_code == 1);
    CHECK(in_ci.out.find("required in CI but missing: probe-tool") != std::string::npos);
  }
}

TEST_CASE("ctest lists exit 77 as skipped, and every doctest test of the suite says 77 means skipped") {
  if (!NeedExternal("ctest", HaveProgram("ctest"), "runs a one-test ctest directory")) return;
  TempDir dir;
  WriteFileText(dir / "CTestTestfile.cmake",
                std::string("add_test(probe \"") + IMAGELINT_SKIP_PROBE + "\")\n"
                "set_tests_properties(probe PROPERTIES SKIP_RETURN_CODE 77 ENVIRONMENT \"CI=;IMAGELINT_REQUIRE_EXTERNAL=\")\n");
  auto ctest = RunCommand({"ctest", "--test-dir", dir.path().string()}, "", 120);
  CAPTURE(ctest.out);
  CHECK(ctest.exit_code == 0);
  CHECK(ctest.out.find("***Skipped") != std::string::npos);
  CHECK(ctest.out.find("The following tests did not run:") != std::string::npos);

  // The suite's own tests carry the property (imagelint_add_test): all but
  // the layering script and the fuzz targets, which are not doctest programs.
  auto listed = RunCommand({"ctest", "--test-dir", BinaryDir().string(), "--show-only=json-v1"}, "", 120);
  REQUIRE(listed.exit_code == 0);
  auto tests = nlohmann::json::parse(listed.out)["tests"];
  int doctest_tests = 0;
  for (const auto& test : tests) {
    const std::string name = test.value("name", "?");
    if (name.rfind("layering", 0) == 0 || name.rfind("fuzz_", 0) == 0) continue;
    ++doctest_tests;
    bool has_skip_code = false;
    for (const auto& property : test.value("properties", nlohmann::json::array()))
      if (property.value("name", "") == "SKIP_RETURN_CODE" && property["value"] == 77) has_skip_code = true;
    CHECK_MESSAGE(has_skip_code, name);
  }
  CHECK(doctest_tests > 20);
}
