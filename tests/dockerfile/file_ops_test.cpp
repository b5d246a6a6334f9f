// rm, ln, mv and ld.so.conf writes: the file operations that decide which
// libcuda the loader finds.
#include <doctest/doctest.h>

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
