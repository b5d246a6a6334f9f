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
  CHECK(ParseCondaSpec("pytorch=2.1.0=py3.10_cuda12.1").version == "2.1.0");  // build string dropped
  CHECK(ParseCondaSpec("PyTorch::PyTorch=2.1").name == "pytorch");           // channel dropped
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
