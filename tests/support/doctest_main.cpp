// doctest's main, ending with kSkipExitCode when checks were skipped for a
// missing external tool and nothing failed (test_support.h NeedExternal), so
// that ctest's summary shows the test as skipped, not passed.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include "support/test_support.h"

int main(int argc, char** argv) {
  doctest::Context context(argc, argv);
  int result = context.run();
  if (context.shouldExit()) return result;  // --help, --list-test-cases, ...
  return imagelint::testing::ExitStatusAfterRun(result);
}
