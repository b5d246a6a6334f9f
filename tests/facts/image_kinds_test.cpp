// The facts of one CUDA-rich test image, read from every input kind
// (docker-save legacy / skopeo / Docker >= 25, OCI layout and archive, plain,
// gzip and zstd layers, a gzip'd tarball, a root file system, a registry),
// validate against docs/facts-schema.json and read back with ReadFacts.
#include <doctest/doctest.h>

#include <filesystem>

#include "cuda/fixtures.h"
#include "imagelint/read_image.h"
#include "imagelint/facts.h"
#include "imagelint/knowledge.h"
#include "registry/registry_fixture.h"
#include "support/facts_schema.h"
#include "support/image_builder.h"
#include "support/test_support.h"
#include "support/checkout_knowledge.h"

using namespace imagelint;
using namespace imagelint::testing;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string Str(const cuda::testing::Bytes& bytes) { return std::string(bytes.begin(), bytes.end()); }

std::string Elf(const cuda::testing::ElfSpec& spec) { return Str(cuda::testing::MakeElf(spec)); }

// Every part of the facts has rows: runtimes (system, pip, PyTorch's hashed
// copy), compat/stub/bundled drivers with a forward-compat note, driver
// libraries, requirements, ld.so.conf, toolkits, dpkg packages, binaries with
// fatbins, a cudart lookup and problems, and frameworks.
TestImage CudaImage(Compression compression) {
  using namespace cuda::testing;
  TestImage image;
  image.env = {"PATH=/usr/local/cuda/bin:/usr/bin", "CUDA_VERSION=12.4.1",
               "NVIDIA_REQUIRE_CUDA=cuda>=12.4 brand=tesla,driver>=470,driver<471",
               "LD_LIBRARY_PATH=/usr/local/cuda/compat:/usr/local/nvidia/lib64", "NVIDIA_VISIBLE_DEVICES=all",
               "NV_CUDA_CUDART_VERSION=12.4.127-1"};
  image.labels = {{"maintainer", "NVIDIA CORPORATION"}};
  std::string cuda = "usr/local/cuda-12.4/";
  std::string lib = cuda + "targets/x86_64-linux/lib/";
  image.Layer(compression)
      .Dir("usr/local/cuda-12.4")
      .Symlink("usr/local/cuda", "cuda-12.4")
      .File(lib + "libcudart.so.12.4.127", Elf({.soname = "libcudart.so.12"}))
      .Symlink(lib + "libcudart.so.12", "libcudart.so.12.4.127")
      .File(lib + "stubs/libcuda.so", Elf({.soname = "libcuda.so.1"}))
      .File(cuda + "version.json", R"({"cuda":{"version":"12.4.1"},"cuda_cudart":{"version":"12.4.127"}})")
      .File("var/lib/dpkg/status",
            "Package: cuda-cudart-12-4\nStatus: install ok installed\nArchitecture: amd64\nVersion: 12.4.127-1\n\n"
            "Package: libnvinfer10\nVersion: 10.3.0.26-1+cuda12.5\n\n")
      .File("etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n")
      .File("etc/ld.so.conf.d/988_cuda-12.conf", "/usr/local/cuda-12.4/targets/x86_64-linux/lib\n");
  std::string note = R"({"Format":1,"CUDA Version":"12.4","Driver":[535,550],"Device":[1,2]})";
  ElfSpec compat{.soname = "libcuda.so.1"};
  compat.notes.push_back({.owner = "NVIDIA Corporation", .type = 1, .desc = Bytes(note.begin(), note.end()),
                          .allocated = false, .section = ".note.cuda.fwd_compatibility"});
  TestLayer& drivers = image.Layer(compression);
  drivers.created_by = "RUN apt-get install -y cuda-compat-12-4";
  drivers.File(cuda + "compat/libcuda.so.550.54.15", Elf(compat))
      .Symlink(cuda + "compat/libcuda.so.1", "libcuda.so.550.54.15")
      .File("usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.54.15", Elf({.soname = "libnvidia-ml.so.1"}));
  std::string site = "usr/local/lib/python3.10/dist-packages/";
  EntrySpec cubin{.kind = 2, .arch = 80, .payload = MakeCubin(80, 124)};
  EntrySpec ptx{.kind = 1, .arch = 90, .major = 8, .minor = 4, .payload = PtxText("sm_90", "8.4")};
  Bytes fatbin = MakeContainer({MakeEntry(cubin), MakeEntry(ptx)});
  std::string broken = Elf({.soname = "libbroken.so"}).substr(0, 40);
  TestLayer& app = image.Layer(compression);
  app.created_by = "RUN pip install torch==2.3.0";
  app.File(site + "torch/version.py", "__version__ = '2.3.0+cu121'\ncuda: Optional[str] = '12.1'\n")
      .File(site + "torch/lib/libtorch_cuda.so", Elf({.soname = "libtorch_cuda.so", .needed = {"libcudart-9335f6a2.so.12"},
                                                       .fatbin = fatbin}))
      .File(site + "torch/lib/libcudart-9335f6a2.so.12", Elf({.soname = "libcudart-9335f6a2.so.12"}))
      .File(site + "nvidia/cuda_runtime/lib/libcudart.so.12", Elf({.soname = "libcudart.so.12"}))
      .File(site + "nvidia_cuda_runtime_cu12-12.1.105.dist-info/METADATA",
            "Metadata-Version: 2.1\nName: nvidia-cuda-runtime-cu12\nVersion: 12.1.105\n\n")
      .File(site + "cupy_cuda12x-13.1.0.dist-info/METADATA", "Name: cupy-cuda12x\nVersion: 13.1.0\n\n")
      .File("opt/app/bin/train", Elf({.type = 2, .needed = {"libcudart.so.12", "libc.so.6"},
                                      .runpath = "$ORIGIN/../lib", .interp = "/lib64/ld-linux-x86-64.so.2",
                                      .fatbin = fatbin}),
            0755)
      .File("opt/app/lib/libbroken.so", broken);
  return image;
}

const Knowledge& KindsKnowledge() {
  static const Knowledge knowledge = [] {
    auto loaded = Knowledge::LoadDefault(imagelint::testing::SourceDir());
    REQUIRE_MESSAGE(loaded.ok(), imagelint::testing::ErrorText(loaded));
    return std::move(*loaded);
  }();
  return knowledge;
}

// The facts read back the same, and every part has rows.
void CheckFacts(const std::string& label, const json& facts) {
  CAPTURE(label);
  auto read = facts::ReadFacts(facts, label);
  REQUIRE_MESSAGE(read.ok(), imagelint::testing::ErrorText(read));
  CHECK(facts::WriteFacts(*read) == facts);
  CHECK(facts["cuda"]["runtimes"].size() == 3);
  CHECK(facts["cuda"]["drivers"].size() == 2);
  CHECK(facts["cuda"]["driver_libraries"].size() == 1);
  CHECK(facts["cuda"]["requirements"]["legacy"] == false);
  CHECK(facts["binaries"].size() >= 3);
  CHECK(facts["frameworks"].size() == 3);  // torch, cupy, tensorrt (dpkg)
  CHECK(facts["cuda"]["loader"]["libcuda_candidates"].size() == 1);
}

}  // namespace

TEST_CASE("facts of every input kind validate against docs/facts-schema.json") {
  TempDir dir;
  struct Kind {
    ImageKind kind;
    const char* name;
    bool gzip_outer;
  };
  const std::vector<Kind> kinds = {
      {ImageKind::kDockerArchive, "legacy.tar", false},     {ImageKind::kDockerArchive, "legacy.tar.gz", true},
      {ImageKind::kDockerArchiveSkopeo, "skopeo.tar", false}, {ImageKind::kDockerArchiveOci, "docker25.tar", false},
      {ImageKind::kOciLayout, "layout", false},             {ImageKind::kOciArchive, "oci.tar", false},
      {ImageKind::kOciArchive, "oci.tar.gz", true},
  };
  std::vector<std::pair<std::string, json>> documents;
  for (auto compression : {Compression::kNone, Compression::kGzip, Compression::kZstd}) {
    TestImage image = CudaImage(compression);
    for (const Kind& kind : kinds) {
      std::string label = std::to_string(static_cast<int>(compression)) + "-" + kind.name;
      WriteImage(image, kind.kind, dir / label, {.gzip_outer = kind.gzip_outer});
      auto scanned = ReadImage((dir / label).string(), {}, imagelint::testing::CheckoutKnowledge());
      REQUIRE_MESSAGE(scanned.ok(), imagelint::testing::ErrorText(scanned));
      json facts = BuildFacts(*scanned, KindsKnowledge());
      CheckFacts(label, facts);
      documents.emplace_back(label, std::move(facts));
    }
  }
  // A root file system directory: the same files, one layer.
  fs::path root = dir / "rootfs";
  for (const TestLayer& layer : CudaImage(Compression::kNone).layers)
    for (const TestEntry& entry : layer.entries) {
      fs::path path = root / entry.path;
      fs::create_directories(path.parent_path());
      if (entry.kind == TestEntry::Kind::kDir) fs::create_directories(path);
      if (entry.kind == TestEntry::Kind::kFile) WriteFileText(path, entry.content);
      if (entry.kind == TestEntry::Kind::kSymlink) fs::create_symlink(entry.link, path);
    }
  // Named as a root file system: the fixture has no os-release or loader.
  auto rootfs = ReadImage("rootfs:" + root.string(), {}, imagelint::testing::CheckoutKnowledge());
  REQUIRE_MESSAGE(rootfs.ok(), imagelint::testing::ErrorText(rootfs));
  CHECK(rootfs->metadata.kind == "rootfs");
  json rootfs_facts = BuildFacts(*rootfs, KindsKnowledge());
  CHECK(facts::ReadFacts(rootfs_facts, "rootfs").ok());
  CHECK(rootfs_facts["cuda"]["runtimes"].size() == 3);
  documents.emplace_back("rootfs", std::move(rootfs_facts));
  CheckFactsSchema(documents);
}

TEST_CASE("facts of a registry image validate against docs/facts-schema.json") {
  if (!NeedExternal("docker-registry + skopeo", HaveRegistryTools(), "runs Debian's docker-registry on loopback") ||
      !NeedExternal("imagelint binary", fs::exists(ImagelintBinary()), "build the imagelint target first"))
    return;
  LocalRegistry registry;
  TempDir dir;
  WriteImage(CudaImage(Compression::kGzip), ImageKind::kOciLayout, dir / "layout");
  auto pushed = registry.Push(dir / "layout", "test/cuda:1");
  REQUIRE_MESSAGE(pushed.exit_code == 0, pushed.err);
  auto run = RunImagelint({"facts", registry.host() + "/test/cuda:1", "--no-cache"});
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  json facts = json::parse(run.out);
  CHECK(facts["image"]["kind"] == "registry");
  CheckFacts("registry", facts);
  CheckFactsSchema("registry", facts);
}
