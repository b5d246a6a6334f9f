// Streaming ELF reader by "targeted buffering": only the regions named by the
// headers are kept (layouts: System V ABI, "Object Files" chapter,
// https://refspecs.linuxfoundation.org/elf/gabi4+/ch4.intro.html).
//
// The file passes once, in order. From the ELF header (in the head) we learn
// where the program headers and the section header table are; regions that
// are needed later are captured as they stream past:
//   * program headers, PT_DYNAMIC, PT_INTERP, PT_NOTE segments;
//   * a bounded prefix of the file (where .dynstr lives in every linker layout
//     we know: before .text), released as soon as PT_DYNAMIC is decoded;
//   * a bounded window just before the section header table (.shstrtab and
//     late non-allocated notes such as `.note.cuda.fwd_compatibility`);
//   * the section header table itself.
// The fatbin scanner sees every byte at the same time. Memory per file stays
// bounded by ElfLimits whatever the file size.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cuda/fatbin.h"

namespace imagelint::cuda {

struct ElfLimits {
  uint64_t prefix_bytes = 16u << 20;       // kept from the start for .dynstr
  uint64_t tail_window = 1u << 20;         // kept before the section header table
  uint64_t max_region = 4u << 20;          // any one captured region (PT_DYNAMIC, notes, shdrs)
  uint64_t max_program_headers = 4096;
  uint64_t max_section_headers = 65536;
  uint64_t max_dynamic_entries = 65536;
  uint64_t max_notes = 256;
  FatbinLimits fatbin;
};

// Scans one file: an ELF (host or cubin) or a standalone fatbin. Feed bytes in
// order with Consume, then call Finish for the JSON facts of the file.
class ElfScanner {
 public:
  ElfScanner(std::string path, uint64_t file_size, ElfLimits limits = {});
  ~ElfScanner();
  void Consume(std::span<const uint8_t> chunk);
  nlohmann::json Finish(bool complete);

 private:
  struct Region;
  void ParseElfHeader();
  void AddRegion(int kind, uint64_t offset, uint64_t length, const char* what);
  void OnRegion(Region& region);
  void ParseProgramHeaders(const std::vector<uint8_t>& bytes);
  void ParseDynamic(const std::vector<uint8_t>& bytes, uint64_t offset);
  void ResolveDynamicStrings();
  void ParseNotes(const uint8_t* data, uint64_t size, uint64_t offset);
  void ParseSectionHeaders(const std::vector<uint8_t>& bytes);
  std::optional<std::span<const uint8_t>> Retained(uint64_t offset, uint64_t length) const;
  std::optional<uint64_t> VaddrToOffset(uint64_t vaddr) const;
  void AddProblem(uint64_t offset, std::string message);

  std::string path_;
  uint64_t file_size_;
  ElfLimits limits_;
  uint64_t pos_ = 0;
  std::vector<uint8_t> header_;  // first bytes until the ELF header is complete
  bool header_parsed_ = false;
  bool is_elf_ = false;
  bool is_fatbin_file_ = false;

  // ELF identity
  bool elf64_ = true;
  bool little_ = true;
  uint16_t type_ = 0, machine_ = 0;
  uint32_t version_ = 0, flags_ = 0;
  uint8_t abi_version_ = 0, osabi_ = 0;
  uint64_t phoff_ = 0, shoff_ = 0;
  uint16_t phentsize_ = 0, phnum_ = 0, shentsize_ = 0, shnum_ = 0, shstrndx_ = 0;

  struct Load {
    uint64_t offset, vaddr, filesz;
  };
  std::vector<Load> loads_;
  bool has_dynamic_ = false, has_interp_ = false;
  uint64_t dynamic_offset_ = 0;

  std::vector<std::unique_ptr<Region>> regions_;
  std::vector<uint8_t> prefix_;
  uint64_t prefix_limit_ = 0;
  uint64_t tail_offset_ = 0;
  std::vector<uint8_t> tail_;

  // dynamic
  struct DynRef {
    int64_t tag;
    uint64_t value;
  };
  std::vector<DynRef> dyn_;
  std::optional<uint64_t> strtab_vaddr_, strsz_;
  std::string soname_, interp_;
  std::vector<std::string> needed_, rpath_, runpath_;
  bool dynamic_done_ = false;

  nlohmann::json notes_ = nlohmann::json::array();
  nlohmann::json fwd_compat_;
  std::map<uint64_t, std::pair<uint64_t, std::string>> sections_;  // offset -> (size, name), named sections
  std::vector<std::string> section_names_;
  bool has_symtab_ = false;

  // static cudart markers (strings found anywhere in the file)
  std::vector<std::string> markers_found_;
  std::vector<uint8_t> marker_carry_;

  std::unique_ptr<FatbinScanner> fatbin_;
  std::vector<Problem> problems_;
  uint64_t problem_count_ = 0;
};

std::string_view MachineName(uint16_t machine);

}  // namespace imagelint::cuda
