// Image documents with fields of the wrong type, names that are not
// UTF-8, JSON nested without end, an empty member read as a layer. Each is an
// Error naming the file (and the field), or an image that scans; never an
// exception ("internal error").
#include <doctest/doctest.h>

#include <chrono>
#include <cstring>
#include <functional>

#include <nlohmann/json.hpp>

#include "imagelint/scan.h"
#include "imagelint/open_image.h"
#include "support/image_builder.h"
#include "support/raw_tar.h"
#include "support/test_support.h"

using namespace imagelint;
using namespace imagelint::testing;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

Result<ScannedImage> Scan(const fs::path& path) {
  auto source = OpenLocalImage(path.string(), {});
  if (!source.ok()) return source.error();
  return ScanImage(**source, {});
}

std::string ScanError(const fs::path& path) {
  Result<ScannedImage> scanned = MakeError("", "not run");
  CHECK_NOTHROW(scanned = Scan(path));
  REQUIRE_FALSE_MESSAGE(scanned.ok(), "expected an error reading " << path);
  return scanned.error().ToString();
}

json ReadJsonFile(const fs::path& path) {
  auto bytes = ReadFileBytes(path);
  return json::parse(bytes.begin(), bytes.end());
}

// Writes `text` as a blob of the layout; returns its digest.
std::string PutBlob(const fs::path& layout, const std::string& text) {
  std::vector<uint8_t> bytes(text.begin(), text.end());
  std::string digest = TestDigest(bytes);
  WriteFileBytes(layout / "blobs" / "sha256" / digest.substr(7), bytes);
  return digest;
}

// Rewrites the documents of a single-image OCI layout directory: each edit
// sees the parsed document and may change it; digests and sizes are fixed up.
struct Edits {
  std::function<void(json&)> index;
  std::function<void(json&)> manifest;
  std::function<void(json&)> config;
};
void EditLayout(const fs::path& layout, const Edits& edits) {
  json index = ReadJsonFile(layout / "index.json");
  std::string manifest_digest = index["manifests"][0]["digest"];
  json manifest = ReadJsonFile(layout / "blobs" / "sha256" / manifest_digest.substr(7));
  std::string config_digest = manifest["config"]["digest"];
  json config = ReadJsonFile(layout / "blobs" / "sha256" / config_digest.substr(7));
  if (edits.config) {
    edits.config(config);
    std::string text = config.dump();
    manifest["config"]["digest"] = PutBlob(layout, text);
    manifest["config"]["size"] = text.size();
  }
  if (edits.manifest) edits.manifest(manifest);
  std::string manifest_text = manifest.dump();
  index["manifests"][0]["digest"] = PutBlob(layout, manifest_text);
  index["manifests"][0]["size"] = manifest_text.size();
  if (edits.index) edits.index(index);
  std::string index_text = index.dump();
  WriteFileBytes(layout / "index.json", std::vector<uint8_t>(index_text.begin(), index_text.end()));
}

fs::path Layout(const TempDir& dir, const std::string& name) {
  TestImage image;
  image.Layer().Dir("usr").File("usr/file", "x");
  fs::path path = dir / name;
  WriteImage(image, ImageKind::kOciLayout, path);
  return path;
}

void CheckNames(const std::string& error, const fs::path& file_prefix, const std::string& field_message) {
  CAPTURE(error);
  CHECK(error.rfind(file_prefix.string(), 0) == 0);
  CHECK(error.find(field_message) != std::string::npos);
  CHECK(error.find("json.exception") == std::string::npos);
}

}  // namespace

TEST_CASE("an image config whose architecture is an array: an error naming the config and the field") {
  TempDir dir;
  fs::path layout = Layout(dir, "arch");
  EditLayout(layout, {.config = [](json& config) { config["architecture"] = json::array({"amd64"}); }});
  CheckNames(ScanError(layout), layout / "blobs" / "sha256", "architecture is an array, expected a string");
}

TEST_CASE("every typed field of the config, manifest and index is checked") {
  TempDir dir;
  struct Case {
    const char* name;
    Edits edits;
    const char* message;
  };
  std::vector<Case> cases = {
      {"os", {.config = [](json& c) { c["os"] = 7; }}, "os is an integer, expected a string"},
      {"variant", {.config = [](json& c) { c["variant"] = json::object(); }}, "variant is an object"},
      {"env", {.config = [](json& c) { c["config"]["Env"] = "PATH=/bin"; }}, "config.Env is a string, expected an array"},
      {"env-item", {.config = [](json& c) { c["config"]["Env"] = {"A=1", 2}; }}, "config.Env[1] is an integer"},
      {"labels", {.config = [](json& c) { c["config"]["Labels"] = {{"a", 1}}; }}, "config.Labels[\"a\"] is an integer"},
      {"cmd", {.config = [](json& c) { c["config"]["Cmd"] = {{"x", 1}}; }}, "config.Cmd is an object"},
      {"diff-ids", {.config = [](json& c) { c["rootfs"]["diff_ids"] = "x"; }}, "rootfs.diff_ids is a string"},
      {"history", {.config = [](json& c) { c["history"] = {1}; }}, "history[0] is an integer"},
      {"empty-layer", {.config = [](json& c) { c["history"][0]["empty_layer"] = "yes"; }},
       "history[0].empty_layer is a string, expected true or false"},
      {"created-by", {.config = [](json& c) { c["history"][0]["created_by"] = {1, 2}; }},
       "history[0].created_by is an array"},
      {"manifest-media-type", {.manifest = [](json& m) { m["mediaType"] = 1; }}, "mediaType is an integer"},
      {"layer-size", {.manifest = [](json& m) { m["layers"][0]["size"] = "12"; }}, "layers[0].size is a string"},
      {"layer-annotations", {.manifest = [](json& m) { m["layers"][0]["annotations"] = {{"k", {1}}}; }},
       "layers[0].annotations[\"k\"] is an array"},
      {"schema", {.manifest = [](json& m) { m["schemaVersion"] = "2"; }}, "schemaVersion is a string"},
      {"index-platform", {.index = [](json& i) { i["manifests"][0]["platform"] = {{"architecture", {"amd64"}}}; }},
       "manifests[0].platform.architecture is an array"},
      {"index-annotations", {.index = [](json& i) { i["manifests"][0]["annotations"] = "x"; }},
       "manifests[0].annotations is a string"},
      {"index-media-type", {.index = [](json& i) { i["manifests"][0]["mediaType"] = true; }},
       "manifests[0].mediaType is a boolean"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.name);
    fs::path layout = Layout(dir, c.name);
    EditLayout(layout, c.edits);
    CheckNames(ScanError(layout), layout, c.message);
  }
  // null is absent (as in Go), and unknown fields are ignored.
  fs::path layout = Layout(dir, "nulls");
  EditLayout(layout, {.config = [](json& c) {
    c["variant"] = nullptr;
    c["config"]["Env"] = nullptr;
    c["x-unknown"] = {{"anything", 1}};
  }});
  CHECK(Scan(layout).ok());
}

TEST_CASE("docker save manifest.json with fields of the wrong type") {
  TempDir dir;
  const char* config = R"({"os":"linux","architecture":"amd64","rootfs":{"type":"layers","diff_ids":[]}})";
  for (const auto& [manifest, message] : std::vector<std::pair<std::string, std::string>>{
           {R"([{"Config": 5, "Layers": []}])", "[0].Config is an integer, expected a string"},
           {R"([{"Config": "c.json", "RepoTags": "x:1", "Layers": []}])", "[0].RepoTags is a string"},
           {R"([{"Config": "c.json", "Layers": [1]}])", "[0].Layers[0] is an integer"},
           {R"([{"Config": "c.json", "Layers": [], "LayerSources": {"sha256:x": 3}}])",
            "[0].LayerSources[\"sha256:x\"] is an integer"},
           {R"({"Config": "c.json"})", "manifest.json is an object, expected an array"},
       }) {
    CAPTURE(manifest);
    TestLayer outer;
    outer.File("manifest.json", manifest).File("c.json", config);
    fs::path path = dir / "save.tar";
    WriteFileBytes(path, BuildLayerTar(outer));
    CheckNames(ScanError(path), path.string() + ":manifest.json", message);
  }
}

TEST_CASE("JSON nested without end in index.json is an error, not a stack overflow") {
  TempDir dir;
  fs::path layout = Layout(dir, "deep");
  std::string deep = "{\"schemaVersion\":2,\"manifests\":" + std::string(1 << 20, '[') + std::string(1 << 20, ']') + "}";
  WriteFileBytes(layout / "index.json", std::vector<uint8_t>(deep.begin(), deep.end()));
  CheckNames(ScanError(layout), layout / "index.json", "nested deeper than");
}

TEST_CASE("file names with bytes that are not UTF-8 (Latin-1 names) scan like any other") {
  TempDir dir;
  TestImage image;
  // libarchive's writer refuses such names in pax headers: plain ustar, by
  // hand (a raw blob is the layer's tar, uncompressed).
  image.Layer(Compression::kNone).raw_blob = UstarTar({{"caf\xe9/", '5', "", ""},
                                                        {"caf\xe9/men\xfc.txt", '0', "x", ""},
                                                        {"l\xff", '2', "", "caf\xe9"}});
  image.Layer(Compression::kNone).raw_blob =
      UstarTar({{"caf\xe9/.wh.men\xfc.txt", '0', "", ""}, {"\xff\xfe", '0', "y", ""}});
  for (auto kind : {ImageKind::kDockerArchive, ImageKind::kOciArchive}) {
    fs::path path = dir / "latin1.tar";
    WriteImage(image, kind, path);
    Result<ScannedImage> scanned = MakeError("", "not run");
    CHECK_NOTHROW(scanned = Scan(path));
    REQUIRE_MESSAGE(scanned.ok(), imagelint::testing::ErrorText(scanned));
    CHECK(scanned->tree.Lookup("caf\xe9"));
    CHECK_FALSE(scanned->tree.Lookup("caf\xe9/men\xfc.txt"));
    CHECK(scanned->tree.Lookup("\xff\xfe"));
    CHECK(*scanned->tree.Resolve("l\xff") == "/caf\xe9");
    CHECK(LayerResultToJson(scanned->layers[0])["entries"][1]["path"] == "caf\xe9/men\xfc.txt");
  }
}

TEST_CASE("a gzip'd docker save whose layer member is empty: an error, no memcpy from null") {
  TempDir dir;
  TestLayer outer;
  outer.File("manifest.json", R"([{"Config":"c.json","RepoTags":["x:1"],"Layers":["empty.tar"]}])")
      .File("c.json", R"({"os":"linux","architecture":"amd64","rootfs":{"type":"layers","diff_ids":[
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"]}})")
      .File("empty.tar", "");
  fs::path path = dir / "empty-member.tar.gz";
  WriteFileBytes(path, Compress(BuildLayerTar(outer), Compression::kGzip));
  CheckNames(ScanError(path), path.string() + ":empty.tar", "empty layer blob");
}

TEST_CASE("an index of 100,000 named images: a short error, quickly") {
  TempDir dir;
  fs::path layout = Layout(dir, "many");
  json index = ReadJsonFile(layout / "index.json");
  index["manifests"] = json::array();
  for (int i = 0; i < 100000; ++i) {
    std::string n = std::to_string(i);
    std::string digest = "sha256:" + std::string(64 - n.size(), '0') + n;
    index["manifests"].push_back({{"digest", digest}, {"annotations", {{"io.containerd.image.name", "n" + n}}}});
  }
  std::string text = index.dump();
  WriteFileBytes(layout / "index.json", std::vector<uint8_t>(text.begin(), text.end()));
  auto start = std::chrono::steady_clock::now();
  std::string error = ScanError(layout);
  // Wall seconds, generous: the scan takes about 1 s in an optimised build and
  // ~20x that under AddressSanitizer, but CI runs the suites two at a time on
  // two loaded cores. Quadratic work over 100,000 entries would take hours.
#if defined(__SANITIZE_ADDRESS__)
  constexpr double kSeconds = 200;
#else
  constexpr double kSeconds = 30;
#endif
  CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < kSeconds);
  CAPTURE(error);
  CHECK(error.find("holds 100000 images") != std::string::npos);
  CHECK(error.find("and 99980 more") != std::string::npos);
  CHECK(error.size() < 2000);
}
