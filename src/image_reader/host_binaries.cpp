// ReadHostBinaries: the image analyzers over files that are not in an image
// yet (a build context's prebuilt libraries), for Dockerfile mode.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "cuda/cuda.h"
#include "imagelint/read_image.h"

namespace imagelint {
namespace {

using nlohmann::json;

constexpr size_t kChunkBytes = 1 << 20;

// Closes the descriptor when the read of one file ends, however it ends.
struct Descriptor {
  int fd = -1;
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
};

// The "cuda.elf" result of one host file (null when the analyzer has no
// interest in it), streamed as the layer scanner streams an image's files.
Result<json> AnalyzeFile(FileAnalyzer& analyzer, const HostFileInImage& file, uint64_t& size) {
  Descriptor d;
  d.fd = ::open(file.host_path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (d.fd < 0) return MakeError(file.host_path, std::string("cannot be opened: ") + std::strerror(errno));
  struct stat st {};
  if (::fstat(d.fd, &st) != 0 || !S_ISREG(st.st_mode)) return MakeError(file.host_path, "is not a regular file");
  size = static_cast<uint64_t>(st.st_size);
  std::vector<uint8_t> buffer(kChunkBytes);
  auto read_some = [&](size_t want) -> ssize_t {
    ssize_t n;
    do n = ::read(d.fd, buffer.data(), want);
    while (n < 0 && errno == EINTR);
    return n;
  };
  ssize_t head = read_some(std::min<size_t>(kHeadBytes, buffer.size()));
  if (head < 0) return MakeError(file.host_path, std::string("cannot be read: ") + std::strerror(errno));
  EntryInfo entry{file.image_path, EntryType::kRegular, static_cast<uint64_t>(st.st_size), st.st_mode & 07777u, ""};
  std::unique_ptr<FileSink> sink = analyzer.Open(entry, std::span<const uint8_t>(buffer.data(), static_cast<size_t>(head)));
  if (!sink) return json();
  // The sink sees the file from byte 0, head included, until it has enough.
  uint64_t seen = 0;
  bool more = sink->Consume(std::span<const uint8_t>(buffer.data(), static_cast<size_t>(head)));
  seen += static_cast<uint64_t>(head);
  while (more && seen < static_cast<uint64_t>(st.st_size)) {
    ssize_t n = read_some(buffer.size());
    if (n < 0) return MakeError(file.host_path, std::string("cannot be read: ") + std::strerror(errno));
    if (n == 0) break;  // shorter than it said: Finish(false) reports it
    seen += static_cast<uint64_t>(n);
    more = sink->Consume(std::span<const uint8_t>(buffer.data(), static_cast<size_t>(n)));
  }
  return sink->Finish(!more || seen >= static_cast<uint64_t>(st.st_size));
}

}  // namespace

Result<std::vector<facts::Binary>> ReadHostBinaries(const std::vector<HostFileInImage>& files,
                                                    const Knowledge& knowledge) {
  std::unique_ptr<FileAnalyzer> analyzer = cuda::MakeElfAnalyzer();
  // The results stay where they are while the facts builder points at them.
  std::vector<json> results;
  results.reserve(files.size());
  cuda::CudaFactsInput input;
  input.config = json::object();
  for (const HostFileInImage& file : files) {
    uint64_t size = 0;
    auto result = AnalyzeFile(*analyzer, file, size);
    if (!result.ok()) return result.error();
    results.push_back(std::move(*result));
    cuda::CudaFile entry;
    entry.path = file.image_path;
    entry.type = EntryType::kRegular;
    entry.size = size;
    entry.elf = results.back().is_null() ? nullptr : &results.back();
    input.files.push_back(std::move(entry));
  }
  facts::Facts facts;
  cuda::AddCudaFacts(input, knowledge, facts);
  std::vector<facts::Binary> rows = facts.binaries ? std::move(*facts.binaries) : std::vector<facts::Binary>{};
  for (facts::Binary& row : rows) {
    row.reachable.reset();
    row.reachable_via.reset();
    row.unreachable_reason.reset();
  }
  return rows;
}

}  // namespace imagelint
