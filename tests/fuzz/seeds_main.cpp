// fuzz_seeds DIR: writes the seed corpora of every fuzz target under DIR.
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
