// imagelint::Plan through the library: fleet changes, what they do to the
// seeds' images, the oldest driver, and fixes that a scan of the patched
// input (or of the changed fleet) confirms.
#include <doctest/doctest.h>

#include <algorithm>

#include "imagelint/knowledge.h"
#include "plan/plan_fixture.h"

namespace imagelint {
namespace {

using nlohmann::json;
using namespace plan_fixture;
using testing::TempDir;

struct PlanFixture {
  TempDir dir;
  Context context = Context::ForDataDirectory(testing::SourceDir());
  PlanFixture() {
    testing::WriteFileText(dir / "fleet.yaml", kSeedFleet);
    context.today = "2026-11-27";
    context.base_from = "knowledge";  // Dockerfile bases from the tables
  }
  PlanRequest Request(const std::string& name, const std::string& dockerfile) const {
    PlanRequest request;
    request.scan.inputs = {name};
    request.scan.dockerfile_texts[name] = dockerfile;
    request.scan.fleet_file = (dir / "fleet.yaml").string();
    return request;
  }
  // The scan a user would run on `dockerfile`: every pool's status.
  std::map<std::string, std::string> Statuses(const std::string& dockerfile, const std::string& fleet_file) const {
    ScanRequest request;
    request.inputs = {"Dockerfile"};
    request.dockerfile_texts["Dockerfile"] = dockerfile;
    request.fleet_file = fleet_file;
    auto result = Scan(request, context);
    REQUIRE_MESSAGE(result.ok(), result.error().ToString());
    std::map<std::string, std::string> out;
    for (const analysis::Verdict& verdict : result->report.images.at(0).verdicts)
      out[verdict.pool] = analysis::OutcomeName(verdict.status);
    return out;
  }
};

const plan::VerdictChange* ChangeOn(const plan::ImagePlan& image, const std::string& pool) {
  for (const auto& change : image.changes)
    if (change.pool == pool) return &change;
  return nullptr;
}

TEST_CASE("a --change is POOL: field=value, POOL: remove or *: field=value") {
  auto set = plan::ParseFleetChange("a100-535: driver=580.95.05, container_toolkit=1.18.1");
  REQUIRE(set.ok());
  CHECK(set->pool == "a100-535");
  CHECK(set->fields == std::vector<std::pair<std::string, std::string>>{{"driver", "580.95.05"},
                                                                         {"container_toolkit", "1.18.1"}});
  auto removed = plan::ParseFleetChange("k80: remove");
  REQUIRE(removed.ok());
  CHECK(removed->remove);
  CHECK(plan::ParseFleetChange("*: container_toolkit=1.17.8")->pool == "*");
  for (const char* bad : {"no colon", ": driver=1", "p: driver", "p: colour=blue", "p: driver=", "*: remove",
                          "p: driver=1.2, driver=1.3", "p:"}) {
    auto parsed = plan::ParseFleetChange(bad);
    CHECK_MESSAGE(!parsed.ok(), bad);
    if (!parsed.ok()) CHECK(parsed.error().ToString().find("--change") != std::string::npos);
  }
}

TEST_CASE("changes are checked and applied as the fleet loader reads a pool") {
  PlanFixture f;
  auto knowledge = Knowledge::Load(f.context.knowledge_dir, "");
  REQUIRE(knowledge.ok());
  auto fleet = ParseFleet(kSeedFleet, "fleet.yaml", *knowledge);
  REQUIRE(fleet.ok());
  auto change = [](const std::string& text) { return *plan::ParseFleetChange(text); };

  // A new GPU brings its own compute capability, brand and architecture.
  auto geforce = plan::ApplyFleetChanges(*fleet, {change("a100-460: gpu=NVIDIA GeForce RTX 3090")}, *knowledge);
  REQUIRE(geforce.ok());
  const Pool& moved = geforce->pools[1];
  CHECK(moved.gpu == "NVIDIA GeForce RTX 3090");
  CHECK(moved.compute_capability == "8.6");
  CHECK(moved.brand == "geforce");
  CHECK(moved.driver == "460.32.03");            // untouched fields stay
  CHECK(moved.container_toolkit == "1.5.1");

  auto all = plan::ApplyFleetChanges(*fleet, {change("*: container_toolkit=1.17.8"), change("rtx3090-460: remove"),
                                              change("b200: gpu=NVIDIA B200, driver=580.95.05")},
                                     *knowledge);
  REQUIRE(all.ok());
  REQUIRE(all->pools.size() == 2);
  CHECK(all->pools[0].name == "a100-460");
  CHECK(all->pools[0].container_toolkit == "1.17.8");
  // No runtime named: the launch paths judged follow the new toolkit (CDI
  // from 1.12.0), and a named runtime leaves none to judge.
  CHECK(fleet->pools[1].runtime_alternatives == std::vector<std::string>{"nvidia-runtime"});
  CHECK(all->pools[0].runtime_alternatives == std::vector<std::string>{"nvidia-runtime", "cdi"});
  auto named = plan::ApplyFleetChanges(*fleet, {change("a100-460: runtime=cdi, container_toolkit=1.18.1")}, *knowledge);
  REQUIRE(named.ok());
  CHECK(named->pools[1].runtime_alternatives.empty());
  CHECK(named->pools[1].runtime == "cdi");
  CHECK(all->pools[1].name == "b200");
  CHECK(all->pools[1].compute_capability == "10.0");
  CHECK(std::find(all->pools[1].defaulted.begin(), all->pools[1].defaulted.end(), "container_toolkit") !=
        all->pools[1].defaulted.end());

  auto bad_driver = plan::ApplyFleetChanges(*fleet, {change("a100-460: driver=latest")}, *knowledge);
  REQUIRE(!bad_driver.ok());
  CHECK(bad_driver.error().ToString().find("--change 'a100-460: driver=latest'") != std::string::npos);
  CHECK(bad_driver.error().ToString().find("driver version") != std::string::npos);
  CHECK(!plan::ApplyFleetChanges(*fleet, {change("nowhere: remove")}, *knowledge).ok());
  CHECK(!plan::ApplyFleetChanges(*fleet, {change("new: driver=580.95.05")}, *knowledge).ok());  // no gpu
  CHECK(!plan::ApplyFleetChanges(*fleet, {change("a100-460: remove"), change("rtx3090-460: remove")}, *knowledge).ok());
}

TEST_CASE("moving a pool to GeForce shows the 804 of an image with a newer compat libcuda; R470 clears it") {
  PlanFixture f;
  PlanRequest request = f.Request("compat.Dockerfile", kCompatBase);
  request.changes = {"a100-460: gpu=NVIDIA GeForce RTX 3090", "rtx3090-460: driver=470.182.03"};
  auto plan = Plan(request, f.context);
  REQUIRE_MESSAGE(plan.ok(), plan.error().ToString());
  REQUIRE(plan->images.size() == 1);
  const plan::ImagePlan& image = plan->images[0];
  const plan::VerdictChange* moved = ChangeOn(image, "a100-460");
  REQUIRE(moved != nullptr);
  CHECK(moved->kind == plan::ChangeKind::kNewlyFailing);
  CHECK(moved->before.status == "pass");
  CHECK(moved->after.error_code == 804);
  CHECK(moved->after.rule == "IL003");
  CHECK(moved->after.message.find("465.19.01") != std::string::npos);
  const plan::VerdictChange* upgraded = ChangeOn(image, "rtx3090-460");
  REQUIRE(upgraded != nullptr);
  CHECK(upgraded->kind == plan::ChangeKind::kNewlyPassing);
  CHECK(upgraded->before.error_code == 804);
  CHECK(plan::CountPlan(*plan).newly_failing == 1);

  // Nothing changes when the change does not touch what the image needs.
  request.changes = {"a100-460: count=32"};
  auto quiet = Plan(request, f.context);
  REQUIRE(quiet.ok());
  CHECK(quiet->images[0].changes.empty());
}

// Plan judges only the pools a change touches (a pool's verdict depends on
// the image and that pool alone): what it reports must be exactly what two
// full scans, before and after, differ by.
TEST_CASE("a plan reports exactly what two full scans of the fleets differ by") {
  PlanFixture f;
  const std::string wider = std::string(kSeedFleet) +
                            "  - name: t4-470\n    gpu: Tesla T4\n    driver: \"470.182.03\"\n"
                            "  - name: rtx3090-470-copy\n    gpu: NVIDIA GeForce RTX 3090\n    driver: \"470.182.03\"\n";
  testing::WriteFileText(f.dir / "fleet.yaml", wider);
  const std::vector<std::string> after_fleets = {
      // one pool changed, the others as they were
      std::string(kSeedFleet).replace(std::string(kSeedFleet).find("460.67"), 6, "470.182.03") +
          "  - name: t4-470\n    gpu: Tesla T4\n    driver: \"470.182.03\"\n"
          "  - name: rtx3090-470-copy\n    gpu: NVIDIA GeForce RTX 3090\n    driver: \"470.182.03\"\n",
      // one pool removed, one added, one renamed
      std::string(kSeedFleet) + "  - name: h100-550\n    gpu: NVIDIA H100 80GB HBM3\n    driver: \"550.54.15\"\n"
                                "  - name: t4-470-renamed\n    gpu: Tesla T4\n    driver: \"470.182.03\"\n",
  };
  for (const char* dockerfile : {kCompatBase, kPypiTorch}) {
    for (const std::string& after_text : after_fleets) {
      testing::WriteFileText(f.dir / "after.yaml", after_text);
      PlanRequest request = f.Request("Dockerfile", dockerfile);
      request.fleet_after = (f.dir / "after.yaml").string();
      auto plan = Plan(request, f.context);
      REQUIRE_MESSAGE(plan.ok(), plan.error().ToString());
      std::map<std::string, std::string> before = f.Statuses(dockerfile, (f.dir / "fleet.yaml").string());
      std::map<std::string, std::string> after = f.Statuses(dockerfile, (f.dir / "after.yaml").string());
      std::map<std::string, std::pair<std::string, std::string>> expected;  // pool -> (before, after) status
      for (const auto& [pool, status] : after)
        if (!before.count(pool) || before[pool] != status) expected[pool] = {before.count(pool) ? before[pool] : "", status};
      for (const auto& [pool, status] : before)
        if (!after.count(pool)) expected[pool] = {status, ""};
      std::map<std::string, std::pair<std::string, std::string>> reported;
      for (const auto& change : plan->images[0].changes)
        if (change.before.status != change.after.status) reported[change.pool] = {change.before.status, change.after.status};
      CHECK(reported == expected);
    }
  }
}

TEST_CASE("the oldest driver is the first candidate the rules pass, with the verdict just below") {
  PlanFixture f;
  PlanRequest request = f.Request("compat.Dockerfile", kCompatBase);
  request.minimum_driver = true;
  auto plan = Plan(request, f.context);
  REQUIRE_MESSAGE(plan.ok(), plan.error().ToString());
  const auto& minimum = plan->images[0].minimum_drivers;
  REQUIRE(minimum.size() == 2);
  CHECK(minimum[0].pool == "rtx3090-460");
  CHECK(minimum[0].driver == "465.19.01");  // the compat library's own version (example 1's fix)
  CHECK(minimum[0].branch == 465);
  CHECK(minimum[0].deciding.error_code == 804);
  CHECK(minimum[0].at.status == "pass");
  // The A100 runs the image through forward compatibility on R450 already;
  // below R450 (its architecture's first branch) nothing is tried.
  CHECK(minimum[1].pool == "a100-460");
  REQUIRE(!minimum[1].driver.empty());
  CHECK(minimum[1].branch >= 450);
  REQUIRE(plan->floor.size() == 2);
  CHECK(plan->floor[0].driver == "465.19.01");
  CHECK(plan->floor[0].set_by == "compat.Dockerfile");

  // Each minimum, put into the fleet, is a pass for a scan.
  std::string fleet = std::string(kSeedFleet);
  fleet.replace(fleet.find("460.67"), 6, minimum[0].driver);
  testing::WriteFileText(f.dir / "minimum.yaml", fleet);
  CHECK(f.Statuses(kCompatBase, (f.dir / "minimum.yaml").string())["rtx3090-460"] != "fail");
}

TEST_CASE("fixes are the seeds' fixes, and a scan of the patched Dockerfile passes every pool") {
  PlanFixture f;
  for (const char* dockerfile : {kCompatBase, kPypiTorch}) {
    CAPTURE(dockerfile);
    PlanRequest request = f.Request("Dockerfile", dockerfile);
    request.fixes = true;
    auto plan = Plan(request, f.context);
    REQUIRE_MESSAGE(plan.ok(), plan.error().ToString());
    const plan::ImagePlan& image = plan->images[0];
    REQUIRE(!image.failing_pools.empty());
    REQUIRE(!image.fixes.empty());
    for (const plan::Fix& fix : image.fixes) {
      CAPTURE(fix.description);
      CHECK(fix.kind == "dockerfile");
      CHECK(!fix.assumes.empty());
      std::string patched = ApplyDiff(dockerfile, fix.diff);
      CHECK(patched != dockerfile);
      for (const auto& [pool, status] : f.Statuses(patched, (f.dir / "fleet.yaml").string()))
        CHECK_MESSAGE(status != "fail", pool);
    }
    CHECK(image.fixes[0].pools == image.failing_pools);  // a whole fix comes first
    if (std::string(dockerfile) == kCompatBase) {  // example 1: drop the compat package
      CHECK(image.fixes[0].description.find("/usr/local/cuda-11.3/compat") != std::string::npos);
    } else {  // example 4: a torch build with sm_80
      CHECK(image.fixes[0].description.find("torch 1.12 cu11") != std::string::npos);
      CHECK(image.fixes[0].diff.find("--extra-index-url https://download.pytorch.org/whl/cu11") != std::string::npos);
    }
  }
}

TEST_CASE("a change that fixes some failing pools is offered for those, and the rest are named") {
  PlanFixture f;
  // An H100 pool: torch 1.12.1+cu113 has no sm_90 and no PTX (209) whatever
  // the compat library does; dropping the compat directory fixes the GeForce pool only.
  testing::WriteFileText(f.dir / "fleet.yaml", std::string(kSeedFleet) +
                                                   "  - name: h100-580\n    gpu: NVIDIA H100 80GB HBM3\n"
                                                   "    driver: \"580.95.05\"\n    container_toolkit: \"1.18.1\"\n");
  PlanRequest request = f.Request("Dockerfile", kCompatBase);
  request.fixes = true;
  auto plan = Plan(request, f.context);
  REQUIRE_MESSAGE(plan.ok(), plan.error().ToString());
  const plan::ImagePlan& image = plan->images[0];
  CHECK(image.failing_pools == std::vector<std::string>{"rtx3090-460", "h100-580"});
  REQUIRE(!image.fixes.empty());
  const plan::Fix& partial = image.fixes[0];
  CHECK(partial.kind == "dockerfile");
  CHECK(partial.pools == std::vector<std::string>{"rtx3090-460"});
  auto statuses = f.Statuses(ApplyDiff(kCompatBase, partial.diff), (f.dir / "fleet.yaml").string());
  CHECK(statuses["rtx3090-460"] != "fail");
  CHECK(statuses["a100-460"] != "fail");  // a pool that ran still runs
  CHECK(image.no_fix.find("h100-580") != std::string::npos);
  CHECK(image.no_fix.find("rtx3090-460") == std::string::npos);
}

TEST_CASE("an image that is not a Dockerfile gets fleet changes, each proven by a scan on the changed fleet") {
  PlanFixture f;
  testing::WriteFileText(f.dir / "Dockerfile", kCompatBase);
  auto facts = ReadFacts((f.dir / "Dockerfile").string(), {}, f.context);
  REQUIRE_MESSAGE(facts.ok(), facts.error().ToString());
  testing::WriteFileText(f.dir / "image.json", facts->dump());
  PlanRequest request;
  request.scan.inputs = {(f.dir / "image.json").string()};
  request.scan.fleet_file = (f.dir / "fleet.yaml").string();
  request.fixes = true;
  auto plan = Plan(request, f.context);
  REQUIRE_MESSAGE(plan.ok(), plan.error().ToString());
  const plan::ImagePlan& image = plan->images[0];
  REQUIRE(image.fixes.size() == 1);
  const plan::Fix& fix = image.fixes[0];
  CHECK(fix.kind == "fleet");
  REQUIRE(fix.fleet_changes.size() == 1);
  CHECK(fix.fleet_changes[0] == "rtx3090-460: driver=465.19.01");
  auto knowledge = Knowledge::Load(f.context.knowledge_dir, "");
  auto fleet = ParseFleet(kSeedFleet, "fleet.yaml", *knowledge);
  auto changed = plan::ApplyFleetChanges(*fleet, {*plan::ParseFleetChange(fix.fleet_changes[0])}, *knowledge);
  REQUIRE(changed.ok());
  PlanRequest check = request;
  check.fixes = false;
  check.changes = fix.fleet_changes;
  auto after = Plan(check, f.context);
  REQUIRE(after.ok());
  REQUIRE(after->images[0].changes.size() == 1);
  CHECK(after->images[0].changes[0].kind == plan::ChangeKind::kNewlyPassing);
}

TEST_CASE("the plan document reads back as written, and shards merge into the whole") {
  PlanFixture f;
  PlanRequest request = f.Request("compat.Dockerfile", kCompatBase);
  request.scan.inputs.push_back("torch.Dockerfile");
  request.scan.dockerfile_texts["torch.Dockerfile"] = kPypiTorch;
  request.scan.inputs.push_back("compat2.Dockerfile");
  request.scan.dockerfile_texts["compat2.Dockerfile"] = kCompatBase;
  request.changes = {"a100-460: gpu=NVIDIA GeForce RTX 3090"};
  request.minimum_driver = true;
  request.fixes = true;
  auto whole = Plan(request, f.context);
  REQUIRE(whole.ok());
  json written = plan::WritePlanJson(*whole);
  auto read = plan::ReadPlanJson(written, "plan.json");
  REQUIRE_MESSAGE(read.ok(), read.error().ToString());
  CHECK(plan::WritePlanJson(*read) == written);

  std::vector<plan::PlanReport> shards;
  for (int k = 1; k <= 2; ++k) {
    PlanRequest shard = request;
    shard.shard_index = k;
    shard.shard_count = 2;
    auto one = Plan(shard, f.context);
    REQUIRE(one.ok());
    CHECK(one->shard == std::to_string(k) + "/2");
    shards.push_back(*plan::ReadPlanJson(plan::WritePlanJson(*one), "shard.json"));
  }
  CHECK(shards[0].images.size() == 2);
  CHECK(shards[1].images.size() == 1);
  auto merged = plan::MergePlans(shards);
  REQUIRE(merged.ok());
  json a = plan::WritePlanJson(*merged), b = written;
  // Same images (shard order differs from input order), same floor and counts.
  CHECK(a["summary"] == b["summary"]);
  CHECK(a["floor"] == b["floor"]);
  CHECK(a["images"].size() == b["images"].size());
  shards[1].changes = {"something else"};
  CHECK(!plan::MergePlans(shards).ok());

  for (const char* bad : {R"({"schema":"imagelint.report/v1"})", R"({"schema":"imagelint.plan/v1","fleet":1})",
                          R"({"schema":"imagelint.plan/v1","fleet":"f","changes":[],"pools_before":[],"pools_after":[],
                              "images":[{"ref":"x","digest":"","changes":[{"pool":"p","change":"exploded"}]}]})"})
    CHECK(!plan::ReadPlanJson(json::parse(bad), "bad.json").ok());
}

TEST_CASE("a plan without a fleet, or asking nothing, is an error") {
  PlanFixture f;
  PlanRequest request = f.Request("Dockerfile", kCompatBase);
  auto nothing = Plan(request, f.context);
  REQUIRE(!nothing.ok());
  CHECK(nothing.error().ToString().find("--change") != std::string::npos);
  request.minimum_driver = true;
  request.scan.fleet_file.clear();
  CHECK(!Plan(request, f.context).ok());
}

}  // namespace
}  // namespace imagelint
