// Fatbin/ELF scan benchmark: streams a file through the cuda.elf analyzer the
// way the layer scanner does (fixed-size chunks), against reading the same
// bytes without analysis. See docs/PERFORMANCE.md (fatbin section).
//
//   bench_fatbin FILE [--chunk BYTES] [--repeat N] [--json]
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "cuda/elf.h"

namespace {

double Seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE [--chunk BYTES] [--repeat N] [--json]\n", argv[0]);
    return 2;
  }
  std::string path = argv[1];
  size_t chunk = 1 << 20;
  int repeat = 3;
  bool print_json = false;
  for (int i = 2; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--chunk") && i + 1 < argc) chunk = std::stoul(argv[++i]);
    else if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc) repeat = std::stoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--json")) print_json = true;
  }
  std::vector<uint8_t> buffer(chunk);
  double best_read = 1e9, best_scan = 1e9;
  nlohmann::json result;
  uint64_t size = 0;
  for (int round = 0; round < repeat; ++round) {
    {
      std::ifstream in(path, std::ios::binary);
      if (!in) {
        std::fprintf(stderr, "cannot open %s\n", path.c_str());
        return 2;
      }
      auto start = std::chrono::steady_clock::now();
      uint64_t sum = 0;
      size = 0;
      while (in.read(reinterpret_cast<char*>(buffer.data()), buffer.size()) || in.gcount() > 0) {
        size += in.gcount();
        sum += buffer[0];
      }
      best_read = std::min(best_read, Seconds(start));
      if (sum == 42) std::puts("");  // keep the loop
    }
    {
      std::ifstream in(path, std::ios::binary);
      auto start = std::chrono::steady_clock::now();
      imagelint::cuda::ElfScanner scanner(path, size);
      while (in.read(reinterpret_cast<char*>(buffer.data()), buffer.size()) || in.gcount() > 0)
        scanner.Consume(std::span<const uint8_t>(buffer.data(), static_cast<size_t>(in.gcount())));
      result = scanner.Finish(true);
      best_scan = std::min(best_scan, Seconds(start));
    }
  }
  // Analysis alone: the file in memory, fed in the same chunks (no I/O).
  double best_memory = 1e9;
  {
    std::ifstream in(path, std::ios::binary);
    std::vector<uint8_t> whole(size);
    in.read(reinterpret_cast<char*>(whole.data()), static_cast<std::streamsize>(size));
    for (int round = 0; round < repeat; ++round) {
      auto start = std::chrono::steady_clock::now();
      imagelint::cuda::ElfScanner scanner(path, size);
      for (uint64_t at = 0; at < size; at += chunk)
        scanner.Consume(std::span<const uint8_t>(whole.data() + at, std::min<uint64_t>(chunk, size - at)));
      nlohmann::json again = scanner.Finish(true);
      best_memory = std::min(best_memory, Seconds(start));
      if (again != result) std::fprintf(stderr, "in-memory result differs!\n");
    }
  }
  if (print_json) std::cout << result.dump(2) << "\n";
  std::printf("file: %s (%.1f MiB)\n", path.c_str(), size / 1048576.0);
  std::printf("read only:      %.3f s (%.0f MiB/s)\n", best_read, size / 1048576.0 / best_read);
  std::printf("read + analyze: %.3f s (%.0f MiB/s)\n", best_scan, size / 1048576.0 / best_scan);
  std::printf("analyze only (in memory): %.3f s (%.0f MiB/s)\n", best_memory, size / 1048576.0 / best_memory);
  if (result.contains("fatbin"))
    std::printf("containers: %s, entries: %s\n", result["fatbin"]["containers"].dump().c_str(),
                result["fatbin"]["entries"].dump().c_str());
  return 0;
}
