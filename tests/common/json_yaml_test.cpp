// Untrusted JSON and YAML: bounded depth, typed fields, alias expansion
// limits, and the empty memory stream.
#include <doctest/doctest.h>

#include <string>

#include "common/json.h"
#include "common/yaml.h"
#include "imagelint/stream.h"
#include "support/test_support.h"

using namespace imagelint;

TEST_CASE("ParseJson: errors carry line:column, numbers out of range and deep nesting are errors") {
  auto good = ParseJson(std::string_view(R"({"a": [1, 2, {"b": "c"}]})"), "doc.json");
  REQUIRE(good.ok());
  CHECK((*good)["a"][2]["b"] == "c");

  auto syntax = ParseJson(std::string_view("{\n  \"a\": tru\n}"), "doc.json");
  REQUIRE_FALSE(syntax.ok());
  CHECK(syntax.error().subject == "doc.json");
  CHECK(syntax.error().line == 2);
  CHECK(syntax.error().message.find("not valid JSON") == 0);

  // nlohmann reports 1E400 as out_of_range, not parse_error: it must still be an Error value.
  auto huge = ParseJson(std::string_view("{\"n\":\n 1E400}"), "nodes.json");
  REQUIRE_FALSE(huge.ok());
  CHECK(huge.error().line == 2);
  CHECK(huge.error().message.find("number overflow") != std::string::npos);

  std::string deep(100000, '[');
  auto nested = ParseJson(std::string_view(deep), "deep.json");
  REQUIRE_FALSE(nested.ok());
  CHECK(nested.error().message.find("nested deeper than 128 levels") != std::string::npos);
  std::string ok_depth = std::string(100, '[') + std::string(100, ']');
  CHECK(ParseJson(std::string_view(ok_depth), "deep.json").ok());

  // Invalid UTF-8 inside a string: an error value, the byte shown escaped.
  auto latin1 = ParseJson(std::string_view("{\"name\": \"caf\xe9\"}"), "conda.json");
  REQUIRE_FALSE(latin1.ok());
  CHECK(latin1.error().message.find("\\xe9") != std::string::npos);
}

TEST_CASE("ParseCbor: malformed and deep CBOR are errors with an offset") {
  nlohmann::json value = {{"entries", {{"a\xff", 1}}}};
  auto bytes = nlohmann::json::to_cbor(value);
  auto back = ParseCbor(bytes, "entries.cbor");
  REQUIRE(back.ok());
  CHECK(*back == value);  // bytes that are not UTF-8 survive the cache's CBOR
  bytes.resize(bytes.size() - 2);
  CHECK_FALSE(ParseCbor(bytes, "entries.cbor").ok());
  std::vector<uint8_t> deep(5000, 0x81);  // array(1) of array(1) of ...
  deep.push_back(0x01);
  auto nested = ParseCbor(deep, "entries.cbor");
  REQUIRE_FALSE(nested.ok());
  CHECK(nested.error().message.find("nested deeper") != std::string::npos);
}

TEST_CASE("JsonFields: a field of the wrong type names the file and the field") {
  auto json = nlohmann::json::parse(R"({"architecture": ["amd64"], "os": "linux", "size": 5, "n": null,
                                        "big": 18446744073709551615, "flag": "yes"})");
  JsonFields fields(json, "config.json");
  auto arch = fields.String("architecture");
  REQUIRE_FALSE(arch.ok());
  CHECK(arch.error().ToString() == "config.json: architecture is an array, expected a string");
  CHECK(**fields.String("os") == "linux");
  CHECK_FALSE(fields.String("missing")->has_value());
  CHECK_FALSE(fields.String("n")->has_value());  // null reads as absent, as in Go
  CHECK(**fields.Integer("size") == 5);
  CHECK_FALSE(fields.Integer("big").ok());
  CHECK_FALSE(fields.Bool("flag").ok());
  JsonFields nested(json, "config.json", "config");
  CHECK(nested.String("architecture").error().message == "config.architecture is an array, expected a string");
  CHECK(nested.RequiredString("missing").error().message == "config.missing is missing");
  auto list = StringArray(&json["architecture"], "config.json", "architecture");
  REQUIRE(list.ok());
  CHECK(*list == std::vector<std::string>{"amd64"});
  nlohmann::json mixed = {"a", 1};
  CHECK(StringArray(&mixed, "f", "Env").error().message == "Env[1] is an integer, expected a string");
  CHECK(StringField(json, "architecture").empty());
  CHECK(StringField(json, "os") == "linux");
}

TEST_CASE("DumpJson never throws on bytes that are not UTF-8") {
  nlohmann::json value = {{"path", "caf\xff"}};
  CHECK_THROWS(value.dump());
  CHECK(DumpJson(value) == "{\"path\":\"caf\xef\xbf\xbd\"}");
}

TEST_CASE("LoadYaml: syntax errors, alias expansion limits, cycles and depth") {
  auto good = LoadYaml("base: &b {x: 1}\nuse: *b\n", "f.yaml");
  REQUIRE(good.ok());
  CHECK((*good)["use"]["x"].as<int>() == 1);

  auto syntax = LoadYaml("a: [1,\n", "f.yaml");
  REQUIRE_FALSE(syntax.ok());
  CHECK(syntax.error().subject == "f.yaml");
  CHECK(syntax.error().message.find("YAML syntax error") == 0);

  // A 1,000-label map aliased by 2,000 list items: 2 M nodes from a 40 KB file.
  std::string bomb = "labels: &l {";
  for (int i = 0; i < 1000; ++i) bomb += (i ? ", k" : "k") + std::to_string(i) + ": v";
  bomb += "}\npools:\n";
  for (int i = 0; i < 2000; ++i) bomb += "  - *l\n";
  auto expanded = LoadYaml(bomb, "fleet.yaml");
  REQUIRE_FALSE(expanded.ok());
  CHECK(expanded.error().message.find("aliases expand the document by more than") == 0);
  CHECK(expanded.error().line > 1);

  // One long scalar aliased many times: the byte limit.
  std::string text = "r: &r " + std::string(100000, 'x') + "\nl:\n";
  for (int i = 0; i < 200; ++i) text += "  - reason: *r\n";
  auto bytes = LoadYaml(text, "config.yaml");
  REQUIRE_FALSE(bytes.ok());
  CHECK(bytes.error().message.find("bytes") != std::string::npos);

  std::string many = "a: &a 1\nl: [";
  for (int i = 0; i < 20; ++i) many += "*a, ";
  many += "*a]\n";
  YamlLimits strict;
  strict.max_aliases = 10;
  auto count = LoadYaml(many, "f.yaml", strict);
  REQUIRE_FALSE(count.ok());
  CHECK(count.error().message == "more than 10 aliases");
  CHECK(LoadYaml(many, "f.yaml").ok());

  auto cycle = LoadYaml("a: &a [1, *a]\n", "f.yaml");
  REQUIRE_FALSE(cycle.ok());
  CHECK(cycle.error().message.find("cycle") != std::string::npos);

  // yaml-cpp 0.7 reports empty documents forever on a stray "," (found by
  // tests/fuzz/mutate_test.cpp in a rule file): an error, not a hang.
  for (const char* stray : {",", "a: 1\n---\n,\n", "- a\n,"}) {
    CAPTURE(stray);
    auto stuck = LoadYamlDocuments(stray, "rules.yaml");
    REQUIRE_FALSE(stuck.ok());
    CHECK(stuck.error().message.find("a token that starts no value") != std::string::npos);
    CHECK_FALSE(LoadYaml(stray, "fleet.yaml").ok());
  }
  auto empty_documents = LoadYamlDocuments("---\n---\n", "f.yaml");
  REQUIRE(empty_documents.ok());
  CHECK(empty_documents->size() == 2);

  std::string deep = std::string(200, '[') + std::string(200, ']');
  auto nested = LoadYaml(deep, "f.yaml");
  REQUIRE_FALSE(nested.ok());
  CHECK(nested.error().message == "nested deeper than 64 levels");
}

TEST_CASE("LoadYaml with a memo: a text that passed the limit check is recorded; failures and other limits are not") {
  testing::TempDir cache;
  const YamlCheckMemo memo{cache.path()};
  const auto records = [&] {
    size_t n = 0;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(cache / "checked-yaml", ec)) n += entry.is_regular_file();
    return n;
  };
  std::string many = "a: &a 1\nl: [";
  for (int i = 0; i < 20; ++i) many += "*a, ";
  many += "*a]\n";
  REQUIRE(LoadYaml(many, "f.yaml", {}, memo).ok());
  CHECK(records() == 1);
  REQUIRE(LoadYaml(many, "f.yaml", {}, memo).ok());  // served by the record
  CHECK(records() == 1);

  // The limits are part of the record's name: stricter limits check again.
  YamlLimits strict;
  strict.max_aliases = 10;
  auto count = LoadYaml(many, "f.yaml", strict, memo);
  REQUIRE_FALSE(count.ok());
  CHECK(count.error().message == "more than 10 aliases");
  CHECK(records() == 1);

  // A text that fails is never recorded, so it fails every time.
  for (int run = 0; run < 2; ++run) {
    auto cycle = LoadYaml("a: &a [1, *a]\n", "f.yaml", {}, memo);
    REQUIRE_FALSE(cycle.ok());
    CHECK(cycle.error().message.find("cycle") != std::string::npos);
  }
  CHECK(records() == 1);

  // One changed byte is another text.
  REQUIRE(LoadYaml(many + "b: 2\n", "f.yaml", {}, memo).ok());
  CHECK(records() == 2);
}

TEST_CASE("an empty memory stream reads as the end, without touching its null buffer") {
  auto stream = MemoryStream({}, "empty");
  uint8_t buffer[16];
  auto n = stream->Read(buffer);
  REQUIRE(n.ok());
  CHECK(*n == 0);
}
