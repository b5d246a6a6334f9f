#include <doctest/doctest.h>

#include "imagelint/bytes.h"
#include "imagelint/result.h"

using namespace imagelint;

TEST_CASE("ByteView refuses slices and reads that leave the view") {
  const uint8_t data[] = {1, 2, 3, 4, 5, 6, 7, 8};
  ByteView view(data, sizeof data);
  CHECK(view.Slice(0, 8));
  CHECK_FALSE(view.Slice(1, 8));
  CHECK_FALSE(view.Slice(UINT64_MAX, 2));  // offset + length overflows
  CHECK_FALSE(view.Slice(2, UINT64_MAX));
  CHECK(view.U32(4) == 0x08070605u);
  CHECK(view.U32(4, Endian::kBig) == 0x05060708u);
  CHECK_FALSE(view.U32(5));
  CHECK_FALSE(view.U64(1));
  CHECK(view.U8(7) == 8);
  CHECK_FALSE(view.U8(8));
  CHECK_FALSE(view.SliceFrom(9));
  CHECK(view.SliceFrom(8)->empty());
}

TEST_CASE("CString needs a NUL inside the view and the length limit") {
  const char text[] = {'a', 'b', 0, 'c', 'd'};
  ByteView view(reinterpret_cast<const uint8_t*>(text), sizeof text);
  CHECK(view.CString(0) == std::string_view("ab"));
  CHECK_FALSE(view.CString(3));       // runs off the end without NUL
  CHECK_FALSE(view.CString(0, 2));    // NUL beyond the limit
  CHECK_FALSE(view.CString(99));
}

TEST_CASE("checked arithmetic detects overflow") {
  CHECK(CheckedAdd(1, 2) == 3u);
  CHECK_FALSE(CheckedAdd(UINT64_MAX, 1));
  CHECK_FALSE(CheckedMul(UINT64_MAX / 2 + 1, 2));
  CHECK(CheckedMul(1u << 20, 1u << 20) == (1ull << 40));
}

TEST_CASE("errors render subject, position and message") {
  CHECK(MakeErrorAt("img.tar", 512, "truncated").ToString() == "img.tar: at offset 512: truncated");
  CHECK(MakeErrorAtLine("rules.yaml", 3, 7, "unexpected ')'").ToString() == "rules.yaml:3:7: unexpected ')'");
  CHECK(WithSubject(MakeError("", "bad magic"), "lib.so").ToString() == "lib.so: bad magic");
}
