// rm, ln, mv and ld.so.conf writes: the file operations that decide which
// libcuda the loader finds.
#include <doctest/doctest.h>

#include <chrono>

#include "dockerfile/util.h"
#include "dockerfile_fixture.h"

using nlohmann::json;
using namespace imagelint::dockerfile;
using namespace imagelint::testing::dockerfile_fixture;

TEST_CASE("its fix: removing the compat directory or purging the package") {
  for (const std::string fix : {"RUN rm -rf /usr/local/cuda-11.3/compat\n", "RUN rm -rf /usr/local/cuda/compat\n",
                                "RUN apt-get purge -y cuda-compat-11-3 && rm -rf /var/lib/apt/lists/*\n",
                                "RUN apt-get remove -y 'cuda-compat-*'\n", "RUN rm -f /usr/local/cuda/compat/libcuda.so*\n"}) {
    CAPTURE(fix);
    json facts = Facts(std::string(kCompatTrap) + fix);
    CHECK(Driver(facts, "compat") == nullptr);
    REQUIRE(facts["dockerfile"]["changes"].size() >= 1);
    CHECK(facts["dockerfile"]["changes"][0]["dockerfile_line"] == 5);
    CHECK(Driver(facts, "stub") != nullptr);  // only the compat library went
  }
  // Removing something else keeps it.
  json kept = Facts(std::string(kCompatTrap) + "RUN rm -rf /usr/local/cuda/compat-old /tmp/*\n");
  CHECK(Driver(kept, "compat") != nullptr);
}

TEST_CASE("loader facts: LD_LIBRARY_PATH, ld.so.conf writes, stub symlinks") {
  json facts = Facts(
      "FROM nvidia/cuda:11.3.0-cudnn8-devel-ubuntu20.04\n"
      "ENV LD_LIBRARY_PATH=/usr/local/cuda/compat:${LD_LIBRARY_PATH}\n"
      "RUN echo /usr/local/cuda/compat > /etc/ld.so.conf.d/00-compat.conf && ldconfig\n"
      "RUN ln -sf /usr/local/cuda/lib64/stubs/libcuda.so /usr/lib/x86_64-linux-gnu/libcuda.so.1\n");
  const json& loader = facts["cuda"]["loader"];
  CHECK(loader["ld_library_path"] ==
        json::array({"/usr/local/cuda/compat", "/usr/local/nvidia/lib", "/usr/local/nvidia/lib64"}));
  CHECK(loader["ld_library_path_provenance"]["dockerfile_line"] == 2);
  const json* conf = Find(loader["ld_so_conf"], "file", "/etc/ld.so.conf.d/00-compat.conf");
  REQUIRE(conf != nullptr);
  CHECK((*conf)["dir"] == "/usr/local/cuda/compat");
  CHECK((*conf)["dockerfile_line"] == 3);
  REQUIRE(loader["libcuda_candidates"].size() >= 2);
  CHECK(loader["libcuda_candidates"][0]["via"] == "LD_LIBRARY_PATH");
  CHECK(loader["libcuda_candidates"][0]["kind"] == "compat");
  CHECK(loader["libcuda_candidates"][0]["via_dockerfile_line"] == 2);
  const json* link = Find(facts["cuda"]["drivers"], "path", "/usr/lib/x86_64-linux-gnu/libcuda.so.1");
  REQUIRE(link != nullptr);
  CHECK((*link)["kind"] == "stub");
  CHECK((*link)["dockerfile_line"] == 4);
  CHECK((*link)["resolves_to"] == "/usr/local/cuda-11.3/lib64/stubs/libcuda.so");

  json heredoc = Facts("FROM nvidia/cuda:12.4.1-base-ubuntu22.04\n"
                       "COPY <<EOF /etc/ld.so.conf.d/compat.conf\n/usr/local/cuda/compat\nEOF\n");
  CHECK(Find(heredoc["cuda"]["loader"]["ld_so_conf"], "file", "/etc/ld.so.conf.d/compat.conf") != nullptr);
}

TEST_CASE("glob matching as the shell does, without recursion") {
  CHECK(GlobMatch("/usr/local/cuda-*/compat", "/usr/local/cuda-12.4/compat", true));
  CHECK_FALSE(GlobMatch("/usr/local/*", "/usr/local/cuda-12.4/compat", true));  // `*` stops at '/'
  CHECK(GlobMatch("/usr/local/*", "/usr/local/cuda-12.4/compat", false));
  CHECK(GlobMatch("libcuda.so.[0-9]*", "libcuda.so.550.54.15", false));
  CHECK_FALSE(GlobMatch("libcuda.so.[!0-9]*", "libcuda.so.550", false));
  CHECK(GlobMatch("cuda-compat-1?-4", "cuda-compat-12-4", false));
  CHECK(GlobMatch("a\\*b", "a*b", false));
  CHECK_FALSE(GlobMatch("a\\*b", "axb", false));
  CHECK(GlobMatch("[", "[", false));  // an unclosed bracket is literal
  CHECK(GlobMatch("*", "", false));
  // Many stars against a long text: quadratic at worst, never exponential.
  std::string pattern;
  for (int i = 0; i < 200; ++i) pattern += "*a";
  pattern += "*b";
  auto start = std::chrono::steady_clock::now();
  CHECK_FALSE(GlobMatch(pattern, std::string(5000, 'a'), false));
  CHECK_FALSE(GlobMatch("/" + pattern, "/" + std::string(5000, 'a'), true));
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
}

TEST_CASE("mv: rows under a moved path move with it") {
  json facts = Facts("FROM nvidia/cuda:12.4.1-devel-ubuntu22.04\nRUN mv /usr/local/cuda/compat /usr/local/cuda/compat.disabled\n");
  const json* compat = Driver(facts, "compat");
  REQUIRE(compat != nullptr);
  CHECK((*compat)["path"] == "/usr/local/cuda-12.4/compat.disabled/libcuda.so.550.54.15");
  CHECK((*compat)["dockerfile_line"] == 2);
  for (const auto& alias : (*compat)["aliases"]) CHECK(alias.get<std::string>().find("/compat/") == std::string::npos);
  REQUIRE(facts["dockerfile"]["changes"].size() == 1);
  CHECK(facts["dockerfile"]["changes"][0]["by"] == "mv /usr/local/cuda/compat /usr/local/cuda/compat.disabled");
  // No libcuda is left where the container toolkit looks for compat libraries.
  for (const auto& candidate : facts["cuda"]["loader"]["libcuda_candidates"])
    CHECK(candidate["path"].get<std::string>().find("/compat/") == std::string::npos);

  json into = Facts("FROM nvidia/cuda:12.4.1-base-ubuntu22.04\nRUN mv /usr/local/cuda/compat/libcuda.so.550.54.15 /opt/\n");
  CHECK(Driver(into, "compat")->at("path") == "/opt/libcuda.so.550.54.15");
  json unrelated = Facts("FROM nvidia/cuda:12.4.1-base-ubuntu22.04\nRUN mv /tmp/a /tmp/b\n");
  CHECK(unrelated["dockerfile"]["changes"].empty());
  json inexact = Facts("FROM nvidia/cuda:12.4.1-base-ubuntu22.04\nRUN mv /usr/local/cuda/compat $DEST\n");
  CHECK(HasUnknown(inexact, "cuda.drivers"));
}

TEST_CASE("rm: paths that cannot be computed, single files, and rows without a file") {
  json inexact = Facts("FROM nvidia/cuda:12.4.1-base-ubuntu22.04\nRUN rm -rf $CUDA_HOME/compat\n");
  CHECK(HasUnknown(inexact, "cuda.drivers"));
  CHECK(Driver(inexact, "compat") != nullptr);
  json file = Facts("FROM nvidia/cuda:12.4.1-base-ubuntu22.04\nRUN rm /usr/local/cuda/compat/libcuda.so.550.54.15\n");
  CHECK(Driver(file, "compat") == nullptr);
  json not_recursive = Facts("FROM nvidia/cuda:12.4.1-base-ubuntu22.04\nRUN rm -f /usr/local/cuda/compat\n");
  CHECK(Driver(not_recursive, "compat") != nullptr);  // rm without -r does not remove a directory
}

TEST_CASE("ld.so.conf writes: printf, tee -a, truncation, values that cannot be computed") {
  json facts = Facts(
      "FROM nvidia/cuda:12.4.1-base-ubuntu22.04\n"
      "RUN printf '/opt/a\\n/opt/b\\n' > /etc/ld.so.conf.d/a.conf\n"
      "RUN echo /opt/c | tee -a /etc/ld.so.conf.d/a.conf\n"
      "RUN echo /opt/d > /etc/ld.so.conf.d/nvidia.conf\n");
  std::vector<std::string> dirs;
  for (const auto& entry : facts["cuda"]["loader"]["ld_so_conf"]) dirs.push_back(entry["dir"]);
  CHECK(dirs == std::vector<std::string>{"/opt/a", "/opt/b", "/opt/c", "/opt/d"});  // nvidia.conf rewritten
  json unknown = Facts("FROM nvidia/cuda:12.4.1-base-ubuntu22.04\nRUN echo $DIR > /etc/ld.so.conf.d/x.conf\n");
  CHECK(HasUnknown(unknown, "cuda.loader.ld_so_conf"));
  CHECK(unknown["cuda"]["loader"]["ld_so_conf_complete"] == false);
}
