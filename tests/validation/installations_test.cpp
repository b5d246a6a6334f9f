// Real installations: the facts of a working PyTorch/CuPy/JAX machine with
// an H100 (recorded there), and images laid out the way NVIDIA's images,
// NVIDIA's pip wheels and conda install CUDA, built from Debian's genuine
// NVIDIA packages. Each must get the verdict a real run gives: it runs.
#include <doctest/doctest.h>

#include <zlib.h>

#include "support/test_support.h"
#include "validation/layouts.h"
#include "validation/workshop.h"

namespace fs = std::filesystem;
using imagelint::testing::NeedExternal;
using imagelint::testing::TempDir;
using imagelint::testing::WriteFileText;
using nlohmann::json;
using namespace imagelint::validation;

namespace {

std::string Gunzip(const fs::path& path) {
  gzFile in = gzopen(path.c_str(), "rb");
  REQUIRE_MESSAGE(in != nullptr, "cannot open " << path);
  std::string text;
  char buffer[1 << 16];
  int n;
  while ((n = gzread(in, buffer, sizeof buffer)) > 0) text.append(buffer, static_cast<size_t>(n));
  gzclose(in);
  return text;
}

// Every finding of an image at `severity` or worse: "RULE path-or-message".
std::vector<std::string> FindingsAtLeast(const json& image, const std::string& severity) {
  std::vector<std::string> out;
  for (const auto& finding : image["findings"]) {
    std::string level = finding["severity"];
    bool counts = level == "error" || (severity == "warning" && level == "warning") || severity == "note";
    if (counts) out.push_back(finding["rule"].get<std::string>() + " " + level + ": " + finding["message"].get<std::string>());
  }
  return out;
}

std::string Join(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& line : lines) out += line + "\n";
  return out;
}

// NVIDIA's libraries whose only fatbin holds one cubin without a kernel.
bool NamesKernelLessLib(const json& finding) {
  std::string text = finding.dump();
  for (const char* name : {"libcufftw.so", "libnppc.so", "libnppisu.so"})
    if (text.find(name) != std::string::npos) return true;
  return false;
}

// An image that runs on every pool of the report: verdict pass on each, no
// error and no warning. A missing kernel image may only be a note (about
// code nothing in the image loads), and never about a kernel-less library.
void CheckRuns(const json& image, const std::string& why) {
  CAPTURE(why);
  REQUIRE(image.contains("verdicts"));
  for (const auto& verdict : image["verdicts"]) {
    CAPTURE(verdict["pool"].get<std::string>());
    CHECK_MESSAGE(verdict["status"] == "pass", verdict.dump());
    CHECK(verdict["predicted_error"].is_null());
  }
  std::vector<std::string> serious = FindingsAtLeast(image, "warning");
  CHECK_MESSAGE(serious.empty(), Join(serious));
  for (const auto& finding : image["findings"]) {
    if (finding["rule"] != "IL007") continue;
    CHECK_MESSAGE(finding["severity"] == "note", finding.dump());
    CHECK_MESSAGE(finding["predicted_error"].is_null(), finding.dump());
    CHECK_MESSAGE(!NamesKernelLessLib(finding), finding.dump());
  }
}

}  // namespace

// The root file system of the H100 machine of the GPU run, where PyTorch
// 2.11.0+cu130, CuPy 14.2.0 and JAX 0.11.2 all ran GPU work on that very
// host (observed/README.md). The truth for a pool of that host: it runs.
// Nsight Compute's private CUPTI copies (…/host/target-linux-x64/
// libcupti.so.10.2 … 11.7, SASS up to sm_86 and no PTX) are loaded by no
// application, and libcufftw.so.12 / libnppc.so.13 / libnppisu.so.13 hold
// one sm_75 cubin without a kernel: neither can fail anything there.
TEST_CASE("validation: the H100's PyTorch/CuPy/JAX installation passes on its own host, no error, no warning") {
  TempDir dir;
  fs::path facts = dir / "h100-torch-cupy-jax.facts.json";
  WriteFileText(facts, Gunzip(ValidationDir() / "real-installations" / "h100-torch-cupy-jax.facts.json.gz"));
  fs::path fleet = dir / "h100.yaml";
  WriteFileText(fleet, ObservedHostFleet());
  std::string why;
  json report = ScanReport({facts.string()}, fleet, &why);
  REQUIRE_MESSAGE(!report.is_null(), why);
  REQUIRE(report["images"].size() == 1);
  const json& image = report["images"][0];
  CheckRuns(image, "PyTorch, CuPy and JAX ran GPU work on this host");
  // The Nsight Compute copies may be named, but only in notes.
  for (const auto& finding : image["findings"]) {
    if (finding.dump().find("/opt/nvidia/nsight-compute/") != std::string::npos)
      CHECK_MESSAGE(finding["severity"] == "note", finding.dump());
  }
  CHECK(report["summary"]["findings"]["error"] == 0);
  CHECK(report["summary"]["findings"]["warning"] == 0);
}

TEST_CASE("validation: NVIDIA's image layouts from Debian's packages pass where their GPUs are supported") {
  std::string missing;
  bool have = HaveParts(LayoutParts(), &missing);
  if (!NeedExternal("validation parts", have, "missing " + missing)) return;
  TempDir dir;
  Programs programs(dir / "programs");
  std::vector<std::string> layouts;
  std::vector<std::string> names;
  for (const Layout& layout : Layouts()) {
    std::string why;
    fs::path out = dir / (layout.name + ".oci");
    REQUIRE_MESSAGE(layout.build(programs, dir / (layout.name + ".rootfs"), out, &why), layout.name << ": " << why);
    layouts.push_back(out.string());
    names.push_back(layout.name);
  }
  fs::path fleet = dir / "fleet.yaml";
  WriteFileText(fleet, SupportedPoolsFleet());
  std::string why;
  json report = ScanReport(layouts, fleet, &why, {"--no-verify"});
  REQUIRE_MESSAGE(!report.is_null(), why);
  REQUIRE(report["images"].size() == layouts.size());
  for (size_t i = 0; i < layouts.size(); ++i) {
    CAPTURE(names[i]);
    CheckRuns(report["images"][i], Layouts()[i].why);
  }
}
