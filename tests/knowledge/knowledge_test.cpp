// The knowledge files load, validate, and answer lookups; broken files give
// file:line:column errors.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>

#include "imagelint/knowledge.h"
#include "support/test_support.h"

using imagelint::Knowledge;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {
const Knowledge& Loaded() {
  static const Knowledge knowledge = [] {
    auto k = Knowledge::Load(imagelint::testing::SourceDir() / "rules" / "knowledge");
    if (!k.ok()) FAIL(k.error().ToString());
    return *k;
  }();
  return knowledge;
}

// Copies the real knowledge dir and replaces one file.
fs::path CopyWith(const imagelint::testing::TempDir& dir, const std::string& file, const std::string& text) {
  fs::path out = dir / "knowledge";
  fs::create_directories(out);
  for (const auto& entry : fs::directory_iterator(imagelint::testing::SourceDir() / "rules" / "knowledge"))
    fs::copy_file(entry.path(), out / entry.path().filename());
  imagelint::testing::WriteFileText(out / file, text);
  return out;
}
}  // namespace

TEST_CASE("every knowledge table loads and every row cites a source") {
  const Knowledge& k = Loaded();
  for (const auto& info : imagelint::KnowledgeTables()) {
    CAPTURE(info.kind);
    const json& rows = k.Table(info.kind);
    CHECK(rows.size() > 0);
    for (const auto& row : rows) {
      CHECK(row.contains("_line"));
      if (info.kind != "sources" && info.kind != "bundle") CHECK(row.contains("source"));  // the bundle row is the bundle itself
    }
  }
  CHECK(k.Table("no-such-table").empty());
}

TEST_CASE("every source is public: a title and an http(s) address anyone can open") {
  const Knowledge& k = Loaded();
  auto is_url = [](const std::string& url) {
    return (url.rfind("https://", 0) == 0 || url.rfind("http://", 0) == 0) && url.find(' ') == std::string::npos;
  };
  const json& sources = k.Table("sources");
  REQUIRE(sources.size() >= 20);
  for (const auto& source : sources) {
    CAPTURE(source.dump());
    CHECK(is_url(source.at("url").get<std::string>()));
    for (const auto& also : source.value("also", json::array())) CHECK(is_url(also.get<std::string>()));
    CHECK_FALSE(source.at("title").get<std::string>().empty());
  }
  // Every source is cited by some row, and every row's ids are sources (the loader checks the latter).
  std::string citations;
  for (const auto& info : imagelint::KnowledgeTables())
    for (const auto& row : k.Table(info.kind)) citations += " " + row.value("source", std::string()) + " ";
  for (const auto& source : sources) {
    CAPTURE(source.at("id"));
    CHECK(citations.find(" " + source.at("id").get<std::string>() + " ") != std::string::npos);
  }
}

TEST_CASE("knowledge tables cite their public sources, not notes outside the repository") {
  for (const auto& info : imagelint::KnowledgeTables()) {
    CAPTURE(info.file);
    std::string text = imagelint::testing::ReadFileText(imagelint::testing::SourceDir() / "rules/knowledge" / info.file);
    for (const char* note : {"\xc2\xa7", "cuda-compat-data", "nvidia-container-stack", "formats.md", "worked-examples",
                             "peers-and-style", "reference/"}) {
      CAPTURE(note);
      CHECK(text.find(note) == std::string::npos);
    }
  }
}

TEST_CASE("UNCONFIRMED marks stay as a field") {
  const Knowledge& k = Loaded();
  const json* r565 = k.FindBranch(565);
  REQUIRE(r565 != nullptr);
  CHECK(r565->at("cuda") == "12.7");
  CHECK(r565->contains("unconfirmed"));
  const json* r535 = k.FindBranch(535);
  REQUIRE(r535 != nullptr);
  CHECK_FALSE(r535->contains("unconfirmed"));
}

TEST_CASE("GPU lookup by nvidia-smi names, aliases and prefixes") {
  const Knowledge& k = Loaded();
  const json* rtx = k.FindGpu("NVIDIA GeForce RTX 3090");
  REQUIRE(rtx != nullptr);
  CHECK(rtx->at("compute_capability") == "8.6");
  CHECK(rtx->at("brand") == "geforce");
  CHECK(rtx->at("forward_compat") == false);
  CHECK(k.FindGpu("GeForce RTX 3090") == rtx);          // older drivers: no NVIDIA prefix
  CHECK(k.FindGpu("nvidia  geforce rtx 3090") == rtx);  // case and spaces
  const json* t4 = k.FindGpu("Tesla T4");
  REQUIRE(t4 != nullptr);
  CHECK(t4->at("compute_capability") == "7.5");
  CHECK(k.FindGpu("NVIDIA T4") == t4);
  const json* gh = k.FindGpu("NVIDIA GH200 480GB");
  REQUIRE(gh != nullptr);
  CHECK(gh->at("architecture") == "Hopper");
  const json* orin = k.FindGpu("Jetson AGX Orin");
  REQUIRE(orin != nullptr);
  CHECK(orin->at("integrated") == true);
  CHECK(k.FindGpu("RTX 3090 Super Turbo") == nullptr);
  CHECK(k.FindGpu("") == nullptr);
  const json* a6000 = k.FindGpu("NVIDIA RTX A6000");
  REQUIRE(a6000 != nullptr);
  CHECK(a6000->at("forward_compat").is_null());  // unknown: NGC-Server-Ready list UNCONFIRMED
}

TEST_CASE("closest GPU names: words in common (model numbers twice), then edit distance") {
  const Knowledge& k = Loaded();
  auto closest = k.ClosestGpuNames("NVIDIA GeForce RTX 3900", 3);
  REQUIRE(closest.size() == 3);
  CHECK(closest[0] == "NVIDIA GeForce RTX 3090");
  auto h100 = k.ClosestGpuNames("H100 SXM", 1);
  REQUIRE(h100.size() == 1);
  CHECK(h100[0].find("H100") != std::string::npos);
  // A variant of a known model: the model, not a sibling with the same suffix.
  auto ti = k.ClosestGpuNames("NVIDIA GeForce RTX 5090 Ti", 2);
  REQUIRE(ti.size() == 2);
  CHECK(ti[0].find("5090") != std::string::npos);
  CHECK(ti[1].find("5090") != std::string::npos);
}

TEST_CASE("toolkit, branch, PTX, minor floor, compat and torch lookups") {
  const Knowledge& k = Loaded();
  const json* t113 = k.FindToolkit("11.3");
  REQUIRE(t113 != nullptr);
  CHECK(t113->at("version") == "11.3.0");
  CHECK(t113->at("toolkit_driver") == "465.19.01");
  const json* t1241 = k.FindToolkit("12.4.1");
  REQUIRE(t1241 != nullptr);
  CHECK(t1241->at("toolkit_driver") == "550.54.15");
  CHECK(t1241->at("cudart") == "12.4.127");
  CHECK(k.FindToolkit("12.7") == nullptr);  // never released
  CHECK(k.BranchCudaVersion(460) == std::optional<std::string>("11.2"));
  CHECK(k.BranchCudaVersion(580) == std::optional<std::string>("13.0"));
  CHECK_FALSE(k.BranchCudaVersion(123).has_value());
  REQUIRE(k.FindPtxIsa("8.6") != nullptr);
  CHECK(k.FindPtxIsa("8.6")->at("cuda") == "12.7");
  CHECK(k.FindPtxIsa("7.3.0") != nullptr);  // numeric, trailing zeros
  const json* floor11 = k.FindMinorFloor(11);
  REQUIRE(floor11 != nullptr);
  CHECK(floor11->at("floor_driver") == "450.80.02");
  CHECK(k.FindMinorFloor(10)->at("minor_compat") == false);
  const json* c129 = k.FindCompatPackage("12.9");
  REQUIRE(c129 != nullptr);
  CHECK(c129->at("compatible_branches") == json({535, 570}));
  CHECK(c129->at("matrix") == "official");
  CHECK(k.FindCompatPackage("11.3")->at("matrix") == "proxy");
  CHECK(k.FindArchitecture("3.7")->at("last_branch") == 470);
  CHECK(k.FindArchitecture("9.0")->at("name") == "Hopper");
  const json* torch = k.FindTorchBuild("2.1.2", "cu118");
  REQUIRE(torch != nullptr);
  CHECK(torch->at("arch_list") == "5.0;6.0;7.0;7.5;8.0;8.6;3.7;9.0");
  CHECK(k.FindTorchBuild("1.12.1", "cu102")->at("arch_list") == "3.7;5.0;6.0;7.0");
  CHECK(k.FindTorchBuild("2.7.0", "cu128")->at("ptx") == true);
  CHECK(k.FindError(804)->at("name") == "cudaErrorCompatNotSupportedOnDevice");
  CHECK(k.FindBrand("GeForce")->at("id") == 5);
  CHECK(k.FindBrandId(14)->at("requirement") == "nvidia");
}

TEST_CASE("container-toolkit behaviour rows apply by version") {
  const Knowledge& k = Loaded();
  CHECK(k.ToolkitBehaviour("1.4.0")->at("version") == "1.3.1");
  CHECK(k.ToolkitBehaviour("1.4.0")->at("docker_gpus_compat") == "mount");
  CHECK(k.ToolkitBehaviour("1.17.4")->at("docker_gpus_compat") == "none");
  CHECK(k.ToolkitBehaviour("1.17.6")->at("nvidia_runtime_compat") == "hook");
  CHECK(k.ToolkitBehaviour("1.17.7")->at("docker_gpus_compat") == "ldconfig");
  CHECK(k.ToolkitBehaviour("1.18.0-rc.1")->at("version") == "1.17.9");  // rc sorts before the release (after the 1.17.9 patch)
  CHECK(k.ToolkitBehaviour("v1.18.0")->at("nvidia_runtime_mode") == "jit-cdi");
  CHECK(k.ToolkitBehaviour("1.20.0")->at("cdi_compat") == "hook-elf");
  CHECK(k.ToolkitBehaviour("0.9.0") == nullptr);
  CHECK(k.NewestContainerToolkit() == "1.20.0");
  // The lookups go through indexes built at load; a copy keeps them valid.
  const Knowledge copy = k;
  CHECK(copy.ToolkitBehaviour("1.4.0")->at("version") == "1.3.1");
  CHECK(copy.NewestContainerToolkit() == "1.20.0");
}

TEST_CASE("sass rows are found by compute capability") {
  const Knowledge& k = Loaded();
  REQUIRE(k.FindSass("8.6") != nullptr);
  CHECK(k.FindSass("8.6")->at("cc") == "8.6");
  CHECK(k.FindSass("4.2") == nullptr);
  const Knowledge copy = k;
  CHECK(copy.FindSass("9.0") == &copy.Table("sass")[std::distance(&k.Table("sass")[0], k.FindSass("9.0"))]);
}

TEST_CASE("schema violations are file:line:column errors") {
  auto parse = [](const std::string& kind, const std::string& text) {
    return Knowledge::ParseTable(kind, text, "x.yaml", {"S1", "S4"});
  };
  SUBCASE("ok") {
    auto rows = parse("ptx_isa", "kind: ptx_isa\nschema: 1\nrows:\n  - isa: \"7.3\"\n    cuda: \"11.3\"\n    source: S1\n");
    REQUIRE(rows.ok());
    CHECK(rows->size() == 1);
    CHECK((*rows)[0]["_line"] == 4);
  }
  SUBCASE("unknown field names its line and column") {
    auto rows = parse("ptx_isa", "kind: ptx_isa\nschema: 1\nrows:\n  - isa: \"7.3\"\n    cuda: \"11.3\"\n    cdua: x\n    source: S1\n");
    REQUIRE_FALSE(rows.ok());
    CHECK(rows.error().line == 6);
    CHECK(rows.error().column == 5);
    CHECK(rows.error().ToString().find("x.yaml:6:5: unknown field 'cdua'") == 0);
  }
  SUBCASE("aliases that repeat a row thousands of times are refused") {
    std::string text = "kind: ptx_isa\nschema: 1\nrows:\n  - &row {isa: \"7.3\", cuda: \"11.3\", source: S1, x: [";
    for (int i = 0; i < 2000; ++i) text += (i ? ", " : "") + std::to_string(i);
    text += "]}\n";
    for (int i = 0; i < 1000; ++i) text += "  - *row\n";
    auto rows = parse("ptx_isa", text);
    REQUIRE_FALSE(rows.ok());
    CHECK(rows.error().subject == "x.yaml");
    CHECK(rows.error().message.find("aliases expand the document") == 0);
  }
  SUBCASE("bad version") {
    auto rows = parse("ptx_isa", "kind: ptx_isa\nschema: 1\nrows:\n  - isa: \"7.x\"\n    cuda: \"11.3\"\n    source: S1\n");
    REQUIRE_FALSE(rows.ok());
    CHECK(rows.error().line == 4);
    CHECK(rows.error().message.find("must be a version") != std::string::npos);
  }
  SUBCASE("missing source") {
    auto rows = parse("ptx_isa", "kind: ptx_isa\nschema: 1\nrows:\n  - isa: \"7.3\"\n    cuda: \"11.3\"\n");
    REQUIRE_FALSE(rows.ok());
    CHECK(rows.error().message.find("missing 'source'") != std::string::npos);
  }
  SUBCASE("unknown source id") {
    auto rows = parse("ptx_isa", "kind: ptx_isa\nschema: 1\nrows:\n  - isa: \"7.3\"\n    cuda: \"11.3\"\n    source: S99\n");
    REQUIRE_FALSE(rows.ok());
    CHECK(rows.error().message.find("unknown source id 'S99'") != std::string::npos);
  }
  SUBCASE("duplicate key") {
    auto rows = parse("ptx_isa",
                      "kind: ptx_isa\nschema: 1\nrows:\n  - {isa: \"7.3\", cuda: \"11.3\", source: S1}\n  - {isa: \"7.3\", "
                      "cuda: \"11.4\", source: S1}\n");
    REQUIRE_FALSE(rows.ok());
    CHECK(rows.error().line == 5);
  }
  SUBCASE("wrong kind") {
    auto rows = parse("gpus", "kind: ptx_isa\nschema: 1\nrows: []\n");
    REQUIRE_FALSE(rows.ok());
    CHECK(rows.error().line == 1);
  }
  SUBCASE("enum and tri-state") {
    auto rows = parse("gpus",
                      "kind: gpus\nschema: 1\nrows:\n  - name: X\n    compute_capability: \"8.6\"\n    architecture: A\n"
                      "    brand: nvidia\n    datacenter: maybe\n    forward_compat: unknown\n    source: S4\n");
    REQUIRE_FALSE(rows.ok());
    CHECK(rows.error().line == 8);
    CHECK(rows.error().column == 17);
  }
  SUBCASE("a source without an address, or with one that is not http(s)") {
    auto missing = parse("sources", "kind: sources\nschema: 1\nrows:\n  - id: S1\n    title: Notes\n");
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.error().message.find("missing required field 'url'") != std::string::npos);
    for (const char* url : {"notes/cuda-compat-data.md", "ftp://example.com/x", "https://", "https://a b", "https:///x"}) {
      CAPTURE(url);
      auto bad = parse("sources", std::string("kind: sources\nschema: 1\nrows:\n  - id: S1\n    title: T\n    url: \"") +
                                      url + "\"\n");
      REQUIRE_FALSE(bad.ok());
      CHECK(bad.error().line == 6);
      CHECK(bad.error().message.find("must be an http:// or https:// address") != std::string::npos);
    }
    auto also = parse("sources",
                      "kind: sources\nschema: 1\nrows:\n  - id: S1\n    title: T\n    url: https://example.com/a\n"
                      "    also: [https://example.com/b, /work/notes.md]\n");
    REQUIRE_FALSE(also.ok());
    CHECK(also.error().line == 7);
    auto ok = parse("sources", "kind: sources\nschema: 1\nrows:\n  - id: S1\n    title: T\n    url: https://example.com/a\n"
                               "    also: [http://example.com/b]\n");
    CHECK(ok.ok());
  }
  SUBCASE("YAML syntax error") {
    auto rows = parse("ptx_isa", "kind: ptx_isa\nschema: 1\nrows:\n  - isa: [\n");
    REQUIRE_FALSE(rows.ok());
    CHECK(rows.error().line > 0);
  }
}

TEST_CASE("Load reports the broken file of a directory, and cross-table checks") {
  imagelint::testing::TempDir dir;
  SUBCASE("a GPU whose compute capability sass.yaml lacks") {
    auto path = CopyWith(dir, "gpus.yaml",
                         "kind: gpus\nschema: 1\nrows:\n  - name: Future GPU\n    compute_capability: \"42.0\"\n"
                         "    architecture: X\n    brand: nvidia\n    datacenter: yes\n    forward_compat: yes\n"
                         "    source: S4\n");
    auto k = Knowledge::Load(path);
    REQUIRE_FALSE(k.ok());
    CHECK(k.error().subject.find("gpus.yaml") != std::string::npos);
    CHECK(k.error().line == 4);
  }
  SUBCASE("adding a GPU is a data change only") {
    std::string text = imagelint::testing::ReadFileText(imagelint::testing::SourceDir() / "rules/knowledge/gpus.yaml");
    text += "  - name: NVIDIA Imaginary X1\n    compute_capability: \"9.0\"\n    architecture: Hopper\n"
            "    brand: nvidia\n    datacenter: yes\n    forward_compat: yes\n    source: S4\n";
    auto path = CopyWith(dir, "gpus.yaml", text);
    auto k = Knowledge::Load(path);
    REQUIRE(k.ok());
    REQUIRE(k->FindGpu("NVIDIA Imaginary X1") != nullptr);
  }
  SUBCASE("an unknown kind in a table row is refused at load, naming the file and row") {
    // The kinds code branches on (system package, image file, base-image
    // family) are closed lists: a row of another kind is a load error, not a
    // string no comparison matches later.
    const struct {
      const char* file;
      const char* known;
      const char* unknown;
    } cases[] = {
        {"packages.yaml", "{name: \"cuda-compat-{M}-{m}\", kind: compat,", "{name: \"cuda-compat-{M}-{m}\", kind: compatible,"},
        {"base-images.yaml", "  - {kind: stub, path:", "  - {kind: stubs, path:"},
        {"base-images.yaml", "  - family: pytorch/pytorch\n", "  - family: pytorch\n"},
    };
    for (const auto& c : cases) {
      CAPTURE(c.unknown);
      std::string text = imagelint::testing::ReadFileText(imagelint::testing::SourceDir() / "rules/knowledge" / c.file);
      const size_t at = text.find(c.known);
      REQUIRE(at != std::string::npos);
      const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n');
      text.replace(at, std::string(c.known).size(), c.unknown);
      imagelint::testing::TempDir each;  // CopyWith copies into a fresh directory
      auto k = Knowledge::Load(CopyWith(each, c.file, text));
      REQUIRE_FALSE(k.ok());
      CHECK(k.error().subject.find(c.file) != std::string::npos);
      CHECK(k.error().line == static_cast<int>(line));
      CHECK(k.error().message.find("must be one of") != std::string::npos);
    }
  }
  SUBCASE("missing file") {
    auto path = CopyWith(dir, "sass.yaml", "");
    fs::remove(path / "ptx-isa.yaml");
    auto k = Knowledge::Load(path);
    REQUIRE_FALSE(k.ok());
  }
  SUBCASE("missing directory") {
    auto k = Knowledge::Load(dir / "nope");
    REQUIRE_FALSE(k.ok());
  }
}
