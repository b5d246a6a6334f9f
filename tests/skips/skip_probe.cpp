// A test executable for skip_policy_test.cpp: one check that needs an
// external "tool" present when PROBE_HAVE_TOOL=1, and one that fails when
// PROBE_FAIL=1.
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>

#include "support/test_support.h"

using namespace imagelint::testing;

namespace {
bool Set(const char* name) {
  const char* value = std::getenv(name);
  return value && std::string(value) == "1";
}
}  // namespace

TEST_CASE("needs the probe tool") {
  if (!NeedExternal("probe-tool", Set("PROBE_HAVE_TOOL"), "the skip policy's probe")) return;
  CHECK(true);
}

TEST_CASE("fails on request") { CHECK_FALSE(Set("PROBE_FAIL")); }
