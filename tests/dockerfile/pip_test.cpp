// pip and uv pip: frameworks, their CUDA variant, NVIDIA wheels; the
// requirement and index URL scanners.
#include <doctest/doctest.h>

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
