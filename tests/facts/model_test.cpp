// The facts model: WriteFacts -> ReadFacts gives back the same value (every
// field set, and every field empty), the reader names the field path of
// what is wrong, and what the writer emits validates against
// docs/facts-schema.json.
#include <doctest/doctest.h>

#include "imagelint/facts.h"
#include "support/facts_schema.h"
#include "support/test_support.h"

using namespace imagelint;
using namespace imagelint::facts;
using nlohmann::json;

namespace {

Provenance FullProvenance(uint64_t layer) {
  Provenance p;
  p.layer = layer;
  p.layer_digest = "sha256:" + std::string(64, 'a');
  p.dockerfile = "Dockerfile";
  p.dockerfile_line = 7;
  p.dockerfile_origin = "instruction";
  p.created_by = "RUN apt-get install -y cuda-compat-12-4";
  p.origin = "instruction";
  p.knowledge = "S7";
  p.unconfirmed = "compat libcuda version";
  return p;
}

Runtime FullRuntime() {
  Runtime r;
  r.provenance = FullProvenance(1);
  r.path = "/usr/local/cuda-12.4/targets/x86_64-linux/lib/libcudart.so.12.4.127";
  r.soname = "libcudart.so.12";
  r.version = "12.4.127";
  r.source = "filename";
  r.evidence_path = *r.path;
  r.evidence = std::vector<RuntimeEvidence>{{"filename", "12.4.127", *r.path}, {"soname", "12", *r.path}};
  r.conflict = false;
  r.hashed_copy = false;
  r.aliases = std::vector<std::string>{"/usr/local/cuda/lib64/libcudart.so.12"};
  r.version_precision = "major.minor";
  r.version_source = "apt pin";
  r.package = "cuda-cudart-12-4";
  r.installer = "pip";
  r.version_unknown_reason = "unresolved variable";
  return r;
}

Driver FullDriver() {
  Driver d;
  d.provenance = FullProvenance(2);
  d.path = "/usr/local/cuda-12.4/compat/libcuda.so.550.54.15";
  d.name = "libcuda.so.550.54.15";
  d.kind = "compat";
  d.version = "550.54.15";
  d.source = "filename";
  d.evidence_path = d.path;
  d.toolkit_dir = "12.4";
  d.soname = "libcuda.so.1";
  d.note = json{{"Format", 1}, {"CUDA Version", "12.4"}, {"Driver", {535, 550}}, {"Device", {1, 2}}};
  d.aliases = std::vector<std::string>{"/usr/local/cuda-12.4/compat/libcuda.so.1"};
  d.problems = std::vector<Problem>{{64, "ELF note overruns its section/segment"}};
  d.package = "cuda-compat-12-4";
  d.branch = "550";
  d.version_source = "apt pin";
  d.link_target = "../compat/libcuda.so.1";
  d.resolves_to = "/usr/local/cuda-12.4/compat/libcuda.so.1";
  d.hard_link = true;
  d.copied_from = "libcuda.so.550.54.15";
  d.copied_from_stage = "build";
  return d;
}

Framework FullFramework() {
  Framework f;
  f.provenance = FullProvenance(3);
  f.name = "torch";
  f.version = "2.1.2";
  f.cuda = "12.1";
  f.path = "/usr/lib/python3/dist-packages/torch/version.py";
  f.package = "torch";
  f.build = "py3.10_cuda12.1_cudnn8.9.2_0";
  f.git_version = "a8e7c98";
  f.cudnn = "8";
  f.sass = std::vector<std::string>{"sm_80", "sm_90"};
  f.ptx = std::vector<Ptx>{{"compute_90", "8.1"}, {"compute_80", std::nullopt}};
  f.cuda_libraries = std::vector<std::string>{"/x/torch/lib/libtorch_cuda.so"};
  f.variant = "cu121";
  f.cuda_source = "--index-url https://download.pytorch.org/whl/cu121";
  f.cuda_unknown = false;
  f.installer = "pip";
  f.source = "base-image";
  f.version_unknown_reason = "unresolved variable";
  f.arch_list = "8.0;9.0+PTX";
  f.arch_list_source = "S13";
  f.arch_list_unconfirmed = "arch list (as 2.6)";
  return f;
}

// Every field of the model set to something.
Facts FullFacts() {
  Facts facts;
  facts.source = Source{"dockerfile", "Dockerfile", "runtime", 1, std::map<std::string, std::string>{{"CUDA", "12.4"}}};
  Image& image = facts.image;
  image.ref = "Dockerfile#runtime";
  image.digest = "sha256:" + std::string(64, 'b');
  image.kind = "dockerfile";
  image.dockerfile = "Dockerfile";
  image.os = "linux";
  image.architecture = "arm64";
  image.variant = "v8";
  image.env = {{"CUDA_VERSION", "12.4.1"}, {"PATH", "/usr/bin"}};
  image.env_provenance = std::map<std::string, EnvProvenance>{{"CUDA_VERSION", {1, "base-image"}}};
  image.env_complete = true;
  image.labels = {{"maintainer", "NVIDIA CORPORATION"}};
  Layer layer;
  layer.digest = "sha256:" + std::string(64, 'c');
  layer.diff_id = "sha256:" + std::string(64, 'd');
  layer.created_by = "FROM nvidia/cuda:12.4.1-base-ubuntu22.04";
  layer.media_type = "application/vnd.oci.image.layer.v1.tar+gzip";
  layer.size = 1234;
  layer.entries = 12;
  layer.uncompressed_size = 10240;
  layer.dockerfile = "Dockerfile";
  layer.dockerfile_line = 1;
  layer.dockerfile_origin = "base-image";
  layer.instruction = "FROM";
  layer.base_image = true;
  layer.empty_layer = false;
  image.layers = {layer};
  BaseImage base;
  base.ref = "nvidia/cuda:12.4.1-base-ubuntu22.04";
  base.repository = "nvidia/cuda";
  base.tag = "12.4.1-base-ubuntu22.04";
  base.digest = "";
  base.platform = "linux/arm64";
  base.dockerfile = "Dockerfile";
  base.dockerfile_line = 1;
  base.known = Known::kPartial;
  base.kind = BaseKind::kNvidiaCuda;
  base.reason = "why";
  base.resolved_from = BaseSource::kKnowledge;
  base.cuda_tag_version = "12.4.1";
  base.flavor = "base";
  base.cudnn = "cudnn8";
  base.distribution = "ubuntu22.04";
  base.cuda_version = "12.4.1";
  base.source = "S7";
  base.tag_resolution = "exact";
  base.env_source = "S7";
  base.require_source = "S7";
  base.require_unconfirmed = true;
  base.torch = "2.1.2";
  base.compat = false;
  base.compat_source = "S16";
  image.base = base;
  image.problems = std::vector<std::string>{"hard link to a missing file"};

  Cuda cuda;
  cuda.runtimes = std::vector<Runtime>{FullRuntime()};
  cuda.runtimes_complete = true;
  cuda.static_runtimes = std::vector<StaticRuntime>{{FullProvenance(1), "/app/train", {"cudaErrorInsufficientDriver"}, {"12.4"}}};
  cuda.drivers = std::vector<Driver>{FullDriver()};
  cuda.drivers_complete = true;
  cuda.driver_libraries = std::vector<DriverLibrary>{{FullProvenance(2), "libnvidia-ml", "bundled", "/usr/lib/libnvidia-ml.so.550.54.15", "550.54.15"}};
  Requirements requirements;
  requirements.variables = {{"CUDA_VERSION", "12.4.1"}, {"NVIDIA_REQUIRE_CUDA", "cuda>=12.4"}, {"NV_CUDA_CUDART_VERSION", "12.4.127-1"}};
  requirements.disabled = false;
  requirements.legacy = true;
  requirements.legacy_cuda_version = "12.4";
  requirements.legacy_cuda_version_invalid = false;
  requirements.provenance = std::map<std::string, EnvProvenance>{{"CUDA_VERSION", {1, "base-image"}}};
  requirements.complete = true;
  cuda.requirements = requirements;
  Loader loader;
  loader.ld_library_path = std::vector<std::string>{"/usr/local/nvidia/lib64"};
  loader.ld_library_path_provenance = EnvProvenance{1, "base-image"};
  loader.ld_so_conf = std::vector<LdSoConfEntry>{{FullProvenance(0), "/usr/local/cuda/lib64", "/etc/ld.so.conf.d/cuda.conf"}};
  loader.ld_so_conf_missing = false;
  loader.ld_so_conf_complete = true;
  LibcudaCandidate candidate{"/usr/local/cuda/compat", "LD_LIBRARY_PATH", "/usr/local/cuda/compat/libcuda.so.1",
                             Nullable<std::string>("/usr/local/cuda-12.4/compat/libcuda.so.550.54.15"), "compat",
                             Nullable<std::string>("550.54.15"), 4, 5};
  LibcudaCandidate dangling{"/usr/lib", "default", "/usr/lib/libcuda.so.1", Nullable<std::string>(), std::nullopt,
                            Nullable<std::string>(), std::nullopt, std::nullopt};
  loader.libcuda_candidates = std::vector<LibcudaCandidate>{candidate, dangling};
  cuda.loader = loader;
  cuda.toolkits = std::vector<Toolkit>{{FullProvenance(0), "/usr/local/cuda-12.4/version.json", "12.4.1",
                                        std::map<std::string, std::string>{{"cuda_cudart", "12.4.127"}}}};
  Package package;
  package.provenance = FullProvenance(3);
  package.name = "nvidia-cuda-runtime-cu12";
  package.version = "12.1.105";
  package.status = "install ok installed";
  package.architecture = "amd64";
  package.evidence = "/var/lib/dpkg/status";
  package.package = "nvidia-cuda-runtime-cu12";
  package.installer = "pip";
  package.manager = "pip";
  package.cuda_major = "12";
  package.component = "cudart";
  package.version_unknown_reason = "unresolved variable";
  cuda.packages = std::vector<Package>{package};
  facts.cuda = cuda;

  Binary binary;
  binary.provenance = FullProvenance(3);
  binary.path = "/app/bin/train";
  binary.machine = "x86_64";
  binary.elf_class = 64;
  binary.type = "exec";
  binary.soname = "";
  binary.needed = std::vector<std::string>{"libcudart.so.12", "libc.so.6"};
  binary.runpath = std::vector<std::string>{"$ORIGIN/../lib"};
  binary.rpath = std::vector<std::string>{"/opt/lib"};
  binary.cudart_lookup = CudartLookup{"libcudart.so.12", Nullable<std::string>(), Nullable<std::string>(),
                                      {"/opt/lib"}, true};
  binary.sass = std::vector<std::string>{"sm_80", "sm_90a"};
  binary.ptx = std::vector<Ptx>{{"compute_90", "8.4"}};
  Fatbin fatbin;
  fatbin.containers = 2;
  fatbin.entries = 3;
  fatbin.sections = {{".nv_fatbin", 2}};
  fatbin.section_archs = {{".nv_fatbin", {{"sm_80", 1}, {"sm_90a", 1}, {"compute_90", 1}}}};
  fatbin.sass = {{"sm_80", 1, std::nullopt}, {"sm_90a", 1, std::nullopt}};
  fatbin.ptx = {{"compute_90", 1, "8.4"}};
  fatbin.ltoir = std::vector<ArchCount>{{"lto_90", 1, std::nullopt}};
  fatbin.other = std::vector<ArchCount>{{"kind0x20_90", 1, std::nullopt}};
  fatbin.compression = {{"none", 2}, {"zstd", 1}};
  fatbin.debug_entries = 0;
  fatbin.embedded_cubins = 1;
  fatbin.toolkits = {"12.4"};
  fatbin.tkinfo = {"Cuda compilation tools, release 12.4, V12.4.131"};
  binary.fatbin = fatbin;
  binary.toolkits = std::vector<std::string>{"12.4"};
  binary.cubin = Cubin{"sm_90", 8, 0x5a, "12.4"};
  binary.static_cudart = false;
  binary.problems = std::vector<Problem>{{4096, "fatbin container overruns the file"}};
  binary.framework = "torch";
  binary.framework_version = "2.1.2";
  binary.source = "knowledge: TORCH_CUDA_ARCH_LIST of torch 2.1.2+cu121";
  binary.arch_list = "8.0;9.0";
  binary.arch_list_source = "S13";
  binary.arch_list_unconfirmed = "arch list";
  facts.binaries = std::vector<Binary>{binary};
  facts.binaries_complete = false;
  facts.frameworks = std::vector<Framework>{FullFramework()};
  facts.frameworks_complete = true;

  DockerfileInfo dockerfile;
  dockerfile.path = "Dockerfile";
  dockerfile.escape = "\\";
  dockerfile.syntax = "docker/dockerfile:1";
  dockerfile.stages = {{"runtime", "nvidia/cuda:12.4.1-base-ubuntu22.04", 1, true}};
  dockerfile.unknown = {{"cuda.drivers", "Dockerfile", 9, "runs installer cuda.run"}};
  dockerfile.notes = {{3, "downloads x.run"}};
  dockerfile.changes = {{10, "rm -rf /usr/local/cuda/compat", FullDriver()},
                        {11, "package cuda-cudart-*", FullRuntime()},
                        {12, std::nullopt, FullFramework()}};
  dockerfile.suppressions = {{{"IL003"}, "compat wanted", "Dockerfile", 4, 5, "RUN true"}};
  dockerfile.unused_build_args = {"UNUSED"};
  facts.dockerfile = dockerfile;
  facts.image.platform_source = "FROM --platform";
  Gpu gpu;
  gpu.workload = "nvidia";
  gpu.signals = {{"env", "NVIDIA_VISIBLE_DEVICES=all", std::nullopt, 2}, {"cuda-runtime", "libcudart 12.4.127",
                                                                          "/usr/local/cuda/lib64/libcudart.so.12", std::nullopt}};
  gpu.caveats = std::vector<std::string>{"pip installs from requirements.txt, which imagelint does not read (line 4)"};
  facts.gpu = gpu;
  return facts;
}

// The fewest fields: what a bare image without CUDA gives.
Facts MinimalFacts() {
  Facts facts;
  facts.image.ref = "bare";
  facts.image.kind = "rootfs";
  facts.image.os = "linux";
  facts.image.architecture = "amd64";
  return facts;
}

json Roundtrip(const Facts& facts) {
  json written = WriteFacts(facts);
  auto read = ReadFacts(written, "roundtrip.json");
  REQUIRE_MESSAGE(read.ok(), imagelint::testing::ErrorText(read));
  CHECK(*read == facts);
  CHECK(WriteFacts(*read) == written);
  return written;
}

std::string ReadError(json document) {
  auto read = ReadFacts(document, "facts.json");
  REQUIRE(!read.ok());
  return read.error().ToString();
}

}  // namespace

TEST_CASE("every field survives WriteFacts -> ReadFacts") {
  json full = Roundtrip(FullFacts());
  CHECK(full["schema"] == kSchemaName);
  CHECK(full["binaries"][0]["class"] == 64);
  CHECK(!full["binaries"][0].contains("elf_class"));
  CHECK(full["cuda"]["requirements"]["NVIDIA_REQUIRE_CUDA"] == "cuda>=12.4");
  CHECK(!full["cuda"]["requirements"].contains("variables"));
  CHECK(full["image"]["base"]["known"] == "partial");
  CHECK(full["dockerfile"]["changes"][0]["fact"] == "cuda.drivers");
  CHECK(full["dockerfile"]["changes"][1]["fact"] == "cuda.runtimes");
  CHECK(full["dockerfile"]["changes"][2]["fact"] == "frameworks");
  // Flattened provenance: the row's own keys.
  CHECK(full["cuda"]["drivers"][0]["dockerfile_line"] == 7);
  CHECK(full["cuda"]["drivers"][0]["layer"] == 2);
  // Tri-state: a value, null, or absent.
  CHECK(full["cuda"]["loader"]["libcuda_candidates"][0]["resolves_to"] ==
        "/usr/local/cuda-12.4/compat/libcuda.so.550.54.15");
  CHECK(full["cuda"]["loader"]["libcuda_candidates"][1]["resolves_to"].is_null());
  CHECK(!full["cuda"]["loader"]["libcuda_candidates"][1].contains("kind"));

  json minimal = Roundtrip(MinimalFacts());
  CHECK(minimal == json::parse(R"({"schema": "imagelint.facts/v1", "image": {"ref": "bare", "kind": "rootfs",
    "os": "linux", "architecture": "amd64", "env": {}, "labels": {}, "layers": []}})"));
}

TEST_CASE("Nullable fields are written as null, optional ones are left out") {
  Facts facts = MinimalFacts();
  Runtime runtime;
  runtime.path = "/lib/libcudart.so.12";
  facts.cuda = Cuda{};
  facts.cuda->runtimes = std::vector<Runtime>{runtime};
  Requirements requirements;
  requirements.legacy = false;  // known: legacy_cuda_version is written (null)
  facts.cuda->requirements = requirements;
  json written = Roundtrip(facts);
  const json& row = written["cuda"]["runtimes"][0];
  CHECK(row["version"].is_null());
  CHECK(row["source"].is_null());
  CHECK(!row.contains("soname"));
  CHECK(!row.contains("layer"));
  CHECK(written["cuda"]["requirements"] ==
        json::parse(R"({"disabled": false, "legacy": false, "legacy_cuda_version": null})"));
  // Unknown legacy-ness (a Dockerfile whose base env is unknown): neither key.
  facts.cuda->requirements->legacy.reset();
  CHECK(Roundtrip(facts)["cuda"]["requirements"] == json::parse(R"({"disabled": false})"));
}

TEST_CASE("the reader names the field path of what is wrong") {
  json good = WriteFacts(FullFacts());
  auto with = [&](const json::json_pointer& pointer, json value) {
    json document = good;
    document[pointer] = std::move(value);
    return ReadError(document);
  };
  CHECK(with("/cuda/runtimes/0/version"_json_pointer, 12) ==
        "facts.json: cuda.runtimes[0].version: expected a string, got a number");
  CHECK(with("/cuda/drivers/0/note"_json_pointer, "n") == "facts.json: cuda.drivers[0].note: expected an object, got a string");
  CHECK(with("/image/layers/0/size"_json_pointer, -1) ==
        "facts.json: image.layers[0].size: expected a whole number >= 0, got a number");
  CHECK(with("/binaries/0/fatbin/section_archs/.nv_fatbin/sm_80"_json_pointer, "1") ==
        "facts.json: binaries[0].fatbin.section_archs..nv_fatbin.sm_80: expected a whole number >= 0, got a string");
  CHECK(with("/cuda/requirements/NVIDIA_REQUIRE_CUDA"_json_pointer, json::array()) ==
        "facts.json: cuda.requirements.NVIDIA_REQUIRE_CUDA: expected a string, got a list");
  CHECK(with("/cuda/requirements/PATH"_json_pointer, "/bin") == "facts.json: cuda.requirements.PATH: unknown field");
  CHECK(with("/cuda/runtimes/0/colour"_json_pointer, "blue") == "facts.json: cuda.runtimes[0].colour: unknown field");
  CHECK(with("/image/base/known"_json_pointer, "maybe") ==
        "facts.json: image.base.known: expected true, false or \"partial\", got a string");
  CHECK(with("/image/base/resolved_from"_json_pointer, "cache") ==
        "facts.json: image.base.resolved_from: expected \"docker\", \"registry\", \"local\", \"knowledge\" or "
        "\"none\", got \"cache\"");
  CHECK(with("/image/base/kind"_json_pointer, "debian") ==
        "facts.json: image.base.kind: expected \"nvidia/cuda\", \"pytorch/pytorch\", \"ngc\", \"l4t\", "
        "\"cuda-application\", \"no-cuda\", \"scratch\" or \"unknown\", got \"debian\"");
  CHECK(with("/dockerfile/changes/0/fact"_json_pointer, "cuda.toolkits") ==
        "facts.json: dockerfile.changes[0].fact: expected \"cuda.runtimes\", \"cuda.drivers\" or \"frameworks\", got "
        "\"cuda.toolkits\"");
  CHECK(with("/dockerfile/changes/0/removed/kind"_json_pointer, 3) ==
        "facts.json: dockerfile.changes[0].removed.kind: expected a string, got a number");
  CHECK(with("/binaries"_json_pointer, "not a list") == "facts.json: binaries: expected a list, got a string");
  CHECK(with("/schema"_json_pointer, "imagelint.facts/v0") ==
        "facts.json: schema: expected \"imagelint.facts/v1\", got \"imagelint.facts/v0\"");
  json no_image = good;
  no_image.erase("image");
  CHECK(ReadError(no_image) == "facts.json: image: missing");
  json no_kind = good;
  no_kind["cuda"]["drivers"][0].erase("kind");
  CHECK(ReadError(no_kind) == "facts.json: cuda.drivers[0].kind: missing");
  CHECK(ReadError(json::array()) == "facts.json: document: expected an object, got a list");
  CHECK(ReadError(nullptr) == "facts.json: document: expected an object, got null");
}

TEST_CASE("the written facts validate against docs/facts-schema.json") {
  json full = WriteFacts(FullFacts());
  imagelint::testing::CheckFactsSchema({{"full", full}, {"minimal", WriteFacts(MinimalFacts())}});
}

TEST_CASE("the schema rejects what the writer never emits") {
  // Guards the helper itself: a check that cannot fail proves nothing.
  json bad = WriteFacts(FullFacts());
  bad["cuda"]["runtimes"][0]["colour"] = "blue";
  auto argv_ok = imagelint::testing::HaveProgram("python3");
  if (!imagelint::testing::NeedExternal("python3", argv_ok, "runs the schema validator")) return;
  imagelint::testing::TempDir dir;
  imagelint::testing::WriteFileText(dir / "bad.json", bad.dump());
  auto result = imagelint::testing::RunCommand(
      {"python3", (imagelint::testing::SourceDir() / "tests/support/validate_json_schema.py").string(),
       (imagelint::testing::SourceDir() / "docs/facts-schema.json").string(), (dir / "bad.json").string()});
  if (result.exit_code == 3) {
    imagelint::testing::NeedExternal("python3-jsonschema", false, result.err);
    return;
  }
  CHECK(result.exit_code == 1);
  CHECK(result.out.find("cuda/runtimes/0") != std::string::npos);
  CHECK(result.out.find("colour") != std::string::npos);
}

// The gpu-signals.yaml rows this test needs (the table itself is tested
// with the knowledge tables).
GpuSignalWords Words() {
  GpuSignalWords words;
  words.variable_prefixes = {"NVIDIA_"};
  words.rocm_words = {"rocm"};
  return words;
}
Gpu GpuFromFacts(const Facts& facts) { return facts::GpuFromFacts(facts, Words()); }

TEST_CASE("facts.gpu from the rows every producer fills: nvidia, rocm or none") {
  Facts plain = MinimalFacts();
  CHECK(GpuFromFacts(plain).workload == "none");
  CHECK(GpuFromFacts(plain).signals.empty());
  Facts env = MinimalFacts();
  env.image.env = {{"NVIDIA_VISIBLE_DEVICES", "all"}, {"PATH", "/usr/bin"}};
  Gpu from_env = GpuFromFacts(env);
  CHECK(from_env.workload == "nvidia");
  REQUIRE(from_env.signals.size() == 1);
  CHECK(from_env.signals[0].signal == "env");
  Facts opted_out = MinimalFacts();
  opted_out.image.env = {{"NVIDIA_VISIBLE_DEVICES", "void"}};
  CHECK(GpuFromFacts(opted_out).workload == "none");
  // The words decide (NVIDIA_VISIBLE_DEVICES aside: the toolkit's own rule):
  // without the NVIDIA_ prefix row, NVIDIA_DRIVER_CAPABILITIES marks nothing.
  Facts capabilities = MinimalFacts();
  capabilities.image.env = {{"NVIDIA_DRIVER_CAPABILITIES", "compute,utility"}};
  CHECK(GpuFromFacts(capabilities).workload == "nvidia");
  CHECK(facts::GpuFromFacts(capabilities, GpuSignalWords{}).workload == "none");
  Facts cpu_torch = MinimalFacts();
  Framework torch;
  torch.name = "torch";
  torch.version = "2.3.1+cpu";
  torch.variant = "cpu";
  cpu_torch.frameworks = std::vector<Framework>{torch};
  CHECK(GpuFromFacts(cpu_torch).workload == "none");
  Facts rocm = MinimalFacts();
  torch.version = "2.3.1+rocm6.0";
  torch.variant = "rocm6.0";
  rocm.frameworks = std::vector<Framework>{torch};
  CHECK(GpuFromFacts(rocm).workload == "rocm");
  Gpu bounded;
  for (int i = 0; i < 10; ++i) AddGpuSignal(bounded, {"env", "NVIDIA_X" + std::to_string(i), std::nullopt, std::nullopt});
  CHECK(bounded.signals.size() == 3);
  json written = WriteFacts(rocm);
  CHECK(!written.contains("gpu"));  // producers set it; the writer adds nothing
  json bad = WriteFacts(FullFacts());
  bad["gpu"]["workload"] = "amd";
  CHECK(ReadError(bad).find("gpu.workload") != std::string::npos);
}
