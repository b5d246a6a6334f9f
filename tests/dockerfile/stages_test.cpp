// Stage flow: ARG scopes and build args, targets, FROM <stage>, COPY/ADD,
// suppressions, the entry points.
#include <doctest/doctest.h>

#include <filesystem>

#include "dockerfile_fixture.h"

using nlohmann::json;
using namespace imagelint::dockerfile;
using namespace imagelint::testing::dockerfile_fixture;

TEST_CASE("ARG-driven base tags, --build-arg overrides, platform") {
  const char* text =
      "ARG CUDA=11.8.0\n"
      "ARG FLAVOR\n"
      "ARG OS=ubuntu22.04\n"
      "FROM nvidia/cuda:${CUDA}-${FLAVOR:-runtime}-${OS} AS run\n"
      "ARG CUDA\n"
      "ENV MY_CUDA=${CUDA} UNSET=${OS}x\n";
  json facts = Facts(text);
  CHECK(facts["image"]["base"]["ref"] == "nvidia/cuda:11.8.0-runtime-ubuntu22.04");
  CHECK(facts["image"]["env"]["CUDA_VERSION"] == "11.8.0");
  CHECK(facts["image"]["env"]["MY_CUDA"] == "11.8.0");  // redeclared ARG takes the global value
  CHECK(facts["image"]["env"]["UNSET"] == "x");          // OS not redeclared in the stage
  DockerfileOptions options;
  options.build_args = {{"CUDA", "12.4.1"}, {"FLAVOR", "devel"}, {"UNUSED", "1"}};
  json overridden = Facts(text, options);
  CHECK(overridden["image"]["base"]["ref"] == "nvidia/cuda:12.4.1-devel-ubuntu22.04");
  CHECK(overridden["image"]["env"]["CUDA_VERSION"] == "12.4.1");
  CHECK(overridden["image"]["env"]["MY_CUDA"] == "12.4.1");
  CHECK(overridden["dockerfile"]["unused_build_args"] == json::array({"UNUSED"}));
  CHECK(Driver(overridden, "compat")->at("version") == "550.54.15");
  CHECK(Driver(overridden, "stub") != nullptr);

  // arm64 Ubuntu images of CUDA <= 12.5.0 carry no compat package.
  DockerfileOptions arm;
  arm.platform = "linux/arm64";
  json arm_facts = Facts("FROM nvidia/cuda:12.4.1-base-ubuntu22.04\n", arm);
  CHECK(arm_facts["image"]["architecture"] == "arm64");
  CHECK(Driver(arm_facts, "compat") == nullptr);
  CHECK(arm_facts["cuda"]["runtimes"][0]["path"] == "/usr/local/cuda-12.4/targets/sbsa-linux/lib/libcudart.so.12.4.127");
  json arm_new = Facts("FROM --platform=linux/arm64 nvidia/cuda:12.6.3-base-ubuntu22.04\n");
  CHECK(Driver(arm_new, "compat") != nullptr);

  // A digest pin works with the tag; without the tag the release is unknown.
  json pinned = Facts("FROM nvidia/cuda:12.4.1-base-ubuntu22.04@sha256:" + std::string(64, 'a') + "\n");
  CHECK(pinned["image"]["env"]["CUDA_VERSION"] == "12.4.1");
  json digest_only = Facts("FROM nvidia/cuda@sha256:" + std::string(64, 'a') + "\n");
  CHECK(HasUnknown(digest_only, "base-image"));
  CHECK_FALSE(digest_only["cuda"].contains("drivers"));
  // docker.io prefixes are the same repository.
  CHECK(Facts("FROM docker.io/nvidia/cuda:12.4.1-base-ubuntu22.04\n")["image"]["base"]["known"] == true);

  // A missing required ARG is an error with the line.
  auto missing = Analyze("ARG V\nFROM nvidia/cuda:${V:?set V}\n");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().line == 2);
}

TEST_CASE("multi-stage: only the target stage's chain matters") {
  const char* text =
      "FROM nvidia/cuda:11.3.0-cudnn8-devel-ubuntu20.04 AS build\n"
      "RUN pip install torch==1.12.1+cu113 --extra-index-url https://download.pytorch.org/whl/cu113\n"
      "FROM build AS test\n"
      "RUN pip install pytest\n"
      "FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\n"
      "COPY --from=build /app /app\n";
  json final_stage = Facts(text);
  CHECK(final_stage["image"]["env"]["CUDA_VERSION"] == "12.4.1");
  CHECK(final_stage["frameworks"].empty());
  CHECK(Driver(final_stage, "compat")->at("version") == "550.54.15");
  CHECK(final_stage["source"]["stage"] == 2);

  DockerfileOptions options;
  options.target = "test";
  json test_stage = Facts(text, options);
  CHECK(test_stage["image"]["env"]["CUDA_VERSION"] == "11.3.0");
  CHECK(Find(test_stage["frameworks"], "name", "torch") != nullptr);
  CHECK(Find(test_stage["frameworks"], "name", "torch")->at("dockerfile_line") == 2);
  CHECK(test_stage["image"]["ref"] == "Dockerfile#test");

  options.target = "nope";
  auto missing = Analyze(text, options);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message.find("target stage") != std::string::npos);

  // Copying a libcuda out of another stage is seen.
  json copied = Facts("FROM ubuntu:22.04 AS drv\nFROM nvidia/cuda:12.4.1-base-ubuntu22.04\n"
                      "COPY --from=drv /usr/lib/x86_64-linux-gnu/libcuda.so.535.104.05 /usr/lib/x86_64-linux-gnu/\n");
  const json* bundled = Driver(copied, "bundled");
  REQUIRE(bundled != nullptr);
  CHECK((*bundled)["version"] == "535.104.05");
  CHECK((*bundled)["path"] == "/usr/lib/x86_64-linux-gnu/libcuda.so.535.104.05");
  CHECK((*bundled)["dockerfile_line"] == 3);
}

TEST_CASE("suppressions come back with the analysis") {
  auto analysis = AnalyzeDockerfileText(
      "FROM nvidia/cuda:11.3.0-devel-ubuntu20.04\n# imagelint ignore=IL003 A100-only service\nRUN true\n",
      "svc/Dockerfile", Options());
  REQUIRE(analysis.ok());
  RecordFacts(analysis->facts);
  REQUIRE(analysis->suppressions.size() == 1);
  CHECK(analysis->suppressions[0].file == "svc/Dockerfile");
  CHECK(analysis->suppressions[0].instruction_line == 3);
  CHECK(analysis->facts["dockerfile"]["suppressions"][0]["rules"] == json::array({"IL003"}));
}

TEST_CASE("files: read from disk, missing file, bad knowledge directory") {
  imagelint::testing::TempDir dir;
  imagelint::testing::WriteFileText(dir / "Dockerfile", kCompatTrap);
  auto analysis = AnalyzeDockerfile((dir / "Dockerfile").string(), Options());
  REQUIRE(analysis.ok());
  RecordFacts(analysis->facts);
  CHECK(analysis->facts["image"]["env"]["CUDA_VERSION"] == "11.3.0");
  CHECK_FALSE(AnalyzeDockerfile((dir / "nope").string(), Options()).ok());
  // No knowledge is an error, never a guess.
  auto without = AnalyzeDockerfile((dir / "Dockerfile").string(), DockerfileOptions{});
  REQUIRE_FALSE(without.ok());
  CHECK(without.error().message.find("knowledge") != std::string::npos);
  // A knowledge directory without base-images.yaml does not load, and says which file.
  std::filesystem::create_directories(dir / "knowledge");
  for (const auto& entry : std::filesystem::directory_iterator(imagelint::testing::SourceDir() / "rules" / "knowledge"))
    if (entry.path().filename() != "base-images.yaml")
      std::filesystem::copy_file(entry.path(), dir / "knowledge" / entry.path().filename());
  auto bad = imagelint::Knowledge::Load(dir / "knowledge");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().subject.find("base-images.yaml") != std::string::npos);
}

TEST_CASE("ARG scopes: global values in FROM, declared-only inside stages, build args for declared names") {
  json facts = Facts(
      "ARG BASE=nvidia/cuda:12.4.1-base-ubuntu22.04\nARG V=1\nFROM ${BASE}\n"
      "ENV A=${V}x\nARG V\nENV B=${V}y\nARG TARGETARCH\nENV ARCH=$TARGETARCH\n");
  CHECK(facts["image"]["env"]["CUDA_VERSION"] == "12.4.1");
  CHECK(facts["image"]["env"]["A"] == "x");   // not declared in the stage yet
  CHECK(facts["image"]["env"]["B"] == "1y");  // redeclared: the global value
  CHECK(facts["image"]["env"]["ARCH"] == "amd64");
  DockerfileOptions args;
  args.build_args = {{"V", "2"}, {"NOT_DECLARED", "x"}};
  json overridden = Facts("ARG V=1\nFROM scratch\nARG V\nENV B=$V\n", args);
  CHECK(overridden["image"]["env"]["B"] == "2");
  CHECK(overridden["dockerfile"]["unused_build_args"] == json::array({"NOT_DECLARED"}));
  auto bad = Analyze("FROM scratch\nARG bad-name=1\n");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().line == 2);
}

TEST_CASE("a 200 KB ARG value (a __version__-like string) is carried, not recursed on") {
  std::string version(200 * 1024, '1');
  json facts = Facts("ARG TORCH=" + version + "\nFROM nvidia/cuda:12.4.1-base-ubuntu22.04\nARG TORCH\n"
                     "ENV TORCH_VERSION=$TORCH\nRUN pip install torch==${TORCH}\n"
                     "LABEL version=\"${TORCH}\"\n");
  CHECK(facts["image"]["env"]["TORCH_VERSION"].get<std::string>().size() == version.size());
  CHECK(HasUnknown(facts, "frameworks"));  // too long to be a version any table knows
  DockerfileOptions platform;
  platform.platform = "linux/" + std::string(100 * 1024, 'x');
  auto analysis = Analyze("FROM nvidia/cuda:12.4.1-base-ubuntu22.04\n", platform);
  REQUIRE(analysis.ok());
  CHECK(analysis->facts["image"]["base"]["known"] == false);
}

TEST_CASE("COPY and ADD: copied libcuda files, heredoc loader files, CUDA trees from other stages") {
  json facts = Facts(
      "FROM nvidia/cuda:12.4.1-devel-ubuntu22.04 AS build\n"
      "FROM nvidia/cuda:12.4.1-base-ubuntu22.04\n"
      "COPY libcuda.so.1 /usr/local/cuda/compat/\n"
      "COPY [\"libcuda.so\", \"/usr/local/cuda/lib64/stubs/libcuda.so\"]\n"
      "COPY drivers/libcuda.so.* /opt/drv/\n"
      "ADD cuda_12.6.0_560.28.03_linux.run /tmp/\n"
      "COPY --from=build /usr/local/cuda-12.4 /usr/local/cuda-12.4\n"
      "COPY <<EOF /etc/ld.so.conf.d/compat.conf\n/usr/local/cuda/compat\nEOF\n");
  const json* copied = Find(facts["cuda"]["drivers"], "path", "/usr/local/cuda/compat/libcuda.so.1");
  REQUIRE(copied != nullptr);
  CHECK((*copied)["kind"] == "compat");
  CHECK((*copied)["version"].is_null());
  CHECK((*copied)["source"] == "copy");
  CHECK(Find(facts["cuda"]["drivers"], "path", "/usr/local/cuda/lib64/stubs/libcuda.so")->at("kind") == "stub");
  CHECK(Find(facts["cuda"]["drivers"], "path", "/opt/drv/libcuda.so.*") != nullptr);
  // The CUDA tree copied from `build` (a known devel image) brings its libcudart.
  CHECK_FALSE(HasUnknown(facts, "cuda.runtimes"));
  CHECK(facts["cuda"]["runtimes"].size() == 1);
  CHECK(facts["cuda"]["runtimes"][0]["dockerfile_line"] == 7);
  CHECK(facts["cuda"]["runtimes"][0]["path"].get<std::string>().rfind("/usr/local/cuda-12.4/targets/", 0) == 0);
  CHECK(Find(facts["cuda"]["loader"]["ld_so_conf"], "file", "/etc/ld.so.conf.d/compat.conf") != nullptr);
  CHECK(facts["dockerfile"]["notes"].size() == 1);  // the .run installer added
  auto missing = Analyze("FROM scratch\nCOPY onlyone\n");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message.find("requires a source and a destination") != std::string::npos);
}

TEST_CASE("FROM <stage> chains: the model continues, ARGs do not, layers add up") {
  json facts = Facts(
      "FROM nvidia/cuda:12.1.1-devel-ubuntu22.04 AS a\nARG X=1\nENV A=$X\n"
      "FROM a AS b\nENV B=${X}b\nRUN rm -rf /usr/local/cuda/compat\n"
      "FROM b\nWORKDIR /x\n");
  CHECK(facts["image"]["env"]["A"] == "1");
  CHECK(facts["image"]["env"]["B"] == "b");
  CHECK(Driver(facts, "compat") == nullptr);
  CHECK(facts["image"]["layers"].size() == 8);
  CHECK(facts["image"]["layers"][3]["empty_layer"] == true);  // FROM a
  CHECK(facts["source"]["stage"] == 2);
  CHECK(facts["dockerfile"]["stages"][2]["target"] == true);
}

// Pattern: a builder stage installs with `pip install --user` (or PIP_USER)
// and the runtime stage copies the user's site (~/.local) over.
TEST_CASE("pip --user and PIP_USER install into $HOME/.local; COPY --from of that folder carries torch") {
  auto torch_of = [](const json& facts) { return Find(facts["frameworks"], "name", "torch"); };
  json root_user = Facts(
      "FROM python:3.11 AS builder\nRUN pip install --user torch==2.3.1\n"
      "FROM nvidia/cuda:12.1.1-runtime-ubuntu22.04\nCOPY --from=builder /root/.local /root/.local\n");
  REQUIRE(torch_of(root_user) != nullptr);
  CHECK((*torch_of(root_user))["dockerfile_line"] == 4);

  json env = Facts(
      "FROM python:3.11 AS builder\nENV PIP_USER=1\nRUN pip install torch==2.3.1\n"
      "FROM nvidia/cuda:12.1.1-runtime-ubuntu22.04\nCOPY --from=builder /root/.local /root/.local\n");
  CHECK(torch_of(env) != nullptr);

  json named = Facts(
      "FROM python:3.11 AS builder\nRUN useradd -m app\nUSER app\nRUN pip install --user torch==2.3.1\n"
      "FROM nvidia/cuda:12.1.1-runtime-ubuntu22.04\nCOPY --from=builder /home/app/.local /home/app/.local\n");
  CHECK(torch_of(named) != nullptr);

  // The system site is not the user's: copying /root/.local brings nothing of a plain install.
  json system = Facts(
      "FROM python:3.11 AS builder\nRUN pip install torch==2.3.1\n"
      "FROM nvidia/cuda:12.1.1-runtime-ubuntu22.04\nCOPY --from=builder /root/.local /root/.local\n");
  CHECK(torch_of(system) == nullptr);
}

// Pattern: `uv venv` in the WORKDIR, then `uv pip install`; the runtime stage copies the .venv.
TEST_CASE("uv pip install goes into the .venv of its directory unless --system") {
  const std::string build =
      "FROM python:3.12 AS build\nWORKDIR /app\nRUN pip install uv==0.5.11 && uv venv && "
      "uv pip install torch==2.4.0 --index-url https://download.pytorch.org/whl/cu124";
  const std::string run = "\nFROM python:3.12-slim\nCOPY --from=build /app/.venv /app/.venv\n";
  json venv = Facts(build + run);
  const json* torch = Find(venv["frameworks"], "name", "torch");
  REQUIRE(torch != nullptr);
  CHECK((*torch)["dockerfile_line"] == 5);
  json system = Facts(build + " --system" + run);
  CHECK(Find(system["frameworks"], "name", "torch") == nullptr);
}
