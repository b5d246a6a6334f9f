// imagelint::Scan and the other library calls, without the command line:
// every input kind of a scan (images, facts documents, Dockerfiles),
// suppressions with the context's date, --min-severity and the gate, errors
// that name what failed; rules, explain, fleet import; the value parsers.
#include <doctest/doctest.h>

#include "imagelint/pipeline.h"
#include "imagelint/read_image.h"
#include "support/image_builder.h"
#include "support/test_support.h"

namespace imagelint {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using rules::Severity;
using testing::TempDir;
using testing::WriteFileText;

// The report document a scan writes (imagelint.report/v1), for assertions on its JSON.
json Document(const ScanResult& result) { return analysis::WriteReport(result.report); }

const char* kFleet = R"(defaults:
  runtime: docker-gpus
pools:
  - name: old-470
    gpu: NVIDIA A100-SXM4-40GB
    driver: "470.256.02"
  - name: new-550
    gpu: NVIDIA A100-SXM4-40GB
    driver: "550.54.15"
)";

// Image-scoped, fires on every image: a warning and a note to show and hide.
const char* kTeamRules = R"(rules:
  - id: T001
    name: always-warn
    title: Always warns
    summary: A test rule.
    severity: warning
    scope: image
    condition: "true"
    message: "always warns"
  - id: T002
    name: always-note
    title: Always notes
    summary: Another test rule.
    severity: note
    scope: image
    condition: "true"
    message: "always notes"
)";

struct Fixture {
  TempDir dir;
  Context context = Context::ForDataDirectory(testing::SourceDir());
  std::vector<std::string> warnings;
  Fixture() {
    WriteFileText(dir / "fleet.yaml", kFleet);
    WriteFileText(dir / "team.yaml", kTeamRules);
    testing::TestImage image;
    image.ref = "example.com/team/train:1";
    image.env = {"PATH=/usr/bin:/bin", "NVIDIA_REQUIRE_CUDA=cuda>=12.4"};
    image.Layer().File("etc/debian_version", "12.5\n").Dir("usr/bin");
    testing::WriteImage(image, testing::ImageKind::kOciLayout, dir / "train");
    context.cache_dir = (dir / "cache").string();
    context.today = "2026-06-01";
    context.base_from = "knowledge";  // Dockerfile bases from the tables: no engine or registry lookups
    context.warn = [this](const std::string& message) { warnings.push_back(message); };
  }
  ScanRequest Request(std::vector<std::string> inputs) const {
    ScanRequest request;
    request.inputs = std::move(inputs);
    request.fleet_file = (dir / "fleet.yaml").string();
    return request;
  }
};

const json& ImageVerdict(const json& image, const std::string& pool) {
  for (const auto& verdict : image["verdicts"])
    if (verdict["pool"] == pool) return verdict;
  FAIL("no verdict for " << pool);
  static const json none;
  return none;
}

config::Suppression Ignore(const std::string& rule, const std::string& expires = "") {
  config::Suppression s;
  s.rule = rule;
  s.reason = "the old pool is being drained";
  s.origin = "config";
  s.expires = expires;
  return s;
}

TEST_CASE("Scan: an image and its facts document give the same verdicts") {
  Fixture f;
  int progress_calls = 0;
  f.context.progress = [&](const ReadProgress& progress) {
    ++progress_calls;
    CHECK(progress.layers_total == 1);
  };
  auto result = Scan(f.Request({(f.dir / "train").string()}), f.context);
  REQUIRE_MESSAGE(result.ok(), imagelint::testing::ErrorText(result));
  CHECK(result->exit_code == 1);
  CHECK(progress_calls > 0);
  CHECK(f.warnings.empty());
  CHECK(fs::is_directory(f.dir / "cache" / "layers"));  // read through the context's cache
  const json image = Document(*result)["images"][0];
  CHECK(ImageVerdict(image, "old-470")["status"] == "fail");
  CHECK(ImageVerdict(image, "old-470")["predicted_error"]["name"] == "requirement-unsatisfied");
  CHECK(ImageVerdict(image, "new-550")["status"] == "pass");
  CHECK(Document(*result)["summary"]["verdicts"]["fail"] == 1);  // finalised
  CHECK(result->fleet.pools.size() == 2);

  auto facts = ReadFacts((f.dir / "train").string(), {}, f.context);
  REQUIRE(facts.ok());
  CHECK((*facts)["schema"] == "imagelint.facts/v1");
  CHECK(FactsText(*facts).find("NVIDIA_REQUIRE_CUDA") != std::string::npos);
  WriteFileText(f.dir / "train.json", facts->dump());
  auto from_document = Scan(f.Request({(f.dir / "train.json").string()}), f.context);
  REQUIRE(from_document.ok());
  CHECK(from_document->exit_code == 1);
  CHECK(Document(*from_document)["images"][0]["verdicts"] == image["verdicts"]);

  auto listing = ListImageTree((f.dir / "train").string(), "etc/*", {}, f.context);
  REQUIRE(listing.ok());
  CHECK(listing->find("/etc/debian_version") != std::string::npos);
}

TEST_CASE("Scan: suppressions expire on the context's date; --min-severity hides, the gate still counts") {
  Fixture f;
  auto request = f.Request({(f.dir / "train").string()});
  request.ignores = {Ignore("IL001", "2026-06-30")};
  auto suppressed = Scan(request, f.context);
  REQUIRE(suppressed.ok());
  CHECK(suppressed->exit_code == 0);
  CHECK(Document(*suppressed)["summary"]["suppressed"] == 1);

  f.context.today = "2026-07-01";
  auto expired = Scan(request, f.context);
  REQUIRE(expired.ok());
  CHECK(expired->exit_code == 1);
  CHECK(Document(*expired)["summary"]["expired_ignores"] == 1);

  request = f.Request({(f.dir / "train").string()});
  request.rule_files = {(f.dir / "team.yaml").string()};
  request.overrides = {{"IL001", std::nullopt, true}};
  auto warned = Scan(request, f.context);
  REQUIRE(warned.ok());
  CHECK(warned->exit_code == 0);  // --fail-on error: a warning and a note pass
  request.fail_on = Severity::kWarning;
  request.min_severity = Severity::kError;
  auto hidden = Scan(request, f.context);
  REQUIRE(hidden.ok());
  CHECK(hidden->exit_code == 1);
  CHECK(Document(*hidden)["images"][0]["findings"].empty());
  CHECK(Document(*hidden)["summary"]["hidden"]["warning"] == 1);
  CHECK(Document(*hidden)["summary"]["hidden"]["note"] == 1);
  request.fail_on = std::nullopt;
  CHECK(Scan(request, f.context)->exit_code == 0);
}

TEST_CASE("Scan: a Dockerfile input, its build args, target and inline ignores") {
  Fixture f;
  WriteFileText(f.dir / "Dockerfile",
                "# imagelint global ignore=IL015 the old pool is being drained\n"
                "ARG CUDA=12.4.1\n"
                "FROM nvidia/cuda:${CUDA}-runtime-ubuntu22.04 AS app\n"
                "FROM ubuntu:22.04 AS other\n");
  auto request = f.Request({(f.dir / "Dockerfile").string()});
  request.target = "app";
  auto ignored = Scan(request, f.context);
  REQUIRE_MESSAGE(ignored.ok(), imagelint::testing::ErrorText(ignored));
  CHECK(ignored->exit_code == 0);
  CHECK(Document(*ignored)["images"][0]["ref"] == (f.dir / "Dockerfile").string() + "#app");
  REQUIRE(Document(*ignored)["images"][0]["suppressed"].size() == 1);
  CHECK(Document(*ignored)["images"][0]["suppressed"][0]["suppressed_by"]["origin"] == "inline");

  request.inline_ignores = false;
  auto strict = Scan(request, f.context);
  REQUIRE(strict.ok());
  // 12.4.1's requirement lists R470, the forward-compat matrix does not: a
  // disputed fact (IL015, a warning), not a predicted 803.
  CHECK(strict->exit_code == 0);
  // (the image holds no GPU code beyond the toolkit's libraries, so the
  // kernel rules are decided and the warning is the verdict)
  CHECK(ImageVerdict(Document(*strict)["images"][0], "old-470")["status"] == "warn");
  CHECK(ImageVerdict(Document(*strict)["images"][0], "old-470")["predicted_error"].is_null());
  bool disputed = false;
  for (const auto& finding : json(Document(*strict)["images"][0]["findings"])) disputed = disputed || finding["rule"] == "IL015";
  CHECK(disputed);
  request.build_args = {{"CUDA", "11.8.0"}};  // 470 drivers run CUDA 11.8 without its compat package
  auto older = Scan(request, f.context);
  REQUIRE(older.ok());
  CHECK(older->exit_code == 0);
  CHECK(ImageVerdict(Document(*older)["images"][0], "old-470")["status"] == "pass");  // minor-version compatibility, no PTX
  request.target = "nope";
  auto missing = Scan(request, f.context);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().ToString().find("target stage \"nope\" not found") != std::string::npos);
}

// An inline ignore above FROM for IL013 was listed as unused
// while the IL013 error was printed (the finding named no Dockerfile line).
TEST_CASE("Scan: an inline ignore above FROM suppresses the platform mismatch it names") {
  Fixture f;
  WriteFileText(f.dir / "fleet.yaml", std::string(kFleet) +
                                          "  - name: gh200-arm64\n"
                                          "    gpu: NVIDIA GH200 480GB\n"
                                          "    driver: \"570.124.06\"\n"
                                          "    platform: linux/arm64\n");
  WriteFileText(f.dir / "Dockerfile",
                "# imagelint ignore=IL013 the arm pool never runs this service\n"
                "FROM --platform=linux/amd64 nvidia/cuda:12.4.1-runtime-ubuntu22.04\n"
                "CMD [\"true\"]\n");
  auto request = f.Request({(f.dir / "Dockerfile").string()});
  request.inline_ignores = false;
  auto strict = Scan(request, f.context);
  REQUIRE_MESSAGE(strict.ok(), imagelint::testing::ErrorText(strict));
  const json loud = Document(*strict)["images"][0];
  CHECK(ImageVerdict(loud, "gh200-arm64")["status"] == "fail");
  bool located = false;
  for (const auto& finding : loud["findings"]) {
    if (finding["rule"] != "IL013") continue;
    for (const auto& item : finding["evidence"]) located = located || item.value("dockerfile_line", 0) == 2;
  }
  CHECK(located);  // the finding points at the FROM line

  request.inline_ignores = true;
  auto ignored = Scan(request, f.context);
  REQUIRE(ignored.ok());
  const json image = Document(*ignored)["images"][0];
  for (const auto& finding : image["findings"]) CHECK(finding["rule"] != "IL013");
  REQUIRE(image["suppressed"].size() == 1);
  CHECK(image["suppressed"][0]["rule"] == "IL013");
  CHECK(image["suppressed"][0]["suppressed_by"]["origin"] == "inline");
  CHECK(Document(*ignored)["ignores"]["unused"].empty());
  CHECK(ImageVerdict(image, "gh200-arm64")["status"] != "fail");
}

TEST_CASE("Scan: errors name the input, fleet, rule or data directory that failed") {
  Fixture f;
  auto unreadable = Scan(f.Request({(f.dir / "nope.tar").string()}), f.context);
  REQUIRE_FALSE(unreadable.ok());
  CHECK(unreadable.error().ToString().find("nope.tar") != std::string::npos);

  WriteFileText(f.dir / "not-facts.json", "{\"hello\": 1}");
  auto not_facts = Scan(f.Request({(f.dir / "not-facts.json").string()}), f.context);
  REQUIRE_FALSE(not_facts.ok());
  CHECK(not_facts.error().ToString().find("not an imagelint.facts/v1 document") != std::string::npos);

  auto request = f.Request({(f.dir / "train").string()});
  request.fleet_file = (f.dir / "absent.yaml").string();
  auto no_fleet = Scan(request, f.context);
  REQUIRE_FALSE(no_fleet.ok());
  CHECK(no_fleet.error().ToString().find("absent.yaml") != std::string::npos);

  request = f.Request({(f.dir / "train").string()});
  request.overrides = {{"IL999", Severity::kNote, false}};
  auto unknown_rule = Scan(request, f.context);
  REQUIRE_FALSE(unknown_rule.ok());
  CHECK(unknown_rule.error().message.find("IL999") != std::string::npos);

  request = f.Request({(f.dir / "train").string()});
  request.read.platform = "a//b";
  auto bad_platform = Scan(request, f.context);
  REQUIRE_FALSE(bad_platform.ok());
  CHECK(bad_platform.error().ToString().find("--platform") != std::string::npos);

  Context nowhere = Context::ForDataDirectory(f.dir / "no-data");
  auto no_data = Scan(f.Request({(f.dir / "train").string()}), nowhere);
  REQUIRE_FALSE(no_data.ok());
  CHECK(no_data.error().ToString().find("no-data") != std::string::npos);
}

TEST_CASE("ScanRequestFromConfig: a merged configuration as a scan") {
  auto config = config::ParseConfig(
      "fleet: fleets/prod.yaml\nrules: [team.yaml]\nseverity: {IL010: error}\nfail-on: none\n"
      "min-severity: warning\nplatform: linux/arm64\ndockerfile: Dockerfile\ninline-ignores: false\n"
      "ignore:\n  - rule: IL003\n    reason: accepted\n",
      "ci/.imagelint.yaml");
  REQUIRE(config.ok());
  auto request = ScanRequestFromConfig(*config);
  REQUIRE(request.ok());
  CHECK(request->fleet_file == "ci/fleets/prod.yaml");
  CHECK(request->rule_files == std::vector<std::string>{"ci/team.yaml"});
  CHECK(request->overrides.size() == 1);
  CHECK(request->ignores.size() == 1);
  CHECK_FALSE(request->fail_on.has_value());
  CHECK(request->min_severity == Severity::kWarning);
  CHECK(request->read.platform == "linux/arm64");
  CHECK(request->dockerfile == "ci/Dockerfile");
  CHECK_FALSE(request->inline_ignores);
  auto defaults = ScanRequestFromConfig(config::Config{});
  REQUIRE(defaults.ok());
  CHECK(*defaults->fail_on == Severity::kError);
  CHECK(defaults->min_severity == Severity::kNote);
  CHECK(defaults->inline_ignores);
  config::Config bad;
  bad.file = "x.yaml";
  bad.fail_on = "fatal";
  auto rejected = ScanRequestFromConfig(bad);
  REQUIRE_FALSE(rejected.ok());
  CHECK(rejected.error().ToString() == "--fail-on (x.yaml): 'fatal' is not one of error, warning, note, none");
}

TEST_CASE("rules and explain: the context's rule and docs directories") {
  Fixture f;
  fs::create_directories(f.dir / "docs" / "rules");
  WriteFileText(f.dir / "docs" / "rules" / "T001.md", "# T001 always-warn\n");
  Context context = f.context;
  context.rules_dir = f.dir / "only-team";
  fs::create_directories(context.rules_dir);
  WriteFileText(context.rules_dir / "team.yaml", kTeamRules);
  context.docs_dir = f.dir / "docs";

  auto listed = ListRules({}, {{"T002", std::nullopt, true}}, context);
  REQUIRE(listed.ok());
  REQUIRE(listed->size() == 2);
  CHECK((*listed)[0].id == "T001");
  CHECK_FALSE((*listed)[1].enabled);
  CHECK_FALSE(ListRules({}, {{"T404", Severity::kNote, false}}, context).ok());

  auto by_id = ExplainRule("t001", {}, context);
  REQUIRE(by_id.ok());
  CHECK(by_id->text == "# T001 always-warn\n");
  CHECK(by_id->rule.id == "T001");
  CHECK(ExplainRule("always-warn", {}, context)->path == (f.dir / "docs" / "rules" / "T001.md").string());
  auto unknown = ExplainRule("T404", {}, context);
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().ToString() == "T404: no such rule; `imagelint rules` lists them");
  auto undocumented = ExplainRule("T002", {}, context);
  REQUIRE_FALSE(undocumented.ok());
  CHECK(undocumented.error().message.find("no documentation page") != std::string::npos);

  // The built-in rules all have their page in the checkout's docs.
  auto builtin = ListRules({}, {}, f.context);
  REQUIRE(builtin.ok());
  CHECK(builtin->size() > 10);
  for (const auto& rule : *builtin) CHECK_MESSAGE(ExplainRule(rule.id, {}, f.context).ok(), rule.id);
}

TEST_CASE("fleet import: text or file, and whether the written fleet loads") {
  Fixture f;
  fs::path csv = testing::SourceDir() / "tests" / "fleet_import" / "fixtures" / "container-cli-hosts.csv";
  auto from_file = ImportFleetFile(fleet_import::InputKind::kContainerCliCsv, csv.string(), "fleet.yaml", f.context);
  REQUIRE_MESSAGE(from_file.ok(), imagelint::testing::ErrorText(from_file));
  CHECK(from_file->imported.pools.size() == 3);
  CHECK(from_file->yaml.find("pools:") != std::string::npos);
  CHECK_FALSE(from_file->load_problem.has_value());
  auto from_text = ImportFleet(fleet_import::InputKind::kContainerCliCsv, testing::ReadFileText(csv), "<stdin>",
                               "fleet.yaml", f.context);
  REQUIRE(from_text.ok());
  CHECK(from_text->imported.pools.size() == 3);
  CHECK(from_text->imported.source == "<stdin>");
  auto broken = ImportFleet(fleet_import::InputKind::kKubernetesNodes, "{not json", "<stdin>", "fleet.yaml", f.context);
  CHECK_FALSE(broken.ok());
}

TEST_CASE("sizes and durations") {
  CHECK(*ParseByteSize("64G") == (uint64_t{64} << 30));
  CHECK(*ParseByteSize("1048576") == 1048576);
  CHECK_FALSE(ParseByteSize("10Q").ok());
  CHECK(*ParseDuration("30d") == 30 * 86400);
  CHECK(*ParseDuration("45") == 45);
  CHECK_FALSE(ParseDuration("3 weeks").ok());
  CHECK_FALSE(ParseDuration("1y").ok());
  CHECK(HumanBytes(1536) == "1.5 KiB");
  Context context = Context::ForDataDirectory("/opt/share/imagelint");
  CHECK(context.rules_dir == "/opt/share/imagelint/rules");
  CHECK(context.knowledge_dir == "/opt/share/imagelint/rules/knowledge");
  CHECK(context.docs_dir == "/opt/share/imagelint/docs");
  CHECK(context.cache_dir.empty());
}

}  // namespace
}  // namespace imagelint
