// conda, mamba and micromamba: match specs, the CUDA a command selects,
// removals and environment files.
#include <doctest/doctest.h>

#include "dockerfile/conda.h"
#include "dockerfile_fixture.h"

using nlohmann::json;
using namespace imagelint::dockerfile;
using namespace imagelint::testing::dockerfile_fixture;

TEST_CASE("conda match specs") {
  CHECK(ParseCondaSpec("pytorch").name == "pytorch");
  CHECK(ParseCondaSpec("pytorch==2.0.1").version == "2.0.1");
  CHECK(ParseCondaSpec("pytorch=2.1.0=py3.10_cuda12.1").version == "2.1.0");
  CHECK(ParseCondaSpec("pytorch=2.1.0=py3.10_cuda12.1").build == "py3.10_cuda12.1");
  CHECK(ParseCondaSpec("PyTorch::PyTorch=2.1").name == "pytorch");
  CHECK(ParseCondaSpec("PyTorch::PyTorch=2.1").channel == "pytorch");
  CHECK(ParseCondaSpec("pytorch=2.1").build.empty());
  CHECK(ParseCondaSpec("pytorch>=2.0").version.empty());                     // a range pins nothing
  CHECK(ParseCondaSpec("cudatoolkit=11.3|11.4").version.empty());
  CHECK(ParseCondaSpec("x====").version.empty());
}

TEST_CASE("conda: the CUDA selector of a command applies to its frameworks") {
  json facts = Facts(
      "FROM nvidia/cuda:12.1.1-runtime-ubuntu22.04\n"
      "RUN conda install -y -c pytorch pytorch=1.12.1 torchvision cudatoolkit=11.3\n"
      "RUN mamba install -y -c conda-forge cupy cuda-version=12.1\n");
  const json* torch = Find(facts["frameworks"], "name", "torch");
  REQUIRE(torch != nullptr);
  CHECK((*torch)["cuda"] == "11.3");
  CHECK((*torch)["variant"] == "cu113");
  CHECK((*torch)["cuda_source"] == "cudatoolkit=11.3");
  CHECK((*torch)["installer"] == "conda");
  CHECK((*torch)["package"] == "pytorch");
  CHECK((*torch)["sass"].size() > 0);  // torch 1.12 cu113's arch list from pytorch.yaml
  CHECK(Find(facts["frameworks"], "name", "torchvision")->at("version").is_null());
  CHECK(Find(facts["frameworks"], "name", "cupy")->at("cuda") == "12.1");
}

TEST_CASE("conda: no selector, removals, environment files, selectors without a dot") {
  json unpinned = Facts("FROM nvidia/cuda:12.1.1-runtime-ubuntu22.04\nRUN micromamba install -n base jaxlib\n");
  CHECK(Find(unpinned["frameworks"], "name", "jax")->at("cuda_unknown") == true);
  CHECK(HasUnknown(unpinned, "frameworks"));

  json removed = Facts(
      "FROM nvidia/cuda:12.1.1-runtime-ubuntu22.04\nRUN conda install -y pytorch=2.1 pytorch-cuda=12.1\n"
      "RUN conda remove -y pytorch\n");
  CHECK(removed["frameworks"].empty());
  REQUIRE(removed["dockerfile"]["changes"].size() == 1);
  CHECK(removed["dockerfile"]["changes"][0]["fact"] == "frameworks");
  CHECK(removed["dockerfile"]["changes"][0]["dockerfile_line"] == 3);

  json env_file = Facts("FROM nvidia/cuda:12.1.1-runtime-ubuntu22.04\nRUN conda env create -f environment.yml\n");
  CHECK(env_file["frameworks_complete"] == false);
  CHECK(HasUnknown(env_file, "frameworks"));

  json whole_major = Facts("FROM nvidia/cuda:12.1.1-runtime-ubuntu22.04\nRUN conda install pytorch cudatoolkit=11\n");
  const json* torch = Find(whole_major["frameworks"], "name", "torch");
  REQUIRE(torch != nullptr);
  CHECK((*torch)["cuda"] == "11");
  CHECK_FALSE(torch->contains("variant"));
}

// The channel a framework comes from decides whether pytorch.yaml's arch
// lists hold for its build (conda_channels in packages.yaml): PyTorch's own
// channel builds as its wheels do, conda-forge's feedstock sets its own list.
TEST_CASE("conda: the framework's channel decides whether its arch list is known") {
  auto torch_of = [](const std::string& run) {
    json facts = Facts("FROM nvidia/cuda:12.1.1-runtime-ubuntu22.04\nRUN " + run + "\n");
    const json* torch = Find(facts["frameworks"], "name", "torch");
    return torch ? *torch : json(nullptr);
  };
  json from_pytorch = torch_of("conda install -y -c pytorch -c nvidia pytorch=2.1.0 pytorch-cuda=12.1");
  CHECK(from_pytorch["sass"].size() > 0);
  json nvidia_first = torch_of("conda install -y -c nvidia -c pytorch pytorch=2.1.0 pytorch-cuda=12.1");
  CHECK(nvidia_first["sass"].size() > 0);  // nvidia publishes no frameworks: pytorch decides
  json from_forge = torch_of("mamba install -y -c conda-forge pytorch=2.1.0 cuda-version=12.1");
  REQUIRE(from_forge.is_object());
  CHECK(from_forge["cuda"] == "12.1");
  CHECK_FALSE(from_forge.contains("sass"));
  json named = torch_of("conda install -y -c pytorch conda-forge::pytorch=2.1.0 cuda-version=12.1");
  CHECK_FALSE(named.contains("sass"));
  json unknown = torch_of("conda install -y -c my-private-channel pytorch=2.1.0 cuda-version=12.1");
  CHECK_FALSE(unknown.contains("sass"));
  // No channel on the command line: the configured ones (.condarc) are not
  // read, and the wheels' lists are kept as before.
  CHECK(torch_of("conda install -y pytorch=2.1.0 pytorch-cuda=12.1")["sass"].size() > 0);
}

TEST_CASE("conda: a CPU build string installs no CUDA framework") {
  json cpu = Facts("FROM nvidia/cuda:12.1.1-runtime-ubuntu22.04\n"
                   "RUN conda install -y -c pytorch pytorch=2.1.0=py3.10_cpu_0 pytorch-cuda=12.1\n");
  CHECK(Find(cpu["frameworks"], "name", "torch") == nullptr);
  json forge_cpu = Facts("FROM nvidia/cuda:12.1.1-runtime-ubuntu22.04\n"
                         "RUN conda install -y -c conda-forge pytorch=2.5.1=cpu_mkl_py312_h0 cuda-version=12.6\n");
  CHECK(Find(forge_cpu["frameworks"], "name", "torch") == nullptr);
  json gpu = Facts("FROM nvidia/cuda:12.1.1-runtime-ubuntu22.04\n"
                   "RUN conda install -y -c conda-forge pytorch=2.5.1=cuda126_py312_h1 cuda-version=12.6\n");
  CHECK(Find(gpu["frameworks"], "name", "torch") != nullptr);
}

// conda-forge's pytorch-gpu metapackage is a torch; any other conda package
// named as a GPU build (faiss-gpu) is a framework of unknown CUDA under its
// own name, and its CUDA is the command's selector when it has one.
TEST_CASE("conda: pytorch-gpu is torch; another *-gpu package is a framework of its own name") {
  json facts = Facts("FROM continuumio/miniconda3:24.7.1-0\n"
                     "RUN conda install -y -c conda-forge pytorch-gpu faiss-gpu cuda-version=12.4\n");
  const json* torch = Find(facts["frameworks"], "name", "torch");
  REQUIRE(torch != nullptr);
  CHECK((*torch)["cuda"] == "12.4");
  const json* faiss = Find(facts["frameworks"], "name", "faiss-gpu");
  REQUIRE(faiss != nullptr);
  CHECK((*faiss)["cuda"] == "12.4");
  json unpinned = Facts("FROM continuumio/miniconda3:24.7.1-0\nRUN conda install -y -c pytorch faiss-gpu\n");
  REQUIRE(Find(unpinned["frameworks"], "name", "faiss-gpu") != nullptr);
  CHECK(Find(unpinned["frameworks"], "name", "faiss-gpu")->at("cuda_unknown") == true);
  CHECK(Facts("FROM continuumio/miniconda3:24.7.1-0\nRUN conda install -y -c pytorch faiss-gpu && "
              "conda remove -y faiss-gpu\n")["frameworks"].empty());
}
