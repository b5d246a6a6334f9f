// Streaming scanner for CUDA fat binaries. NVIDIA does not document the
// container; the layout follows the public decoders: jiegec/fatbinary
// (fatbinary.ksy, https://github.com/jiegec/fatbinary) and ZLUDA
// (dark_api/src/fatbin.rs, https://github.com/vosen/ZLUDA).
//
// FatbinScanner sees a file's bytes once, in order, in chunks of any size. It
// looks for fatbin containers (magic 0xBA55ED50, version 1, header 16) and for
// embedded cubins (ELF with e_machine 190) at 8-byte-aligned file offsets,
// walks every entry by its header (never assuming 64-byte headers), and keeps
// only a small bounded window of each payload: enough to read a cubin's ELF
// header and `.note.nv.tkinfo`, or a PTX `.version`/`.target`. Compressed
// payloads (LZ4 block, zstd frame) are decompressed only up to that window,
// under hard limits. Anything that does not add up becomes a problem with its
// file offset; scanning then resumes after the bad spot.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace imagelint::cuda {

struct FatbinLimits {
  uint64_t inspect_bytes = 32 * 1024;            // decompressed/collected bytes looked at per entry
  uint64_t max_compressed_collect = 16u << 20;   // compressed payloads larger than this are not inspected
  uint64_t max_uncompressed_size = 512u << 20;   // declared uncompressed size above this is a problem
  uint64_t whole_cubin_bytes = 256 * 1024;       // cubins up to this size are read whole (kernel count)
  uint64_t max_entry_header = 64 * 1024;         // entry header incl. tail
  // Per file, all containers together. Each decoded entry takes ~240 bytes
  // until the file is summarised; the largest library seen (libcufft 11)
  // holds 17,608, so a million leaves room and keeps a file under 256 MiB.
  uint64_t max_entries = 1'000'000;
  uint64_t max_containers = 1'000'000;           // per file
  size_t max_problems = 64;                      // recorded per file (the rest are only counted)
};

// What an entry holds, from its kind: machine code, PTX, LTO-IR or another kind.
enum class EntryCategory { kSass, kPtx, kLtoir, kOther };
// How an entry's payload is stored; kLz4AndZstd is a header that claims both (a problem).
enum class Compression { kNone, kLz4, kZstd, kLz4AndZstd };

// The names the facts write: "sass", "ptx", "ltoir", "other";
// "none", "lz4", "zstd", "lz4+zstd".
std::string_view CategoryName(EntryCategory category);
std::string_view CompressionName(Compression compression);

struct Problem {
  uint64_t offset = 0;
  std::string message;
};

// One decoded fatbin entry (or embedded cubin).
struct FatbinEntry {
  uint64_t offset = 0;           // of the entry header (embedded cubins: of the ELF header)
  uint16_t kind = 0;             // 1 PTX, 2 ELF, 4 old cubin, 8 LTO-IR, 0x10 ELF alt, 0x40 reloc PTX
  uint32_t arch = 0;             // SM number, e.g. 90
  std::string variant;           // "", "a" or "f"
  uint16_t version_major = 0;    // PTX ISA major / cubin ELF "code version" major
  uint16_t version_minor = 0;
  uint64_t flags = 0;
  uint64_t payload_size = 0;     // padded
  uint64_t compressed_size = 0;
  uint64_t uncompressed_size = 0;
  Compression compression = Compression::kNone;
  std::string identifier;        // source/object name when present
  std::string toolkit;           // "12.4" from a cubin's e_version, when readable
  std::string tkinfo;            // "Cuda compilation tools, release 12.4, V12.4.131" when found
  bool embedded = false;         // a cubin found outside any fatbin container
  uint32_t cubin_flags = 0;      // e_flags of the cubin, when its header was read
  uint8_t cubin_abi = 0;         // EI_ABIVERSION of the cubin (0 = not read)
  std::optional<uint64_t> kernels;  // entry functions of a cubin read whole; unknown otherwise
};

// Category of an entry kind (1 and 0x40 PTX; 2, 4 and 0x10 SASS; 8 LTO-IR).
EntryCategory CategoryOf(uint16_t kind);
// "sm_90a" / "compute_90a" / "lto_90" / "kind0x20_90".
std::string EntryArchName(const FatbinEntry& entry);
// "8.4" for PTX entries; "" otherwise.
std::string EntryIsa(const FatbinEntry& entry);
// Toolkit "X.Y" from a cubin's e_version (121 -> "12.1"), "" when not a toolkit number.
std::string ToolkitFromCubinVersion(uint32_t e_version);
// SM number from cubin e_flags, chosen by EI_ABIVERSION (the EF_CUDA_* values of
// https://github.com/llvm/llvm-project/blob/main/llvm/include/llvm/BinaryFormat/ELF.h).
uint32_t CubinSmFromFlags(uint32_t e_flags, uint8_t abi_version);
// Whether a cubin's e_flags carry the accelerator bit that makes its target
// "sm_XYa" (EF_CUDA_ACCELERATORS: 0x8 under EI_ABIVERSION 8, 0x800 under 7;
// LLVM's ELF.h as above). A positive-only hint: a clear bit says nothing.
bool CubinIsArchSpecific(uint32_t e_flags, uint8_t abi_version);

class FatbinScanner {
 public:
  FatbinScanner(uint64_t file_size, FatbinLimits limits = {});
  // Bytes at absolute offsets [Position(), Position()+chunk.size()).
  void Consume(std::span<const uint8_t> chunk);
  // Ends the scan; `complete` false when the file was cut short.
  void Finish(bool complete);
  uint64_t Position() const { return pos_; }

  struct Container {
    uint64_t offset = 0;
    uint64_t size = 0;  // 16 + fatSize as declared
    uint64_t entries = 0;
  };
  const std::vector<Container>& Containers() const { return containers_; }
  const std::vector<FatbinEntry>& Entries() const { return entries_; }
  const std::vector<Problem>& Problems() const { return problems_; }
  uint64_t ProblemCount() const { return problem_count_; }

  // Labels containers by the section they lie in (after section headers are known)
  // and summarises everything as JSON (see docs/cuda-facts.md).
  nlohmann::json Summary(const std::map<uint64_t, std::pair<uint64_t, std::string>>& sections) const;

 private:
  enum class State { kSearch, kCollect, kSkip, kDone };
  enum class Want { kContainerHeader, kEntryFixed, kEntryTail, kPayload, kCubinHeader };

  void AddProblem(uint64_t offset, std::string message);
  void AddStop(uint64_t offset, std::string message);
  void Collect(Want want, uint64_t length);
  void OnCollected();
  void StartEntry(uint64_t offset);
  // current_ is complete: record it, then skip what is left of its payload
  // (or start the next entry).
  void FinishEntry();
  void EndContainer(uint64_t resume_at);
  void ResumeSearchAt(uint64_t offset);
  void InspectPayload(FatbinEntry& entry, std::span<const uint8_t> bytes, uint64_t payload_offset);
  void SearchChunk(std::span<const uint8_t>& chunk);

  uint64_t file_size_;
  FatbinLimits limits_;
  uint64_t pos_ = 0;
  State state_ = State::kSearch;
  Want want_ = Want::kContainerHeader;
  uint64_t want_length_ = 0;
  uint64_t skip_remaining_ = 0;
  std::vector<uint8_t> buffer_;
  std::vector<uint8_t> carry_;  // bytes of an aligned 8-byte word split across chunks

  uint64_t container_offset_ = 0;
  uint64_t container_end_ = 0;  // min(declared end, file size)
  uint64_t entry_offset_ = 0;
  uint64_t payload_skip_after_ = 0;
  FatbinEntry current_;

  std::vector<Container> containers_;
  std::vector<FatbinEntry> entries_;
  std::vector<Problem> problems_;
  uint64_t problem_count_ = 0;
  bool gave_up_ = false;
};

}  // namespace imagelint::cuda
