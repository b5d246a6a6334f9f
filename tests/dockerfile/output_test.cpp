// Output: the facts document (provenance, requirements, loader, binaries)
// and the speed of the whole analysis.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdio>

#include "dockerfile_fixture.h"

using nlohmann::json;
using namespace imagelint::dockerfile;
using namespace imagelint::testing::dockerfile_fixture;

TEST_CASE("speed: well under 20 ms per Dockerfile (measured, printed, not asserted)") {
  std::string text = std::string(kCompatTrap) +
                     "ARG TORCH=2.1.2\n"
                     "RUN apt-get update && apt-get install -y --no-install-recommends python3-pip git curl \\\n"
                     "    && rm -rf /var/lib/apt/lists/*\n"
                     "RUN pip install numpy scipy pandas 'jax[cuda12]' cupy-cuda12x\n"
                     "RUN <<EOF\nset -e\nrm -rf /usr/local/cuda/compat\nldconfig\nEOF\n"
                     "ENV LD_LIBRARY_PATH=/opt/lib:${LD_LIBRARY_PATH}\n"
                     "COPY . /app\nWORKDIR /app\n";
  (void)Analyze(text);  // warm-up; the knowledge is loaded once, by the caller
  const int runs = 200;
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < runs; ++i) {
    auto analysis = Analyze(text);
    REQUIRE(analysis.ok());
  }
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() / runs;
  std::printf("dockerfile analysis: %.3f ms per Dockerfile (%d runs, %zu bytes)\n", ms, runs, text.size());
  CHECK(ms > 0);
}
