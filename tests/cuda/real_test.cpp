// Verified against reality: genuine NVIDIA libraries from Debian's non-free
// archive (scripts/fetch-nvidia-debs.sh) and NVIDIA's own cuobjdump.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "cuda/cuda.h"
#include "cuda/elf.h"
#include "cuda/fixtures.h"
#include "support/test_support.h"

namespace fs = std::filesystem;
using namespace imagelint::cuda;
using namespace imagelint::cuda::testing;
using imagelint::testing::NeedExternal;
using nlohmann::json;

namespace {

fs::path DebsDir() {
  if (const char* env = std::getenv("IMAGELINT_NVIDIA_DEBS")) return env;
  const char* home = std::getenv("HOME");
  return fs::path(home ? home : "/root") / ".cache/imagelint/nvidia-debs";
}

struct Package {
  std::string name, suite, version;
  fs::path root;
};

std::vector<Package> Packages() {
  std::vector<Package> out;
  std::ifstream in(DebsDir() / "index.tsv");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    Package p;
    std::string root;
    if (std::getline(fields, p.name, '\t') && std::getline(fields, p.suite, '\t') &&
        std::getline(fields, p.version, '\t') && std::getline(fields, root, '\t')) {
      p.root = root;
      out.push_back(p);
    }
  }
  return out;
}

const Package* FindPackage(const std::vector<Package>& packages, const std::string& name, const std::string& suite) {
  for (const auto& p : packages)
    if (p.name == name && p.suite == suite) return &p;
  return nullptr;
}

bool HaveDebs() { return fs::exists(DebsDir() / "index.tsv") && !Packages().empty(); }

// Streams a host file through the scanner in 1 MiB chunks (as the layer scanner does).
json ScanHostFile(const fs::path& path) {
  uint64_t size = fs::file_size(path);
  ElfScanner scanner(path.string(), size);
  std::ifstream in(path, std::ios::binary);
  std::vector<uint8_t> buffer(1 << 20);
  while (in.read(reinterpret_cast<char*>(buffer.data()), buffer.size()) || in.gcount() > 0)
    scanner.Consume(std::span<const uint8_t>(buffer.data(), static_cast<size_t>(in.gcount())));
  return scanner.Finish(true);
}

fs::path FindFile(const fs::path& root, const std::regex& name) {
  for (const auto& item : fs::recursive_directory_iterator(root))
    if (item.is_regular_file() && !item.is_symlink() && std::regex_match(item.path().filename().string(), name))
      return item.path();
  return {};
}

// "535.261.03-1" -> "535.261.03"; "12.4.127~12.4.1-2" -> "12.4.127"
std::string Upstream(std::string version) { return version.substr(0, version.find_first_of("-~+")); }

fs::path Cuobjdump() { return DebsDir() / "root/nvidia-cuda-toolkit_trixie/usr/bin/cuobjdump"; }

}  // namespace

TEST_CASE("real: every packaged libcuda reports its package's driver version") {
  if (!NeedExternal("NVIDIA packages", HaveDebs(), "run scripts/fetch-nvidia-debs.sh")) return;
  int checked = 0;
  for (const Package& p : Packages()) {
    if (!(p.name == "libcuda1" || (p.name.rfind("libnvidia-tesla-", 0) == 0 && p.name.find("-cuda1") != std::string::npos)))
      continue;
    CAPTURE(p.name);
    CAPTURE(p.suite);
    HostTree tree;
    AddHostDirectory(tree, p.root, "", 0, {"libcuda.so"});
    json facts = CudaFactsJson(tree);
    REQUIRE(facts["cuda"]["drivers"].size() == 1);
    const json& driver = facts["cuda"]["drivers"][0];
    CHECK(driver["version"] == Upstream(p.version));
    CHECK(driver["source"] == "filename");
    CHECK(driver["kind"] == "bundled");
    CHECK(driver["soname"] == "libcuda.so.1");
    CHECK_FALSE(driver.contains("problems"));
    bool alias = false;
    for (const auto& a : driver["aliases"]) alias |= a.get<std::string>().find("libcuda.so.1") != std::string::npos;
    if (!alias) MESSAGE(driver.dump());
    CHECK(alias);
    ++checked;
  }
  CHECK(checked >= 8);
}

TEST_CASE("real: libcudart 11.0 (bullseye 11.2, bookworm 11.8) and 12 (trixie 12.4) versions") {
  if (!NeedExternal("NVIDIA packages", HaveDebs(), "run scripts/fetch-nvidia-debs.sh")) return;
  auto packages = Packages();
  struct Want {
    const char* name;
    const char* suite;
    const char* prefix;
    const char* soname;
  };
  for (Want want : {Want{"libcudart11.0", "bullseye", "11.2.", "libcudart.so.11.0"},
                    Want{"libcudart11.0", "bookworm", "11.8.", "libcudart.so.11.0"},
                    Want{"libcudart12", "trixie", "12.4.", "libcudart.so.12"}}) {
    CAPTURE(std::string(want.suite));
    const Package* p = FindPackage(packages, want.name, want.suite);
    if (!NeedExternal(std::string(want.name) + "/" + want.suite, p != nullptr, "fetch-nvidia-debs.sh")) continue;
    HostTree tree;
    AddHostDirectory(tree, p->root, "", 0, {"libcudart"});
    json facts = CudaFactsJson(tree);
    REQUIRE(facts["cuda"]["runtimes"].size() == 1);
    const json& runtime = facts["cuda"]["runtimes"][0];
    std::string version = runtime["version"];
    CHECK(version.rfind(want.prefix, 0) == 0);
    CHECK(version == Upstream(p->version));
    CHECK(runtime["source"] == "filename");
    CHECK(runtime["soname"] == want.soname);
    CHECK(runtime["origin"] == "system");
    // Alone, the SONAME link still gives the major.
    HostTree bare;
    fs::path real = FindFile(p->root, std::regex("libcudart\\.so\\.[0-9.]+"));
    std::ifstream in(real, std::ios::binary);
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    AddMemoryFile(bare, std::string("opt/lib/") + want.soname, bytes);
    json bare_facts = CudaFactsJson(bare);
    REQUIRE(bare_facts["cuda"]["runtimes"].size() == 1);
    CHECK(bare_facts["cuda"]["runtimes"][0]["source"] == "soname");
    CHECK(bare_facts["cuda"]["runtimes"][0]["version"] == std::string(want.prefix).substr(0, 2));
  }
}

TEST_CASE("real: SASS and PTX of CUDA libraries equal cuobjdump --list-elf --list-ptx") {
  if (!NeedExternal("NVIDIA packages", HaveDebs(), "run scripts/fetch-nvidia-debs.sh")) return;
  if (!NeedExternal("cuobjdump", fs::exists(Cuobjdump()), "nvidia-cuda-toolkit from fetch-nvidia-debs.sh")) return;
  auto packages = Packages();
  // cuobjdump 12.4 takes ~5 s on libcublasLt (421 MiB), well under a second on the others.
  for (std::string name : {"libcublas12", "libcublaslt12", "libcufft11", "libcurand10", "libcusparse12"}) {
    CAPTURE(name);
    const Package* p = FindPackage(packages, name, "trixie");
    if (!NeedExternal(name, p != nullptr, "fetch-nvidia-debs.sh")) continue;
    fs::path library = FindFile(p->root, std::regex("lib.*\\.so\\.[0-9]+\\.[0-9.]+"));
    REQUIRE(!library.empty());
    auto result = imagelint::testing::RunCommand(
        {Cuobjdump().string(), "--list-elf", "--list-ptx", library.string()}, "", 300);
    REQUIRE(result.exit_code == 0);
    std::map<std::string, int> expected;
    std::regex line("^(ELF|PTX) file +[0-9]+: .*\\.(sm_[0-9]+[af]?)\\.(cubin|ptx)$");
    std::istringstream lines(result.out);
    std::string text;
    while (std::getline(lines, text)) {
      std::smatch match;
      if (!std::regex_match(text, match, line)) continue;
      std::string arch = match[2];
      if (match[1] == "PTX") arch = "compute_" + arch.substr(3);
      expected[arch]++;
    }
    REQUIRE(!expected.empty());
    json scanned = ScanHostFile(library);
    // cuobjdump (without -all) lists the containers the runtime registers: those in .nv_fatbin.
    json registered = scanned["fatbin"]["section_archs"].value(".nv_fatbin", json::object());
    CHECK(registered == json(expected));
    CHECK_FALSE(scanned.contains("problems"));
    // The per-binary lists are the distinct architectures of the same entries.
    std::set<std::string> sass, ptx;
    for (const auto& [section, archs] : scanned["fatbin"]["section_archs"].items())
      for (const auto& [arch, count] : archs.items()) {
        if (arch.rfind("sm_", 0) == 0) sass.insert(arch);
        if (arch.rfind("compute_", 0) == 0) ptx.insert(arch);
      }
    for (const auto& [arch, count] : expected) CHECK((sass.count(arch) + ptx.count(arch)) == 1);
    std::set<std::string> sass_listed, ptx_listed;
    for (const auto& a : scanned["sass"]) sass_listed.insert(a);
    for (const auto& a : scanned["ptx"]) ptx_listed.insert(a["arch"]);
    CHECK(sass_listed == sass);
    CHECK(ptx_listed == ptx);
    // Libraries reuse older cubins: every toolkit is at most the package's 12.4, and 12.x is there.
    REQUIRE(!scanned["fatbin"]["toolkits"].empty());
    for (const auto& toolkit : scanned["fatbin"]["toolkits"]) {
      std::string text = toolkit;
      CHECK((text.rfind("11.", 0) == 0 || text.rfind("12.", 0) == 0));
      CHECK(text <= "12.4");
    }
  }
}
