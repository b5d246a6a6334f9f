// Fuzz targets over file contents inside images: ELF (host libraries, cubins,
// standalone fatbins), fatbin containers, the small text files that carry
// versions (src/cuda). Kept small: they go through the analyzer interface of
// include/imagelint/analyzer.h and the fatbin scanner only.
#include <algorithm>

#include "cuda/cuda.h"
#include "cuda/fatbin.h"
#include "fuzz/support.h"
#include "fuzz/targets.h"

namespace imagelint::fuzz {
namespace {

// Streams `bytes` to `analyzer` as the layer scanner does: head first, then
// chunks of `chunk` bytes from offset 0.
void Analyze(FileAnalyzer& analyzer, const std::string& path, std::string_view bytes, size_t chunk,
             nlohmann::json* facts) {
  EntryInfo entry;
  entry.path = path;
  entry.size = bytes.size();
  auto data = reinterpret_cast<const uint8_t*>(bytes.data());
  std::span<const uint8_t> head(data, std::min(bytes.size(), kHeadBytes));
  auto sink = analyzer.Open(entry, head);
  if (!sink) return;
  for (size_t at = 0; at < bytes.size(); at += chunk) {
    if (!sink->Consume(std::span<const uint8_t>(data + at, std::min(chunk, bytes.size() - at)))) break;
  }
  nlohmann::json result = sink->Finish(true);
  if (facts) *facts = std::move(result);
}

size_t ChunkSize(uint8_t selector) {
  static const size_t kSizes[] = {1, 7, 512, 4096, 65536, 1 << 20, 3, 100};
  return kSizes[selector % 8];
}

}  // namespace

int FuzzElf(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static const char* kPaths[] = {"usr/lib/x86_64-linux-gnu/libcudart.so.12", "app/kernel.cubin",
                                 "app/kernels.fatbin", "usr/bin/app",
                                 "usr/lib/x86_64-linux-gnu/libcuda.so.535.54.03",
                                 "usr/local/cuda/compat/libcuda.so.1", "opt/libtorch_cuda.so", "a.out"};
  static auto analyzer = cuda::MakeElfAnalyzer();
  Analyze(*analyzer, kPaths[data[0] % 8], AsText(data + 1, size - 1), ChunkSize(data[0] >> 3), nullptr);
  return 0;
}

int FuzzFatbin(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  size_t chunk = ChunkSize(data[0]);
  cuda::FatbinScanner scanner(size - 1);
  for (size_t at = 1; at < size; at += chunk) {
    scanner.Consume(std::span<const uint8_t>(data + at, std::min(chunk, size - at)));
  }
  scanner.Finish(true);
  (void)scanner.Summary({});
  return 0;
}

int FuzzCudaText(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static const char* kPaths[] = {"usr/local/cuda/version.json",
                                 "usr/local/cuda/version.txt",
                                 "var/lib/dpkg/status",
                                 "opt/conda/conda-meta/pytorch-2.1.0-py3.10_cuda12.1_cudnn8.9.2_0.json",
                                 "usr/local/lib/python3.10/dist-packages/torch-2.1.0.dist-info/METADATA",
                                 "usr/local/lib/python3.10/dist-packages/torch/version.py",
                                 "etc/ld.so.conf.d/cuda.conf",
                                 "usr/local/lib/python3.10/dist-packages/jax/version.py"};
  static auto analyzer = cuda::MakeTextAnalyzer(FuzzKnowledge().CapturedPackageNames());
  std::string path = kPaths[data[0] % 8];
  nlohmann::json text;
  Analyze(*analyzer, path, AsText(data + 1, size - 1), ChunkSize(data[0] >> 3), &text);
  if (text.is_null()) return 0;
  // And the facts built from it, as from a merged image holding that file.
  cuda::CudaFactsInput input;
  cuda::CudaFile file;
  file.path = path;
  file.size = size - 1;
  file.text = &text;
  input.files.push_back(file);
  input.config = {{"config", {{"Env", {"CUDA_VERSION=12.2.0", "NVIDIA_REQUIRE_CUDA=cuda>=12.2"}}}}};
  input.layer_digests = {"sha256:" + std::string(64, '0')};
  facts::Facts facts;
  cuda::AddCudaFacts(input, FuzzKnowledge(), facts);
  return 0;
}

}  // namespace imagelint::fuzz
