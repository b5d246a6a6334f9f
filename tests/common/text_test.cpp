#include <doctest/doctest.h>

#include "common/lines.h"
#include "common/text.h"
#include "common/version.h"

using namespace imagelint;

TEST_CASE("string and path helpers") {
  CHECK(StartsWith("libcudart.so.12", "libcudart.so."));
  CHECK_FALSE(StartsWith("lib", "libcudart"));
  CHECK(EndsWith("Dockerfile.gpu", ".gpu"));
  CHECK_FALSE(EndsWith("u", ".gpu"));
  CHECK(ToLower("GeForce RTX \xc3\x84") == "geforce rtx \xc3\x84");  // non-ASCII bytes untouched
  CHECK(Trim(" \t x y \r\n") == "x y");
  CHECK(Trim(" \t ") == "");
  CHECK(SplitOn("a,b,,c", ',') == std::vector<std::string>{"a", "b", "", "c"});
  CHECK(SplitOn("", ',') == std::vector<std::string>{""});
  CHECK(BaseName("usr/lib/libcuda.so.1") == "libcuda.so.1");
  CHECK(BaseName("libcuda.so.1") == "libcuda.so.1");
  CHECK(DirName("usr/lib/libcuda.so.1") == "usr/lib");
  CHECK(DirName("libcuda.so.1") == "");
  CHECK(DirName("/x") == "");
  CHECK(PercentEncode("repository:a/b:pull") == "repository%3Aa%2Fb%3Apull");
  CHECK(PercentEncode("usr/local/cuda:12.4 x", "/") == "usr/local/cuda%3A12.4%20x");
  CHECK(PercentEncode("A-z_0.9~") == "A-z_0.9~");
  CHECK(PercentEncode(std::string_view("\xff\0", 2)) == "%FF%00");
}

TEST_CASE("NextLine: LF and CRLF endings, no empty line after the last end") {
  auto lines = [](std::string_view text) {
    std::vector<std::string> out;
    size_t pos = 0;
    std::string_view line;
    while (NextLine(text, pos, line)) out.emplace_back(line);
    return out;
  };
  using V = std::vector<std::string>;
  CHECK(lines("") == V{});
  CHECK(lines("a\nb\n") == V{"a", "b"});
  CHECK(lines("a\r\nb") == V{"a", "b"});
  CHECK(lines("\n\nx") == V{"", "", "x"});
  CHECK(lines("a\r\r\n") == V{"a\r"});  // only the \r before \n goes
}

TEST_CASE("strict dotted versions") {
  CHECK(*CompareVersions("470.256.02", "470.57.02") == 1);
  CHECK(*CompareVersions("12.4", "12.4.0") == 0);
  CHECK(*CompareVersions("9", "10") == -1);
  CHECK(*CompareVersions("999999999999999999", "1") == 1);
  CHECK_FALSE(CompareVersions("9999999999999999999", "1").has_value());  // 19 digits: not a version
  CHECK_FALSE(CompareVersions("12.4-1", "12.4").has_value());
  CHECK_FALSE(CompareVersions("", "1").has_value());
  CHECK_FALSE(CompareVersions("1..2", "1").has_value());
  CHECK_FALSE(CompareVersions("1.", "1").has_value());
  CHECK(IsDottedVersion("535.104.05"));
  CHECK(IsDottedVersion("12"));
  CHECK_FALSE(IsDottedVersion("v12.2"));
  CHECK_FALSE(IsDottedVersion(".1"));
  CHECK_FALSE(IsDottedVersion(""));
}

TEST_CASE("natural versions order what people write") {
  CHECK(CompareNaturalVersions("v12.2", "12.2") == 0);
  CHECK(CompareNaturalVersions("460.67", "450.80.02") == 1);
  CHECK(CompareNaturalVersions("1.17.0-rc.1", "1.17.0") == -1);
  CHECK(CompareNaturalVersions("12.2", "12.2-rc") == 1);
  CHECK(CompareNaturalVersions("2.1.0a0", "2.1.0") == -1);
  CHECK(CompareNaturalVersions("12.10", "12.9") == 1);
  CHECK(CompareNaturalVersions("12", "12.0.0") == 0);
  CHECK(CompareNaturalVersions("", "") == 0);
  CHECK(CompareNaturalVersions("abc", "abd") == -1);
}
