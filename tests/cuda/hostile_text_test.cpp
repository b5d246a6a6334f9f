// Hostile text files inside an image: long values the former std::regex
// matchers overflowed the stack on, wrong JSON types in package
// metadata. The facts are built, the odd values are left out, and what is
// written still validates against docs/facts-schema.json.
#include <doctest/doctest.h>

#include "cuda/cuda.h"
#include "cuda/fixtures.h"
#include "imagelint/facts.h"
#include "support/facts_schema.h"

using namespace imagelint::cuda;
using namespace imagelint::cuda::testing;
using nlohmann::json;

namespace {
Bytes HostileTextBytes(const std::string& text) { return Bytes(text.begin(), text.end()); }
}  // namespace

TEST_CASE("a 200 KB __version__ in torch/version.py, long version.txt and build_info values") {
  HostTree tree;
  std::string site = "usr/lib/python3/dist-packages/";
  std::string huge(200 * 1024, '1');
  // 230 KB: under the 256 KiB cap for version files, so the text is read.
  AddMemoryFile(tree, site + "torch/version.py",
                HostileTextBytes("__version__ = '" + huge + "'\ncuda: Optional[str] = '12.1'\ngit_version = \"" +
                     huge.substr(0, 30000) + "\"\n"));
  AddMemoryFile(tree, "usr/local/cuda-12.4/version.txt", HostileTextBytes("CUDA Version " + std::string(200 * 1024, '9')));
  AddMemoryFile(tree, site + "tensorflow/python/platform/build_info.py",
                HostileTextBytes("build_info = {'cuda_version': '" + huge + "', 'cudnn_version': '8'}\n"));
  AddMemoryFile(tree, site + "onnxruntime/capi/version_info.py", HostileTextBytes("cuda_version = '" + huge + "'\n"));
  AddMemoryFile(tree, site + "cupy_cuda" + huge.substr(0, 3000) + "-13.1.0.dist-info/METADATA",
                HostileTextBytes("Name: cupy-cuda" + huge.substr(0, 3000) + "\nVersion: 13.1.0\n\n"));
  tree.input.config = {{"config", {{"Env", {"CUDA_VERSION=" + huge}}}}};
  json facts = CudaFactsJson(tree);
  std::map<std::string, json> frameworks;
  for (const auto& row : facts["frameworks"]) frameworks[row["name"]] = row;
  REQUIRE(frameworks.count("torch"));
  CHECK(frameworks["torch"]["version"] == "");
  CHECK(frameworks["torch"]["cuda"] == "12.1");
  CHECK(frameworks["torch"]["git_version"] == "");
  REQUIRE(frameworks.count("tensorflow"));
  CHECK(frameworks["tensorflow"]["cuda"].is_null());
  CHECK(frameworks["tensorflow"]["cudnn"] == "8");
  REQUIRE(frameworks.count("cupy"));
  CHECK(frameworks["cupy"]["cuda"].is_null());
  REQUIRE(facts["cuda"]["toolkits"].size() == 1);
  CHECK(facts["cuda"]["toolkits"][0]["version"] == "");
  CHECK(facts["cuda"]["requirements"]["legacy_cuda_version"].is_null());
  CHECK(facts["cuda"]["requirements"]["legacy_cuda_version_invalid"] == true);
  CHECK(imagelint::facts::ReadFacts(facts).ok());
  imagelint::testing::CheckFactsSchema("hostile text", facts);
}

TEST_CASE("conda-meta and pip metadata with wrong JSON types are skipped, never a crash") {
  HostTree tree;
  AddMemoryFile(tree, "opt/conda/conda-meta/pytorch-2.1.0-x.json", HostileTextBytes(R"({"name": 5, "version": "2.1.0"})"), 0);
  AddMemoryFile(tree, "opt/conda/conda-meta/cudatoolkit-11.8.0-x.json",
                HostileTextBytes(R"({"name": "cudatoolkit", "version": ["11.8.0"], "build": {"b": 1}, "depends": "x"})"), 1);
  AddMemoryFile(tree, "opt/conda/conda-meta/cupy-13-x.json", HostileTextBytes(R"([1, 2, 3])"), 1);
  AddMemoryFile(tree, "opt/conda/lib/libcudart.so.11.0", MakeElf({.soname = "libcudart.so.11.0"}), 1);
  AddMemoryFile(tree, "usr/local/cuda-12.4/version.json", HostileTextBytes(R"({"cuda": {"version": 12}, "cuda_cudart": "x"})"), 1);
  AddMemoryFile(tree, "var/lib/dpkg/status", HostileTextBytes("Package: libcuda1\n\n\n"), 1);
  json facts = CudaFactsJson(tree);
  REQUIRE(facts["cuda"]["runtimes"].size() == 1);
  CHECK(facts["cuda"]["runtimes"][0]["source"] == "soname");  // the conda row has no usable version
  CHECK(facts["frameworks"].empty());
  CHECK(facts["cuda"]["toolkits"][0]["version"] == "");
  imagelint::testing::CheckFactsSchema("wrong types", facts);
}
