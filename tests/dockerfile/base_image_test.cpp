// FROM: nvidia/cuda releases (env, cudart, compat and stub libcuda, loader
// entries), pytorch/pytorch tags, unknown bases, and the tag scanners.
#include <doctest/doctest.h>

#include "dockerfile/base_image.h"
#include "dockerfile_fixture.h"

using nlohmann::json;
using namespace imagelint::dockerfile;
using namespace imagelint::testing::dockerfile_fixture;

TEST_CASE("the classic compat trap: nvidia/cuda 11.3.0 devel + torch 1.12.1+cu113") {
  json facts = Facts(kCompatTrap);
  CHECK(facts["schema"] == "imagelint.facts/v1");
  CHECK(facts["source"]["kind"] == "dockerfile");
  const json& base = facts["image"]["base"];
  CHECK(base["known"] == true);
  CHECK(base["cuda_version"] == "11.3.0");
  CHECK(base["dockerfile_line"] == 1);
  const json& env = facts["image"]["env"];
  CHECK(env["CUDA_VERSION"] == "11.3.0");
  CHECK(env["NVIDIA_REQUIRE_CUDA"] ==
        "cuda>=11.3 brand=tesla,driver>=418,driver<419 brand=tesla,driver>=440,driver<441 driver>=450");
  CHECK(env["NV_CUDA_COMPAT_PACKAGE"] == "cuda-compat-11-3");
  CHECK(env["LD_LIBRARY_PATH"] == "/usr/local/nvidia/lib:/usr/local/nvidia/lib64");
  CHECK(env["LIBRARY_PATH"] == "/usr/local/cuda/lib64/stubs");
  CHECK(facts["image"]["env_provenance"]["CUDA_VERSION"]["dockerfile_line"] == 1);

  const json* compat = Driver(facts, "compat");
  REQUIRE(compat != nullptr);
  CHECK((*compat)["path"] == "/usr/local/cuda-11.3/compat/libcuda.so.465.19.01");
  CHECK((*compat)["version"] == "465.19.01");
  CHECK((*compat)["dockerfile_line"] == 1);
  CHECK((*compat)["origin"] == "base-image");
  CHECK((*compat)["layer"] == 0);
  CHECK_FALSE(compat->contains("unconfirmed"));  // 465.19.01 is confirmed by a field report
  bool alias = false;
  for (const auto& a : (*compat)["aliases"]) alias = alias || a == "/usr/local/cuda/compat/libcuda.so.1";
  CHECK(alias);
  REQUIRE(Driver(facts, "stub") != nullptr);  // devel image
  CHECK(facts["cuda"]["drivers_complete"] == true);

  const json& runtime = facts["cuda"]["runtimes"][0];
  CHECK(runtime["version"] == "11.3.58");
  CHECK(runtime["soname"] == "libcudart.so.11.0");
  const json& requirements = facts["cuda"]["requirements"];
  CHECK(requirements["legacy"] == false);
  CHECK(requirements["disabled"] == false);
  CHECK(requirements["complete"] == true);
  CHECK(requirements["provenance"]["NVIDIA_REQUIRE_CUDA"]["dockerfile_line"] == 1);

  const json* torch = Find(facts["frameworks"], "name", "torch");
  REQUIRE(torch != nullptr);
  CHECK((*torch)["version"] == "1.12.1");
  CHECK((*torch)["cuda"] == "11.3");
  CHECK((*torch)["variant"] == "cu113");
  CHECK((*torch)["dockerfile_line"] == 2);
  CHECK((*torch)["layer"] == 1);
  CHECK(facts["image"]["layers"][1]["dockerfile_line"] == 2);
  const json* vision = Find(facts["frameworks"], "name", "torchvision");
  REQUIRE(vision != nullptr);
  CHECK((*vision)["cuda"] == "11.3");

  {  // torch's GPU code from pytorch.yaml (the knowledge is always loaded)
    json with = Facts(kCompatTrap);
    const json* t = Find(with["frameworks"], "name", "torch");
    REQUIRE(t != nullptr);
    CHECK((*t)["sass"] == json::array({"sm_37", "sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86"}));
    REQUIRE(with.contains("binaries"));
    CHECK(with["binaries"][0]["sass"].size() == 7);
    CHECK(with["binaries"][0]["dockerfile_line"] == 2);
  }
}

TEST_CASE("an image whose requirement string older drivers refuse") {
  json facts = Facts("FROM nvidia/cuda:12.8.0-runtime-ubuntu22.04\n");
  std::string require = facts["image"]["env"]["NVIDIA_REQUIRE_CUDA"];
  CHECK(require.rfind("cuda>=12.8 brand=unknown,driver>=470,driver<471 brand=grid,driver>=470,driver<471", 0) == 0);
  CHECK(require.find("brand=geforce") == std::string::npos);  // B12: no GeForce terms
  CHECK(require.find("brand=cloudgaming,driver>=565,driver<566") != std::string::npos);
  CHECK(facts["image"]["env"]["LD_LIBRARY_PATH"] == "/usr/local/cuda/lib64");
  CHECK(Driver(facts, "compat")->at("version") == "570.86.10");
  CHECK(Driver(facts, "stub") == nullptr);  // runtime flavour
  CHECK(facts["cuda"]["requirements"]["NVIDIA_REQUIRE_CUDA"] == require);

  // ENV overrides are tracked to their line; NVIDIA_DISABLE_REQUIRE is read like the toolkit does.
  json disabled = Facts("FROM nvidia/cuda:12.8.0-runtime-ubuntu22.04\nENV NVIDIA_DISABLE_REQUIRE=true\n");
  CHECK(disabled["cuda"]["requirements"]["disabled"] == true);
  CHECK(disabled["cuda"]["requirements"]["provenance"]["NVIDIA_DISABLE_REQUIRE"]["dockerfile_line"] == 2);
  // Legacy images: CUDA_VERSION without NVIDIA_REQUIRE_CUDA.
  json legacy = Facts("FROM nvidia/cuda:12.8.0-runtime-ubuntu22.04\nENV NVIDIA_REQUIRE_CUDA=\"\"\n");
  CHECK(legacy["cuda"]["requirements"]["legacy"] == true);
  CHECK(legacy["cuda"]["requirements"]["legacy_cuda_version"] == "12.8");
}

TEST_CASE("unknown bases and unread constructs stay unknown, never guessed") {
  json facts = Facts(
      "FROM registry.corp.example/ml/base:2024.06\n"
      "RUN pip install -r requirements.txt\n"
      "RUN pip install torch\n");
  CHECK(facts["image"]["base"]["known"] == false);
  CHECK(HasUnknown(facts, "base-image"));
  CHECK(HasUnknown(facts, "frameworks"));
  CHECK_FALSE(facts["cuda"].contains("drivers"));
  CHECK(facts["cuda"]["runtimes_complete"] == false);  // the assumed torch's runtime is kept, the rest unknown
  CHECK_FALSE(facts["cuda"].contains("requirements"));
  CHECK(facts["cuda"]["drivers_complete"] == false);
  CHECK(facts["frameworks_complete"] == false);
  const json* torch = Find(facts["frameworks"], "name", "torch");
  REQUIRE(torch != nullptr);  // positive evidence is kept
  CHECK((*torch).contains("version_assumed"));  // unpinned: the newest PyPI torch, stated as an assumption
  CHECK_FALSE((*torch).contains("cuda_unknown"));

  json ngc = Facts("FROM nvcr.io/nvidia/pytorch:24.05-py3\n");
  CHECK(ngc["image"]["base"]["kind"] == "ngc");
  CHECK(HasUnknown(ngc, "base-image"));

  json unknown_tag = Facts("FROM nvidia/cuda:99.1.0-base-ubuntu22.04\n");
  CHECK(unknown_tag["image"]["base"]["known"] == false);
  CHECK_FALSE(unknown_tag["cuda"].contains("drivers"));

  json installer = Facts("FROM nvidia/cuda:12.4.1-base-ubuntu22.04\nRUN sh cuda_12.6.0_560.28.03_linux.run --silent\n");
  CHECK(HasUnknown(installer, "cuda.drivers"));
  CHECK(installer["cuda"]["drivers_complete"] == false);

  json unresolved = Facts("FROM nvidia/cuda:12.4.1-base-ubuntu22.04\nRUN pip install torch==$TORCH_VERSION\n");
  CHECK(Find(unresolved["frameworks"], "name", "torch")->at("version").is_null());

  // pytorch/pytorch tags: torch and CUDA from the tag, drivers unknown unless a
  // row says (the flavors' recipes: below).
  json torch_base = Facts("FROM pytorch/pytorch:1.7.1-cuda11.0-cudnn8-devel\n");
  CHECK(Find(torch_base["frameworks"], "name", "torch")->at("cuda") == "11.0");
  CHECK_FALSE(torch_base["cuda"].contains("drivers"));
  json torch_known = Facts("FROM pytorch/pytorch:2.0.0-cuda11.7-cudnn8-devel\n");
  CHECK(torch_known["cuda"]["drivers"].empty());

  json scratch = Facts("FROM scratch\nCOPY app /app\n");
  CHECK(scratch["cuda"]["drivers"].empty());
  CHECK(scratch["image"]["base"]["known"] == true);
}

TEST_CASE("tag scanners: nvidia/cuda and pytorch/pytorch grammars, bounded") {
  const std::vector<std::string> cuda_flavors = {"base", "runtime", "devel"};
  auto tag = ParseCudaTag("12.4.1-cudnn8-devel-ubuntu22.04", cuda_flavors);
  REQUIRE(tag.has_value());
  CHECK(tag->version == "12.4.1");
  CHECK(tag->cudnn == "cudnn8");
  CHECK(tag->flavor == "devel");
  CHECK(tag->os == "ubuntu22.04");
  CHECK(ParseCudaTag("12.4-runtime", cuda_flavors)->os.empty());
  CHECK(ParseCudaTag("12.4.1-cudnn-runtime-ubi8", cuda_flavors)->cudnn == "cudnn");
  for (const char* bad : {"latest", "12-devel", "12.4.1.5-devel", "12.4.1-slim-ubuntu22.04", "12.4.1-devel-",
                          "12.4.1-devel2", "12.4.1", "v12.4.1-devel", "12.4.1-cudnn8"}) {
    CAPTURE(bad);
    CHECK_FALSE(ParseCudaTag(bad, cuda_flavors).has_value());
  }
  auto torch = ParseTorchTag("2.1.0-cuda12.1-cudnn8-runtime", {"runtime", "devel"});
  REQUIRE(torch.has_value());
  CHECK(torch->torch == "2.1.0");
  CHECK(torch->cuda == "12.1");
  CHECK(torch->cudnn == "8");
  for (const char* bad : {"2.0.0-devel", "2.1.0-cuda12.1.1-cudnn8-runtime", "2.1.0-cuda12.1-cudnn8-slim", "latest"})
    CHECK_FALSE(ParseTorchTag(bad, {"runtime", "devel"}).has_value());

  ImageRef ref = ParseImageRef("docker.io/Library/Ubuntu:22.04@sha256:abc");
  CHECK(ref.repository == "ubuntu");
  CHECK(ref.tag == "22.04");
  CHECK(ref.digest == "sha256:abc");
  CHECK(ParseImageRef("localhost:5000/nvidia/cuda").tag.empty());  // a port is not a tag
  CHECK(ParseImageRef("index.docker.io/nvidia/cuda:12.4.1-base-ubuntu22.04").repository == "nvidia/cuda");

  // Hostile tags: read in one pass, reported unknown with a bounded reason.
  std::string long_tag = "12.4." + std::string(200 * 1024, '1') + "-devel-ubuntu22.04";
  CHECK_FALSE(ParseCudaTag(long_tag, cuda_flavors).has_value());
  json facts = Facts("FROM nvidia/cuda:" + long_tag + "\n");
  CHECK(facts["image"]["base"]["known"] == false);
  CHECK(facts["image"]["base"]["reason"].get<std::string>().size() < 1000);
  json long_torch = Facts("FROM pytorch/pytorch:" + std::string(100 * 1024, '9') + "\n");
  CHECK(HasUnknown(long_torch, "base-image"));
}

TEST_CASE("pytorch/pytorch followed by rm -rf: no internal error") {
  for (const char* tag : {"2.1.0-cuda12.1-cudnn8-runtime", "2.0.0-devel"}) {
    CAPTURE(tag);
    json facts = Facts(std::string("FROM pytorch/pytorch:") + tag +
                       "\nRUN rm -rf /var/lib/apt/lists/* /usr/local/cuda/compat\n"
                       "RUN mv /opt/conda /opt/conda2 && ln -s /x/libcuda.so.1 /usr/lib/libcuda.so.1\n");
    const json* runtime = Find(facts["cuda"]["runtimes"], "source", "base-image");
    REQUIRE(runtime != nullptr);  // the runtime known only by its version survives
    CHECK((*runtime)["path"].is_null());
    CHECK(Find(facts["frameworks"], "name", "torch") != nullptr);
  }
}

TEST_CASE("platforms: target and library directories, NVARCH, images that do not exist") {
  DockerfileOptions ppc;
  ppc.platform = "linux/ppc64le";
  json facts = Facts("FROM nvidia/cuda:12.4.1-devel-ubuntu22.04\nRUN apt-get install -y libcuda1=550.54.15-1\n", ppc);
  CHECK(facts["image"]["env"]["NVARCH"] == "ppc64el");  // Ubuntu images' spelling
  CHECK(facts["cuda"]["runtimes"][0]["path"] == "/usr/local/cuda-12.4/targets/ppc64le-linux/lib/libcudart.so.12.4.127");
  CHECK(Driver(facts, "bundled")->at("path") == "/usr/lib/powerpc64le-linux-gnu/libcuda.so.550.54.15");
  CHECK(Driver(facts, "compat") != nullptr);  // ppc64le Ubuntu images always had the compat package

  DockerfileOptions arm;
  arm.platform = "linux/arm64";
  json rhel = Facts("FROM nvidia/cuda:12.4.1-base-ubi8\n", arm);
  CHECK(rhel["image"]["env"]["NVARCH"] == "sbsa");
  CHECK(Driver(rhel, "compat") != nullptr);  // RHEL-family templates always install it
  json old_arm = Facts("FROM nvidia/cuda:11.2.2-base-ubuntu20.04\n", arm);
  CHECK(old_arm["dockerfile"]["notes"].size() == 2);  // not recorded, and no compat package

  DockerfileOptions s390x;
  s390x.platform = "linux/s390x";
  json none = Facts("FROM nvidia/cuda:12.4.1-base-ubuntu22.04\nRUN apt-get install -y cuda-compat-12-4\n", s390x);
  CHECK(none["image"]["base"]["known"] == false);
  CHECK(none["image"]["base"]["reason"].get<std::string>().find("linux/s390x") != std::string::npos);
  CHECK(HasUnknown(none, "cuda.drivers"));  // no library directory known for the apt package
}

TEST_CASE("CUDA 13 images: loader entries and LD_LIBRARY_PATH of the newer template") {
  json facts = Facts("FROM nvidia/cuda:13.0.0-runtime-ubuntu24.04\n");
  CHECK(facts["image"]["env"]["LD_LIBRARY_PATH"] == "/usr/local/nvidia/lib:/usr/local/nvidia/lib64:/usr/local/cuda/lib64");
  REQUIRE(facts["cuda"]["loader"]["ld_so_conf"].size() == 1);
  CHECK(facts["cuda"]["loader"]["ld_so_conf"][0]["dir"] == "/usr/local/cuda/lib64");
  CHECK(facts["cuda"]["runtimes"][0]["soname"] == "libcudart.so.13");
  CHECK(Driver(facts, "compat")->at("package") == "cuda-compat-13-0");
  CHECK_FALSE(facts["image"]["env"].contains("NV_CUDA_COMPAT_PACKAGE"));  // only Ubuntu amd64 images <= 12.5.0
  CHECK(Facts("FROM nvidia/cuda:12.4.1-base-ubuntu22.04\n")["image"]["env"]["NV_CUDA_COMPAT_PACKAGE"] == "cuda-compat-12-4");
}

TEST_CASE("pytorch/pytorch tags no table lists: torch and CUDA from the grammar, arch list from pytorch.yaml") {
  // Neither tag is a pytorch_images row: the family's grammar gives the facts.
  json cu130 = Facts("FROM pytorch/pytorch:2.13.0-cuda13.0-cudnn9-devel\n");
  CHECK(cu130["image"]["base"]["kind"] == "pytorch/pytorch");
  CHECK(cu130["image"]["base"]["torch"] == "2.13.0");
  CHECK(cu130["image"]["base"]["cuda_version"] == "13.0");
  const json* torch = Find(cu130["frameworks"], "name", "torch");
  REQUIRE(torch != nullptr);
  CHECK((*torch)["version"] == "2.13.0");
  CHECK((*torch)["variant"] == "cu130");
  CHECK((*torch)["arch_list"] == "7.5;8.0;8.6;9.0;10.0;12.0+PTX");
  CHECK(cu130["cuda"]["runtimes"][0]["version"] == "13.0");
  json cu129 = Facts("FROM pytorch/pytorch:2.12.1-cuda12.9-cudnn9-runtime\n");
  CHECK(Find(cu129["frameworks"], "name", "torch")->at("arch_list") == "7.5;8.0;8.6;9.0;10.0;12.0");
  json cu132 = Facts("FROM pytorch/pytorch:2.14.0-cuda13.2-cudnn9-runtime\n");
  CHECK(Find(cu132["frameworks"], "name", "torch")->at("variant") == "cu132");
  CHECK(cu132["cuda"]["runtimes"][0]["version"] == "13.2");
}

TEST_CASE("pytorch/pytorch runtime tags: an operating-system base, no libcuda, no requirement, the Dockerfile's ENV") {
  // The runtime flavor starts FROM ubuntu (pytorch_image_flavors): nothing of
  // NVIDIA's but the torch install, whose CUDA is the tag's.
  json runtime = Facts("FROM pytorch/pytorch:2.1.0-cuda12.1-cudnn8-runtime\n");
  CHECK(runtime["image"]["base"]["flavor"] == "runtime");
  CHECK(runtime["image"]["base"]["compat"] == false);
  REQUIRE(runtime["cuda"].contains("drivers"));
  CHECK(runtime["cuda"]["drivers"].empty());
  CHECK(runtime["cuda"]["drivers_complete"] == true);
  CHECK_FALSE(HasUnknown(runtime, "cuda.drivers"));
  CHECK_FALSE(HasUnknown(runtime, "cuda.requirements"));
  CHECK(runtime["cuda"]["loader"]["ld_library_path"] == json::array({"/usr/local/nvidia/lib", "/usr/local/nvidia/lib64"}));
  CHECK(runtime["cuda"]["requirements"]["complete"] == true);
  CHECK_FALSE(runtime["cuda"]["requirements"].contains("NVIDIA_REQUIRE_CUDA"));
  CHECK(runtime["cuda"]["runtimes"][0]["version"] == "12.1");

  // Older tags were built from Dockerfiles that are not public.
  CHECK(HasUnknown(Facts("FROM pytorch/pytorch:1.7.1-cuda11.0-cudnn8-runtime\n"), "cuda.drivers"));

  // devel starts from the nvidia/cuda devel image of the tag's CUDA (the
  // newest patch of that minor, said UNCONFIRMED): its compat library, stub,
  // requirement and nvidia.conf, with the pytorch Dockerfile's LD_LIBRARY_PATH.
  json devel = Facts("FROM pytorch/pytorch:2.1.0-cuda12.1-cudnn8-devel\n");
  CHECK_FALSE(HasUnknown(devel, "cuda.drivers"));
  CHECK(devel["image"]["base"]["kind"] == "pytorch/pytorch");
  CHECK(devel["image"]["base"]["torch"] == "2.1.0");
  CHECK(devel["image"]["base"]["tag_resolution"].get<std::string>().find("UNCONFIRMED") != std::string::npos);
  REQUIRE(devel["cuda"]["drivers"].is_array());
  CHECK(Find(devel["cuda"]["drivers"], "kind", "compat") != nullptr);
  CHECK(Find(devel["cuda"]["drivers"], "kind", "stub") != nullptr);
  CHECK(devel["cuda"]["requirements"]["NVIDIA_REQUIRE_CUDA"].get<std::string>().rfind("cuda>=12.1 ", 0) == 0);
  CHECK(devel["cuda"]["loader"]["ld_library_path"] == json::array({"/usr/local/nvidia/lib", "/usr/local/nvidia/lib64"}));
  CHECK(Find(devel["frameworks"], "name", "torch")->at("version") == "2.1.0");
  // A row of the exact tag wins over the flavor's recipe.
  json row = Facts("FROM pytorch/pytorch:2.0.0-cuda11.7-cudnn8-devel\n");
  CHECK(row["cuda"]["drivers"].empty());

  // The recipe is for amd64: arm64 builds install CPU-only wheels.
  imagelint::dockerfile::DockerfileOptions arm64;
  arm64.platform = "linux/arm64";
  arm64.platform_explicit = true;
  CHECK(HasUnknown(Facts("FROM pytorch/pytorch:2.1.0-cuda12.1-cudnn8-runtime\n", arm64), "cuda.drivers"));

  // A later install that may replace torch takes the base's CUDA runtime with it.
  json replaced = Facts("FROM pytorch/pytorch:2.1.0-cuda12.1-cudnn8-runtime\nRUN pip install -r requirements.txt\n");
  CHECK(replaced["cuda"]["runtimes"][0]["version"].is_null());
}

TEST_CASE("serving engines' images are GPU images whose CUDA facts are unknown, never plain services") {
  for (const char* ref : {"vllm/vllm-openai:latest", "docker.io/vllm/vllm-openai:v0.11.0",
                          "ghcr.io/huggingface/text-generation-inference:2.4.1", "lmsysorg/sglang:latest"}) {
    CAPTURE(ref);
    json facts = Facts(std::string("FROM ") + ref + "\nENTRYPOINT [\"python3\", \"-m\", \"server\"]\n");
    CHECK(facts["image"]["base"]["kind"] == "cuda-application");
    CHECK(facts["gpu"]["workload"] == "nvidia");
    CHECK(HasUnknown(facts, "base-image"));
    CHECK_FALSE(facts["cuda"]["runtimes_complete"].get<bool>());
  }
  // vLLM's image: no release recorded, but none older than CUDA 12.1.
  json vllm = Facts("FROM vllm/vllm-openai:latest\n");
  REQUIRE(vllm["cuda"]["runtimes"].size() == 1);
  CHECK(vllm["cuda"]["runtimes"][0]["version"].is_null());
  CHECK(vllm["cuda"]["runtimes"][0]["version_min"] == "12.1");
  CHECK_FALSE(Facts("FROM ghcr.io/huggingface/text-generation-inference:2.4.1\n")["cuda"].contains("runtimes"));
  json rocm = Facts("FROM ghcr.io/huggingface/text-generation-inference:2.4.1-rocm\n");
  CHECK(rocm["gpu"]["workload"] == "rocm");
  // TensorFlow's images: GPU images only where the tag says gpu.
  for (const char* ref : {"tensorflow/tensorflow:latest-gpu", "tensorflow/tensorflow:2.15.0-gpu-jupyter"}) {
    CAPTURE(ref);
    json tf = Facts(std::string("FROM ") + ref + "\n");
    CHECK(tf["image"]["base"]["kind"] == "cuda-application");
    CHECK(tf["gpu"]["workload"] == "nvidia");
  }
  for (const char* ref : {"tensorflow/tensorflow:2.15.0", "tensorflow/tensorflow"}) {
    CAPTURE(ref);
    CHECK(Facts(std::string("FROM ") + ref + "\n")["image"]["base"]["kind"] == "unknown");
  }
  // Another repository of the same owner is not the engine's image.
  CHECK(Facts("FROM vllm/other-tool:latest\n")["image"]["base"]["kind"] == "unknown");
}

// Pattern: an nvidia/cuda tag newer than the tables (a release published
// after them): the tag still names the CUDA release of its user space.
TEST_CASE("an nvidia/cuda tag the tables do not know: its CUDA release from the tag, as a lower bound") {
  json facts = Facts("FROM nvidia/cuda:13.5.0-runtime-ubuntu24.04\nCMD [\"python3\", \"app.py\"]\n");
  CHECK(facts["image"]["base"]["known"] == false);
  REQUIRE(facts["cuda"]["runtimes"].size() == 1);
  const json& runtime = facts["cuda"]["runtimes"][0];
  CHECK(runtime["version"].is_null());
  CHECK(runtime["version_min"] == "13.5");
  CHECK(runtime["version_unknown_reason"].get<std::string>().find("its tag names CUDA 13.5") != std::string::npos);
  CHECK_FALSE(facts["cuda"]["runtimes_complete"].get<bool>());
  json report = imagelint::testing::rules_fixture::Run({facts}, R"(pools:
  - name: rtx4090-r550
    gpu: NVIDIA GeForce RTX 4090
    driver: "550.163.01"
  - name: v100-r470
    gpu: Tesla V100-SXM2-32GB
    driver: "470.256.02"
  - name: a100-r535
    gpu: NVIDIA A100-SXM4-80GB
    driver: "535.247.01"
)");
  using imagelint::testing::rules_fixture::Verdict;
  // A GeForce fails with or without a compat library (35 or 804); R470 is
  // no longer in the newest forward-compat matrix the tables know, so no
  // later package serves it; R535 is, so a compat library might.
  CHECK(Verdict(report, 0, "rtx4090-r550")["predicted_error"]["code"] == 35);
  CHECK(Verdict(report, 0, "v100-r470")["predicted_error"]["code"] == 35);
  CHECK(Verdict(report, 0, "a100-r535")["status"] == "undecided");
}

// Pattern: the package managers' own images as bases (uv's python-derived
// tags, pixi's default tags), and pixi's nvidia/cuda-based tags.
TEST_CASE("uv's and pixi's images are no-cuda bases, except pixi's cuda-<version> tags") {
  for (const char* ref : {"ghcr.io/astral-sh/uv:python3.12-bookworm-slim", "astral/uv:0.8-python3.12-bookworm-slim",
                          "ghcr.io/astral-sh/uv:debian", "ghcr.io/prefix-dev/pixi:0.40.0", "ghcr.io/prefix-dev/pixi:latest",
                          "ghcr.io/prefix-dev/pixi:0.40.0-jammy"}) {
    CAPTURE(ref);
    json facts = Facts(std::string("FROM ") + ref + "\nRUN pip install torch==2.5.1 --index-url https://download.pytorch.org/whl/cu124\n");
    CHECK(facts["image"]["base"]["kind"] == "no-cuda");
    CHECK(facts["frameworks_complete"] == true);
  }
  for (const char* ref : {"ghcr.io/prefix-dev/pixi:0.40.0-cuda-12.9.1-jammy", "ghcr.io/prefix-dev/pixi:noble-cuda-13.0.0"}) {
    CAPTURE(ref);
    json facts = Facts(std::string("FROM ") + ref + "\n");
    CHECK(facts["image"]["base"]["kind"] == "unknown");
    CHECK(HasUnknown(facts, "base-image"));
  }
}

TEST_CASE("NGC tags get their CUDA release from ngc_releases; the rest of the image stays unknown") {
  json sglang = Facts("FROM nvcr.io/nvidia/sglang:25.10-py3\n");
  const json& base = sglang["image"]["base"];
  CHECK(base["kind"] == "ngc");
  CHECK(base["known"] == "partial");
  CHECK(base["cuda_version"] == "13.0.2");
  CHECK(sglang["cuda"]["runtimes"][0]["version"] == "13.0.2");
  CHECK_FALSE(sglang["cuda"]["runtimes"][0].contains("unconfirmed"));  // read from the SGLang 25.10 notes
  CHECK(HasUnknown(sglang, "cuda.drivers"));
  CHECK(HasUnknown(sglang, "cuda.requirements"));
  CHECK(HasUnknown(sglang, "base-image"));  // its environment is not recorded

  // Another framework of the same release: the CUDA release, marked unconfirmed.
  json pytorch = Facts("FROM nvcr.io/nvidia/pytorch:25.10-py3\n");
  CHECK(pytorch["image"]["base"]["cuda_version"] == "13.0.2");
  CHECK(pytorch["cuda"]["runtimes"][0]["unconfirmed"].get<std::string>().find("sglang") != std::string::npos);
  CHECK(pytorch["image"]["base"]["tag_resolution"].get<std::string>().find("UNCONFIRMED") != std::string::npos);
  json triton = Facts("FROM nvcr.io/nvidia/tritonserver:24.01-py3\n");
  CHECK(triton["cuda"]["runtimes"][0]["version"] == "12.3.2");

  // A release read from another framework's notes: its CUDA, marked UNCONFIRMED.
  json pytorch2307 = Facts("FROM nvcr.io/nvidia/pytorch:23.07-py3\n");
  CHECK(pytorch2307["cuda"]["runtimes"][0]["version"] == "12.1.1");
  CHECK(pytorch2307["cuda"]["runtimes"][0].contains("unconfirmed"));

  // A release missing between two recorded ones of the same CUDA major
  // (23.04: 12.1.0, 23.07: 12.1.1): that major, the minor release unknown.
  json between = Facts("FROM nvcr.io/nvidia/pytorch:23.05-py3\n");
  CHECK(between["image"]["base"]["known"] == "partial");
  CHECK(between["cuda"]["runtimes"][0]["version"] == "12");
  CHECK(between["cuda"]["runtimes"][0]["version_precision"] == "major");
  CHECK(between["image"]["base"]["tag_resolution"].get<std::string>().find("between 23.04 (CUDA 12.1.0) and 23.07") !=
        std::string::npos);
  CHECK(HasUnknown(between, "cuda.drivers"));
  // 23.04's row was recalled, not re-read: the major is as unconfirmed as that row.
  CHECK(between["cuda"]["runtimes"][0]["unconfirmed"].get<std::string>().find("NGC release 23.04") != std::string::npos);

  // Between two majors (25.06: 12.9.1, 25.08: 13.0.0) or after the newest
  // recorded release: unknown, but no older than the nearest earlier release
  // (releases never move back to an older CUDA), which decides a driver
  // below 12.9's floor.
  for (const char* ref : {"nvcr.io/nvidia/tritonserver:25.07-py3", "nvcr.io/nvidia/pytorch:27.01-py3"}) {
    CAPTURE(ref);
    json bounded = Facts(std::string("FROM ") + ref + "\n");
    CHECK(bounded["image"]["base"]["known"] == false);
    REQUIRE(bounded["cuda"]["runtimes"].size() == 1);
    CHECK(bounded["cuda"]["runtimes"][0].value("version", json()).is_null());
    CHECK(bounded["cuda"]["runtimes"][0]["version_unknown_reason"].get<std::string>().find("never move to an older CUDA") !=
          std::string::npos);
  }
  CHECK(Facts("FROM nvcr.io/nvidia/tritonserver:25.07-py3\n")["cuda"]["runtimes"][0]["version_min"] == "12.9.1");
  // Before the first recorded release, or a tag that names no release: unknown.
  for (const char* ref : {"nvcr.io/nvidia/pytorch:17.01-py3", "nvcr.io/nvidia/pytorch:latest",
                          "nvcr.io/nvidia/pytorch:2510-py3", "nvcr.io/nvidia/pytorch:25.1"}) {
    CAPTURE(ref);
    json unknown = Facts(std::string("FROM ") + ref + "\n");
    CHECK(unknown["image"]["base"]["known"] == false);
    CHECK_FALSE(unknown["cuda"].contains("runtimes"));
    CHECK(HasUnknown(unknown, "base-image"));
  }
}
