// Streaming ELF reading: dynamic section, notes, byte orders and classes,
// and hostile headers.
#include <doctest/doctest.h>

#include "cuda/elf.h"
#include "cuda/fixtures.h"

using namespace imagelint::cuda;
using namespace imagelint::cuda::testing;
using nlohmann::json;

namespace {
bool ElfHasProblem(const json& out, const std::string& needle, std::optional<uint64_t> offset = {}) {
  for (const auto& problem : out.value("problems", json::array())) {
    if (problem["message"].get<std::string>().find(needle) == std::string::npos) continue;
    if (offset && problem["offset"].get<uint64_t>() != *offset) continue;
    return true;
  }
  return false;
}
Bytes Text(const std::string& text) { return Bytes(text.begin(), text.end()); }
}  // namespace

TEST_CASE("elf: SONAME, NEEDED, RUNPATH, RPATH and notes in every class and byte order") {
  struct Case {
    bool elf64, little;
    uint16_t machine;
    const char* name;
  };
  for (Case c : {Case{true, true, 62, "x86_64"}, Case{true, true, 183, "aarch64"}, Case{true, true, 21, "ppc64"},
                 Case{true, false, 21, "ppc64"}, Case{false, true, 3, "i386"}, Case{false, false, 20, "ppc"}}) {
    CAPTURE(c.name);
    CAPTURE(c.little);
    ElfSpec spec{.elf64 = c.elf64, .little = c.little, .machine = c.machine, .soname = "libcudart.so.12",
                 .needed = {"libdl.so.2", "libc.so.6"}, .runpath = "$ORIGIN:/opt/lib", .rpath = "/old"};
    spec.notes.push_back({.owner = "GNU", .type = 3, .desc = {0xde, 0xad, 0xbe, 0xef}});
    Bytes elf = MakeElf(spec);
    json out = ScanBytes(elf);
    CHECK(out["format"] == "elf");
    CHECK(out["class"] == (c.elf64 ? 64 : 32));
    CHECK(out["endian"] == (c.little ? "little" : "big"));
    CHECK(out["machine"] == c.name);
    CHECK(out["soname"] == "libcudart.so.12");
    CHECK(out["needed"] == json({"libdl.so.2", "libc.so.6"}));
    CHECK(out["runpath"] == json({"$ORIGIN", "/opt/lib"}));
    CHECK(out["rpath"] == json({"/old"}));
    CHECK(out["build_id"] == "deadbeef");
    CHECK_FALSE(out.contains("problems"));
    for (size_t chunk : {1, 5, 64, 333}) CHECK(ScanBytes(elf, chunk) == out);
  }
}

TEST_CASE("elf: .note.cuda.fwd_compatibility in a non-allocated section near the end") {
  std::string note = R"({"Format":1,"CUDA Version":"12.9","Driver":[535,550,560,565,570,575],"Device":[1,2,7]})";
  ElfSpec spec{.soname = "libcuda.so.1", .needed = {"libc.so.6"}};
  spec.notes.push_back({.owner = "NVIDIA Corporation", .type = 1, .desc = Text(note), .allocated = false,
                        .section = ".note.cuda.fwd_compatibility"});
  Bytes elf = MakeElf(spec);
  json out = ScanBytes(elf, 17);
  REQUIRE(out.contains("fwd_compat"));
  CHECK(out["fwd_compat"]["CUDA Version"] == "12.9");
  CHECK(out["fwd_compat"]["Driver"] == json({535, 550, 560, 565, 570, 575}));
  CHECK(out["sections"] == json({".note.cuda.fwd_compatibility"}));

  // The same note as an allocated PT_NOTE works too; invalid JSON is a problem.
  spec.notes[0].allocated = true;
  CHECK(ScanBytes(MakeElf(spec))["fwd_compat"]["CUDA Version"] == "12.9");
  spec.notes[0].desc = Text("{not json");
  CHECK(ElfHasProblem(ScanBytes(MakeElf(spec)), "invalid JSON"));
}

TEST_CASE("elf: truncated headers and tables pointing past the end") {
  Bytes elf = MakeElf({.soname = "libx.so", .needed = {"liby.so"}});
  Bytes cut(elf.begin(), elf.begin() + 30);
  json out = ScanBytes(cut);
  CHECK(ElfHasProblem(out, "truncated ELF header", 30));
  Bytes ident(elf.begin(), elf.begin() + 10);
  CHECK(ElfHasProblem(ScanBytes(ident), "truncated ELF identification", 10));

  Bytes bad_shoff = elf;
  Put64(bad_shoff, 40, elf.size() - 10);
  out = ScanBytes(bad_shoff);
  CHECK(ElfHasProblem(out, "section header table", elf.size() - 10));
  CHECK(out["soname"] == "libx.so");  // the rest is still read

  Bytes bad_phoff = elf;
  Put64(bad_phoff, 32, uint64_t{1} << 62);
  CHECK(ElfHasProblem(ScanBytes(bad_phoff), "program header table", uint64_t{1} << 62));

  Bytes bad_class = elf;
  bad_class[4] = 9;
  CHECK(ElfHasProblem(ScanBytes(bad_class), "unknown ELF class", 4));

  // PT_DYNAMIC (program header 1) pointing past the end.
  Bytes bad_dynamic = elf;
  Put64(bad_dynamic, 64 + 56 + 8, elf.size() + 100);
  CHECK(ElfHasProblem(ScanBytes(bad_dynamic), "PT_DYNAMIC", elf.size() + 100));

  // A section whose bytes lie past the end (section 1 = .dynstr).
  uint64_t shoff = 0;
  for (int i = 7; i >= 0; --i) shoff = (shoff << 8) | elf[40 + i];
  Bytes bad_section = elf;
  Put64(bad_section, shoff + 64 + 24, elf.size() * 4);
  CHECK(ElfHasProblem(ScanBytes(bad_section), "extends past the end", shoff + 64));

  // A cut-short file reports where it stopped.
  Bytes half(elf.begin(), elf.begin() + elf.size() / 2);
  CHECK(ElfHasProblem(ScanBytes(half, 0, {}, false), "cut short", half.size()));
}

TEST_CASE("elf: a dynamic string table outside the kept prefix is reported, not guessed") {
  ElfSpec spec{.soname = "libbig.so", .needed = {"libcudart.so.12"}, .rodata = Bytes(5000, 1)};
  Bytes elf = MakeElf(spec);
  ElfLimits limits;
  limits.prefix_bytes = 100;  // .dynstr starts after the program headers, past 100 bytes
  limits.tail_window = 100;   // and the window before the section headers does not reach it
  json out = ScanBytes(elf, 50, limits);
  CHECK(ElfHasProblem(out, "dynamic string table"));
  CHECK(out["needed"].empty());
}

TEST_CASE("elf: standalone cubin and static cudart markers") {
  Bytes cubin = MakeCubin(86, 122, 7);
  json out = ScanBytes(cubin);
  CHECK(out["machine"] == "cuda");
  CHECK(out["cubin"]["arch"] == "sm_86");
  CHECK(out["cubin"]["toolkit"] == "12.2");
  CHECK(out["sass"] == json({"sm_86"}));

  ElfSpec spec{.type = 2, .needed = {"libc.so.6"}, .extra_text = std::string("xx\0cudaErrorInsufficientDriver\0cuGetProcAddress\0", 48)};
  Bytes elf = MakeElf(spec);
  for (size_t chunk : {0, 3, 10}) {
    json scanned = ScanBytes(elf, chunk);
    CHECK(scanned["cudart_markers"].size() == 2);
  }
  CHECK_FALSE(ScanBytes(MakeElf({.needed = {"libc.so.6"}})).contains("cudart_markers"));
}
