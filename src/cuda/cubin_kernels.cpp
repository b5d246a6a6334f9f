#include "cuda/cubin_kernels.h"

#include <algorithm>

namespace imagelint::cuda {
namespace {

constexpr uint32_t kSectionSymtab = 2;
constexpr uint64_t kShfExecInstr = 0x4;
constexpr uint8_t kSttFunc = 2;
constexpr uint8_t kStoCudaEntry = 0x10;
constexpr uint64_t kMaxSections = 1 << 16;
constexpr uint64_t kMaxSymbols = 1 << 20;

bool IsElf64Le(ByteView view) {
  return view.StartsWith(std::string_view("\x7f" "ELF", 4)) && view.U8(4) == 2 && view.U8(5) == 1;
}

}  // namespace

std::optional<uint64_t> CubinExtent(ByteView header) {
  if (!IsElf64Le(header)) return std::nullopt;
  auto phoff = header.U64(0x20), shoff = header.U64(0x28);
  auto phentsize = header.U16(0x36), phnum = header.U16(0x38);
  auto shentsize = header.U16(0x3A), shnum = header.U16(0x3C);
  if (!phoff || !shoff || !phentsize || !phnum || !shentsize || !shnum) return std::nullopt;
  // Each table is at most 65535 entries of at most 65535 bytes: no overflow
  // unless the offset itself is absurd, which the caller's size bound rejects.
  uint64_t sh_end = *shoff + uint64_t{*shentsize} * *shnum;
  uint64_t ph_end = *phoff + uint64_t{*phentsize} * *phnum;
  if (sh_end < *shoff || ph_end < *phoff) return std::nullopt;
  return std::max({sh_end, ph_end, uint64_t{64}});
}

std::optional<uint64_t> CountCubinKernels(ByteView cubin) {
  if (!IsElf64Le(cubin) || cubin.U16(18) != 190) return std::nullopt;
  auto shoff = cubin.U64(0x28);
  auto shentsize = cubin.U16(0x3A), shnum = cubin.U16(0x3C);
  if (!shoff || !shentsize || !shnum || *shentsize < 64 || *shnum > kMaxSections) return std::nullopt;
  if (!cubin.Contains(*shoff, uint64_t{*shentsize} * *shnum)) return std::nullopt;
  bool has_code = false;
  uint64_t entries = 0;
  for (uint64_t i = 0; i < *shnum; ++i) {
    ByteView header = *cubin.Slice(*shoff + i * *shentsize, *shentsize);
    uint32_t type = *header.U32(4);
    uint64_t flags = *header.U64(8), offset = *header.U64(0x18), size = *header.U64(0x20);
    uint64_t entsize = *header.U64(0x38);
    if ((flags & kShfExecInstr) && size > 0) has_code = true;
    if (type != kSectionSymtab) continue;
    if (entsize < 24 || size / entsize > kMaxSymbols) return std::nullopt;
    auto table = cubin.Slice(offset, size);
    if (!table) return std::nullopt;
    for (uint64_t at = 0; at + 24 <= size; at += entsize) {
      uint8_t info = *table->U8(at + 4), other = *table->U8(at + 5);
      if ((info & 0xF) == kSttFunc && (other & kStoCudaEntry)) ++entries;
    }
  }
  if (entries > 0) return entries;
  if (!has_code) return 0;
  return std::nullopt;
}

}  // namespace imagelint::cuda
