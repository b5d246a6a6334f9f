#include "fuzz/seeds.h"

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/yaml.h"
#include "cuda/fixtures.h"
#include "fuzz/targets.h"
#include "support/image_builder.h"
#include "support/raw_tar.h"

namespace imagelint::fuzz {
namespace {

namespace fs = std::filesystem;
using Bytes = std::vector<uint8_t>;
using testing::Compression;
using testing::ImageKind;
using testing::TestImage;
using testing::TestLayer;

class SeedWriter {
 public:
  explicit SeedWriter(fs::path root) : root_(std::move(root)) {}

  void Add(const std::string& target, const std::string& name, const Bytes& bytes) {
    if (!FindTarget(target)) throw std::runtime_error("no fuzz target " + target);
    fs::path dir = root_ / target;
    fs::create_directories(dir);
    std::ofstream out(dir / name, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    if (!out) throw std::runtime_error("cannot write " + (dir / name).string());
    ++count_;
  }
  void Add(const std::string& target, const std::string& name, const std::string& text) {
    Add(target, name, Bytes(text.begin(), text.end()));
  }
  // A seed whose first byte selects a mode of the target.
  void AddMode(const std::string& target, const std::string& name, uint8_t mode, const Bytes& bytes) {
    Bytes out = {mode};
    out.insert(out.end(), bytes.begin(), bytes.end());
    Add(target, name, out);
  }
  void AddMode(const std::string& target, const std::string& name, uint8_t mode, const std::string& text) {
    AddMode(target, name, mode, Bytes(text.begin(), text.end()));
  }
  size_t count() const { return count_; }
  const fs::path& root() const { return root_; }

 private:
  fs::path root_;
  size_t count_ = 0;
};

std::string Join(const std::vector<std::string>& parts) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? std::string(kSeparator) : std::string()) + parts[i];
  return out;
}

Bytes Join(const Bytes& a, const Bytes& b) {
  Bytes out = a;
  out.insert(out.end(), kSeparator.begin(), kSeparator.end());
  out.insert(out.end(), b.begin(), b.end());
  return out;
}

Bytes ReadBytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  return Bytes(std::istreambuf_iterator<char>(in), {});
}

std::string ReadText(const fs::path& path) {
  Bytes bytes = ReadBytes(path);
  return std::string(bytes.begin(), bytes.end());
}

fs::path Source(const std::string& relative) { return fs::path(IMAGELINT_SOURCE_DIR) / relative; }

TestLayer BaseLayer() {
  TestLayer layer;
  layer.Dir("usr").Dir("usr/lib").File("usr/lib/libfoo.so.1", "\x7f" "ELF").Symlink("usr/lib/libfoo.so", "libfoo.so.1");
  layer.Hardlink("usr/lib/libfoo-hard.so.1", "usr/lib/libfoo.so.1").Dir("etc").File("etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n");
  layer.Symlink("lib", "usr/lib").File("usr/local/cuda/version.json", R"({"cuda": {"version": "12.2.0"}})");
  return layer;
}

TestLayer UpperLayer() {
  TestLayer layer;
  layer.Whiteout("usr/lib/libfoo.so").Opaque("etc").File("etc/new", "n").File("lib/via-link", "x");
  layer.File("a/b/c/implied-parents", "y").File(".wh..wh..plnk/123.456", "aufs").Hardlink("h", ".wh..wh..plnk/123.456");
  return layer;
}

void LayerSeeds(SeedWriter& seeds) {
  Bytes base = testing::BuildLayerTar(BaseLayer());
  Bytes upper = testing::BuildLayerTar(UpperLayer());
  seeds.Add("layer_tar", "plain.tar", base);
  seeds.Add("layer_tar", "gzip.tar.gz", testing::Compress(base, Compression::kGzip));
  seeds.Add("layer_tar", "zstd.tar.zst", testing::Compress(base, Compression::kZstd));
  seeds.Add("layer_tar", "two-layers", Join(base, upper));
  seeds.Add("layer_tar", "two-layers-gzip", Join(testing::Compress(base, Compression::kGzip), testing::Compress(upper, Compression::kZstd)));
  seeds.Add("layer_tar", "latin1-names.tar",
            testing::UstarTar({{"caf\xe9/", '5', "", ""}, {"caf\xe9/m\xfc", '0', "x", ""}, {"l\xff", '2', "", "caf\xe9"},
                               {"h", '1', "", "caf\xe9/m\xfc"}}));
  TestLayer deep;
  std::string chain = "d";
  for (int i = 0; i < 200; ++i) chain += "/d";
  deep.File(chain + "/f", "x").Symlink("loop", "loop").Symlink("up", "../../..").File("x/./y/../z", "z");
  seeds.Add("layer_tar", "deep-and-links.tar", testing::BuildLayerTar(deep));
}

void ArchiveSeeds(SeedWriter& seeds) {
  TestImage image;
  image.layers.push_back(BaseLayer());
  image.layers.back().compression = Compression::kNone;
  image.layers.push_back(UpperLayer());
  image.layers.back().compression = Compression::kGzip;
  image.labels = {{"com.nvidia.cudnn.version", "8.9.2"}};
  fs::path scratch = seeds.root() / ".scratch";
  fs::create_directories(scratch);
  struct Kind {
    const char* name;
    ImageKind kind;
    bool gzip;
  };
  for (const Kind& kind : {Kind{"docker-legacy.tar", ImageKind::kDockerArchive, false},
                           Kind{"docker-skopeo.tar", ImageKind::kDockerArchiveSkopeo, false},
                           Kind{"docker-oci.tar", ImageKind::kDockerArchiveOci, false},
                           Kind{"oci.tar", ImageKind::kOciArchive, false},
                           Kind{"docker-legacy.tar.gz", ImageKind::kDockerArchive, true}}) {
    testing::WriteImage(image, kind.kind, scratch / kind.name, {.gzip_outer = kind.gzip});
    seeds.Add("image_archive", kind.name, ReadBytes(scratch / kind.name));
  }
  TestImage arm = image;
  arm.architecture = "arm64";
  arm.variant = "v8";
  testing::WriteMultiPlatform({image, arm}, ImageKind::kOciArchive, scratch / "multi.tar", {.nested_index = true});
  seeds.Add("image_archive", "multi-platform-nested.tar", ReadBytes(scratch / "multi.tar"));
  TestImage other = image;
  other.ref = "example.com/other:2";
  testing::WriteImages({image, other}, ImageKind::kDockerArchive, scratch / "two.tar");
  seeds.Add("image_archive", "two-images.tar", ReadBytes(scratch / "two.tar"));

  // The documents of an OCI layout, for the registry target.
  testing::WriteImage(image, ImageKind::kOciLayout, scratch / "layout");
  auto json = [&](const fs::path& path) { return nlohmann::json::parse(ReadText(path)); };
  auto index = json(scratch / "layout" / "index.json");
  std::string manifest_digest = index["manifests"][0]["digest"];
  fs::path blobs = scratch / "layout" / "blobs" / "sha256";
  std::string manifest = ReadText(blobs / manifest_digest.substr(7));
  std::string config_digest = nlohmann::json::parse(manifest)["config"]["digest"];
  std::string config = ReadText(blobs / config_digest.substr(7));
  seeds.AddMode("registry_documents", "oci-manifest-and-config", 1, Join({manifest, config}));
  seeds.AddMode("registry_documents", "untyped-manifest-and-config", 4, Join({manifest, config}));
  seeds.AddMode("registry_documents", "oci-index", 0, index.dump());
  testing::WriteMultiPlatform({image, arm}, ImageKind::kOciLayout, scratch / "multi-layout");
  seeds.AddMode("registry_documents", "multi-platform-index", 2, ReadText(scratch / "multi-layout" / "index.json"));
  seeds.AddMode("registry_documents", "token", 4, std::string(R"({"token": "abc", "access_token": "def", "expires_in": 300})"));
  seeds.AddMode("registry_documents", "error-body", 4,
                std::string(R"({"errors": [{"code": "DENIED", "message": "requested access to the resource is denied"}]})"));
  seeds.AddMode("registry_documents", "schema1", 5, std::string(R"({"schemaVersion": 1, "fsLayers": []})"));
  fs::remove_all(scratch);
}

// Cache files written by the real cache, unsealed back to their payloads.
void CacheSeeds(SeedWriter& seeds) {
  nlohmann::json entries = {{"format", 1},
                            {"key", "sha256:" + std::string(64, 'a')},
                            {"blob_bytes", 1024},
                            {"tar_bytes", 4096},
                            {"entries", {{"usr", 1, 0, 493, ""}, {"usr/lib/libfoo.so.1", 0, 4, 420, ""},
                                         {"usr/lib/libfoo.so", 2, 0, 511, "libfoo.so.1"}, {"caf\xe9", 0, 1, 420, ""}}},
                            {"problems", {{"usr/x", "duplicate entry"}}}};
  nlohmann::json facts = {{"format", 1},         {"key", "sha256:" + std::string(64, 'a')},
                          {"analyzer", "probe"}, {"version", 1},
                          {"entries", 4},        {"facts", {{1, {{"soname", "libfoo.so.1"}}}}}};
  Bytes entries_cbor = nlohmann::json::to_cbor(entries);
  Bytes facts_cbor = nlohmann::json::to_cbor(facts);
  seeds.AddMode("cache_entry", "sealed-entries-and-facts", 0, Join(entries_cbor, facts_cbor));
  seeds.AddMode("cache_entry", "sealed-entries", 2, entries_cbor);
  seeds.AddMode("cache_entry", "raw-entries", 1, entries_cbor);
  nlohmann::json layer = {{"digest", "sha256:" + std::string(64, 'b')}, {"diff_id", "sha256:" + std::string(64, 'a')},
                          {"blob_bytes", 10}, {"tar_bytes", 20},
                          {"entries", {{{"path", "a"}, {"type", "file"}, {"size", 1}, {"mode", 420}},
                                       {{"path", "l"}, {"type", "symlink"}, {"mode", 511}, {"link", "a"}}}},
                          {"problems", nlohmann::json::array()}};
  seeds.AddMode("cache_entry", "layer-result-json", 3, layer.dump());
}

void CudaSeeds(SeedWriter& seeds) {
  using namespace cuda::testing;
  EntrySpec ptx;
  ptx.kind = 1;
  ptx.arch = 90;
  ptx.major = 8;
  ptx.minor = 2;
  ptx.payload = PtxText("sm_90", "8.2");
  EntrySpec cubin;
  cubin.arch = 80;
  cubin.payload = MakeCubin(80);
  EntrySpec lz4 = cubin;
  lz4.compression = "lz4";
  EntrySpec zstd = ptx;
  zstd.compression = "zstd";
  Bytes container = MakeContainer({MakeEntry(ptx), MakeEntry(cubin), MakeEntry(lz4), MakeEntry(zstd)});
  seeds.AddMode("fatbin", "container", 3, container);
  seeds.AddMode("fatbin", "container-small-chunks", 1, container);
  seeds.AddMode("elf", "standalone.fatbin", 2, container);
  seeds.AddMode("elf", "cubin", 1, MakeCubin(90, 124, 7, "kernel body"));
  ElfSpec library;
  library.soname = "libcudart.so.12";
  library.needed = {"libc.so.6", "libdl.so.2"};
  library.runpath = "$ORIGIN:/usr/local/cuda/lib64";
  library.fatbin = container;
  library.extra_text = "libcudart_static CUDART_VERSION 12020";
  seeds.AddMode("elf", "libcudart.so", 0, MakeElf(library));
  ElfSpec compat;
  compat.soname = "libcuda.so.1";
  NoteSpec note;
  note.owner = "NVIDIA Corporation";
  note.section = ".note.cuda.fwd_compatibility";
  std::string desc = R"({"CUDA Version": "12.2", "Driver": [470, 525, 535]})";
  note.desc = Bytes(desc.begin(), desc.end());
  compat.notes = {note};
  seeds.AddMode("elf", "compat-libcuda.so", 5, MakeElf(compat));
  ElfSpec big_endian32 = library;
  big_endian32.elf64 = false;
  big_endian32.little = false;
  big_endian32.interp = "/lib/ld.so.1";
  seeds.AddMode("elf", "elf32-be", 3, MakeElf(big_endian32));

  struct Text {
    uint8_t mode;
    const char* name;
    std::string body;
  };
  for (const Text& text : std::vector<Text>{
           {0, "version.json", R"({"cuda": {"name": "CUDA SDK", "version": "12.2.2"}, "cuda_cudart": {"version": "12.2.140"}})"},
           {1, "version.txt", "CUDA Version 11.8.89\n"},
           {2, "dpkg-status", "Package: cuda-compat-12-2\nStatus: install ok installed\nVersion: 535.104.05-1\n\n"
                              "Package: libcudnn8\nStatus: install ok installed\nVersion: 8.9.2.26-1+cuda12.1\n"},
           {3, "conda-meta", R"({"name": "pytorch", "version": "2.1.0", "build": "py3.10_cuda12.1_cudnn8.9.2_0",
                                 "depends": ["pytorch-cuda 12.1.*"]})"},
           {4, "METADATA", "Metadata-Version: 2.1\nName: torch\nVersion: 2.1.0+cu121\nRequires-Dist: nvidia-cuda-runtime-cu12 (==12.1.105)\n"},
           {5, "torch-version.py", "__version__ = '2.1.0+cu121'\ndebug = False\ncuda = '12.1'\ngit_version = 'abc'\n"},
           {6, "ld.so.conf", "/usr/local/cuda/lib64\ninclude /etc/ld.so.conf.d/*.conf\n"},
           {7, "jax-version.py", "_version = \"0.4.20\"\n"},
       }) {
    seeds.AddMode("cuda_text", text.name, text.mode, text.body);
  }
}

void RequirementSeeds(SeedWriter& seeds) {
  const std::vector<std::string> requirements = {
      "cuda>=12.2", "cuda>=11.0 brand=tesla,driver>=418,driver<419 brand=tesla,driver>=450,driver<451",
      "arch=8.0 arch=8.6", "cuda>=12.2 brand=unknown,driver>=470,driver<471 brand=grid,driver>=535,driver<536",
      "driver>=535.54.03", "brand=geforce", "cuda<=10.0", "cuda=12.2", "cuda>12", ""};
  for (size_t i = 0; i < requirements.size(); ++i) {
    seeds.Add("requirement_lnc", "req-" + std::to_string(i), requirements[i]);
    seeds.Add("requirement_go", "req-" + std::to_string(i), requirements[i]);
  }
}

void DockerfileSeeds(SeedWriter& seeds) {
  std::vector<std::string> files = {
      ReadText(Source("Dockerfile")),
      "# syntax=docker/dockerfile:1\nARG CUDA=12.2.0\nFROM nvidia/cuda:${CUDA}-devel-ubuntu22.04 AS build\n"
      "ENV TORCH_CUDA_ARCH_LIST=\"8.0;8.6+PTX\"\nRUN pip install torch==2.1.0 --index-url https://download.pytorch.org/whl/cu121\n"
      "FROM nvidia/cuda:${CUDA:-12.2.0}-runtime-ubuntu22.04\nCOPY --from=build /opt /opt\n"
      "# imagelint ignore=IL003 compat is used on the H100 pool only\n"
      "RUN apt-get update && apt-get install -y cuda-compat-12-2 \\\n    && rm -rf /var/lib/apt/lists/*\n"
      "ENV LD_LIBRARY_PATH=/usr/local/cuda/compat:$LD_LIBRARY_PATH NVIDIA_REQUIRE_CUDA=\"cuda>=12.2\"\n",
      "# escape=`\nFROM ubuntu:22.04\nRUN <<EOF bash\nset -e\necho ${HOME:?unset}\nEOF\n"
      "RUN [\"/bin/sh\", \"-c\", \"echo hi\"]\nARG A=${B:+x}${C:-y}\nLABEL a=\"b\" c=d\nONBUILD RUN x\n",
      "FROM --platform=$BUILDPLATFORM python:3.11 AS base\nARG TARGETARCH\n"
      "RUN conda install -y pytorch pytorch-cuda=12.1 -c pytorch -c nvidia\nFROM base\nENV CUDA_VERSION=12.1.0\n",
  };
  for (size_t i = 0; i < files.size(); ++i) {
    seeds.Add("dockerfile_parse", "dockerfile-" + std::to_string(i), files[i]);
    seeds.Add("dockerfile_facts", "dockerfile-" + std::to_string(i), files[i]);
  }
}

void RuleSeeds(SeedWriter& seeds) {
  std::string rules_text = ReadText(Source("rules/cuda.yaml"));
  seeds.Add("rule_file", "cuda.yaml", rules_text);
  seeds.Add("rule_file", "minimal.yaml",
            "rules:\n  - id: X001\n    name: x\n    title: t\n    severity: warning\n    scope: image\n"
            "    condition: facts.image.env.CUDA_VERSION != null\n    message: \"{facts.image.env.CUDA_VERSION}\"\n");
  // Every condition and message of the built-in rules, for the expression target.
  auto root = LoadYaml(rules_text, "rules/cuda.yaml");
  size_t n = 0;
  if (root.ok() && (*root)["rules"].IsSequence()) {
    for (const auto& rule : (*root)["rules"]) {
      std::string condition = rule["condition"] && rule["condition"].IsScalar() ? rule["condition"].Scalar() : "true";
      std::string message = rule["message"] && rule["message"].IsScalar() ? rule["message"].Scalar() : "";
      seeds.Add("rule_expression", "builtin-" + std::to_string(n++), Join({condition, message}));
    }
  }
  for (const std::string& text : {std::string("any(b in facts.binaries: 'sm_80' in b.sass) and version(pool.driver) >= version('535')"),
                                  std::string("facts.image.env['CUDA_VERSION'] ?? 'none'"),
                                  std::string("[1, 2, 3][-1] + len('abc') * 2 / 1")}) {
    seeds.Add("rule_expression", "expr-" + std::to_string(n++), Join({text, "driver {pool.driver}: {facts.binaries[0].path}"}));
  }
}

void FleetAndConfigSeeds(SeedWriter& seeds) {
  seeds.Add("fleet_yaml", "example-fleet.yaml", ReadText(Source("examples/fleet.yaml")));
  seeds.Add("fleet_yaml", "defaults.yaml",
            "defaults:\n  container_toolkit: \"1.14.3\"\n  runtime: nvidia-runtime\npools:\n"
            "  - name: h100\n    gpu: NVIDIA H100 80GB HBM3\n    driver: \"550.54.15\"\n    count: 8\n"
            "    selector_labels: &l {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}\n"
            "  - name: custom\n    compute_capability: \"8.9\"\n    brand: geforce\n    datacenter: false\n"
            "    driver: \"470.256.02\"\n    platform: linux/arm64\n    selector_labels: *l\n");
  seeds.Add("config_yaml", "example.imagelint.yaml", ReadText(Source("examples/.imagelint.yaml")));
  seeds.Add("config_yaml", "cli-docs.yaml",
            "version: 1\nfleet: fleet.yaml\nrules: [ci/team-rules.yaml]\nseverity: {IL010: error}\ndisable: [IL013]\n"
            "ignore:\n  - rule: IL003\n    reason: the GeForce pool runs only CPU preprocessing\n    pool: \"rtx*\"\n"
            "    expires: 2027-06-30\nfail-on: error\nmin-severity: note\nformat: [text, sarif=imagelint.sarif]\n"
            "platform: linux/amd64\ndockerfile: Dockerfile\ninline-ignores: true\n");
  fs::path fixtures = Source("tests/fleet_import/fixtures");
  seeds.Add("import_nodes", "nodes-mixed.json", ReadBytes(fixtures / "nodes-mixed.json"));
  seeds.Add("import_nodes", "nodes-legacy.json", ReadBytes(fixtures / "nodes-legacy.json"));
  seeds.Add("import_smi_xml", "nvidia-smi-hosts.xml", ReadBytes(fixtures / "nvidia-smi-hosts.xml"));
  seeds.Add("import_cli_csv", "container-cli-hosts.csv", ReadBytes(fixtures / "container-cli-hosts.csv"));
}

}  // namespace

namespace {

// Replies of a healthy server and the campaign's shapes: a bulk longer than
// asked, a length of 512 MiB, a line that never ends; engine answers nested
// deep and of the wrong types.
void NetworkSeeds(SeedWriter& seeds) {
  seeds.AddMode("resp_reply", "status-and-bulk", 7, std::string("+OK\r\n$10\r\n0123456789\r\n$-1\r\n:42\r\n"));
  seeds.AddMode("resp_reply", "huge-bulk", 0, std::string("$536870912\r\n") + std::string(300, 'x'));
  seeds.AddMode("resp_reply", "endless-line", 63, std::string("+") + std::string(70000, 'a'));
  seeds.AddMode("resp_reply", "error-and-array", 3, std::string("-ERR wrong\r\n*2\r\n$1\r\na\r\n"));
  std::string deep(2000, '[');
  deep += std::string(2000, ']');
  seeds.Add("engine_answers", "inspect-history-manifest",
            std::string(R"({"Id":"sha256:ab","Architecture":"amd64","Os":"linux","RootFS":{"Type":"layers"},)"
                        R"("Config":{"Env":["PATH=/usr/bin","CUDA_VERSION=12.4.1"]}})") +
                std::string(kSeparator) + R"([{"CreatedBy":"/bin/sh -c #(nop) CMD ["bash"]"}])" +
                std::string(kSeparator) + R"([{"Config":"c.json","Layers":["a/layer.tar"]}])");
  seeds.Add("engine_answers", "deep-and-wrong-types",
            "{\"Id\":" + deep + ",\"Config\":{\"Env\":[1,{}]}}" + std::string(kSeparator) + "{\"x\":1}");
}

}  // namespace

size_t WriteSeeds(const fs::path& out) {
  SeedWriter seeds(out);
  LayerSeeds(seeds);
  ArchiveSeeds(seeds);
  CacheSeeds(seeds);
  CudaSeeds(seeds);
  RequirementSeeds(seeds);
  DockerfileSeeds(seeds);
  RuleSeeds(seeds);
  FleetAndConfigSeeds(seeds);
  NetworkSeeds(seeds);
  return seeds.count();
}

}  // namespace imagelint::fuzz
