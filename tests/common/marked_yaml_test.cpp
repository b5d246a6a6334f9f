// The parsed-YAML tree a cache keeps: the same nodes, kinds and marks as
// yaml-cpp's, read back from its bytes exactly, and corrupt or tampered bytes
// never trusted.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "common/marked_yaml.h"
#include "support/test_support.h"

using namespace imagelint;

namespace {

// Every node of `a` and `b` equal, marks included.
void CheckSame(const MarkedNode& a, const MarkedNode& b) {
  REQUIRE(a.kind() == b.kind());
  CHECK(a.mark().line == b.mark().line);
  CHECK(a.mark().column == b.mark().column);
  CHECK(a.Scalar() == b.Scalar());
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.Items().size(); ++i) CheckSame(a.Items()[i], b.Items()[i]);
  for (size_t i = 0; i < a.Entries().size(); ++i) {
    CheckSame(a.Entries()[i].first, b.Entries()[i].first);
    CheckSame(a.Entries()[i].second, b.Entries()[i].second);
  }
}

size_t Records(const std::filesystem::path& cache) {
  size_t n = 0;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(cache / "parsed-yaml", ec)) n += entry.is_regular_file();
  return n;
}

constexpr const char* kText =
    "rules:\n"
    "  - id: IL001\n"
    "    code: 0x23\n"
    "    enabled: yes\n"
    "    empty:\n"
    "    quoted: \"null\"\n"
    "    anchor: &a {x: [1, 2]}\n"
    "    alias: *a\n"
    "    message: |\n"
    "      two\n"
    "      lines\n";

}  // namespace

TEST_CASE("MarkedNode: kinds, scalars, marks and lookups as yaml-cpp gives them") {
  auto root = LoadMarkedYaml(kText, "r.yaml");
  REQUIRE(root.ok());
  REQUIRE(root->IsMap());
  const MarkedNode& rule = root->operator[]("rules").Items().at(0);
  CHECK(rule.mark().line == 1);
  CHECK(rule.mark().column == 4);
  CHECK(rule["id"].Scalar() == "IL001");
  CHECK(rule["id"].mark().column == 8);
  CHECK(rule["code"].AsInt() == 35);  // yaml-cpp reads hex integers
  CHECK(rule["enabled"].AsBool() == true);
  CHECK_FALSE(rule["id"].AsInt().has_value());
  CHECK(rule["empty"].IsNull());
  CHECK(rule["quoted"].IsScalar());  // a quoted "null" is a string
  CHECK(rule["alias"]["x"].Items().size() == 2);  // the alias is expanded
  CHECK(rule["message"].Scalar() == "two\nlines\n");
  CHECK_FALSE(rule["missing"].IsDefined());
  CHECK_FALSE(rule["id"]["x"].IsDefined());  // a scalar has no entries
  CHECK(rule["missing"].mark().line == -1);
}

TEST_CASE("MarkedNode: the byte form reads back to the same tree, and nothing else reads") {
  auto root = LoadMarkedYaml(kText, "r.yaml");
  REQUIRE(root.ok());
  std::string bytes;
  root->Encode(&bytes);
  auto back = MarkedNode::Decode(bytes);
  REQUIRE(back.has_value());
  CheckSame(*root, *back);

  // Every truncation, one extra byte, and every single-byte change either
  // fails or reads a tree (never a crash or an over-read: ASan runs this).
  for (size_t n = 0; n < bytes.size(); ++n) CHECK_FALSE(MarkedNode::Decode(bytes.substr(0, n)).has_value());
  CHECK_FALSE(MarkedNode::Decode(bytes + "x").has_value());
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string changed = bytes;
    changed[i] = static_cast<char>(changed[i] ^ 0xff);
    (void)MarkedNode::Decode(changed);
  }
  // A count far larger than the bytes left is refused before anything is allocated for it.
  std::string huge = std::string("\x03", 1) + std::string(8, '\0') + std::string("\xff\xff\xff\xff", 4);
  CHECK_FALSE(MarkedNode::Decode(huge).has_value());
  // Nesting past the decoder's bound.
  std::string deep;
  for (int i = 0; i < 600; ++i) deep += std::string("\x03", 1) + std::string(8, '\0') + std::string("\x01\0\0\0", 4);
  deep += std::string("\x01", 1) + std::string(8, '\0');
  CHECK_FALSE(MarkedNode::Decode(deep).has_value());
}

TEST_CASE("LoadMarkedYaml with a cache: one record per text, the same tree from it, tampering parses again") {
  testing::TempDir cache;
  const YamlCheckMemo memo{cache.path()};
  auto first = LoadMarkedYaml(kText, "r.yaml", {}, memo);
  REQUIRE(first.ok());
  CHECK(Records(cache.path()) == 1);
  auto second = LoadMarkedYaml(kText, "r.yaml", {}, memo);  // from the record
  REQUIRE(second.ok());
  CheckSame(*first, *second);
  CHECK(Records(cache.path()) == 1);

  // A record overwritten with other bytes fails its seal: parsed again, the same tree.
  for (const auto& entry : std::filesystem::directory_iterator(cache.path() / "parsed-yaml")) {
    std::ofstream out(entry.path(), std::ios::binary | std::ios::trunc);
    out << "ILYAML01 not a sealed tree";
  }
  auto third = LoadMarkedYaml(kText, "r.yaml", {}, memo);
  REQUIRE(third.ok());
  CheckSame(*first, *third);

  // A text that fails is never recorded: its error is yaml-cpp's every time.
  for (int run = 0; run < 2; ++run) {
    auto bad = LoadMarkedYaml("a: [1, 2\n", "bad.yaml", {}, memo);
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().message.find("YAML syntax error") == 0);
  }
  CHECK(Records(cache.path()) == 1);
  // Other limits are another record; a text over them fails.
  YamlLimits strict;
  strict.max_aliases = 0;
  CHECK_FALSE(LoadMarkedYaml(kText, "r.yaml", strict, memo).ok());
}
