// Which binaries a workload can load: roots (entrypoint, PATH, working
// directory, Python environments, loader directories) and the loader's
// NEEDED / dlopen closure, over small generated trees.
#include <doctest/doctest.h>

#include "cuda/cuda.h"
#include "cuda/fixtures.h"
#include "cuda/reachability.h"
#include "support/checkout_knowledge.h"
#include "support/test_support.h"

using namespace imagelint::cuda;
using namespace imagelint::cuda::testing;
using nlohmann::json;

namespace {

Bytes DeviceLibrary(const std::string& soname, std::vector<std::string> needed = {}, std::string runpath = "") {
  EntrySpec cubin{.kind = 2, .arch = 80, .payload = MakeCubin(80, 124)};
  return MakeElf({.soname = soname, .needed = std::move(needed), .runpath = std::move(runpath),
                  .fatbin = MakeContainer({MakeEntry(cubin)})});
}

json Build(HostTree& tree, json config) {
  tree.input.config = {{"config", std::move(config)}};
  tree.input.layer_digests = {"sha256:aaaa"};
  return CudaFactsJson(tree);
}

const json& Row(const json& facts, const std::string& path) {
  for (const auto& row : facts["binaries"])
    if (row.value("path", "") == path) return row;
  FAIL("no binary " << path);
  static const json none;
  return none;
}

std::string Via(const json& row) { return row.value("reachable_via", json::array()).dump(); }

}  // namespace

TEST_CASE("reachability: a tool's private libraries are not loaded; the loader path, PATH and NEEDED are") {
  HostTree tree;
  // Nsight Compute's shape: old CUPTI copies beside the tool, nothing links them.
  AddMemoryFile(tree, "opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/libcupti.so.11.0",
                DeviceLibrary("libcupti.so.11.0"), 0);
  // A library in an ld.so.conf directory: any program can load it by name.
  AddMemoryFile(tree, "etc/ld.so.conf.d/cuda.conf", Bytes{'/', 'o', 'p', 't', '/', 'c', 'u', 'd', 'a', '\n'}, 0);
  AddMemoryFile(tree, "opt/cuda/libnppc.so.12", DeviceLibrary("libnppc.so.12"), 0);
  // An application on PATH whose RUNPATH ($ORIGIN/../lib) finds its kernels library.
  AddMemoryFile(tree, "srv/app/bin/server",
                MakeElf({.type = 2, .needed = {"libkernels.so.1", "libc.so.6"}, .runpath = "$ORIGIN/../lib",
                         .interp = "/lib64/ld-linux-x86-64.so.2"}),
                0);
  AddMemoryFile(tree, "srv/app/lib/libkernels.so.1", DeviceLibrary("libkernels.so.1"), 0);
  // An executable with device code that is on no path at all (a sample).
  EntrySpec cubin{.kind = 2, .arch = 80, .payload = MakeCubin(80, 124)};
  AddMemoryFile(tree, "usr/local/cuda/extras/demo_suite/deviceQuery",
                MakeElf({.type = 2, .interp = "/lib64/ld-linux-x86-64.so.2", .fatbin = MakeContainer({MakeEntry(cubin)})}),
                0);
  json facts = Build(tree, {{"Env", {"PATH=/srv/app/bin:/usr/bin:/bin"}}});

  const json& cupti = Row(facts, "/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/libcupti.so.11.0");
  CHECK(cupti["reachable"] == false);
  CHECK(cupti["unreachable_reason"].get<std::string>().find("not on any load path") != std::string::npos);
  const json& nppc = Row(facts, "/opt/cuda/libnppc.so.12");
  CHECK(nppc["reachable"] == true);
  CHECK(Via(nppc).find("loader directory") != std::string::npos);
  const json& kernels = Row(facts, "/srv/app/lib/libkernels.so.1");
  CHECK(kernels["reachable"] == true);
  CHECK(Via(kernels).find("NEEDED by /srv/app/bin/server (RUNPATH /srv/app/lib)") != std::string::npos);
  CHECK(Row(facts, "/usr/local/cuda/extras/demo_suite/deviceQuery")["reachable"] == false);

  // The same server as the entrypoint, with PATH not naming it: still reachable.
  json by_entrypoint = Build(tree, {{"Env", {"PATH=/usr/bin"}}, {"Entrypoint", {"/srv/app/bin/server"}}});
  CHECK(Row(by_entrypoint, "/srv/app/lib/libkernels.so.1")["reachable"] == true);
  // (The server itself has no CUDA code, so it is no binaries row; what it loads says why.)
  CHECK(Via(Row(by_entrypoint, "/srv/app/lib/libkernels.so.1")).find("NEEDED by /srv/app/bin/server") !=
        std::string::npos);
  // Without either, the server and what only it loads are not.
  json neither = Build(tree, {{"Env", {"PATH=/usr/bin"}}});
  CHECK(Row(neither, "/srv/app/lib/libkernels.so.1")["reachable"] == false);
}

TEST_CASE("reachability: Python environments, extension modules anywhere, and libraries opened by name") {
  HostTree tree;
  const std::string site = "opt/venv/lib/python3.12/site-packages/";
  AddMemoryFile(tree, site + "nvidia/cublas/lib/libcublasLt.so.12", DeviceLibrary("libcublasLt.so.12"), 0);
  // An in-place build outside site-packages, imported through PYTHONPATH.
  AddMemoryFile(tree, "workspace/repo/ops/_C.cpython-312-x86_64-linux-gnu.so", DeviceLibrary(""), 0);
  // cuDNN 9's shim opens its sub-libraries by name from its own directory (RUNPATH $ORIGIN).
  AddMemoryFile(tree, "opt/cudnn/lib/libcudnn.so.9", MakeElf({.soname = "libcudnn.so.9", .runpath = "$ORIGIN"}), 0);
  AddMemoryFile(tree, "opt/cudnn/lib/libcudnn_cnn.so.9", DeviceLibrary("libcudnn_cnn.so.9"), 0);
  AddMemoryFile(tree, "opt/app/run",
                MakeElf({.type = 2, .needed = {"libcudnn.so.9"}, .runpath = "/opt/cudnn/lib",
                         .interp = "/lib64/ld-linux-x86-64.so.2"}),
                0);
  json facts = Build(tree, {{"Env", {"PATH=/usr/bin"}}, {"Cmd", {"/opt/app/run"}}});
  CHECK(Row(facts, "/" + site + "nvidia/cublas/lib/libcublasLt.so.12")["reachable"] == true);
  CHECK(Row(facts, "/workspace/repo/ops/_C.cpython-312-x86_64-linux-gnu.so")["reachable"] == true);
  const json& cnn = Row(facts, "/opt/cudnn/lib/libcudnn_cnn.so.9");
  CHECK(cnn["reachable"] == true);
  CHECK(Via(cnn).find("dlopen'ed by name by /opt/cudnn/lib/libcudnn.so.9") != std::string::npos);
}

TEST_CASE("reachability: facts written without it are derived from the binaries they list") {
  imagelint::facts::Facts facts;
  facts.cuda.emplace();
  facts.cuda->loader.emplace();
  imagelint::facts::LdSoConfEntry conf;
  conf.dir = "/usr/local/cuda/targets/x86_64-linux/lib";
  conf.file = "/etc/ld.so.conf.d/000_cuda.conf";
  facts.cuda->loader->ld_so_conf = std::vector{conf};
  auto binary = [](const std::string& path) {
    imagelint::facts::Binary b;
    b.path = path;
    b.type = "dyn";
    b.sass = std::vector<std::string>{"sm_75"};
    return b;
  };
  facts.binaries = std::vector{binary("/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/libcupti.so.11.0"),
                               binary("/usr/local/cuda-13.0/targets/x86_64-linux/lib/libnppc.so.13.0.1.2"),
                               binary("/opt/torch/.venv/lib/python3.12/site-packages/torch/lib/libtorch_cuda.so")};
  DeriveReachability(facts, imagelint::testing::CheckoutKnowledge());
  const auto& rows = *facts.binaries;
  CHECK(rows[0].reachable == false);
  CHECK(rows[0].unreachable_reason->find("written without reachability") != std::string::npos);
  CHECK(rows[1].reachable == true);  // /usr/local/cuda-13.0/targets/... is the conf's /usr/local/cuda/targets/...
  CHECK(rows[2].reachable == true);
}
