// Fatbin scanning on generated containers: decoding, streaming invariance,
// compression, and every kind of lying input.
#include <doctest/doctest.h>

#include <lz4.h>

#include "cuda/fatbin.h"
#include "cuda/fatbin_decompress.h"
#include "cuda/fixtures.h"

using namespace imagelint::cuda;
using namespace imagelint::cuda::testing;
using nlohmann::json;

namespace {

std::string Tkinfo(const std::string& version) {
  return std::string("ptxas\0Cuda compilation tools, release ", 38) + version + ", V" + version + ".131";
}

Bytes SampleContainer() {
  EntrySpec cubin75{.kind = 2, .arch = 75, .payload = MakeCubin(75, 124, 7, Tkinfo("12.4"))};
  EntrySpec cubin90a{.kind = 2, .arch = 90, .flags = 0x100011, .payload = MakeCubin(90, 124, 7, "", true)};
  EntrySpec ptx80{.kind = 1, .arch = 80, .major = 8, .minor = 4, .payload = PtxText("sm_80", "8.4"),
                  .identifier = "/app/kernel.cu"};
  return MakeContainer({MakeEntry(cubin75), MakeEntry(cubin90a), MakeEntry(ptx80)});
}

bool HasProblem(const json& out, const std::string& needle, std::optional<uint64_t> offset = {}) {
  for (const auto& problem : out.value("problems", json::array())) {
    if (problem["message"].get<std::string>().find(needle) == std::string::npos) continue;
    if (offset && problem["offset"].get<uint64_t>() != *offset) continue;
    return true;
  }
  return false;
}

}  // namespace

TEST_CASE("fatbin: entries of one container are decoded, whatever the chunk size") {
  ElfSpec spec{.soname = "libk.so", .needed = {"libcudart.so.12"}, .fatbin = SampleContainer()};
  Bytes elf = MakeElf(spec);
  json reference = ScanBytes(elf);
  CHECK(reference["sass"] == json({"sm_75", "sm_90a"}));
  CHECK(reference["ptx"] == json::parse(R"([{"arch":"compute_80","isa":"8.4"}])"));
  CHECK(reference["fatbin"]["containers"] == 1);
  CHECK(reference["fatbin"]["entries"] == 3);
  CHECK(reference["fatbin"]["sections"] == json({{".nv_fatbin", 1}}));
  CHECK(reference["fatbin"]["toolkits"] == json({"12.4"}));
  CHECK(reference["fatbin"]["tkinfo"] == json({"Cuda compilation tools, release 12.4, V12.4.131"}));
  CHECK_FALSE(reference.contains("problems"));
  for (size_t chunk : {1, 3, 7, 8, 13, 64, 100, 4096}) {
    CAPTURE(chunk);
    CHECK(ScanBytes(elf, chunk) == reference);
  }
}

TEST_CASE("fatbin: identifier, arch variants and ISA come from the entry header") {
  FatbinScanner scanner(0);
  EntrySpec family{.kind = 2, .arch = 100, .flags = 0x200011, .payload = MakeCubin(100, 130, 8)};
  EntrySpec ptx{.kind = 1, .arch = 90, .flags = 0x100011, .major = 9, .minor = 0, .payload = PtxText("sm_90a", "9.0"),
                .identifier = "main.o"};
  Bytes bytes = MakeContainer({MakeEntry(family), MakeEntry(ptx)});
  FatbinScanner s(bytes.size());
  s.Consume(bytes);
  s.Finish(true);
  REQUIRE(s.Entries().size() == 2);
  CHECK(EntryArchName(s.Entries()[0]) == "sm_100f");
  CHECK(s.Entries()[0].toolkit == "13.0");
  CHECK(EntryArchName(s.Entries()[1]) == "compute_90a");
  CHECK(EntryIsa(s.Entries()[1]) == "9.0");
  CHECK(s.Entries()[1].identifier == "main.o");
  CHECK(s.Problems().empty());
}

TEST_CASE("fatbin: several containers back to back and an embedded cubin in .rodata") {
  Bytes fatbin = SampleContainer();
  EntrySpec sm86{.kind = 2, .arch = 86, .payload = MakeCubin(86, 128)};
  Append(fatbin, MakeContainer({MakeEntry(sm86)}));
  ElfSpec spec{.fatbin = fatbin, .rodata = MakeCubin(89, 129, 8)};
  json out = ScanBytes(MakeElf(spec), 5);
  CHECK(out["fatbin"]["containers"] == 2);
  CHECK(out["fatbin"]["entries"] == 5);
  CHECK(out["fatbin"]["embedded_cubins"] == 1);
  CHECK(out["sass"] == json({"sm_75", "sm_86", "sm_89", "sm_90a"}));
  CHECK(out["fatbin"]["toolkits"] == json({"12.4", "12.8", "12.9"}));
}

TEST_CASE("fatbin: LZ4 and zstd payloads are decompressed for inspection") {
  EntrySpec lz4_ptx{.kind = 1, .arch = 75, .major = 6, .minor = 4, .payload = PtxText("sm_75", "6.4"),
                    .compression = "lz4"};
  // A cubin bigger than the inspection window exercises partial decoding.
  std::string big_body = Tkinfo("13.0") + std::string(100000, 'x');
  EntrySpec zstd_cubin{.kind = 2, .arch = 120, .payload = MakeCubin(120, 130, 8, big_body), .compression = "zstd"};
  EntrySpec lz4_cubin{.kind = 2, .arch = 80, .flags = 0x13, .payload = MakeCubin(80, 121, 7, Tkinfo("12.1")),
                      .compression = "lz4"};
  Bytes container = MakeContainer({MakeEntry(lz4_ptx), MakeEntry(zstd_cubin), MakeEntry(lz4_cubin)});
  json out = ScanBytes(MakeElf({.fatbin = container}), 4093);
  CHECK_FALSE(out.contains("problems"));
  CHECK(out["fatbin"]["compression"] == json({{"lz4", 2}, {"zstd", 1}}));
  CHECK(out["fatbin"]["toolkits"] == json({"12.1", "13.0"}));
  CHECK(out["fatbin"]["debug_entries"] == 1);
  CHECK(out["ptx"] == json::parse(R"([{"arch":"compute_75","isa":"6.4"}])"));
}

TEST_CASE("fatbin: corrupt LZ4 and zstd payloads are problems at the entry, and the scan goes on") {
  EntrySpec bad_lz4{.kind = 1, .arch = 75, .major = 8, .minor = 0, .payload = PtxText("sm_75", "8.0"),
                    .compression = "lz4", .corrupt_payload = true};
  EntrySpec bad_zstd{.kind = 2, .arch = 80, .payload = MakeCubin(80, 124, 7, std::string(3000, 'y')),
                     .compression = "zstd", .corrupt_payload = true};
  Bytes first = MakeContainer({MakeEntry(bad_lz4), MakeEntry(bad_zstd)});
  EntrySpec good{.kind = 2, .arch = 90, .payload = MakeCubin(90)};
  Bytes fatbin = first;
  Append(fatbin, MakeContainer({MakeEntry(good)}));
  Bytes elf = MakeElf({.fatbin = fatbin});
  json out = ScanBytes(elf, 1000);
  // Find where the container landed to check exact offsets.
  FatbinScanner scanner(elf.size());
  scanner.Consume(elf);
  scanner.Finish(true);
  REQUIRE(scanner.Entries().size() == 3);
  uint64_t lz4_offset = scanner.Entries()[0].offset, zstd_offset = scanner.Entries()[1].offset;
  CHECK(HasProblem(out, "corrupt LZ4", lz4_offset));
  CHECK(HasProblem(out, "zstd", zstd_offset));
  CHECK(out["sass"] == json({"sm_80", "sm_90"}));
  CHECK(out["fatbin"]["containers"] == 2);
}

TEST_CASE("fatbin: a zstd frame whose size disagrees with the header is a problem") {
  EntrySpec lie{.kind = 2, .arch = 80, .payload = MakeCubin(80), .compression = "zstd", .uncompressed_override = 4096};
  json out = ScanBytes(MakeElf({.fatbin = MakeContainer({MakeEntry(lie)})}));
  CHECK(HasProblem(out, "entry header says 4096"));
}

TEST_CASE("fatbin: lying container size past the end of the file") {
  EntrySpec cubin{.kind = 2, .arch = 70, .payload = MakeCubin(70)};
  Bytes container = MakeContainer({MakeEntry(cubin)}, uint64_t{1} << 40);
  FatbinScanner scanner(container.size());
  scanner.Consume(container);
  scanner.Finish(true);
  REQUIRE(!scanner.Problems().empty());
  CHECK(scanner.Problems()[0].offset == 0);
  CHECK(scanner.Problems()[0].message.find("past the end of the file") != std::string::npos);
  REQUIRE(scanner.Entries().size() == 1);  // what does fit is still read
  CHECK(scanner.Entries()[0].arch == 70);

  // Overflowing size.
  Bytes overflow = MakeContainer({MakeEntry(cubin)}, UINT64_MAX - 3);
  FatbinScanner s2(overflow.size());
  s2.Consume(overflow);
  s2.Finish(true);
  CHECK(!s2.Problems().empty());
}

TEST_CASE("fatbin: an entry overrunning its container, overlapping or zero-length entries") {
  EntrySpec overrun{.kind = 2, .arch = 75, .payload = MakeCubin(75), .padded_override = 1 << 20};
  EntrySpec after{.kind = 2, .arch = 86, .payload = MakeCubin(86)};
  Bytes fatbin = MakeContainer({MakeEntry(overrun)});
  size_t second = fatbin.size();
  Append(fatbin, MakeContainer({MakeEntry(after)}));
  FatbinScanner scanner(fatbin.size());
  scanner.Consume(fatbin);
  scanner.Finish(true);
  REQUIRE(!scanner.Problems().empty());
  CHECK(scanner.Problems()[0].offset == 16);
  CHECK(scanner.Problems()[0].message.find("overruns its container") != std::string::npos);
  REQUIRE(scanner.Containers().size() == 2);
  CHECK(scanner.Containers()[1].offset == second);
  // The lying entry's own cubin is still found by the embedded-cubin search.
  REQUIRE(scanner.Entries().size() == 2);
  CHECK(scanner.Entries()[0].embedded);
  CHECK(scanner.Entries()[0].arch == 75);
  CHECK(scanner.Entries()[1].arch == 86);
  CHECK_FALSE(scanner.Entries()[1].embedded);

  EntrySpec zero{.kind = 2, .arch = 75, .payload = {}};
  EntrySpec overlap{.kind = 1, .arch = 80, .major = 8, .minor = 0, .payload = PtxText("sm_80", "8.0"),
                    .compression = "lz4", .compressed_override = 4000};
  Bytes odd = MakeContainer({MakeEntry(zero), MakeEntry(overlap), MakeEntry(after)});
  json out = ScanBytes(odd, 9);
  CHECK(HasProblem(out, "zero-length payload", 16));
  CHECK(HasProblem(out, "overlap the next entry", 16 + 64));
  CHECK(out["sass"] == json({"sm_75", "sm_86"}));
  CHECK(out["fatbin"]["entries"] == 3);
}

TEST_CASE("fatbin: bad entry version, bad header size, truncated file") {
  EntrySpec bad_version{.kind = 2, .arch = 75, .payload = MakeCubin(75), .version_override = 0x0202};
  json out = ScanBytes(MakeContainer({MakeEntry(bad_version)}));
  CHECK(HasProblem(out, "version 0x202", 16));
  EntrySpec small_header{.kind = 2, .arch = 75, .payload = MakeCubin(75), .header_size_override = 8};
  out = ScanBytes(MakeContainer({MakeEntry(small_header)}));
  CHECK(HasProblem(out, "header size 8", 16));
  EntrySpec huge_header{.kind = 2, .arch = 75, .payload = MakeCubin(75), .header_size_override = 0xFFFFFFF0};
  out = ScanBytes(MakeContainer({MakeEntry(huge_header)}));
  CHECK(HasProblem(out, "out of range", 16));

  EntrySpec cubin{.kind = 2, .arch = 75, .payload = MakeCubin(75, 124, 7, std::string(500, 'z'))};
  Bytes container = MakeContainer({MakeEntry(cubin), MakeEntry(cubin)});
  Bytes cut(container.begin(), container.begin() + 16 + 64 + 40);
  json truncated = ScanBytes(cut, 0, {}, false);
  CHECK(out.contains("problems"));
  CHECK(HasProblem(truncated, "past the end of the file", 0));
  CHECK(HasProblem(truncated, "cut short"));
}

TEST_CASE("fatbin: absurd counts are bounded by the limits") {
  std::vector<Bytes> entries;
  EntrySpec tiny{.kind = 2, .arch = 75, .payload = MakeCubin(75)};
  Bytes one = MakeEntry(tiny);
  for (int i = 0; i < 200; ++i) entries.push_back(one);
  Bytes container = MakeContainer(entries);
  ElfLimits limits;
  limits.fatbin.max_entries = 50;
  json out = ScanBytes(container, 0, limits);
  CHECK(out["fatbin"]["entries"] == 50);
  CHECK(HasProblem(out, "more than 50 fatbin entries"));

  // Many empty containers: bounded too, and each is a problem only up to max_problems.
  Bytes many;
  for (int i = 0; i < 300; ++i) Append(many, MakeContainer({}, 0));
  limits = {};
  limits.fatbin.max_containers = 100000;
  json empty = ScanBytes(many, 0, limits);
  CHECK(empty["problems"].size() == limits.fatbin.max_problems);
  CHECK(empty["problem_count"] == 300);
}

TEST_CASE("fatbin: decompression helpers enforce their limits") {
  Bytes plain(10000, 'a');
  Bytes packed(LZ4_compressBound(10000));
  packed.resize(LZ4_compress_default(reinterpret_cast<const char*>(plain.data()), reinterpret_cast<char*>(packed.data()),
                                     10000, static_cast<int>(packed.size())));
  auto full = DecompressLz4Block(packed, 10000, 1 << 20, false);
  CHECK_FALSE(full.error);
  CHECK(full.data == plain);
  auto limited = DecompressLz4Block(packed, 10000, 100, false);
  CHECK(limited.error);
  auto partial = DecompressLz4Block(packed, 10000, 100, true);
  CHECK_FALSE(partial.error);
  CHECK(partial.data.size() == 100);
  auto lying = DecompressLz4Block(packed, 20000, 1 << 20, false);
  CHECK(lying.error);
  auto empty_zstd = DecompressZstd(Bytes{1, 2, 3}, 10, 100, false);
  CHECK(empty_zstd.error);
}
