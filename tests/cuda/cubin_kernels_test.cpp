// Kernel counts of cubins built byte by byte: entry symbols counted, no code
// means none, code without an entry symbol or a cut cubin stays unknown.
#include <doctest/doctest.h>

#include "cuda/cubin_kernels.h"
#include "cuda/fatbin.h"
#include "cuda/fixtures.h"

using namespace imagelint::cuda;
using namespace imagelint::cuda::testing;

namespace {

struct SymbolSpec {
  uint8_t type = 2;     // STT_FUNC
  uint8_t other = 0x10; // STO_CUDA_ENTRY
};

// ELF header, one code section (when `code_bytes` > 0), a symbol table, and
// the section header table at the end, as nvcc lays cubins out.
Bytes CubinWith(const std::vector<SymbolSpec>& symbols, uint64_t code_bytes) {
  Bytes b = MakeCubin(90);
  b.resize(64);
  uint64_t text_offset = b.size();
  b.resize(b.size() + code_bytes, 0);
  Pad(b, 8);
  uint64_t symtab_offset = b.size();
  b.resize(b.size() + 24 * (symbols.size() + 1), 0);  // entry 0 is the null symbol
  for (size_t i = 0; i < symbols.size(); ++i) {
    size_t at = symtab_offset + 24 * (i + 1);
    b[at + 4] = symbols[i].type | (1 << 4);  // global binding
    b[at + 5] = symbols[i].other;
  }
  Pad(b, 8);
  uint64_t shoff = b.size();
  std::vector<std::array<uint64_t, 4>> sections = {{0, 0, 0, 0}};  // type, flags, offset, size
  if (code_bytes > 0) sections.push_back({1, 0x6, text_offset, code_bytes});  // PROGBITS, AX
  sections.push_back({2, 0, symtab_offset, 24 * (symbols.size() + 1)});
  for (const auto& [type, flags, offset, size] : sections) {
    Bytes header(64, 0);
    Put32(header, 4, static_cast<uint32_t>(type));
    Put64(header, 8, flags);
    Put64(header, 0x18, offset);
    Put64(header, 0x20, size);
    Put64(header, 0x38, type == 2 ? 24 : 0);
    Append(b, header);
  }
  Put64(b, 0x28, shoff);
  Put16(b, 0x3A, 64);
  Put16(b, 0x3C, static_cast<uint16_t>(sections.size()));
  return b;
}

std::optional<uint64_t> Count(const Bytes& cubin) {
  return CountCubinKernels(imagelint::ByteView(cubin.data(), cubin.size()));
}

}  // namespace

TEST_CASE("cubin kernels: entry functions are counted, other functions are not") {
  CHECK(Count(CubinWith({{}, {}, {.other = 0}}, 256)) == 2u);
  CHECK(Count(CubinWith({{.type = 1, .other = 0x10}, {}}, 128)) == 1u);  // an OBJECT is no kernel
}

TEST_CASE("cubin kernels: no code section means no kernel; code without an entry symbol is unknown") {
  CHECK(Count(CubinWith({}, 0)) == 0u);
  CHECK(Count(CubinWith({{.other = 0}}, 0)) == 0u);
  CHECK_FALSE(Count(CubinWith({{.other = 0}}, 64)).has_value());
}

TEST_CASE("cubin kernels: a cubin cut short or with lying headers is unknown, never a guess") {
  Bytes whole = CubinWith({{}}, 64);
  Bytes cut(whole.begin(), whole.end() - 8);
  CHECK_FALSE(Count(cut).has_value());
  Bytes lying = whole;
  Put64(lying, 0x28, uint64_t{1} << 62);
  CHECK_FALSE(Count(lying).has_value());
  Bytes symtab_out = whole;
  Put64(symtab_out, symtab_out.size() - 64 + 0x18, uint64_t{1} << 40);  // the symtab's offset
  CHECK_FALSE(Count(symtab_out).has_value());
  Bytes not_cuda = whole;
  Put16(not_cuda, 18, 62);
  CHECK_FALSE(Count(not_cuda).has_value());
}

TEST_CASE("fatbin: a small cubin is read whole and its kernels are summed per architecture") {
  EntrySpec none{.kind = 2, .arch = 52, .payload = CubinWith({}, 0)};
  EntrySpec two{.kind = 2, .arch = 80, .payload = CubinWith({{}, {}}, 128), .compression = "lz4"};
  EntrySpec unknown{.kind = 2, .arch = 90, .payload = MakeCubin(90)};
  Bytes container = MakeContainer({MakeEntry(none), MakeEntry(two), MakeEntry(unknown)});
  FatbinScanner scanner(container.size());
  for (size_t at = 0; at < container.size(); at += 7)
    scanner.Consume(std::span<const uint8_t>(container.data() + at, std::min<size_t>(7, container.size() - at)));
  scanner.Finish(true);
  auto summary = scanner.Summary({});
  std::map<std::string, nlohmann::json> by_arch;
  for (const auto& row : summary["sass"]) by_arch[row["arch"].get<std::string>()] = row;
  CHECK(by_arch["sm_52"]["kernels"] == 0);
  CHECK(by_arch["sm_80"]["kernels"] == 2);
  CHECK_FALSE(by_arch["sm_90"].contains("kernels"));
}
