// AddCudaFacts over small generated trees: runtimes and their evidence,
// drivers, requirements, loader view, binaries and frameworks.
#include <doctest/doctest.h>

#include "cuda/cuda.h"
#include "cuda/fixtures.h"
#include "imagelint/facts.h"
#include "support/facts_schema.h"
#include "support/test_support.h"
#include "support/checkout_knowledge.h"

#include <cstdlib>
#include <filesystem>
#include <map>

using namespace imagelint::cuda;
using namespace imagelint::cuda::testing;
using nlohmann::json;

namespace {

Bytes TextBytes(const std::string& text) { return Bytes(text.begin(), text.end()); }

Bytes Library(const std::string& soname, std::vector<std::string> needed = {}) {
  return MakeElf({.soname = soname, .needed = std::move(needed)});
}

json BuildFacts(HostTree& tree, json env = json::array()) {
  tree.input.config = {{"config", {{"Env", env}}}};
  tree.input.layer_digests = {"sha256:aaaa", "sha256:bbbb", "sha256:cccc"};
  return CudaFactsJson(tree);
}

const json* FindByPath(const json& list, const std::string& path) {
  for (const auto& row : list)
    if (row.value("path", "") == path) return &row;
  return nullptr;
}

}  // namespace

TEST_CASE("facts: runtime version from the file name, dpkg, version.json and the SONAME") {
  HostTree tree;
  AddMemoryFile(tree, "usr/local/cuda-12.4/targets/x86_64-linux/lib/libcudart.so.12.4.127",
                Library("libcudart.so.12"), 1);
  AddSymlink(tree, "usr/local/cuda-12.4/targets/x86_64-linux/lib/libcudart.so.12", "libcudart.so.12.4.127", 1);
  // A copy whose name carries only the SONAME: dpkg and version.json know more.
  AddMemoryFile(tree, "usr/local/cuda-12.4/lib64/libcudart.so.12", Library("libcudart.so.12"), 2);
  AddMemoryFile(tree, "usr/local/cuda-12.4/version.json",
                TextBytes(R"({"cuda":{"version":"12.4.1"},"cuda_cudart":{"version":"12.4.127"}})"), 0);
  AddMemoryFile(tree, "var/lib/dpkg/status",
                TextBytes("Package: cuda-cudart-12-4\nStatus: install ok installed\nVersion: 12.4.127-1\n\n"
                     "Package: bash\nVersion: 5.2-1\n\n"),
                0);
  // Nothing but the SONAME.
  AddMemoryFile(tree, "opt/app/libcudart.so.13", Library("libcudart.so.13"), 2);
  json facts = BuildFacts(tree);
  const json& runtimes = facts["cuda"]["runtimes"];
  REQUIRE(runtimes.size() == 3);
  const json* named = FindByPath(runtimes, "/usr/local/cuda-12.4/targets/x86_64-linux/lib/libcudart.so.12.4.127");
  REQUIRE(named);
  CHECK((*named)["version"] == "12.4.127");
  CHECK((*named)["source"] == "filename");
  CHECK((*named)["layer"] == 1);
  CHECK((*named)["layer_digest"] == "sha256:bbbb");
  CHECK((*named)["aliases"] == json({"/usr/local/cuda-12.4/targets/x86_64-linux/lib/libcudart.so.12"}));
  const json* bare = FindByPath(runtimes, "/usr/local/cuda-12.4/lib64/libcudart.so.12");
  REQUIRE(bare);
  CHECK((*bare)["version"] == "12.4.127");
  CHECK((*bare)["source"] == "dpkg");
  CHECK((*bare)["evidence"].size() == 3);  // dpkg, version.json, soname
  const json* only_soname = FindByPath(runtimes, "/opt/app/libcudart.so.13");
  REQUIRE(only_soname);
  CHECK((*only_soname)["version"] == "13");
  CHECK((*only_soname)["source"] == "soname");
  CHECK(facts["cuda"]["packages"].size() == 1);
  CHECK(facts["cuda"]["toolkits"][0]["version"] == "12.4.1");
}

TEST_CASE("facts: pip wheel, PyTorch hashed copy and conda runtimes") {
  HostTree tree;
  std::string site = "usr/local/lib/python3.10/dist-packages/";
  AddMemoryFile(tree, site + "nvidia/cuda_runtime/lib/libcudart.so.12", Library("libcudart.so.12"), 1);
  AddMemoryFile(tree, site + "nvidia_cuda_runtime_cu12-12.1.105.dist-info/METADATA",
                TextBytes("Metadata-Version: 2.1\nName: nvidia-cuda-runtime-cu12\nVersion: 12.1.105\n\nbody\n"), 1);
  AddMemoryFile(tree, site + "torch/lib/libcudart-9335f6a2.so.12", Library("libcudart-9335f6a2.so.12"), 1);
  AddMemoryFile(tree, site + "torch/version.py",
                TextBytes("__version__ = '2.3.0+cu121'\ndebug = False\ncuda: Optional[str] = '12.1'\n"
                     "git_version = 'abc'\nhip: Optional[str] = None\n"),
                1);
  AddMemoryFile(tree, "opt/conda/lib/libcudart.so.11.0", Library("libcudart.so.11.0"), 2);
  AddMemoryFile(tree, "opt/conda/conda-meta/cudatoolkit-11.8.0-h6a678d5_0.json",
                TextBytes(R"({"name":"cudatoolkit","version":"11.8.0","build":"h6a678d5_0","depends":["__glibc"]})"), 2);
  json facts = BuildFacts(tree);
  const json& runtimes = facts["cuda"]["runtimes"];
  REQUIRE(runtimes.size() == 3);
  const json* wheel = FindByPath(runtimes, "/" + site + "nvidia/cuda_runtime/lib/libcudart.so.12");
  REQUIRE(wheel);
  CHECK((*wheel)["version"] == "12.1.105");
  CHECK((*wheel)["source"] == "pip");
  CHECK((*wheel)["origin"] == "pip");
  const json* hashed = FindByPath(runtimes, "/" + site + "torch/lib/libcudart-9335f6a2.so.12");
  REQUIRE(hashed);
  CHECK((*hashed)["version"] == "12.1");
  CHECK((*hashed)["source"] == "torch/version.py");
  CHECK((*hashed)["hashed_copy"] == true);
  CHECK((*hashed)["origin"] == "torch");
  const json* conda = FindByPath(runtimes, "/opt/conda/lib/libcudart.so.11.0");
  REQUIRE(conda);
  CHECK((*conda)["version"] == "11.8.0");
  CHECK((*conda)["source"] == "conda");
  CHECK((*conda)["origin"] == "conda");

  const json& frameworks = facts["frameworks"];
  REQUIRE(frameworks.size() >= 1);
  CHECK(frameworks[0]["name"] == "torch");
  CHECK(frameworks[0]["version"] == "2.3.0+cu121");
  CHECK(frameworks[0]["cuda"] == "12.1");
}

TEST_CASE("facts: compat, stub and bundled drivers; fwd-compat note; loader candidates") {
  HostTree tree;
  std::string note = R"({"Format":1,"CUDA Version":"12.9","Driver":[535,550,560,565,570,575],"Device":[1,2]})";
  ElfSpec compat{.soname = "libcuda.so.1"};
  compat.notes.push_back({.owner = "NVIDIA Corporation", .type = 1, .desc = TextBytes(note), .allocated = false,
                          .section = ".note.cuda.fwd_compatibility"});
  AddMemoryFile(tree, "usr/local/cuda-12.9/compat/libcuda.so.575.57.08", MakeElf(compat), 2);
  AddSymlink(tree, "usr/local/cuda-12.9/compat/libcuda.so.1", "libcuda.so.575.57.08", 2);
  AddSymlink(tree, "usr/local/cuda", "cuda-12.9", 0);
  AddMemoryFile(tree, "usr/local/cuda-12.9/targets/x86_64-linux/lib/stubs/libcuda.so", Library("libcuda.so.1"), 1);
  AddMemoryFile(tree, "usr/lib/x86_64-linux-gnu/libcuda.so.1", Library("libcuda.so.1"), 3);
  AddMemoryFile(tree, "var/lib/dpkg/status", TextBytes("Package: libcuda1\nVersion: 535.261.03-1\n\n"), 3);
  AddMemoryFile(tree, "usr/lib/x86_64-linux-gnu/libnvidia-ml.so.535.261.03", Library("libnvidia-ml.so.1"), 3);
  AddMemoryFile(tree, "etc/ld.so.conf", TextBytes("# comment\ninclude /etc/ld.so.conf.d/*.conf\n/opt/extra\n"), 0);
  AddMemoryFile(tree, "etc/ld.so.conf.d/00-compat.conf", TextBytes("/usr/local/cuda-12.9/compat\n"), 2);
  AddMemoryFile(tree, "etc/ld.so.conf.d/nvidia.conf", TextBytes("/usr/local/nvidia/lib\n/usr/local/nvidia/lib64\n"), 0);
  AddMemoryFile(tree, "etc/ld.so.conf.d/README", TextBytes("/not/a/conf/file\n"), 0);
  json env = {"LD_LIBRARY_PATH=/usr/local/cuda/compat::/usr/local/nvidia/lib64",
              "NVIDIA_REQUIRE_CUDA=cuda>=12.9 brand=tesla,driver>=535,driver<536", "CUDA_VERSION=12.9.1",
              "NVIDIA_DRIVER_CAPABILITIES=compute,utility", "PATH=/usr/bin"};
  json facts = BuildFacts(tree, env);
  const json& drivers = facts["cuda"]["drivers"];
  REQUIRE(drivers.size() == 3);
  const json* c = FindByPath(drivers, "/usr/local/cuda-12.9/compat/libcuda.so.575.57.08");
  REQUIRE(c);
  CHECK((*c)["kind"] == "compat");
  CHECK((*c)["version"] == "575.57.08");
  CHECK((*c)["toolkit_dir"] == "12.9");
  CHECK((*c)["note"]["Driver"] == json({535, 550, 560, 565, 570, 575}));
  CHECK((*c)["aliases"] == json({"/usr/local/cuda-12.9/compat/libcuda.so.1"}));
  const json* stub = FindByPath(drivers, "/usr/local/cuda-12.9/targets/x86_64-linux/lib/stubs/libcuda.so");
  REQUIRE(stub);
  CHECK((*stub)["kind"] == "stub");
  CHECK((*stub)["version"].is_null());
  const json* bundled = FindByPath(drivers, "/usr/lib/x86_64-linux-gnu/libcuda.so.1");
  REQUIRE(bundled);
  CHECK((*bundled)["kind"] == "bundled");
  CHECK((*bundled)["version"] == "535.261.03");
  CHECK((*bundled)["source"] == "dpkg");
  REQUIRE(facts["cuda"]["driver_libraries"].size() == 1);
  CHECK(facts["cuda"]["driver_libraries"][0]["version"] == "535.261.03");

  const json& requirements = facts["cuda"]["requirements"];
  CHECK(requirements["NVIDIA_REQUIRE_CUDA"] == "cuda>=12.9 brand=tesla,driver>=535,driver<536");
  CHECK(requirements["CUDA_VERSION"] == "12.9.1");
  CHECK(requirements["disabled"] == false);
  CHECK(requirements["legacy"] == false);
  CHECK_FALSE(requirements.contains("PATH"));

  const json& loader = facts["cuda"]["loader"];
  CHECK(loader["ld_library_path"] == json({"/usr/local/cuda/compat", "/usr/local/nvidia/lib64"}));
  std::vector<std::string> dirs;
  for (const auto& row : loader["ld_so_conf"]) dirs.push_back(row["dir"]);
  CHECK(dirs == std::vector<std::string>{"/usr/local/cuda-12.9/compat", "/usr/local/nvidia/lib",
                                         "/usr/local/nvidia/lib64", "/opt/extra"});
  CHECK(loader["ld_so_conf"][0]["file"] == "/etc/ld.so.conf.d/00-compat.conf");
  CHECK(loader["ld_so_conf"][0]["layer"] == 2);
  // LD_LIBRARY_PATH's /usr/local/cuda/compat (through the cuda -> cuda-12.9 link) comes first.
  const json& candidates = loader["libcuda_candidates"];
  REQUIRE(candidates.size() >= 2);
  CHECK(candidates[0]["via"] == "LD_LIBRARY_PATH");
  CHECK(candidates[0]["kind"] == "compat");
  CHECK(candidates.back()["via"] == "default");
  CHECK(candidates.back()["kind"] == "bundled");

  std::string text = FormatCudaFactsText(facts);
  CHECK(text.find("libcuda 575.57.08  [compat]") != std::string::npos);
  CHECK(text.find("fwd-compat note: CUDA 12.9, host driver branches 535,550,560,565,570,575") != std::string::npos);
  CHECK(text.find("/usr/local/cuda-12.9/compat/libcuda.so.575.57.08  (layer 2 sha256:cccc)") != std::string::npos);
}

TEST_CASE("facts: requirements as written, legacy images, NVIDIA_DISABLE_REQUIRE") {
  HostTree tree;
  json legacy = BuildFacts(tree, {"CUDA_VERSION=11.6.2", "NVIDIA_REQUIRE_BRAND=brand=tesla"});
  CHECK(legacy["cuda"]["requirements"]["legacy"] == true);
  CHECK(legacy["cuda"]["requirements"]["legacy_cuda_version"] == "11.6");
  CHECK(legacy["cuda"]["requirements"]["NVIDIA_REQUIRE_BRAND"] == "brand=tesla");
  json invalid = BuildFacts(tree, {"CUDA_VERSION=9.0.116.50"});
  CHECK(invalid["cuda"]["requirements"]["legacy_cuda_version"].is_null());
  CHECK(invalid["cuda"]["requirements"]["legacy_cuda_version_invalid"] == true);
  for (const char* truthy : {"1", "t", "T", "TRUE", "true", "True"})
    CHECK(BuildFacts(tree, {std::string("NVIDIA_DISABLE_REQUIRE=") + truthy})["cuda"]["requirements"]["disabled"] == true);
  for (const char* falsy : {"yes", "0", "", "on"})
    CHECK(BuildFacts(tree, {std::string("NVIDIA_DISABLE_REQUIRE=") + falsy})["cuda"]["requirements"]["disabled"] == false);
  CHECK(BuildFacts(tree, {"CUDA_VERSION=v12.2"})["cuda"]["requirements"]["legacy_cuda_version"] == "12.2");
}

TEST_CASE("facts: binaries with device code, CUDA dependencies, static cudart or problems") {
  HostTree tree;
  EntrySpec cubin{.kind = 2, .arch = 80, .payload = MakeCubin(80, 124)};
  EntrySpec ptx{.kind = 1, .arch = 90, .major = 8, .minor = 4, .payload = PtxText("sm_90", "8.4")};
  ElfSpec app{.type = 2, .needed = {"libc.so.6"}, .fatbin = MakeContainer({MakeEntry(cubin), MakeEntry(ptx)}),
              .extra_text = std::string("cudaErrorInsufficientDriver\0cuGetProcAddress\0", 45)};
  AddMemoryFile(tree, "app/bin/solver", MakeElf(app), 2);
  AddMemoryFile(tree, "app/lib/libuses.so", Library("libuses.so", {"libcublas.so.12", "libc.so.6"}), 2);
  AddMemoryFile(tree, "usr/bin/bash", MakeElf({.type = 2, .needed = {"libc.so.6"}}), 0);
  Bytes broken = MakeElf({.soname = "libbroken.so"});
  broken.resize(40);
  AddMemoryFile(tree, "app/lib/libbroken.so", broken, 2);
  json facts = BuildFacts(tree);
  const json& binaries = facts["binaries"];
  CHECK(binaries.size() == 3);
  CHECK_FALSE(FindByPath(binaries, "/usr/bin/bash"));
  const json* solver = FindByPath(binaries, "/app/bin/solver");
  REQUIRE(solver);
  CHECK((*solver)["sass"] == json({"sm_80"}));
  CHECK((*solver)["ptx"] == json::parse(R"([{"arch":"compute_90","isa":"8.4"}])"));
  CHECK((*solver)["static_cudart"] == true);
  CHECK((*solver)["toolkits"] == json({"12.4"}));
  REQUIRE(facts["cuda"]["static_runtimes"].size() == 1);
  CHECK(facts["cuda"]["static_runtimes"][0]["path"] == "/app/bin/solver");
  const json* uses = FindByPath(binaries, "/app/lib/libuses.so");
  REQUIRE(uses);
  CHECK((*uses)["needed"] == json({"libcublas.so.12", "libc.so.6"}));
  CHECK((*uses)["static_cudart"] == false);
  const json* bad = FindByPath(binaries, "/app/lib/libbroken.so");
  REQUIRE(bad);
  CHECK((*bad)["problems"][0]["offset"] == 40);
  std::string text = FormatCudaFactsText(facts);
  CHECK(text.find("problem at offset 40: truncated ELF header") != std::string::npos);
  CHECK(text.find("SASS:   sm_80") != std::string::npos);
}

TEST_CASE("facts: frameworks from their own metadata") {
  HostTree tree;
  std::string site = "usr/lib/python3/dist-packages/";
  auto meta = [&](const std::string& dist, const std::string& name, const std::string& version) {
    AddMemoryFile(tree, site + dist + ".dist-info/METADATA",
                  TextBytes("Metadata-Version: 2.1\nName: " + name + "\nVersion: " + version + "\n\n"));
  };
  meta("cupy_cuda12x-13.1.0", "cupy-cuda12x", "13.1.0");
  meta("jax_cuda12_plugin-0.4.30", "jax-cuda12-plugin", "0.4.30");
  meta("jaxlib-0.4.20+cuda11.cudnn86", "jaxlib", "0.4.20+cuda11.cudnn86");
  meta("onnxruntime_gpu-1.18.0", "onnxruntime-gpu", "1.18.0");
  AddMemoryFile(tree, site + "onnxruntime/capi/version_info.py", TextBytes("use_cuda = True\ncuda_version = \"12.2\"\n"));
  meta("tensorrt_cu12-10.0.1", "tensorrt-cu12", "10.0.1");
  meta("tensorflow-2.16.1", "tensorflow", "2.16.1");
  AddMemoryFile(tree, site + "tensorflow/python/platform/build_info.py",
                TextBytes("build_info = {'cuda_version': '12.3', 'cudnn_version': '8', 'is_cuda_build': True}\n"));
  meta("requests-2.0", "requests", "2.0");  // not captured at all
  AddMemoryFile(tree, "var/lib/dpkg/status", TextBytes("Package: libnvinfer10\nVersion: 10.3.0.26-1+cuda12.5\n\n"));
  AddMemoryFile(tree, "opt/conda/conda-meta/pytorch-2.1.0-py3.10_cuda12.1_cudnn8.9.2_0.json",
                TextBytes(R"({"name":"pytorch","version":"2.1.0","build":"py3.10_cuda12.1_cudnn8.9.2_0"})"));
  json facts = BuildFacts(tree);
  std::map<std::string, json> by_name;
  for (const auto& row : facts["frameworks"]) by_name[row["name"].get<std::string>() + ":" + row["version"].get<std::string>()] = row;
  CHECK(by_name["cupy:13.1.0"]["cuda"] == "12.x");
  CHECK(by_name["jax:0.4.30"]["cuda"] == "12");
  CHECK(by_name["jax:0.4.20+cuda11.cudnn86"]["cuda"] == "11");
  CHECK(by_name["onnxruntime:1.18.0"]["cuda"] == "12.2");
  CHECK(by_name["tensorrt:10.0.1"]["cuda"] == "12");
  CHECK(by_name["tensorflow:2.16.1"]["cuda"] == "12.3");
  CHECK(by_name["tensorrt:10.3.0.26"]["cuda"] == "12.5");
  CHECK(by_name["torch:2.1.0"]["cuda"] == "12.1");
  CHECK(TextKindForPath(site + "requests-2.0.dist-info/METADATA",
                        imagelint::testing::CheckoutKnowledge().CapturedPackageNames())
            .empty());
}

TEST_CASE("facts: imagelint facts on the example image built with umoci and skopeo") {
  namespace fs = std::filesystem;
  using imagelint::testing::HaveProgram;
  using imagelint::testing::NeedExternal;
  const char* home = std::getenv("HOME");
  fs::path debs = std::getenv("IMAGELINT_NVIDIA_DEBS") ? fs::path(std::getenv("IMAGELINT_NVIDIA_DEBS"))
                                                       : fs::path(home ? home : "/root") / ".cache/imagelint/nvidia-debs";
  if (!NeedExternal("umoci and skopeo", HaveProgram("umoci") && HaveProgram("skopeo"), "apt-get install umoci skopeo"))
    return;
  if (!NeedExternal("NVIDIA packages", fs::exists(debs / "index.tsv"), "run scripts/fetch-nvidia-debs.sh")) return;
  if (!NeedExternal("imagelint binary", fs::exists(imagelint::testing::ImagelintBinary()), "build the imagelint target"))
    return;
  imagelint::testing::TempDir dir;
  fs::path image = dir / "example.tar";
  auto made = imagelint::testing::RunCommand(
      {"bash", (imagelint::testing::SourceDir() / "scripts/make-example-image.sh").string(), image.string()}, "", 600,
      {"EXAMPLE_WITH_CUBLAS=0"});
  REQUIRE_MESSAGE(made.exit_code == 0, made.err);
  auto run = imagelint::testing::RunImagelint({"facts", image.string(), "--format", "json"});
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  json facts = json::parse(run.out);
  // Genuine NVIDIA libraries: the facts read back and follow docs/facts-schema.json.
  auto read = imagelint::facts::ReadFacts(facts, "example.tar facts");
  REQUIRE_MESSAGE(read.ok(), imagelint::testing::ErrorText(read));
  CHECK(imagelint::facts::WriteFacts(*read) == facts);
  imagelint::testing::CheckFactsSchema("example image", facts);
  REQUIRE(facts["cuda"]["runtimes"].size() == 1);
  const json& runtime = facts["cuda"]["runtimes"][0];
  CHECK(runtime["path"] == "/usr/local/cuda-12.4/targets/x86_64-linux/lib/libcudart.so.12.4.127");
  CHECK(runtime["version"] == "12.4.127");
  CHECK(runtime["layer"] == 1);
  CHECK(runtime["evidence"].size() == 4);  // file name, dpkg, version.json, SONAME
  REQUIRE(facts["cuda"]["drivers"].size() == 1);
  const json& driver = facts["cuda"]["drivers"][0];
  CHECK(driver["path"] == "/usr/local/cuda-12.4/compat/libcuda.so.550.163.01");
  CHECK(driver["kind"] == "compat");
  CHECK(driver["version"] == "550.163.01");
  CHECK(driver["layer"] == 2);
  CHECK(driver["aliases"] == json({"/usr/local/cuda-12.4/compat/libcuda.so.1"}));
  const json& requirements = facts["cuda"]["requirements"];
  CHECK(requirements["CUDA_VERSION"] == "12.4.1");
  CHECK(requirements["NVIDIA_REQUIRE_CUDA"].get<std::string>().rfind("cuda>=12.4 brand=tesla,driver>=470,driver<471", 0) == 0);
  CHECK(facts["cuda"]["loader"]["ld_library_path"] == json({"/usr/local/nvidia/lib", "/usr/local/nvidia/lib64"}));
  CHECK(facts["cuda"]["loader"]["ld_so_conf"].size() == 3);
  CHECK(facts["cuda"]["loader"]["libcuda_candidates"].empty());  // the compat dir is not on any search path
  auto text = imagelint::testing::RunImagelint({"facts", image.string(), "--format", "text"});
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("libcudart 12.4.127  [system, version from filename]") != std::string::npos);
  CHECK(text.out.find("libcuda 550.163.01  [compat]") != std::string::npos);
  CHECK(text.out.find("/usr/local/cuda-12.4/compat/libcuda.so.550.163.01  (layer 2 sha256:") != std::string::npos);
}

TEST_CASE("facts: where the loader finds an executable's libcudart (RPATH, LD_LIBRARY_PATH, RUNPATH, ld.so.conf)") {
  auto program = [](std::string runpath, std::string rpath = "") {
    return MakeElf({.type = 2, .needed = {"libcudart.so.12", "libc.so.6"}, .runpath = std::move(runpath),
                    .rpath = std::move(rpath), .interp = "/lib64/ld-linux-x86-64.so.2"});
  };
  auto lookup_of = [](const json& facts, const std::string& path) {
    const json* row = FindByPath(facts["binaries"], path);
    REQUIRE(row);
    REQUIRE(row->contains("cudart_lookup"));
    return (*row)["cudart_lookup"];
  };
  auto tree_with = [&](Bytes binary) {
    auto tree = std::make_unique<HostTree>();
    AddMemoryFile(*tree, "opt/app/lib/libcudart.so.12.4.127", Library("libcudart.so.12"), 1);
    AddSymlink(*tree, "opt/app/lib/libcudart.so.12", "libcudart.so.12.4.127", 1);
    AddMemoryFile(*tree, "opt/app/bin/train", std::move(binary), 2);
    return tree;
  };

  auto bare = tree_with(program(""));
  json lookup = lookup_of(BuildFacts(*bare), "/opt/app/bin/train");
  CHECK(lookup["needed"] == "libcudart.so.12");
  CHECK(lookup["found"].is_null());
  CHECK_FALSE(lookup.contains("incomplete"));
  CHECK(lookup["searched"].size() == 8);  // the default directories only

  auto origin = tree_with(program("$ORIGIN/../lib"));
  lookup = lookup_of(BuildFacts(*origin), "/opt/app/bin/train");
  CHECK(lookup["found"] == "/opt/app/lib/libcudart.so.12");
  CHECK(lookup["via"] == "RUNPATH");

  auto env = tree_with(program(""));
  lookup = lookup_of(BuildFacts(*env, json::array({"LD_LIBRARY_PATH=/usr/local/nvidia/lib64:/opt/app/lib"})),
                     "/opt/app/bin/train");
  CHECK(lookup["via"] == "LD_LIBRARY_PATH");
  CHECK(lookup["found"] == "/opt/app/lib/libcudart.so.12");

  auto conf = tree_with(program(""));
  AddMemoryFile(*conf, "etc/ld.so.conf", TextBytes("include /etc/ld.so.conf.d/*.conf\n"), 0);
  AddMemoryFile(*conf, "etc/ld.so.conf.d/app.conf", TextBytes("/opt/app/lib\n"), 2);
  lookup = lookup_of(BuildFacts(*conf), "/opt/app/bin/train");
  CHECK(lookup["via"] == "ld.so.conf");

  // DT_RPATH counts only without DT_RUNPATH (glibc): here RUNPATH misses.
  auto both = tree_with(program("/nowhere", "/opt/app/lib"));
  lookup = lookup_of(BuildFacts(*both), "/opt/app/bin/train");
  CHECK(lookup["found"].is_null());
  auto rpath = tree_with(program("", "/opt/app/lib"));
  CHECK(lookup_of(BuildFacts(*rpath), "/opt/app/bin/train")["via"] == "RPATH");

  // A relative entry cannot be decided from the image.
  auto relative = tree_with(program("lib"));
  lookup = lookup_of(BuildFacts(*relative), "/opt/app/bin/train");
  CHECK(lookup["found"].is_null());
  CHECK(lookup["incomplete"] == true);

  // Shared libraries get no lookup: their loader decides.
  auto library = tree_with(program(""));
  AddMemoryFile(*library, "opt/app/lib/libkernels.so", Library("libkernels.so", {"libcudart.so.12"}), 2);
  const json library_facts = BuildFacts(*library);
  const json* kernels = FindByPath(library_facts["binaries"], "/opt/app/lib/libkernels.so");
  REQUIRE(kernels);
  CHECK_FALSE(kernels->contains("cudart_lookup"));
}
