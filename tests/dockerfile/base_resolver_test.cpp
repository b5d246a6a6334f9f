// Dockerfile mode with a BaseResolver (docs/dockerfile.md "Base images"),
// through a fake that answers from facts made here: a base read from its
// image seeds the model (env, rows, provenance, resolved_from), the tables
// answer with a note when it is not read, the note comes once per base, and
// COPY --from=<image ref> reads the image the same way.
#include <map>

#include "dockerfile/dockerfile_fixture.h"

using namespace imagelint;
using namespace imagelint::testing::dockerfile_fixture;

namespace {

class FakeResolver final : public dockerfile::BaseResolver {
 public:
  std::map<std::string, dockerfile::ResolvedBase> images;  // ref -> what "reading" it gives
  std::vector<std::string> asked;
  Result<dockerfile::BaseLookup> Resolve(const std::string& ref, const std::string& platform) override {
    asked.push_back(ref + " " + platform);
    dockerfile::BaseLookup out;
    if (auto it = images.find(ref); it != images.end()) {
      out.base = it->second;
    } else {
      out.note = "registry: offline";
    }
    return out;
  }
};

dockerfile::ResolvedBase CudaBase() {
  dockerfile::ResolvedBase base;
  base.resolved_from = BaseSource::kRegistry;
  base.digest = "sha256:" + std::string(64, 'a');
  base.platform = "linux/amd64";
  facts::Facts& f = base.facts;
  f.image.os = "linux";
  f.image.architecture = "amd64";
  f.image.env = {{"CUDA_VERSION", "12.4.1"}, {"NVIDIA_REQUIRE_CUDA", "cuda>=12.4"}, {"PATH", "/usr/bin"}};
  facts::Runtime runtime;
  runtime.provenance.layer = 3;
  runtime.provenance.origin = "system";
  runtime.path = "/usr/local/cuda-12.4/targets/x86_64-linux/lib/libcudart.so.12.4.127";
  runtime.version = "12.4.127";
  f.cuda.emplace().runtimes = std::vector<facts::Runtime>{runtime};
  facts::Framework torch;
  torch.name = "torch";
  torch.version = "2.4.0";
  torch.cuda = "12.4";
  torch.path = "/opt/venv/lib/python3.11/site-packages/torch/version.py";
  f.frameworks = std::vector<facts::Framework>{torch};
  return base;
}

}  // namespace

TEST_CASE("BaseResolver: a base read from its image seeds the model, rows stamped with the FROM line") {
  FakeResolver resolver;
  resolver.images["registry.corp.example/ml/base-cuda:2024.06"] = CudaBase();
  auto options = Options();
  options.base_resolver = &resolver;
  auto analysis = dockerfile::AnalyzeDockerfileText(
      "ARG TAG=2024.06\nFROM registry.corp.example/ml/base-cuda:${TAG}\nENV APP=1\n", "Dockerfile", options);
  REQUIRE(analysis.ok());
  const json& facts = analysis->facts;
  const json& base = facts["image"]["base"];
  CHECK(base["resolved_from"] == "registry");
  CHECK(base["digest"] == "sha256:" + std::string(64, 'a'));
  CHECK(base["platform"] == "linux/amd64");
  CHECK(base["known"] == true);
  CHECK(facts["image"]["env"]["CUDA_VERSION"] == "12.4.1");
  CHECK(facts["image"]["env_complete"] == true);
  REQUIRE(facts["cuda"]["runtimes"].size() == 1);
  const json& runtime = facts["cuda"]["runtimes"][0];
  CHECK(runtime["version"] == "12.4.127");
  CHECK(runtime["dockerfile_line"] == 2);
  CHECK(runtime["layer"] == 0);
  CHECK(runtime["origin"] == "system");  // who installed it, as read
  CHECK(facts["frameworks"][0]["name"] == "torch");
  CHECK(facts["frameworks_complete"] == true);
  CHECK(facts["binaries_complete"] == true);  // ENV changes no file
  REQUIRE(resolver.asked.size() == 1);
  CHECK(resolver.asked[0] == "registry.corp.example/ml/base-cuda:2024.06 linux/amd64");
}

TEST_CASE("BaseResolver: not read -> the knowledge tables answer, with the resolver's note") {
  FakeResolver resolver;
  auto options = Options();
  options.base_resolver = &resolver;
  auto analysis = dockerfile::AnalyzeDockerfileText("FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\n", "Dockerfile", options);
  REQUIRE(analysis.ok());
  auto plain = dockerfile::AnalyzeDockerfileText("FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\n", "Dockerfile", Options());
  REQUIRE(plain.ok());
  CHECK(analysis->facts["image"]["base"]["resolved_from"] == "knowledge");
  CHECK(analysis->facts["image"]["base"]["lookup_failure"] == "registry: offline");  // typed, for the report
  CHECK_FALSE(plain->facts["image"]["base"].contains("lookup_failure"));
  CHECK(analysis->facts["cuda"] == plain->facts["cuda"]);
  bool noted = false;
  for (const json& note : analysis->facts["dockerfile"]["notes"])
    noted = noted || note["note"].get<std::string>().find("not read (registry: offline)") != std::string::npos;
  CHECK(noted);
  // Without a resolver (the library default) nothing is asked and nothing noted.
  for (const json& note : plain->facts["dockerfile"]["notes"])
    CHECK(note["note"].get<std::string>().find("not read") == std::string::npos);
  // A base no table knows and nothing read: resolved_from none.
  auto unknown = dockerfile::AnalyzeDockerfileText("FROM corp/base:1\n", "Dockerfile", options);
  REQUIRE(unknown.ok());
  CHECK(unknown->facts["image"]["base"]["resolved_from"] == "none");
}

TEST_CASE("BaseResolver: COPY --from=<image ref> brings the image's framework rows") {
  FakeResolver resolver;
  resolver.images["registry.corp.example/ml/venv:1"] = CudaBase();
  auto options = Options();
  options.base_resolver = &resolver;
  auto analysis = dockerfile::AnalyzeDockerfileText(
      "FROM ubuntu:22.04\nCOPY --from=registry.corp.example/ml/venv:1 /opt/venv /opt/venv\n", "Dockerfile", options);
  REQUIRE(analysis.ok());
  bool torch = false;
  for (const json& row : analysis->facts.value("frameworks", json::array())) torch = torch || row["name"] == "torch";
  CHECK(torch);
}
