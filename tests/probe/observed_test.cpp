// Observations: the H100 run's own call logs read the way `imagelint probe`
// reads its probe, and `probe --record` into a fleet file that later scans
// use (docs/probe.md). tests/validation holds the scenarios' predictions
// against the same observations; this suite checks the probe's side.
#include <doctest/doctest.h>

#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "imagelint/probe.h"
#include "support/test_support.h"
#include "validation/workshop.h"

namespace {

namespace fs = std::filesystem;
using imagelint::testing::ReadFileText;
using imagelint::testing::RunImagelint;
using imagelint::testing::WriteFileText;
using nlohmann::json;

struct ObservedScratch {
  fs::path path;
  ObservedScratch() {
    std::string pattern = (fs::temp_directory_path() / "imagelint-observed-test-XXXXXX").string();
    path = mkdtemp(pattern.data());
  }
  ~ObservedScratch() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

// The run's call log (`RESULT scenario api code name detail...`, `LOADED
// scenario path`) as one probe record per scenario.
std::map<std::string, imagelint::probe::Record> CallLog(const fs::path& file) {
  std::map<std::string, imagelint::probe::Record> out;
  std::istringstream in(ReadFileText(file));
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string kind, scenario;
    words >> kind >> scenario;
    if (kind == "RESULT") {
      imagelint::probe::Call call;
      words >> call.api >> call.code >> call.name;
      std::getline(words, call.detail);
      out[scenario].calls.push_back(call);
    } else if (kind == "LOADED") {
      std::string path;
      words >> path;
      out[scenario].loaded.push_back(path);
    }
  }
  return out;
}

// "/tmp/.../scen/G1/rootfs/usr/local/cuda/compat/libcuda.so.550.163.01" ->
// "<image>/usr/local/cuda/compat/libcuda.so.550.163.01", as the results show it.
std::string Shown(const std::string& path) {
  size_t at = path.find("/rootfs/");
  return at == std::string::npos ? path : "<image>" + path.substr(at + 7);
}

std::string ObservedH100Xml() {
  return "<?xml version=\"1.0\" ?>\n<nvidia_smi_log>\n<driver_version>580.159.04</driver_version>\n"
         "<attached_gpus>1</attached_gpus>\n<gpu id=\"00000000:01:00.0\">\n<product_name>NVIDIA H100 80GB HBM3"
         "</product_name>\n<product_brand>NVIDIA</product_brand>\n</gpu>\n</nvidia_smi_log>\n";
}

}  // namespace

TEST_CASE("the first error read from the H100's call logs is the one the run recorded, at the same call") {
  const fs::path observed = imagelint::testing::SourceDir() / "tests" / "validation" / "observed";
  int compared = 0;
  for (const auto& [log, table] : {std::pair{"calls.txt", "results.tsv"}, std::pair{"calls-batch2.txt", "results-batch2.tsv"}}) {
    auto records = CallLog(observed / log);
    for (const auto& row : imagelint::validation::ReadTsv(observed / table)) {
      const std::string& scenario = row.at("scenario");
      if (scenario.rfind("J_", 0) == 0) continue;  // a host library through FFTW calls, no CUDA calls logged
      INFO(scenario);
      REQUIRE(records.count(scenario) == 1);
      auto outcome = imagelint::probe::FirstError(records[scenario]);
      CHECK(outcome.code == std::stoi(row.at("observed_code")));
      CHECK((outcome.api.empty() ? "-" : outcome.api) == row.at("first_failing_api"));
      std::string libcuda = "-";
      for (const auto& file : records[scenario].loaded)
        if (fs::path(file).filename().string().rfind("libcuda.so", 0) == 0) libcuda = Shown(file);
      CHECK(libcuda == row.at("libcuda_loaded"));
      ++compared;
    }
  }
  CHECK(compared >= 30);
}

TEST_CASE("probe --record writes an observation that a later scan uses instead of its prediction") {
  ObservedScratch scratch;
  imagelint::validation::Rootfs rootfs(scratch.path / "root");
  rootfs.DebianBase();
  rootfs.Library("/opt/driver", fs::canonical(FAKE_LIBCUDA_MISMATCH), {"libcuda.so.1"});
  imagelint::validation::ImageConfig config;
  config.env = {"PATH=/usr/bin:/bin", "LD_LIBRARY_PATH=/opt/driver"};
  config.cmd = {"/bin/true"};
  std::string why;
  REQUIRE_MESSAGE(imagelint::validation::WriteOciLayout(scratch.path / "root", config, scratch.path / "image", &why), why);
  WriteFileText(scratch.path / "host.xml", ObservedH100Xml());
  fs::create_directories(scratch.path / "no-driver");
  const fs::path fleet = scratch.path / "fleet.yaml";
  WriteFileText(fleet, "# our GPU hosts\npools:\n  - name: other\n    gpu: NVIDIA A100-SXM4-80GB\n    driver: \"550.54.15\"\n");
  const std::vector<std::string> env = {"XDG_CACHE_HOME=" + (scratch.path / "cache").string()};
  std::vector<std::string> args = {"probe", (scratch.path / "image").string(), "--probe", PROBE_PROGRAM,
                                   "--nvidia-smi-xml", (scratch.path / "host.xml").string(), "--driver-dir",
                                   (scratch.path / "no-driver").string(), "--record", fleet.string(), "-f", "json"};
  auto run = RunImagelint(args, "", env);
  REQUIRE_MESSAGE((run.exit_code == 0 || run.exit_code == 1), run.out << run.err);
  json report = json::parse(run.out);
  const json& check = report["checks"][0];
  CHECK(check["observed"] == 803);
  CHECK(check["api"] == "drv.cuInit");
  const bool agrees = check["predicted"] == 803;
  CHECK(run.exit_code == (agrees ? 0 : 1));
  CHECK(check["match"] == (agrees ? "match" : "contradiction"));
  // The image's libcuda, first on its LD_LIBRARY_PATH, is the one that loaded.
  REQUIRE(report["checks"].size() == 2);
  CHECK(report["checks"][1]["predicted"] == "<image>/opt/driver/libcuda.so.1");
  CHECK(report["checks"][1]["observed"] == "<image>/opt/driver/libcuda.so.1");
  CHECK(report["checks"][1]["match"] == "match");

  // The fleet file keeps what was there and gains the host's pool with the observation.
  std::string written = ReadFileText(fleet);
  CHECK(written.rfind("# our GPU hosts\npools:\n  - name: other\n", 0) == 0);
  CHECK(written.find("observed:") != std::string::npos);
  CHECK(written.find("code: 803") != std::string::npos);
  // Recording again replaces the entry instead of adding a second one.
  REQUIRE(RunImagelint(args, "", env).exit_code == run.exit_code);
  std::string again = ReadFileText(fleet);
  CHECK(again.find("code: 803") == again.rfind("code: 803"));

  auto scan = RunImagelint({(scratch.path / "image").string(), "--fleet", fleet.string(), "-f", "json"}, "", env);
  REQUIRE_MESSAGE(scan.exit_code != 2, scan.err);
  json scanned = json::parse(scan.out);
  const std::string pool = report["pool"]["name"];
  const json* verdict = nullptr;
  for (const auto& v : scanned["images"][0]["verdicts"])
    if (v["pool"] == pool) verdict = &v;
  REQUIRE(verdict != nullptr);
  CHECK((*verdict)["status"] == "fail");
  CHECK((*verdict)["predicted_error"]["code"] == 803);
  CHECK((*verdict)["predicted_error"]["observed"] == true);
  CHECK((*verdict)["observed"]["host"] == report["host"]["name"]);
  CHECK((*verdict)["observation"] == (agrees ? "agrees" : "contradicts"));
  for (const auto& v : scanned["images"][0]["verdicts"])
    if (v["pool"] == "other") CHECK_FALSE(v.contains("observed"));  // only the pool it was seen on

  auto text = RunImagelint({(scratch.path / "image").string(), "--fleet", fleet.string()}, "", env);
  CHECK(text.out.find("observed on " + report["host"]["name"].get<std::string>() + ", " +
                      report["date"].get<std::string>()) != std::string::npos);
  if (!agrees) CHECK(text.out.find("CONTRADICTS the prediction") != std::string::npos);
}

TEST_CASE("observed: entries are checked like the rest of the fleet file") {
  ObservedScratch scratch;
  const std::string pool = "pools:\n  - name: h100\n    gpu: NVIDIA H100 80GB HBM3\n    driver: \"580.159.04\"\n    observed:\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"      - {image: \"sha256:ab\", code: 803, host: n1}\n", "needs 'host' and 'date'"},
      {"      - {code: 803, host: n1, date: \"2026-11-27\"}\n", "needs 'image' (a digest) or 'fact'"},
      {"      - {image: \"ubuntu:22.04\", code: 803, host: n1, date: \"2026-11-27\"}\n", "must be a digest"},
      {"      - {image: \"sha256:ab\", code: -5, host: n1, date: \"2026-11-27\"}\n", "must be a CUDA error code"},
      {"      - {image: \"sha256:ab\", code: 803, host: n1, date: \"27.11.2026\"}\n", "must be YYYY-MM-DD"},
      {"      - {image: \"sha256:ab\", code: 803, host: n1, date: \"2026-11-27\", by: me}\n", "unknown field 'by'"},
  };
  for (const auto& [entry, message] : cases) {
    INFO(entry);
    WriteFileText(scratch.path / "fleet.yaml", pool + entry);
    auto run = RunImagelint({"rootfs:/nonexistent-probe-test", "--fleet", (scratch.path / "fleet.yaml").string()});
    CHECK(run.exit_code == 2);
    CHECK(run.err.find(message) != std::string::npos);
    CHECK(run.err.find("fleet.yaml:6:") != std::string::npos);
  }
}
