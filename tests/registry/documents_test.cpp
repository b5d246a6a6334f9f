// What a registry sends as JSON (token answers, error bodies,
// manifests, indexes, configs) with fields of the wrong type, numbers out of
// range or endless nesting: Error values naming the reference and the field.
#include <doctest/doctest.h>

#include <string>

#include "registry/documents.h"
#include "support/test_support.h"

using namespace imagelint;
using namespace imagelint::registry;

namespace {

std::span<const uint8_t> Bytes(const std::string& text) {
  return {reinterpret_cast<const uint8_t*>(text.data()), text.size()};
}

const std::string kDigest = "sha256:" + std::string(64, 'a');

}  // namespace

TEST_CASE("token answers: only string tokens count") {
  CHECK(*TokenFromAnswer(R"({"token": "abc"})", "reg") == "abc");
  CHECK(*TokenFromAnswer(R"({"token": 5, "access_token": "def"})", "reg") == "def");
  CHECK(TokenFromAnswer(R"({"token": ["x"]})", "reg").error().message.find("holds no token") != std::string::npos);
  CHECK(TokenFromAnswer(R"({"token": 1E400})", "reg").error().message.find("not JSON") != std::string::npos);
  CHECK(TokenFromAnswer(std::string(100000, '['), "reg").error().message.find("not JSON") != std::string::npos);
  CHECK(TokenFromAnswer("{\"token\": \"a\\u0001b\"}", "reg").error().message.find("control") != std::string::npos);
}

TEST_CASE("error bodies: wrong types read as nothing") {
  auto body = ReadErrorBody(R"({"errors": [{"code": "DENIED", "message": "no"}]})");
  CHECK(body.code == "DENIED");
  CHECK(body.message == "no");
  body = ReadErrorBody(R"({"errors": [{"code": 401, "message": ["no"]}]})");
  CHECK(body.code.empty());
  CHECK(body.message.empty());
  CHECK(ReadErrorBody(R"({"errors": "x"})").code.empty());
  CHECK(ReadErrorBody("<html>").code.empty());
}

TEST_CASE("manifests and indexes: typed fields, schema 1, platform choice") {
  OpenOptions open;
  auto read = [&](const std::string& body, const std::string& type = "") {
    return ReadManifestDocument(Bytes(body), type, open, "reg.example/app:1", "manifest 1");
  };
  // The issue's class: a field of the wrong type is an error naming it.
  auto schema = read(R"({"schemaVersion": "1", "config": {}, "layers": []})");
  REQUIRE_FALSE(schema.ok());
  CHECK(schema.error().ToString().find("schemaVersion is a string, expected an integer") != std::string::npos);
  CHECK(schema.error().ToString().rfind("reg.example/app:1", 0) == 0);
  CHECK(read(R"({"schemaVersion": 1})").error().message.find("schema 1") != std::string::npos);
  CHECK(read(R"({"schemaVersion": 2, "config": {"digest": 5}, "layers": []})").error().message.find(
            "config.digest is an integer") != std::string::npos);
  CHECK(read(R"({"schemaVersion": 2, "manifests": [{"digest": ")" + kDigest +
             R"(", "platform": {"os": ["linux"]}}]})")
            .error()
            .message.find("manifests[0].platform.os is an array") != std::string::npos);
  CHECK(read(R"({"schemaVersion": 2, "manifests": [{"digest": ")" + kDigest + R"(", "size": 1E400}]})")
            .error()
            .message.find("number overflow") != std::string::npos);
  auto index = read(R"({"schemaVersion": 2, "manifests": [{"digest": ")" + kDigest +
                    R"(", "size": 7, "platform": {"os": "linux", "architecture": "amd64"}}]})",
                    kOciIndex);
  REQUIRE(index.ok());
  CHECK(index->is_index);
  CHECK(index->next_digest == kDigest);
  CHECK(index->next_size == 7);
  auto manifest = read(R"({"schemaVersion": 2, "config": {"digest": ")" + kDigest + R"("}, "layers": []})");
  REQUIRE(manifest.ok());
  CHECK_FALSE(manifest->is_index);
  auto config = ReadConfigDescriptor(manifest->manifest, "reg");
  REQUIRE(config.ok());
  CHECK(config->digest == kDigest);
  CHECK(config->size == -1);
}

TEST_CASE("configs: the architecture array of the issue, and good configs") {
  nlohmann::json manifest = {{"schemaVersion", 2},
                             {"config", {{"digest", kDigest}}},
                             {"layers", {{{"digest", kDigest}, {"size", 3}}}}};
  auto bad = ReadConfigDocument(Bytes(R"({"architecture": ["amd64"], "os": "linux",
                                         "rootfs": {"type": "layers", "diff_ids": [")" + kDigest + R"("]}})"),
                                manifest, "reg.example/app:1", "config x", "sha256:m");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().ToString() ==
        "reg.example/app:1 (config x): architecture is an array, expected a string");
  auto good = ReadConfigDocument(Bytes(R"({"architecture": "aarch64", "os": "linux",
                                          "rootfs": {"type": "layers", "diff_ids": [")" + kDigest + R"("]}})"),
                                 manifest, "reg", "config x", "sha256:m");
  REQUIRE_MESSAGE(good.ok(), imagelint::testing::ErrorText(good));
  CHECK(good->platform.ToString() == "linux/arm64");
  CHECK(good->layers.size() == 1);
  CHECK(good->layers[0].size == 3);
}
