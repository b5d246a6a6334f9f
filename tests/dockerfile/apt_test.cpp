// apt-get / yum / dnf and dpkg: CUDA packages that install a libcuda or a
// libcudart, pins, removals.
#include <doctest/doctest.h>

#include "dockerfile_fixture.h"

using nlohmann::json;
using namespace imagelint::dockerfile;
using namespace imagelint::testing::dockerfile_fixture;

TEST_CASE("apt installs of CUDA packages: pinned, unpinned, bundled drivers") {
  json facts = Facts(
      "FROM ubuntu:22.04\n"
      "RUN apt-get install -y cuda-compat-12-4 cuda-cudart-11-8=11.8.89-1 \\\n"
      "    libcuda1=1:525.147.05-1 nvidia-driver-535=535.104.05-0ubuntu1 libnvidia-compute-470:amd64\n");
  const json* compat = Find(facts["cuda"]["drivers"], "package", "cuda-compat-12-4");
  REQUIRE(compat != nullptr);
  CHECK((*compat)["path"] == "/usr/local/cuda-12.4/compat/libcuda.so.550.54.15");  // newest 12.4 release
  CHECK((*compat)["version_source"].get<std::string>().find("unpinned") != std::string::npos);
  CHECK(compat->contains("unconfirmed"));
  bool linked_alias = false;
  for (const auto& alias : (*compat)["aliases"]) linked_alias = linked_alias || alias == "/usr/local/cuda/compat/libcuda.so.1";
  CHECK(linked_alias);  // the first CUDA package on an unknown base sets /usr/local/cuda
  const json* cudart = Find(facts["cuda"]["runtimes"], "package", "cuda-cudart-11-8");
  REQUIRE(cudart != nullptr);
  CHECK((*cudart)["path"] == "/usr/local/cuda-11.8/targets/x86_64-linux/lib/libcudart.so.11.8.89");
  CHECK((*cudart)["version_source"] == "apt pin");
  CHECK((*cudart)["soname"] == "libcudart.so.11.0");
  CHECK(Find(facts["cuda"]["drivers"], "package", "libcuda1")->at("version") == "525.147.05");  // epoch dropped
  const json* driver = Find(facts["cuda"]["drivers"], "package", "nvidia-driver-535");
  REQUIRE(driver != nullptr);
  CHECK((*driver)["version"] == "535.104.05");
  CHECK((*driver)["branch"] == "535");
  CHECK((*driver)["path"] == "/usr/lib/x86_64-linux-gnu/libcuda.so.535.104.05");
  const json* compute = Find(facts["cuda"]["drivers"], "package", "libnvidia-compute-470");
  REQUIRE(compute != nullptr);
  CHECK((*compute)["version"].is_null());
  CHECK((*compute)["path"] == "/usr/lib/x86_64-linux-gnu/libcuda.so.470.*");
  // A pin of another branch is not believed.
  json other = Facts("FROM ubuntu:22.04\nRUN apt-get install -y libnvidia-compute-535=550.54.15-1\n");
  CHECK(Find(other["cuda"]["drivers"], "package", "libnvidia-compute-535")->at("version").is_null());
}

TEST_CASE("apt-installed files are absolute paths: rm and the loader see them") {
  json facts = Facts(
      "FROM ubuntu:22.04\nRUN apt-get install -y cuda-compat-12-4\nRUN rm -rf /usr/local/cuda/compat\n");
  CHECK(Driver(facts, "compat") == nullptr);
  REQUIRE(facts["dockerfile"]["changes"].size() == 1);
  CHECK(facts["dockerfile"]["changes"][0]["by"] == "rm /usr/local/cuda/compat");
  json loader = Facts(
      "FROM nvidia/cuda:12.1.1-runtime-ubuntu22.04\nRUN apt-get install -y cuda-compat-12-4=550.54.15-1\n"
      "ENV LD_LIBRARY_PATH=/usr/local/cuda-12.4/compat\n");
  REQUIRE(loader["cuda"]["loader"]["libcuda_candidates"].size() >= 1);
  CHECK(loader["cuda"]["loader"]["libcuda_candidates"][0]["path"] == "/usr/local/cuda-12.4/compat/libcuda.so.550.54.15");
}

TEST_CASE("purge, remove, dpkg -r take package rows out; dpkg -i of NVIDIA debs is unknown") {
  for (const std::string removal : {"RUN apt-get purge -y cuda-compat-12-4\n", "RUN yum remove -y 'cuda-compat-*'\n",
                                    "RUN dpkg -P cuda-compat-12-4\n", "RUN apt-get -o X=1 autoremove -y cuda-compat-1?-4\n"}) {
    CAPTURE(removal);
    json facts = Facts("FROM nvidia/cuda:12.4.1-base-ubuntu22.04\n" + removal);
    CHECK(Driver(facts, "compat") == nullptr);
    REQUIRE(facts["dockerfile"]["changes"].size() == 1);
    CHECK(facts["dockerfile"]["changes"][0]["fact"] == "cuda.drivers");
  }
  json kept = Facts("FROM nvidia/cuda:12.4.1-base-ubuntu22.04\nRUN apt-get purge -y cuda-compat-11-8\n");
  CHECK(Driver(kept, "compat") != nullptr);
  json deb = Facts("FROM nvidia/cuda:12.4.1-base-ubuntu22.04\nRUN dpkg -i /tmp/nvidia-driver-local.deb /tmp/other.deb\n");
  CHECK(HasUnknown(deb, "cuda.drivers"));
  CHECK(deb["dockerfile"]["unknown"].size() == 1);
  json inexact = Facts("FROM nvidia/cuda:12.4.1-base-ubuntu22.04\nRUN apt-get install -y cuda-compat-12-4=$(cat v)\n");
  CHECK(HasUnknown(inexact, "cuda.drivers"));
}
