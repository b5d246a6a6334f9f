// Output of bytes that are not UTF-8: lossless \udcXX in JSON, \xXX for
// people, and nlohmann's own bytes wherever the text is UTF-8.
#include <doctest/doctest.h>

#include "common/bytes_text.h"
#include "common/json.h"

using namespace imagelint;
using nlohmann::json;

TEST_CASE("UTF-8 validation follows RFC 3629") {
  CHECK(IsUtf8(""));
  CHECK(IsUtf8("plain ascii"));
  CHECK(IsUtf8("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"));
  CHECK_FALSE(IsUtf8("caf\xe9"));           // Latin-1
  CHECK_FALSE(IsUtf8("\xc0\xaf"));          // overlong '/'
  CHECK_FALSE(IsUtf8("\xed\xa0\x80"));      // a surrogate (U+D800)
  CHECK_FALSE(IsUtf8("\xf4\x90\x80\x80"));  // above U+10FFFF
  CHECK_FALSE(IsUtf8("\xe2\x82"));          // cut short
  CHECK(Utf8SequenceLength("\xe2\x82\xac!") == 3);
  CHECK(Utf8SequenceLength("\xff") == 0);
}

TEST_CASE("WriteJson writes what nlohmann's dump writes for UTF-8 text") {
  json value = {{"name", "caf\xc3\xa9"},
                {"control", std::string("tab\there\x01\"\\/", 13)},
                {"numbers", {1, -2, 3.5, 1e300, 0}},
                {"empty_object", json::object()},
                {"empty_array", json::array()},
                {"nested", {{"a", {{"b", json::array({json::object(), nullptr, true, false})}}}}},
                {"unsigned", 18446744073709551615ull}};
  for (int indent : {-1, 0, 2, 4}) {
    CAPTURE(indent);
    CHECK(WriteJson(value, indent) == value.dump(indent));
  }
  CHECK(WriteJson(json("x")) == "\"x\"");
  CHECK(WriteJson(json()) == "null");
}

TEST_CASE("WriteJson escapes what would act on a terminal (DEL, C1, bidi controls); it reads back the same") {
  const std::string name = std::string("a\x7f") + "b\xc2\x9b[31m" + "c\xe2\x80\xae" + "d\xe2\x80\xa8" + "caf\xc3\xa9";
  const std::string written = WriteJson(json(name));
  CHECK(written == R"("a\u007fb\u009b[31mc\u202ed\u2028caf)" "\xc3\xa9\"");
  auto read = ParseJson(written, "x.json");
  REQUIRE(read.ok());
  CHECK(*read == name);
  // For people: C0 and DEL as \xXX, the others as \uXXXX, never raw.
  CHECK(DisplayText("a\nb\x1b[2Jc\x7f" "d\xc2\x9b" "e\xe2\x80\xae" "caf\xe9") ==
        "a\\x0ab\\x1b[2Jc\\x7fd\\u009be\\u202ecaf\\xe9");
  CHECK(DisplayText("plain /usr/lib/libcuda.so.1") == "plain /usr/lib/libcuda.so.1");
}

TEST_CASE("bytes that are not UTF-8 become \\udcXX in JSON, losslessly, and \\xXX for people") {
  const std::string latin1 = "/opt/caf\xe9/lib";
  json value = {{"path", latin1}, {latin1, std::string("\xff\xfe")}};
  CHECK_THROWS(value.dump());
  const std::string written = WriteJson(value);
  CHECK(written == R"({"/opt/caf\udce9/lib":"\udcff\udcfe","path":"/opt/caf\udce9/lib"})");
  // nlohmann's parser refuses lone surrogates; imagelint's ParseJson reads
  // its own output back to the same bytes (Python's json with
  // surrogateescape does too).
  CHECK_FALSE(json::accept(written));
  auto read = ParseJson(written, "report.json");
  REQUIRE(read.ok());
  CHECK(*read == value);
  // An escaped pair stays a character; an escaped backslash is not an escape.
  auto pair = ParseJson(R"(["\ud83d\ude00", "\\udce9", "\uDCE9"])", "x.json");
  REQUIRE(pair.ok());
  CHECK((*pair)[0] == "\xf0\x9f\x98\x80");
  CHECK((*pair)[1] == "\\udce9");
  CHECK((*pair)[2] == "\xe9");
  // A broken document still reports where it breaks in the file as it is.
  auto broken = ParseJson("{\"a\": \"\\udce9\",\n  x}", "b.json");
  REQUIRE_FALSE(broken.ok());
  CHECK(broken.error().line == 2);
  // A valid character next to a stray byte is kept whole.
  CHECK(WriteJson(json("\xc3\xa9\xe9\xc3")) == R"("é\udce9\udcc3")");

  CHECK(DisplayBytes(latin1) == "/opt/caf\\xe9/lib");
  CHECK(DisplayBytes("caf\xc3\xa9") == "caf\xc3\xa9");
  CHECK(DisplayBytes("\xed\xa0\x80") == "\\xed\\xa0\\x80");
}
