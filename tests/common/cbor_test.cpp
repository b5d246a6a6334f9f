// ParseCbor against nlohmann's own reader (the writer every cache uses is
// nlohmann's to_cbor), and the hand-made encodings that writer never emits:
// indefinite lengths, half floats, tags, bad lengths.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "common/json.h"

using namespace imagelint;
using Bytes = std::vector<uint8_t>;

TEST_CASE("ParseCbor reads back what to_cbor writes, as from_cbor does") {
  nlohmann::json value = {
      {"empty_object", nlohmann::json::object()},
      {"empty_array", nlohmann::json::array()},
      {"strings", {"", "a", std::string(300, 'x'), std::string(70000, 'y'), "caf\xc3\xa9", "a\xff"}},
      {"integers", {0, 23, 24, 255, 256, 65535, 65536, 4294967295ull, 4294967296ull,
                    std::numeric_limits<uint64_t>::max(), -1, -24, -25, -256, -257, -65537,
                    std::numeric_limits<int64_t>::min()}},
      {"floats", {0.5, -2.25, 1e300, 3.4028234663852886e38, 0.1}},
      {"scalars", {true, false, nullptr}},
      {"nested", {{"rows", {{{"cc", "8.0"}, {"sm", 80}}, {{"cc", "9.0"}, {"sm", 90}}}}}},
      {"binary", nlohmann::json::binary({0x00, 0xff, 0x10})},
  };
  // Keys out of order and many of them (the map's insertion hint is only a hint).
  for (int i = 200; i > 0; --i) value["k" + std::to_string(i)] = i;
  const Bytes bytes = nlohmann::json::to_cbor(value);
  auto ours = ParseCbor(bytes, "doc.cbor");
  if (!ours.ok()) FAIL(ours.error().ToString());
  CHECK(*ours == nlohmann::json::from_cbor(bytes));
  CHECK(*ours == value);
  CHECK((*ours)["integers"][9].is_number_unsigned());
  CHECK((*ours)["integers"][16].get<int64_t>() == std::numeric_limits<int64_t>::min());
}

TEST_CASE("ParseCbor: indefinite lengths, half floats and a repeated key") {
  // [_ "ab" (chunks "a" "b"), {_ "k": 1, "k": 2}, half 1.5, half -inf, single 0.5]
  const Bytes bytes = {0x9f, 0x7f, 0x61, 'a', 0x61, 'b', 0xff, 0xbf, 0x61, 'k', 0x01, 0x61, 'k', 0x02, 0xff,
                       0xf9, 0x3e, 0x00, 0xf9, 0xfc, 0x00, 0xfa, 0x3f, 0x00, 0x00, 0x00, 0xff};
  auto parsed = ParseCbor(bytes, "doc.cbor");
  REQUIRE(parsed.ok());
  CHECK((*parsed)[0] == "ab");
  CHECK((*parsed)[1] == nlohmann::json{{"k", 2}});
  CHECK((*parsed)[2].get<double>() == 1.5);
  CHECK(std::isinf((*parsed)[3].get<double>()));
  CHECK((*parsed)[3].get<double>() < 0);
  CHECK((*parsed)[4].get<double>() == 0.5);
  // A subnormal half: 2^-24.
  auto tiny = ParseCbor(Bytes{0xf9, 0x00, 0x01}, "doc.cbor");
  REQUIRE(tiny.ok());
  CHECK(tiny->get<double>() == std::ldexp(1.0, -24));
}

TEST_CASE("ParseCbor: malformed input is an error naming the file, the offset and what is wrong") {
  struct Case {
    Bytes bytes;
    const char* says;
  };
  const std::vector<Case> cases = {
      {{}, "unexpected end of input"},
      {{0x62, 'a'}, "runs past the end"},                         // text of 2 bytes, 1 present
      {{0x5b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, "runs past the end"},  // 2^64-1 bytes
      {{0x9b, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00}, "unexpected end of input"},  // 2^40 items
      {{0xa1, 0x01, 0x02}, "map key is not a text string"},
      {{0xc0, 0x60}, "tags are not supported"},
      {{0x1c}, "reserved additional information"},
      {{0x1f}, "indefinite length on an integer"},
      {{0xff}, "break byte outside"},
      {{0xf7}, "unsupported simple value"},
      {{0x7f, 0x41, 'a', 0xff}, "not a definite string of the same type"},
      {{0x01, 0x02}, "bytes after the end"},
      {{0x3b, 0x80, 0, 0, 0, 0, 0, 0, 0}, "below -2^63"},
      {{0x9f, 0x01}, "unexpected end of input"},
  };
  for (const auto& test : cases) {
    auto parsed = ParseCbor(test.bytes, "cache/entry.cbor");
    CAPTURE(std::string(test.says));
    REQUIRE_FALSE(parsed.ok());
    const std::string text = parsed.error().ToString();
    CHECK(text.find("cache/entry.cbor") != std::string::npos);
    CHECK(text.find("not valid CBOR") != std::string::npos);
    CAPTURE(text);
    CHECK(text.find(test.says) != std::string::npos);
  }
}
