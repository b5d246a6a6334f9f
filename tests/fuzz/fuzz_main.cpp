// libFuzzer driver of one target, chosen at build time (IMAGELINT_FUZZ_TARGET).
#include <cstdio>
#include <cstdlib>

#include "fuzz/targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const imagelint::fuzz::Target* target = [] {
    const auto* found = imagelint::fuzz::FindTarget(IMAGELINT_FUZZ_TARGET);
    if (!found) {
      std::fprintf(stderr, "no fuzz target %s\n", IMAGELINT_FUZZ_TARGET);
      std::abort();
    }
    return found;
  }();
  return target->run(data, size);
}
