// pip and uv pip: frameworks, their CUDA variant, NVIDIA wheels; the
// requirement and index URL scanners.
#include <doctest/doctest.h>

#include "dockerfile/pip.h"
#include "dockerfile_fixture.h"

using nlohmann::json;
using namespace imagelint::dockerfile;
using namespace imagelint::testing::dockerfile_fixture;

TEST_CASE("a PyTorch wheel without kernels for the fleet's GPU: torch 1.12.1 from PyPI on a 10.2 base") {
  json facts = Facts(
      "FROM nvidia/cuda:10.2-base-ubuntu18.04\n"
      "RUN apt-get update && apt-get install -y python3-pip\n"
      "RUN python3 -m pip install torch==1.12.1\n");
  CHECK(facts["image"]["base"]["cuda_version"] == "10.2.89");  // minor-only tag: newest known
  CHECK(facts["image"]["base"].contains("tag_resolution"));
  const json* torch = Find(facts["frameworks"], "name", "torch");
  REQUIRE(torch != nullptr);
  CHECK((*torch)["cuda"] == "10.2");
  CHECK((*torch)["variant"] == "cu102");
  CHECK((*torch)["cuda_source"] == "PyPI default of torch 1.12");
  CHECK((*torch)["dockerfile_line"] == 3);
  CHECK_FALSE(torch->contains("unconfirmed"));  // 1.12 -> cu102 is a field report
  {
    CHECK((*torch)["sass"] == json::array({"sm_37", "sm_50", "sm_60", "sm_70"}));
    CHECK((*torch)["ptx"].empty());
  }
  // The 2.0 default is from memory and says so.
  json later = Facts("FROM nvidia/cuda:11.8.0-runtime-ubuntu22.04\nRUN pip install torch==2.0.1\n");
  CHECK(Find(later["frameworks"], "name", "torch")->contains("unconfirmed"));
}

TEST_CASE("requirement scanner: names, extras, pins, markers, wheels; URLs and paths are not read") {
  auto parse = [](const std::string& text, bool exact = true) { return ParseRequirement(ShellWord{text, exact, false}); };
  auto torch = parse("Torch_Vision == 0.16.0 ; python_version > '3.8'");
  REQUIRE(torch.has_value());
  CHECK(torch->name == "torch-vision");
  CHECK(torch->version == "0.16.0");
  auto jax = parse("jax [CUDA12_pip, cuda12] ==0.4.23");
  REQUIRE(jax.has_value());
  CHECK(jax->extras == std::vector<std::string>{"cuda12-pip", "cuda12"});
  CHECK(jax->version == "0.4.23");
  CHECK(parse("torch===2.2.0")->version == "2.2.0");
  CHECK(parse("pytorch=2.1")->version == "2.1");  // conda style
  CHECK(parse("torch>=2.0")->version.empty());
  CHECK(parse("torch==2.1.*,<3")->version.empty());
  CHECK(parse("jax[cuda")->extras.empty());  // an unclosed bracket is no extras
  CHECK(parse("torch\n==1.0")->version == "1.0");
  CHECK_FALSE(parse("torch==1.0\n; x").has_value());
  auto wheel = parse("https://download.pytorch.org/whl/cu118/torch-2.1.0%2Bcu118-cp310-cp310-linux_x86_64.whl");
  REQUIRE(wheel.has_value());
  CHECK(wheel->name == "torch");
  CHECK(wheel->version == "2.1.0+cu118");
  for (const char* unread : {"git+https://github.com/x/y", "./local", "/abs/path", "torch@https://x/y.whl", "-e", "[x]"})
    CHECK_FALSE(parse(unread).has_value());
  CHECK_FALSE(parse("torch==$V", false)->exact);

  // Bounded: a 200 KB name or version is not a requirement any table knows.
  CHECK_FALSE(parse(std::string(200 * 1024, 'a')).has_value());
  CHECK_FALSE(parse("torch==" + std::string(200 * 1024, '1')).has_value());
}

TEST_CASE("index URLs select a variant only on the hosts packages.yaml names") {
  std::vector<std::string> hosts = {"download.pytorch.org"};
  std::vector<std::string> paths = {"/whl/nightly/", "/whl/test/", "/whl/"};
  CHECK(IndexVariant("https://download.pytorch.org/whl/cu121", hosts, paths) == "cu121");
  CHECK(IndexVariant("https://download.pytorch.org/whl/cpu/", hosts, paths) == "cpu");
  CHECK(IndexVariant("https://download.pytorch.org/whl/nightly/cu126", hosts, paths) == "cu126");
  CHECK(IndexVariant("https://download.pytorch.org/whl/test/rocm6.2", hosts, paths) == "rocm6.2");
  CHECK(IndexVariant("https://download.pytorch.org/whl/nightly/", hosts, paths).empty());
  CHECK(IndexVariant("https://download.pytorch.org/whl/x/whl/cu118", hosts, paths) == "cu118");
  CHECK(IndexVariant("https://mirror.example.com/whl/cu121", hosts, paths).empty());
  CHECK(IndexVariant("https://download.pytorch.org/whl/cu" + std::string(100 * 1024, '1'), hosts, paths).size() <= 32);
  CHECK(CudaFromVariant("cu113") == "11.3");
  CHECK(CudaFromVariant("cu92") == "9.2");
  CHECK(CudaFromVariant("cu130") == "13.0");
  CHECK(CudaFromVariant("cpu").empty());
  CHECK(CudaFromVariant("cu1").empty());
}

TEST_CASE("frameworks and their CUDA: companions, jax, cupy, tensorflow, onnxruntime, NVIDIA wheels") {
  json facts = Facts(
      "FROM nvidia/cuda:12.1.1-runtime-ubuntu22.04\n"
      "RUN pip install torchvision==0.13.1 jaxlib==0.4.7+cuda11.cudnn86 'cupy-cuda117==12.0' onnxruntime-gpu==1.17\n"
      "RUN pip install tensorflow-gpu==2.11.0 nvidia-cuda-runtime-cu11==11.8.89 nvidia-foo-cu12\n");
  const json* vision = Find(facts["frameworks"], "name", "torchvision");
  REQUIRE(vision != nullptr);
  CHECK((*vision)["cuda"] == "10.2");  // 0.13 pairs with torch 1.12, whose PyPI wheel is cu102
  CHECK((*vision)["cuda_source"] == "PyPI default of torch 1.12");
  CHECK(vision->contains("unconfirmed"));  // the pairing is not confirmed
  CHECK(Find(facts["frameworks"], "name", "jax")->at("cuda") == "11");
  CHECK(Find(facts["frameworks"], "name", "cupy")->at("cuda") == "11.7");
  CHECK(Find(facts["frameworks"], "name", "onnxruntime")->at("cuda_unknown") == true);
  CHECK(Find(facts["frameworks"], "name", "tensorflow")->at("cuda") == "11.2");
  const json* wheel_runtime = Find(facts["cuda"]["runtimes"], "source", "pip");
  REQUIRE(wheel_runtime != nullptr);
  CHECK((*wheel_runtime)["path"] == "<site-packages>/nvidia/cuda_runtime/lib/libcudart.so.11.0");
  CHECK((*wheel_runtime)["soname"] == "libcudart.so.11.0");
  const json* generic = Find(facts["cuda"]["packages"], "name", "nvidia-foo-cu12");
  REQUIRE(generic != nullptr);
  CHECK((*generic)["cuda_major"] == "12");
  CHECK_FALSE(generic->contains("component"));

  // CPU jax makes no row; an unknown tensorflow is unknown, not guessed.
  json cpu = Facts("FROM nvidia/cuda:12.1.1-runtime-ubuntu22.04\nRUN pip install jax==0.4.30 tensorflow==2.99\n");
  CHECK(Find(cpu["frameworks"], "name", "jax") == nullptr);
  CHECK(Find(cpu["frameworks"], "name", "tensorflow")->at("cuda").is_null());
  CHECK(HasUnknown(cpu, "frameworks"));
}

// tensorflow[and-cuda] and jax[cuda12]/[cuda13] install NVIDIA's CUDA runtime
// wheel, so a base without CUDA still holds a runtime of that release; the
// plain package (and jax's cudaNN-local extras) use the system's CUDA instead.
TEST_CASE("the CUDA runtime an extra brings: tensorflow[and-cuda], jax[cuda12], jax[cuda13]; not without the extra") {
  const auto runtime_of = [](const json& facts, const std::string& package) -> const json* {
    for (const json& runtime : facts["cuda"]["runtimes"])
      if (runtime.value("source", "") == "framework" && runtime.value("version_source", "").rfind(package, 0) == 0)
        return &runtime;
    return nullptr;
  };
  json tf = Facts("FROM python:3.12-slim\nRUN pip install 'tensorflow[and-cuda]==2.20.0'\n");
  const json* tf_runtime = runtime_of(tf, "tensorflow");
  REQUIRE(tf_runtime != nullptr);
  CHECK((*tf_runtime)["version"] == "12.5");  // the CUDA 2.20 was built with
  CHECK((*tf_runtime)["path"] == "<site-packages>/nvidia/cuda_runtime/lib/libcudart.so.12");
  CHECK(runtime_of(Facts("FROM python:3.12-slim\nRUN pip install tensorflow==2.20.0\n"), "tensorflow") == nullptr);
  // PEP 685: the extra's spelling does not matter.
  CHECK(runtime_of(Facts("FROM python:3.12-slim\nRUN pip install 'tensorflow[And_CUDA]==2.18.1'\n"), "tensorflow") !=
        nullptr);

  json jax12 = Facts("FROM python:3.12-slim\nRUN pip install -U 'jax[cuda12]'\n");
  const json* jax_runtime = runtime_of(jax12, "jax");
  REQUIRE(jax_runtime != nullptr);
  CHECK((*jax_runtime)["version"] == "12");  // >=12.1.105: pip takes the newest 12.x
  CHECK((*jax_runtime)["version_precision"] == "major");
  json jax13 = Facts("FROM python:3.12-slim\nRUN pip install 'jax[cuda13]==0.8.0'\n");
  REQUIRE(runtime_of(jax13, "jax") != nullptr);
  CHECK((*runtime_of(jax13, "jax"))["path"] == "<site-packages>/nvidia/cu13/lib/libcudart.so.13");
  CHECK(runtime_of(Facts("FROM python:3.12-slim\nRUN pip install 'jax[cuda12-local]'\n"), "jax") == nullptr);

  // torchaudio 2.10 was the last release in lockstep with torch.
  json audio = Facts("FROM python:3.12-slim\nRUN pip install torchaudio==2.10.0\n");
  const json* torchaudio = Find(audio["frameworks"], "name", "torchaudio");
  REQUIRE(torchaudio != nullptr);
  CHECK_FALSE((*torchaudio)["cuda"].is_null());
}

// paddlepaddle-gpu names its CUDA build by Paddle's per-CUDA index (3.x,
// whose wheels bring NVIDIA's CUDA wheels) or by a .postXYZ version (2.x,
// built against a system CUDA); from PyPI its CUDA is unknown.
TEST_CASE("paddlepaddle-gpu: the CUDA of Paddle's index or of a .post build; unknown from PyPI") {
  json indexed = Facts("FROM python:3.12-slim\n"
                       "RUN pip install paddlepaddle-gpu==3.2.1 -i https://www.paddlepaddle.org.cn/packages/stable/cu129/\n");
  const json* paddle = Find(indexed["frameworks"], "name", "paddle");
  REQUIRE(paddle != nullptr);
  CHECK((*paddle)["cuda"] == "12.9");
  CHECK((*paddle)["variant"] == "cu129");
  CHECK((*paddle)["version"] == "3.2.1");
  const json* runtime = Find(indexed["cuda"]["runtimes"], "source", "framework");
  REQUIRE(runtime != nullptr);
  CHECK((*runtime)["version"] == "12.9");
  CHECK((*runtime)["path"] == "<site-packages>/nvidia/cuda_runtime/lib/libcudart.so.12");

  json nightly = Facts("FROM python:3.12-slim\nRUN python -m pip install --pre paddlepaddle-gpu "
                       "--extra-index-url https://www.paddlepaddle.org.cn/packages/nightly/cu126/\n");
  REQUIRE(Find(nightly["frameworks"], "name", "paddle") != nullptr);
  CHECK(Find(nightly["frameworks"], "name", "paddle")->at("cuda") == "12.6");

  json post = Facts("FROM nvidia/cuda:11.7.1-cudnn8-runtime-ubuntu20.04\n"
                    "RUN pip install paddlepaddle-gpu==2.4.2.post117 -f https://www.paddlepaddle.org.cn/whl/linux/mkl/avx/stable.html\n");
  paddle = Find(post["frameworks"], "name", "paddle");
  REQUIRE(paddle != nullptr);
  CHECK((*paddle)["cuda"] == "11.7");
  CHECK(Find(post["cuda"]["runtimes"], "source", "framework") == nullptr);  // the system's CUDA

  json pypi = Facts("FROM python:3.12-slim\nRUN pip install paddlepaddle-gpu==2.6.1\n");
  paddle = Find(pypi["frameworks"], "name", "paddle");
  REQUIRE(paddle != nullptr);
  CHECK((*paddle)["cuda"].is_null());
  CHECK((*paddle)["cuda_unknown"] == true);
  // A torch-style /whl/ path on Paddle's host names no variant; the CPU index no GPU build.
  CHECK(Find(Facts("FROM python:3.12-slim\nRUN pip install paddlepaddle-gpu==3.0.0 -i "
                   "https://www.paddlepaddle.org.cn/packages/stable/cpu/\n")["frameworks"], "name", "paddle") == nullptr);
}

// A public PyPI mirror serves PyPI's files: torch==2.1.2 from it is PyPI's
// default CUDA 12.1 wheel. Any other index stays an index of unknown files.
TEST_CASE("-i a PyPI mirror installs PyPI's wheel; a private index stays unknown") {
  for (const char* index : {"https://pypi.tuna.tsinghua.edu.cn/simple", "http://mirrors.aliyun.com/pypi/simple/",
                            "https://PyPI.org/simple/"}) {
    CAPTURE(index);
    json facts = Facts(std::string("FROM ubuntu:22.04\nRUN apt-get update && apt-get install -y python3-pip\n"
                                   "RUN pip3 install -i ") + index + " torch==2.1.2\n");
    const json* torch = Find(facts["frameworks"], "name", "torch");
    REQUIRE(torch != nullptr);
    CHECK(torch->at("cuda") == "12.1");
  }
  json private_index = Facts("FROM ubuntu:22.04\nRUN apt-get update && apt-get install -y python3-pip\n"
                             "RUN pip3 install -i https://pypi.corp.example/simple torch==2.1.2\n");
  const json* torch = Find(private_index["frameworks"], "name", "torch");
  REQUIRE(torch != nullptr);
  CHECK_FALSE(torch->contains("sass"));
  CHECK(torch->value("cuda", json()).is_null());
}

TEST_CASE("pip and uv choose between --index-url and --extra-index-url differently") {
  const std::string indexes =
      "--index-url https://download.pytorch.org/whl/cu121 --extra-index-url https://download.pytorch.org/whl/cu118";
  json pip = Facts("FROM nvidia/cuda:12.1.1-runtime-ubuntu22.04\nRUN pip install torch==2.1.0 " + indexes + "\n");
  CHECK(Find(pip["frameworks"], "name", "torch")->at("variant") == "cu121");
  json uv = Facts("FROM nvidia/cuda:12.1.1-runtime-ubuntu22.04\nRUN uv pip install torch==2.1.0 " + indexes + "\n");
  CHECK(Find(uv["frameworks"], "name", "torch")->at("variant") == "cu118");
  CHECK(Find(uv["frameworks"], "name", "torch")->at("installer") == "uv pip");
  // Requirements pip reads from elsewhere leave the list partial.
  json partial = Facts("FROM nvidia/cuda:12.1.1-runtime-ubuntu22.04\nRUN pip install -rreqs.txt -e . git+https://x/y\n");
  CHECK(partial["frameworks_complete"] == false);
}

TEST_CASE("a 200 KB package name in RUN pip install: read, unknown, no stack overflow") {
  std::string name(200 * 1024, 'a');
  for (const std::string& spec : {name, "torch==" + std::string(200 * 1024, '1'), name + "-cu12"}) {
    auto analysis = Analyze("FROM nvidia/cuda:12.4.1-base-ubuntu22.04\nRUN pip install " + spec + "\n");
    REQUIRE(analysis.ok());
    CHECK(analysis->facts["frameworks_complete"] == false);  // not read: the list may be partial
  }
  auto extras = Analyze("FROM nvidia/cuda:12.4.1-base-ubuntu22.04\nRUN pip install 'x[" + name + "]==1'\n");
  REQUIRE(extras.ok());
  CHECK(extras->facts["frameworks_complete"] == true);  // a package no table knows, with long extras
  json facts = Facts("FROM nvidia/cuda:12.4.1-base-ubuntu22.04\nRUN pip install " + name + "\n");
  CHECK(facts["frameworks_complete"] == false);
  CHECK(facts["dockerfile"]["unknown"][0]["reason"].get<std::string>().size() < 400);
}

// pip's "Requirement already satisfied": an unpinned or range requirement of a
// framework the environment already has keeps the installed release, unless
// the command upgrades or reinstalls, the range excludes it, or the install
// goes to another environment (uv's default .venv).
TEST_CASE("an installed torch that satisfies an unpinned requirement is kept, as pip keeps it") {
  auto torch_of = [](const std::string& run) {
    json facts = Facts("FROM pytorch/pytorch:2.1.0-cuda12.1-cudnn8-runtime\n" + run);
    const json* torch = Find(facts["frameworks"], "name", "torch");
    REQUIRE(torch != nullptr);
    return *torch;
  };
  for (const char* kept : {"RUN pip install torch\n", "RUN pip install 'torch>=2.0' numpy\n",
                           "RUN pip install torch --index-url https://download.pytorch.org/whl/cu121\n",
                           "RUN python -m pip install --user torch\n"}) {
    CAPTURE(kept);
    json torch = torch_of(kept);
    CHECK(torch["version"] == "2.1.0");
    CHECK(torch["dockerfile_line"] == 1);  // the base image's
  }
  for (const char* replaced : {"RUN pip install -U torch\n", "RUN pip install --force-reinstall torch\n",
                               "RUN pip install 'torch>=2.4'\n", "RUN uv pip install torch\n"}) {
    CAPTURE(replaced);
    json torch = torch_of(replaced);
    CHECK(torch["dockerfile_line"] == 2);
    CHECK(torch["version"] != "2.1.0");
  }
  json noted = Facts("FROM pytorch/pytorch:2.1.0-cuda12.1-cudnn8-runtime\nRUN pip install torch\n");
  bool said = false;
  for (const json& note : noted["dockerfile"]["notes"])
    said = said || note["note"].get<std::string>().find("already satisfied by torch 2.1.0") != std::string::npos;
  CHECK(said);
}

// CUDA packages whose build the tables do not know (vllm, xformers,
// flash-attn, sglang) are frameworks of unknown CUDA: the image has CUDA user
// space, whatever it is, and is not passed as one without.
// Packages no row names, whose names say they are CUDA builds (packages.yaml's
// catch-all rows), are frameworks of unknown CUDA under their own names; a
// name that only looks alike is not.
TEST_CASE("a package named as a CUDA build is a framework of unknown CUDA under its own name") {
  for (const char* package : {"faiss-gpu", "cudf-cu12==25.10.0", "spconv-cu118", "nvidia-dali-cuda120", "mxnet-cu112",
                              "faiss-gpu-cu12"}) {
    CAPTURE(package);
    json facts = Facts(std::string("FROM python:3.12-slim\nRUN pip install ") + package + "\n");
    REQUIRE(facts["frameworks"].size() == 1);
    const std::string name = std::string(package).substr(0, std::string(package).find("=="));
    CHECK(facts["frameworks"][0]["name"] == name);
    CHECK(facts["frameworks"][0]["cuda_unknown"] == true);
  }
  // Named rows win over the catch-all: onnxruntime-gpu and tensorflow-gpu keep their frameworks.
  json named = Facts("FROM python:3.12-slim\nRUN pip install onnxruntime-gpu==1.17.0 tensorflow-gpu==2.10.0\n");
  CHECK(Find(named["frameworks"], "name", "onnxruntime") != nullptr);
  CHECK(Find(named["frameworks"], "name", "tensorflow") != nullptr);
  // Not CUDA build names: a word inside the name, a CPU build.
  for (const char* package : {"gpustat", "nvitop", "gpu-utils", "faiss-cpu", "pycuda-stubs"}) {
    CAPTURE(package);
    CHECK(Facts(std::string("FROM python:3.12-slim\nRUN pip install ") + package + "\n")["frameworks"].empty());
  }
  // uninstalled by its own name
  CHECK(Facts("FROM python:3.12-slim\nRUN pip install faiss-gpu && pip uninstall -y faiss-gpu\n")["frameworks"].empty());
}

TEST_CASE("vllm and its kind are frameworks of unknown CUDA, not nothing") {
  for (const char* run : {"RUN uv pip install --system vllm --torch-backend=auto\n", "RUN pip install xformers\n",
                          "RUN pip install flash-attn --no-build-isolation\n", "RUN pip install 'sglang[all]'\n",
                          "RUN pip install tensorrt==10.3.0\n", "RUN pip install ctranslate2==4.4.0 faster-whisper\n"}) {
    CAPTURE(run);
    json facts = Facts(std::string("FROM python:3.12-slim\n") + run);
    REQUIRE(facts["frameworks"].is_array());
    REQUIRE(facts["frameworks"].size() >= 1);
    CHECK(facts["frameworks"][0]["cuda_unknown"] == true);
  }
}

// vLLM and xFormers releases require one torch release exactly (torch_pins):
// pip installs it with them, replacing an installed torch of another release,
// and its CUDA and arch list are torch's.
TEST_CASE("a package that pins torch brings that torch: vllm==0.7.2 is torch 2.5.1, xformers 0.0.28.post3 too") {
  json vllm = Facts("FROM python:3.11-slim\nRUN pip install vllm==0.7.2\n");
  const json* torch = Find(vllm["frameworks"], "name", "torch");
  REQUIRE(torch != nullptr);
  CHECK((*torch)["version"] == "2.5.1");
  CHECK((*torch)["variant"] == "cu124");  // PyPI's default build of torch 2.5
  CHECK((*torch)["cuda_source"].get<std::string>().find("vllm 0.7.2 requires torch==2.5.1") != std::string::npos);
  CHECK(Find(vllm["frameworks"], "name", "vllm")->at("cuda_unknown") == true);  // its own kernels: not in the tables

  // PEP 440 spellings of a post-release are one release.
  json xformers = Facts("FROM python:3.11-slim\nRUN pip install xformers==0.0.28-post3\n");
  REQUIRE(Find(xformers["frameworks"], "name", "torch") != nullptr);
  CHECK(Find(xformers["frameworks"], "name", "torch")->at("version") == "2.5.1");

  // An installed torch of another release is replaced; the same release is kept.
  json replaced = Facts("FROM python:3.11-slim\nRUN pip install torch==2.1.0\nRUN pip install vllm==0.9.1\n");
  CHECK(Find(replaced["frameworks"], "name", "torch")->at("version") == "2.7.0");
  json kept = Facts("FROM python:3.11-slim\nRUN pip install torch==2.5.1\nRUN pip install vllm==0.7.2\n");
  CHECK(Find(kept["frameworks"], "name", "torch")->at("dockerfile_line") == 2);

  // Unpinned: the newest release the tables know, and the torch it pins, said as an assumption.
  json unpinned = Facts("FROM python:3.12-slim\nRUN pip install vllm\n");
  const json* assumed = Find(unpinned["frameworks"], "name", "torch");
  REQUIRE(assumed != nullptr);
  CHECK((*assumed)["version"].is_string());
  CHECK((*assumed)["version_assumed"].get<std::string>().find("vllm is not pinned: assumed vllm") != std::string::npos);

  // A release the table does not record pins nothing: torch stays unknown.
  json unknown = Facts("FROM python:3.11-slim\nRUN pip install vllm==0.2.0\n");
  CHECK(Find(unknown["frameworks"], "name", "torch") == nullptr);
}

TEST_CASE("a package that requires torch with a lower bound only brings the newest torch, unless one is installed") {
  // accelerate (torch>=1.10.0) on a Python without torch: pip installs the
  // newest torch with it; the facts say so, on the install's line.
  json fresh = Facts("FROM python:3.11-slim\nRUN pip install accelerate==1.5.2 transformers\n");
  const json* torch = Find(fresh["frameworks"], "name", "torch");
  REQUIRE(torch != nullptr);
  CHECK((*torch)["dockerfile_line"] == 2);
  CHECK((*torch)["version"].is_string());
  CHECK((*torch)["version_assumed"].get<std::string>().find(
            "accelerate requires torch with a lower bound only: pip installs the newest torch with it") !=
        std::string::npos);
  CHECK(fresh["gpu"]["workload"] == "nvidia");  // a GPU image, not a plain service

  // An installed torch satisfies it: pip keeps it.
  json kept = Facts("FROM python:3.11-slim\nRUN pip install torch==2.5.1\nRUN pip install peft sentence-transformers\n");
  CHECK(Find(kept["frameworks"], "name", "torch")->at("version") == "2.5.1");
  CHECK(Find(kept["frameworks"], "name", "torch")->at("dockerfile_line") == 2);

  // A companion's pin says more than a lower bound: torchvision 0.20 is torch 2.5.
  json paired = Facts("FROM python:3.11-slim\nRUN pip install timm torchvision==0.20.1\n");
  CHECK(Find(paired["frameworks"], "name", "torch")->at("version").get<std::string>().rfind("2.5", 0) == 0);

  // Packages that do not require torch bring none.
  json plain = Facts("FROM python:3.11-slim\nRUN pip install fastapi transformers datasets\n");
  CHECK(Find(plain["frameworks"], "name", "torch") == nullptr);
}

// pip leaves the CUDA runtime wheel of a replaced torch on disk (a -cu13
// wheel when the new torch needs -cu12), and nothing loads it: the runtime that
// counts is the new torch's, so a driver older than the old one's CUDA is no
// failure.
TEST_CASE("a replaced torch takes its CUDA runtime with it") {
  json facts = Facts("FROM python:3.12-slim\nRUN pip install torch\nRUN pip install torch==2.5.1\n");
  REQUIRE(facts["cuda"]["runtimes"].size() == 1);
  CHECK(facts["cuda"]["runtimes"][0]["version"] == "12.4");
  json base = Facts("FROM pytorch/pytorch:2.1.0-cuda12.1-cudnn8-runtime\nRUN pip install torch==2.7.0\n");
  REQUIRE(base["cuda"]["runtimes"].size() == 1);
  CHECK(base["cuda"]["runtimes"][0]["version"] == "12.6");
}

// uv --torch-backend (or UV_TORCH_BACKEND) takes PyTorch packages from that
// backend's index; `auto` picks it from the build machine's driver.
TEST_CASE("uv --torch-backend: a variant selects the index, auto leaves the CUDA unknown") {
  json cu126 = Facts("FROM python:3.12-slim\nRUN uv pip install --system torch==2.7.0 --torch-backend cu126\n");
  CHECK(Find(cu126["frameworks"], "name", "torch")->at("variant") == "cu126");
  json env = Facts("FROM python:3.12-slim\nENV UV_TORCH_BACKEND=cu118\nRUN uv pip install --system torch==2.7.0\n");
  CHECK(Find(env["frameworks"], "name", "torch")->at("variant") == "cu118");
  json autodetect = Facts("FROM python:3.12-slim\nRUN uv pip install --system torch==2.7.0 --torch-backend=auto\n");
  CHECK(Find(autodetect["frameworks"], "name", "torch")->at("cuda_unknown") == true);
  CHECK(HasUnknown(autodetect, "frameworks"));
  // pip has no such option: the word is not read as one.
  json pip = Facts("FROM python:3.12-slim\nRUN pip install torch==2.7.0\n");
  CHECK(Find(pip["frameworks"], "name", "torch")->at("variant") == "cu126");
}

// A GPU build whose kernels the tables do not give (xFormers' own, a conda
// torch of unknown variant, TensorFlow's) is GPU code nobody listed: on a base
// whose code is known (nvidia/cuda) the binaries list is not complete, so the
// kernel question stays open instead of "no GPU code, nothing to fail".
TEST_CASE("frameworks of unknown GPU code leave the binaries list incomplete") {
  for (const char* run : {"RUN conda install -y pytorch -c pytorch\n", "RUN pip install xformers==0.0.2\n",
                          "RUN pip install tensorflow==2.11.0\n"}) {
    CAPTURE(run);
    json facts = Facts(std::string("FROM nvidia/cuda:11.3.1-cudnn8-devel-ubuntu20.04\n") + run);
    CHECK(facts["binaries_complete"] == false);
  }
  json cpu = Facts("FROM nvidia/cuda:11.3.1-cudnn8-devel-ubuntu20.04\nRUN pip install torch==2.1.0+cpu\n");
  CHECK(cpu["binaries_complete"] == true);
  json known = Facts("FROM nvidia/cuda:11.3.1-cudnn8-devel-ubuntu20.04\nRUN pip install torch==2.1.0\n");
  CHECK(known["binaries_complete"] == true);  // torch's kernels: its arch list
}

// An install the reader cannot follow (a requirements file outside the
// context, an unread RUN) may replace a framework installed before it: the
// row stays, marked replaceable, and what a verdict would rest on (its GPU
// code, its CUDA runtime) is unknown. Rows from that line on are not touched.
TEST_CASE("a later install nobody read makes earlier frameworks replaceable, their GPU code and runtime unknown") {
  json facts = Facts(
      "FROM nvidia/cuda:12.1.1-runtime-ubuntu22.04\n"
      "RUN pip install torch==2.1.0\n"
      "RUN pip install -r requirements.txt\n"
      "RUN pip install jax[cuda12]==0.4.23\n");
  const json* torch = Find(facts["frameworks"], "name", "torch");
  REQUIRE(torch != nullptr);
  CHECK((*torch)["version"] == "2.1.0");
  REQUIRE(torch->contains("replaceable"));
  CHECK((*torch)["replaceable"].get<std::string>().rfind("line 3 may replace it", 0) == 0);
  CHECK_FALSE(torch->contains("sass"));
  const json* jax = Find(facts["frameworks"], "name", "jax");
  REQUIRE(jax != nullptr);
  CHECK_FALSE(jax->contains("replaceable"));
  for (const json& runtime : facts["cuda"]["runtimes"])
    if (runtime.value("package", "") == "torch") {
      CHECK(runtime["version"].is_null());
      CHECK(runtime["version_unknown_reason"].get<std::string>().find("line 3 may replace it") != std::string::npos);
    }
  // The same install read from the context: nothing is replaceable.
  json pinned = Facts("FROM nvidia/cuda:12.1.1-runtime-ubuntu22.04\nRUN pip install torch==2.1.0\nRUN pip install numpy\n");
  CHECK_FALSE(Find(pinned["frameworks"], "name", "torch")->contains("replaceable"));
}
