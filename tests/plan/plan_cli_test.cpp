// `imagelint plan` on the command line: every format, the exit code of a
// change that breaks an image, shards and --merge, and bad input (exit 2).
#include <doctest/doctest.h>

#include "common/json.h"
#include "plan/plan_fixture.h"

namespace imagelint {
namespace {

using nlohmann::json;
using namespace plan_fixture;
using testing::RunImagelint;

struct CliFixture {
  testing::TempDir dir;
  std::string fleet = (dir / "fleet.yaml").string();
  std::string compat = (dir / "compat.Dockerfile").string();
  std::string torch = (dir / "torch.Dockerfile").string();
  CliFixture() {
    testing::WriteFileText(fleet, kSeedFleet);
    testing::WriteFileText(compat, kCompatBase);
    testing::WriteFileText(torch, kPypiTorch);
  }
};

TEST_CASE("a change that makes an image fail exits 1 and says why, in every format") {
  CliFixture f;
  const std::vector<std::string> plan = {"plan", f.compat, "--fleet", f.fleet, "--change",
                                         "a100-460: gpu=NVIDIA GeForce RTX 3090"};
  auto text = RunImagelint(plan);
  CHECK_MESSAGE(text.exit_code == 1, text.err);
  CHECK(text.out.find("a100-460         newly failing: pass -> fail (804 cudaErrorCompatNotSupportedOnDevice) [IL003]") !=
        std::string::npos);
  CHECK(text.out.find("1 image, 1 newly failing") != std::string::npos);

  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = plan;
    args.insert(args.end(), extra.begin(), extra.end());
    return RunImagelint(args);
  };
  auto as_json = with({"-f", "json"});
  CHECK(as_json.exit_code == 1);
  json document = json::parse(as_json.out);
  CHECK(document["schema"] == "imagelint.plan/v1");
  CHECK(document["summary"]["newly_failing"] == 1);
  CHECK(document["images"][0]["changes"][0]["after"]["predicted_error"]["code"] == 804);
  auto markdown = with({"-f", "markdown"});
  CHECK(markdown.out.find("| a100-460 | newly failing |") != std::string::npos);
  auto html = with({"-f", "html", "-o", (f.dir / "plan.html").string()});
  CHECK(html.exit_code == 1);
  std::string page = testing::ReadFileText(f.dir / "plan.html");
  CHECK(page.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(page.find("cudaErrorCompatNotSupportedOnDevice") != std::string::npos);

  // Upgrading the GeForce pool past the compat library is good news: exit 0.
  auto good = RunImagelint({"plan", f.compat, "--fleet", f.fleet, "--change", "rtx3090-460: driver=470.182.03"});
  CHECK(good.exit_code == 0);
  CHECK(good.out.find("newly passing") != std::string::npos);
}

TEST_CASE("--minimum-driver and --fixes on the command line") {
  CliFixture f;
  auto run = RunImagelint({"plan", f.compat, f.torch, "--fleet", f.fleet, "--minimum-driver", "--fixes"});
  CHECK_MESSAGE(run.exit_code == 0, run.err);
  CHECK(run.out.find("oldest driver on rtx3090-460 (NVIDIA GeForce RTX 3090): 465.19.01 (R465)") != std::string::npos);
  CHECK(run.out.find("+RUN rm -rf /usr/local/cuda-11.3/compat") != std::string::npos);
  CHECK(run.out.find("--extra-index-url https://download.pytorch.org/whl/cu11") != std::string::npos);
  CHECK(run.out.find("oldest driver per pool for every image") != std::string::npos);
}

TEST_CASE("shards planned apart merge into one plan") {
  CliFixture f;
  std::vector<std::string> paths;
  for (const char* shard : {"1/2", "2/2"}) {
    std::string out = (f.dir / (std::string("shard") + shard[0] + ".json")).string();
    auto run = RunImagelint({"plan", f.compat, f.torch, "--fleet", f.fleet, "--minimum-driver", "--shard", shard,
                             "-f", "json", "-o", out});
    CHECK_MESSAGE(run.exit_code == 0, run.err);
    paths.push_back(out);
  }
  auto merged = RunImagelint({"plan", "--merge", paths[0], paths[1], "-f", "json"});
  CHECK_MESSAGE(merged.exit_code == 0, merged.err);
  json document = json::parse(merged.out);
  CHECK(document["images"].size() == 2);
  auto whole = RunImagelint({"plan", f.compat, f.torch, "--fleet", f.fleet, "--minimum-driver", "-f", "json"});
  // The torch image runs on no driver (no sm_86 or sm_80 kernels): no floor.
  CHECK(document["floor"] == json::parse(whole.out)["floor"]);
  CHECK(document["floor"][0]["driver"].is_null());
  CHECK(document["floor"][0]["set_by"] == f.torch);
  CHECK(!document.contains("shard"));
}

TEST_CASE("bad plan input is exit 2 with the value named") {
  CliFixture f;
  struct Case {
    std::vector<std::string> args;
    const char* says;
  };
  const std::vector<Case> cases = {
      {{"plan", f.compat, "--fleet", f.fleet, "--change", "a100-460 driver=1"}, "--change 'a100-460 driver=1'"},
      {{"plan", f.compat, "--fleet", f.fleet, "--change", "a100-460: driver=new"}, "driver version"},
      {{"plan", f.compat, "--fleet", f.fleet, "--change", "gone: remove"}, "no pool named 'gone'"},
      {{"plan", f.compat, "--fleet", f.fleet}, "give a --change"},
      {{"plan", f.compat, "--fleet", f.fleet, "--fixes", "--shard", "3/2"}, "--shard"},
      {{"plan", "--merge", f.compat}, f.compat.c_str()},
      {{"plan", (f.dir / "missing.tar").string(), "--fleet", f.fleet, "--fixes"}, "no such file"},
  };
  for (const Case& one : cases) {
    auto run = RunImagelint(one.args);
    CAPTURE(one.args.back());
    CHECK(run.exit_code == 2);
    CHECK_MESSAGE(run.err.find(one.says) != std::string::npos, run.err);
  }
}

}  // namespace
}  // namespace imagelint
