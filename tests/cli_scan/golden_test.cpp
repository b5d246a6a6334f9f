// `imagelint scan` through the binary, whole outputs: every report format on
// the same representative inputs, compared byte for byte with
// golden/scan.<format>.stdout.exact (as zstd's CLI tests compare whole
// outputs). imagelint runs in the checkout with relative paths, so nothing
// depends on where the checkout is (the text report shortens long paths, and
// GitLab fingerprints hash them). What differs between knowledge revisions
// is replaced by placeholders: the bundle's digest, revision and date (the
// run's "today" is the bundle's date, so its age is always 0). Update with
// IMAGELINT_UPDATE_GOLDEN=1.
//
// The inputs, one pattern each (Dockerfiles of tests/dockerfile/corpus):
//   driver-bundled-package  a driver library installed into the image: certain failures
//   env-require-lowered     NVIDIA_REQUIRE_CUDA lowered by ENV: a decided requirement
//   torch-extra-index-cu121 a torch wheel from the PyTorch index: kernels and CUDA decided
//   requirements-opaque-gpu a requirements file not in the context: undecided cells
//   plain-nginx-static      a service without a GPU: nothing to report
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "support/test_support.h"

using imagelint::testing::CheckGolden;
using imagelint::testing::ImagelintBinary;
using imagelint::testing::RunCommand;
using imagelint::testing::RunImagelint;
using imagelint::testing::SourceDir;
using nlohmann::json;

namespace {

void ReplaceAll(std::string& text, const std::string& from, const std::string& to) {
  if (from.empty()) return;
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
}

struct Bundle {
  std::string digest, revision, date;
};

Bundle BundleInUse() {
  auto shown = RunImagelint({"knowledge", "show", "--format", "json"});
  REQUIRE_MESSAGE(shown.exit_code == 0, shown.err);
  json bundle = json::parse(shown.out);
  return {bundle.value("digest", ""), bundle.value("revision", ""), bundle.value("date", "")};
}

}  // namespace

TEST_CASE("scan: every format's whole output on representative Dockerfiles") {
  const std::string corpus = "tests/dockerfile/corpus";  // relative to the checkout, where imagelint runs
  const std::vector<std::string> inputs = {"driver-bundled-package", "env-require-lowered",
                                           "torch-extra-index-cu121", "requirements-opaque-gpu",
                                           "plain-nginx-static"};
  const Bundle bundle = BundleInUse();
  REQUIRE(!bundle.digest.empty());
  for (const std::string format : {"text", "json", "sarif", "markdown", "html", "junit", "github", "gitlab", "k8s"}) {
    CAPTURE(format);
    // env -C: the checkout as the working directory (coreutils).
    std::vector<std::string> args = {"env", "-C", SourceDir().string(), ImagelintBinary().string(), "scan",
                                      "--no-config", "--fleet", corpus + "/fleet.yaml", "--format", format};
    for (const std::string& input : inputs) args.push_back(corpus + "/" + input + ".Dockerfile");
    auto run = RunCommand(args, "", 300,
                          {"IMAGELINT_BASE_FROM=knowledge", "IMAGELINT_TODAY=" + bundle.date, "NO_COLOR=1"});
    CHECK_MESSAGE(run.exit_code == 1, run.err);  // the bundled driver fails pools
    std::string out = run.out;
    ReplaceAll(out, bundle.digest, "<bundle-digest>");
    ReplaceAll(out, bundle.digest.substr(0, 19), "<bundle-digest>");  // "sha256:" and 12 digits (HTML footer)
    ReplaceAll(out, bundle.revision, "<bundle-revision>");
    ReplaceAll(out, bundle.date, "<bundle-date>");
    CheckGolden("cli_scan/golden/scan." + format + ".stdout.exact", out);
  }
}
