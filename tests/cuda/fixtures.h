// Generated ELF / fatbin / cubin bytes for the cuda tests (no committed binaries).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cuda/elf.h"

namespace imagelint::cuda::testing {

using Bytes = std::vector<uint8_t>;

void Put16(Bytes& bytes, size_t offset, uint16_t value, bool little = true);
void Put32(Bytes& bytes, size_t offset, uint32_t value, bool little = true);
void Put64(Bytes& bytes, size_t offset, uint64_t value, bool little = true);
void Append(Bytes& bytes, const Bytes& more);
void Pad(Bytes& bytes, size_t alignment);

// A device ELF header (64 bytes) plus optional body text (e.g. a tkinfo banner).
Bytes MakeCubin(uint32_t sm, uint32_t e_version = 124, uint8_t abi = 7, const std::string& body = "",
                bool accelerators = false);

struct EntrySpec {
  uint16_t kind = 2;               // 1 PTX, 2 cubin, 8 LTO-IR
  uint32_t arch = 75;
  uint64_t flags = 0x11;           // 64-bit | Linux
  uint16_t major = 1, minor = 7;   // PTX ISA / cubin code version
  Bytes payload;                   // uncompressed bytes
  std::string compression = "none";  // none | lz4 | zstd
  std::string identifier;
  // Lies, applied after the honest values were computed:
  std::optional<uint64_t> padded_override, compressed_override, uncompressed_override;
  std::optional<uint16_t> version_override;
  std::optional<uint32_t> header_size_override;
  bool corrupt_payload = false;    // flip bytes of the compressed payload
};

Bytes MakeEntry(const EntrySpec& spec);
// Container header + entries; fat_size_override lies about the size.
Bytes MakeContainer(const std::vector<Bytes>& entries, std::optional<uint64_t> fat_size_override = {});
Bytes PtxText(const std::string& target, const std::string& version);

struct NoteSpec {
  std::string owner;
  uint32_t type = 0;
  Bytes desc;
  bool allocated = true;  // in a PT_NOTE segment; else a non-alloc section near the end
  std::string section = ".note.test";
};

struct ElfSpec {
  bool elf64 = true;
  bool little = true;
  uint16_t machine = 62;
  uint16_t type = 3;  // ET_DYN
  std::string soname;
  std::vector<std::string> needed;
  std::string runpath, rpath;
  std::string interp;       // PT_INTERP (an executable), e.g. "/lib64/ld-linux-x86-64.so.2"
  std::vector<NoteSpec> notes;
  Bytes fatbin;             // goes into .nv_fatbin (8-aligned)
  std::string fatbin_section = ".nv_fatbin";
  Bytes rodata;             // goes into .rodata (8-aligned), e.g. an embedded cubin
  std::string extra_text;   // plain bytes in .comment (strings for markers)
};

Bytes MakeElf(const ElfSpec& spec);

// Runs ElfScanner over `bytes` in chunks of `chunk` bytes (0 = all at once).
nlohmann::json ScanBytes(const Bytes& bytes, size_t chunk = 0, ElfLimits limits = {}, bool complete = true,
                         const std::string& path = "test/file");

}  // namespace imagelint::cuda::testing

#include <deque>
#include <filesystem>

#include "cuda/cuda.h"

namespace imagelint::cuda::testing {

// A directory on the host treated as a one-layer image root: every file goes
// through the real analyzers (Open + Consume in 1 MiB chunks + Finish), links
// are recorded as links. For tests only: imagelint itself never reads host paths.
struct HostTree {
  std::deque<nlohmann::json> results;
  CudaFactsInput input;
};
// `prefix` is prepended to every image path ("usr/lib/..."), `only` limits the
// walk to paths containing one of the given substrings (empty = all).
void AddHostDirectory(HostTree& tree, const std::filesystem::path& root, const std::string& prefix = "",
                      size_t layer = 0, const std::vector<std::string>& only = {});
// Adds one in-memory file, analysed like AddHostDirectory does.
void AddMemoryFile(HostTree& tree, const std::string& path, const std::vector<uint8_t>& bytes, size_t layer = 0);
void AddSymlink(HostTree& tree, const std::string& path, const std::string& target, size_t layer = 0);

// AddCudaFacts over the tree with the checkout's knowledge files, written
// with facts::WriteFacts (so tests see exactly what rules see).
nlohmann::json CudaFactsJson(const HostTree& tree);

}  // namespace imagelint::cuda::testing
