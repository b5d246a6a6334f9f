// A small deterministic mutator for the fuzz targets' seeds, so that the
// normal suite (any compiler, and the ASan+UBSan build that CI runs) drives
// every target over inputs nobody wrote by hand, without libFuzzer.
//
// It is not a coverage-guided fuzzer: it takes the kinds of edits libFuzzer's
// mutators make (bit flips, interesting bytes, erased / duplicated / spliced
// ranges, dictionary tokens) on the generated seeds, from a fixed random seed,
// so a failure reproduces with the same build. The long campaigns run under
// libFuzzer (scripts/fuzz.sh, docs/ROBUSTNESS.md).
#pragma once

#include <cstdint>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

namespace imagelint::fuzz {

// Tokens of a libFuzzer dictionary file (`"text"` or `name="text"` lines,
// with \xNN, \\ and \" escapes). Lines it cannot read are skipped.
std::vector<std::string> ReadDictionary(const std::filesystem::path& file);

class Mutator {
 public:
  Mutator(uint64_t seed, std::vector<std::vector<uint8_t>> seeds, std::vector<std::string> dictionary)
      : random_(seed), seeds_(std::move(seeds)), dictionary_(std::move(dictionary)) {}

  // A new input: one seed with 1 to 8 edits, at most max_size bytes.
  std::vector<uint8_t> Next(size_t max_size);

 private:
  size_t Below(size_t n) { return n == 0 ? 0 : std::uniform_int_distribution<size_t>(0, n - 1)(random_); }
  void Edit(std::vector<uint8_t>& data);

  std::mt19937_64 random_;
  std::vector<std::vector<uint8_t>> seeds_;
  std::vector<std::string> dictionary_;
};

}  // namespace imagelint::fuzz
