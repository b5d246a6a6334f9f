// fuzz_seeds DIR: writes the seed corpora of every fuzz target under DIR.
// The fixture writers it shares with the tests report through doctest; this
// program has its own main, so it carries doctest's implementation itself
// (the test support library's doctest_main is then not linked in).
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <exception>

#include "fuzz/seeds.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: fuzz_seeds DIR\n");
    return 2;
  }
  try {
    size_t written = imagelint::fuzz::WriteSeeds(argv[1]);
    std::printf("%zu seeds written under %s\n", written, argv[1]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz_seeds: %s\n", e.what());
    return 2;
  }
  return 0;
}
