// Reporters: golden output per format, SARIF against the official schema and
// GitHub's reading of it, --format parsing and output planning, file output,
// colour, the other commands' output.
#include <set>
#include <sstream>

#include <doctest/doctest.h>

#include "imagelint/analysis.h"
#include "imagelint/config.h"
#include "imagelint/report.h"
#include "report/sample_report.h"
#include "support/test_support.h"

namespace imagelint::report {
namespace {

using testing::Finalized;
using nlohmann::json;
using testing::Typed;
using testing::SampleReport;

// Docs pages for SARIF help.markdown come from a directory the test controls.
struct DocsFixture {
  testing::TempDir dir;
  DocsFixture() {
    std::filesystem::create_directories(dir / "rules");
    testing::WriteFileText(dir / "rules" / "IL003.md",
                           "# IL003 forward-compat-unsupported-gpu\n\nThe forward-compatibility package only works "
                           "on data-center GPUs.\n");
  }
  RenderOptions Options() const {
    RenderOptions options;
    options.docs_dir = dir.path().string();
    options.dockerfile = "Dockerfile";
    return options;
  }
};

json Shown(Severity min = Severity::kNote) {
  // One suppressed finding and one expired ignore, so every format shows them.
  config::Suppression inline_ignore;
  inline_ignore.rule = "IL010";
  inline_ignore.reason = "JIT on first launch is accepted for the A100 pool";
  inline_ignore.origin = "inline";
  inline_ignore.file = "Dockerfile";
  inline_ignore.line = 9;
  inline_ignore.pool = "a100-*";
  config::Suppression expired;
  expired.rule = "IL020";
  expired.reason = "label fixed upstream";
  expired.origin = "config";
  expired.file = ".imagelint.yaml";
  expired.line = 4;
  expired.expires = "2026-01-31";
  json report = testing::Suppress(SampleReport(), {inline_ignore, expired}, "2026-11-22");
  return Finalized(report, {.min_severity = min});
}

TEST_CASE("golden: every format from one report") {
  DocsFixture docs;
  json report = Shown();
  auto rules = RulesFromReport(Typed(report));
  REQUIRE(rules.size() == 3);
  testing::CheckGolden("report/golden/sample.txt", RenderText(Typed(report), docs.Options()));
  testing::CheckGolden("report/golden/sample.json", RenderJson(Typed(report)));
  testing::CheckGolden("report/golden/sample.sarif", RenderSarif(Typed(report), rules, docs.Options()));
  testing::CheckGolden("report/golden/sample.junit.xml", RenderJunit(Typed(report)));
  testing::CheckGolden("report/golden/sample.github.txt", RenderGithub(Typed(report), docs.Options()));
  testing::CheckGolden("report/golden/sample.md", RenderMarkdown(Typed(report), rules, docs.Options()));
  RenderOptions colored = docs.Options();
  colored.color = true;
  testing::CheckGolden("report/golden/sample.color.txt", RenderText(Typed(report), colored));
}

// The document's one reader and writer agree on every report this suite
// keeps whole: reading a written report and writing it again gives it back.
TEST_CASE("report document: read and written back unchanged") {
  std::vector<json> documents = {Shown(), SampleReport()};
  const std::string cli = testing::ReadFileText(testing::SourceDir() / "tests/cli_scan/golden/scan.json.stdout.exact");
  documents.push_back(json::parse(cli));  // the CLI golden: one scan of five Dockerfiles
  REQUIRE(documents.size() == 3);
  for (const json& document : documents) {
    auto read = analysis::ReadReport(document, "report.json");
    REQUIRE_MESSAGE(read.ok(), read.error().ToString());
    CHECK(analysis::WriteReport(*read) == document);
  }
  json unknown = Shown();
  unknown["summary"]["colour"] = "red";
  auto refused = analysis::ReadReport(unknown, "report.json");
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().ToString() == "report.json: summary.colour: unknown field");
  json other = Shown();
  other["schema"] = "imagelint.facts/v1";
  CHECK_FALSE(analysis::ReadReport(other, "report.json").ok());
}

// Reporters for people escape control characters in every string of the
// report through MapReportStrings: it must reach strings at every depth,
// map keys and the parts of platforms (all from hostile images).
TEST_CASE("report document: every string, map key and platform part is mapped") {
  json document = Shown();
  document["fleet"]["pools"][0]["selector_labels"] = {{"gpu\x1b", "a100"}};
  document["images"][0]["verdicts"][0]["platform"] = "linux/arm64/v8";
  analysis::Report mapped =
      analysis::MapReportStrings(testing::Typed(document), [](std::string_view text) { return "<" + std::string(text) + ">"; });
  const analysis::ImageReport& image = mapped.images[0];
  CHECK(image.ref == "<" + document["images"][0]["ref"].get<std::string>() + ">");
  CHECK(image.findings[0].message == "<" + document["images"][0]["findings"][0]["message"].get<std::string>() + ">");
  REQUIRE(image.findings[0].evidence[0].path);
  CHECK(*image.findings[0].evidence[0].path ==
        "<" + document["images"][0]["findings"][0]["evidence"][0]["path"].get<std::string>() + ">");
  REQUIRE(image.verdicts[0].platform);
  CHECK(image.verdicts[0].platform->os == "<linux>");
  CHECK(image.verdicts[0].platform->architecture == "<arm64>");
  REQUIRE(mapped.fleet);
  REQUIRE(mapped.fleet->pools[0].selector_labels);
  CHECK(mapped.fleet->pools[0].selector_labels->count("<gpu\x1b>") == 1);
  CHECK(mapped.fleet->pools[0].selector_labels->at("<gpu\x1b>") == "<a100>");
  REQUIRE(mapped.ignores);
  REQUIRE(mapped.ignores->expired);
  CHECK(mapped.ignores->expired->at(0).entry.reason.front() == '<');
  // Enums are not text: they keep their values.
  CHECK(image.findings[0].severity == testing::Typed(document).images[0].findings[0].severity);
}

TEST_CASE("golden: a single image without a fleet") {
  json report = SampleReport();
  report["fleet"]["pools"] = json::array();
  json image = report["images"][1];
  image["verdicts"] = json::array();
  for (auto& finding : image["findings"]) finding["pools"] = json::array();
  report["images"] = json::array({image});
  report = Finalized(report);
  RenderOptions options;
  options.docs_dir = "/nonexistent";
  testing::CheckGolden("report/golden/no-fleet.txt", RenderText(Typed(report), options));
  testing::CheckGolden("report/golden/no-fleet.junit.xml", RenderJunit(Typed(report)));
  testing::CheckGolden("report/golden/no-fleet.md", RenderMarkdown(Typed(report), RulesFromReport(Typed(report)), options));
}

TEST_CASE("text: fits 80 columns, colour only when asked") {
  json report = Shown();
  std::string plain = RenderText(Typed(report));
  std::istringstream lines(plain);
  std::string line;
  int count = 0;
  while (std::getline(lines, line)) {
    ++count;
    // UTF-8 em dashes count as one column each.
    size_t columns = 0;
    for (unsigned char c : line) columns += (c & 0xC0) != 0x80;
    CHECK_MESSAGE(columns <= 80, line);
  }
  CHECK(count > 20);
  CHECK(plain.find("\x1b[") == std::string::npos);
  RenderOptions colored;
  colored.color = true;
  std::string with_color = RenderText(Typed(report), colored);
  CHECK(with_color.find("\x1b[1mSUPPRESSED (1)\x1b[0m") != std::string::npos);
  // Verdicts with predicted errors, findings, suppression and summary are all there.
  CHECK(plain.find("IMAGE build/app.tar (sha256:aaaaaaaaaaaa)\n") != std::string::npos);
  CHECK(plain.find("  rtx3090-460  fail     804 cudaErrorCompatNotSupportedOnDevice (cuInit)\n") != std::string::npos);
  CHECK(plain.find("  h100-550     pass     -\n") != std::string::npos);
  CHECK(plain.find("warning IL010 no-sass-for-gpu [rtx3090-460]") != std::string::npos);  // a100-* suppressed
  CHECK(plain.find("SUPPRESSED (1)") != std::string::npos);
  CHECK(plain.find("EXPIRED IGNORES (1)") != std::string::npos);
  CHECK(plain.find("1 suppressed") != std::string::npos);
}

TEST_CASE("--format parsing") {
  auto sarif = ParseFormatRequest("sarif=out/x.sarif");
  REQUIRE(sarif.ok());
  CHECK(sarif->format == Format::kSarif);
  CHECK(sarif->path == "out/x.sarif");
  auto text = ParseFormatRequest("text");
  REQUIRE(text.ok());
  CHECK(text->path.empty());
  CHECK_FALSE(ParseFormatRequest("xml").ok());
  CHECK_FALSE(ParseFormatRequest("sarif=").ok());
  CHECK(ParseFormatRequest("xml").error().message.find("unknown format 'xml'") != std::string::npos);
  for (const auto& name : FormatNames()) CHECK(ParseFormat(name).ok());
}

TEST_CASE("PlanOutputs: default text, --output with one format, one format on stdout") {
  config::Config config;
  auto defaults = PlanOutputs(config);
  REQUIRE(defaults.ok());
  REQUIRE(defaults->requests.size() == 1);
  CHECK(defaults->requests[0].format == Format::kText);
  CHECK(defaults->requests[0].path.empty());
  CHECK(defaults->render.docs_base_uri.empty());  // no public home: no links unless --docs-url

  config.formats = {"sarif=out.sarif", "text", "k8s=advice.yaml"};
  config.docs_url = "https://git.example.com/mirror/imagelint/-/blob/main";
  config.dockerfile = "Dockerfile";
  auto several = PlanOutputs(config);
  REQUIRE(several.ok());
  REQUIRE(several->requests.size() == 3);
  CHECK(several->requests[0].path == "out.sarif");
  CHECK(several->requests[2].format == Format::kK8s);
  CHECK(several->render.docs_base_uri == "https://git.example.com/mirror/imagelint/-/blob/main/");
  CHECK(several->render.dockerfile == "Dockerfile");

  config.formats = {"json"};
  config.output = "report.json";
  auto output = PlanOutputs(config);
  REQUIRE(output.ok());
  CHECK(output->requests[0].path == "report.json");
  config.formats = {"json", "text"};
  auto two = PlanOutputs(config);
  REQUIRE_FALSE(two.ok());
  CHECK(two.error().message.find("single --format") != std::string::npos);
  config.output.reset();
  auto two_stdout = PlanOutputs(config);
  REQUIRE_FALSE(two_stdout.ok());
  CHECK(two_stdout.error().message.find("only one format") != std::string::npos);
  config.formats = {"xml"};
  CHECK_FALSE(PlanOutputs(config).ok());
}

TEST_CASE("rule lists and cache usage: text, json, markdown") {
  rules::RuleInfo on;
  on.id = "T001";
  on.name = "always-warn";
  on.title = "Always warns | on every image";
  on.severity = Severity::kWarning;
  on.scope = rules::Scope::kImage;
  rules::RuleInfo off = on;
  off.id = "T002";
  off.name = "off-rule";
  off.title = std::string(120, 'x');
  off.enabled = false;
  auto text = RenderRuleList({on, off}, Format::kText);
  REQUIRE(text.ok());
  CHECK(text->find("T001   warning   image  Always warns | on every image\n") != std::string::npos);
  CHECK(text->find("T002   off       image  xxx") != std::string::npos);
  CHECK(text->find("2 rules;") != std::string::npos);
  std::istringstream lines(*text);
  std::string line;
  while (std::getline(lines, line)) CHECK(line.size() <= 80);
  auto markdown = RenderRuleList({on}, Format::kMarkdown);
  REQUIRE(markdown.ok());
  CHECK(markdown->find("| [T001](docs/rules/T001.md) | always-warn | warning | image | Always warns / on every image |") !=
        std::string::npos);
  auto list = json::parse(*RenderRuleList({on, off}, Format::kJson));
  CHECK(list[1]["enabled"] == false);
  CHECK(list[0]["scope"] == "image");
  CHECK_FALSE(RenderRuleList({on}, Format::kSarif).ok());

  CacheUsage usage;
  usage.layers = 2;
  usage.layer_bytes = 1536;
  CHECK(*RenderCacheUsage("/c", usage, Format::kText) ==
        "/c: 2 layers (1.5 KiB), 0 verified-blob stamps (0 B), total 1.5 KiB\n");
  CHECK(json::parse(*RenderCacheUsage("/c", usage, Format::kJson))["total_bytes"] == 1536);
  PruneResult pruned;
  pruned.before = usage;
  pruned.layers_removed = 2;
  CHECK(RenderCachePrune("/c", pruned, Format::kText)->rfind("/c: removed 2 layers, ", 0) == 0);
  CHECK(json::parse(*RenderCachePrune("/c", pruned, Format::kJson))["removed"]["layers"] == 2);
  CHECK_FALSE(RenderCacheUsage("/c", usage, Format::kMarkdown).ok());
}

TEST_CASE("WriteReports: files and stdout, errors name the file") {
  testing::TempDir dir;
  json report = Shown();
  auto rules = RulesFromReport(Typed(report));
  std::ostringstream out;
  RenderOptions options;
  options.color = true;  // never into files
  std::vector<FormatRequest> requests = {{Format::kSarif, (dir / "out.sarif").string()},
                                         {Format::kText, (dir / "out.txt").string()},
                                         {Format::kJson, ""}};
  auto status = WriteReports(Typed(report), rules, requests, options, out);
  REQUIRE(status.ok());
  CHECK(json::parse(out.str()) == report);
  CHECK(json::parse(testing::ReadFileText(dir / "out.sarif"))["version"] == "2.1.0");
  CHECK(testing::ReadFileText(dir / "out.txt").find("\x1b[") == std::string::npos);

  std::vector<FormatRequest> two_stdout = {{Format::kText, ""}, {Format::kJson, "-"}};
  auto clash = WriteReports(Typed(report), rules, two_stdout, options, out);
  REQUIRE_FALSE(clash.ok());
  CHECK(clash.error().message.find("only one format") != std::string::npos);

  std::vector<FormatRequest> bad = {{Format::kJson, (dir / "missing" / "x.json").string()}};
  auto unwritable = WriteReports(Typed(report), rules, bad, options, out);
  REQUIRE_FALSE(unwritable.ok());
  CHECK(unwritable.error().subject == (dir / "missing" / "x.json").string());
}

// --- SARIF -----------------------------------------------------------------

bool HavePythonJsonschema() {
  return testing::RunCommand({"python3", "-c", "import jsonschema"}, "", 60).exit_code == 0;
}

// Microsoft's SARIF multitool (npm @microsoft/sarif-multitool, pinned in
// tools/sarif-multitool and installed there by scripts/setup.sh), or
// $IMAGELINT_SARIF_MULTITOOL. The npm wrapper runs its argument list through a
// shell, so the native program is called directly.
std::filesystem::path MultitoolPackage() {
  return testing::SourceDir() / "tools" / "sarif-multitool" / "node_modules" / "@microsoft" / "sarif-multitool-linux";
}
std::filesystem::path Multitool() {
  if (const char* env = std::getenv("IMAGELINT_SARIF_MULTITOOL")) return env;
  return MultitoolPackage() / "Sarif.Multitool";
}

// Every SARIF log imagelint writes for the tests: the sample (errors,
// suppressions, two images), undecided findings, a Dockerfile input, no
// finding at all.
std::vector<std::pair<std::string, std::string>> SarifLogs() {
  DocsFixture docs;
  RenderOptions options = docs.Options();
  options.docs_dir = (testing::SourceDir() / "docs").string();
  json sample = Shown();
  json undecided = Finalized(testing::UndecidedReport());
  json empty = Finalized(json{{"schema", "imagelint.report/v1"}, {"images", json::array()}});
  RenderOptions linked = options;
  linked.docs_base_uri = "https://git.example.com/tools/imagelint/-/blob/main/";
  // --images-from/--all-tags: an image that could not be read (a tool execution notification).
  json unreadable = sample;
  unreadable["images"].push_back({{"ref", "registry.example/team/app:broken"}, {"digest", ""}, {"status", "error"},
                                  {"error", "registry.example/team/app:broken: manifest digest mismatch"},
                                  {"findings", json::array()}, {"verdicts", json::array()}});
  unreadable["summary"]["unreadable"] = 1;
  // --baseline: the first finding new, the others unchanged, one fixed (baselineState absent).
  json earlier = sample;
  json gone = earlier["images"][0]["findings"][0];
  gone["rule"] = "IL099";
  gone["name"] = "gone-since";
  earlier["images"][0]["findings"][0] = gone;
  analysis::Report typed = testing::Typed(sample);
  analysis::ApplyBaseline(typed, testing::Typed(earlier), "earlier.json");
  const json compared = analysis::WriteReport(typed);
  REQUIRE(compared["images"][0]["findings"][0]["baseline_state"] == "new");
  REQUIRE(compared["images"][0]["fixed"].size() == 1);
  return {{"sample.sarif", RenderSarif(Typed(sample), RulesFromReport(Typed(sample)), options)},
          {"unreadable.sarif", RenderSarif(Typed(unreadable), RulesFromReport(Typed(unreadable)), options)},
          {"baseline.sarif", RenderSarif(Typed(compared), RulesFromReport(Typed(compared)), options)},
          {"linked.sarif", RenderSarif(Typed(sample), RulesFromReport(Typed(sample)), linked)},
          {"undecided.sarif", RenderSarif(Typed(undecided), RulesFromReport(Typed(undecided)), options)},
          {"empty.sarif", RenderSarif(Typed(empty), {}, options)}};
}

TEST_CASE("sarif: Microsoft's SARIF multitool finds no error (schema and GitHub's ingestion rules)") {
  if (!testing::NeedExternal("SARIF multitool", std::filesystem::exists(Multitool()),
                             "bash scripts/setup.sh installs it into tools/sarif-multitool (npm ci)"))
    return;
  testing::TempDir dir;
  for (const auto& [name, text] : SarifLogs()) {
    testing::WriteFileText(dir / name, text);
    std::filesystem::path verdict = dir / (name + ".validation.sarif");
    // Rule kinds: Sarif (the schema and the specification's rules) and Gh
    // (what GitHub code scanning requires to ingest a log).
    auto run = testing::RunCommand({Multitool().string(), "validate", (dir / name).string(), "--rule-kind", "Sarif;Gh",
                                    "--output", verdict.string(), "--quiet"},
                                   "", 300, {"DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1", "DOTNET_CLI_TELEMETRY_OPTOUT=1"});
    REQUIRE_MESSAGE(run.exit_code == 0, name << ": " << run.out << run.err);
    REQUIRE_MESSAGE(std::filesystem::exists(verdict), name << ": " << run.out << run.err);
    json log = json::parse(testing::ReadFileText(verdict));
    size_t problems = 0;
    std::string listing;
    for (const auto& result : log["runs"][0]["results"]) {
      std::string level = result.value("level", "warning");
      std::string rule = result.value("ruleId", "");
      // GitHub-side (GH*), schema (JSON*) and specification (SARIF1*) rules
      // are errors; SARIF2xxx are style advice the multitool reports as
      // warnings or notes, and they must not appear either.
      if (level == "none" || level == "pass") continue;
      // The one piece of advice imagelint does not take: SARIF2005 asks for
      // the tool's informationUri, and imagelint has no public home (the
      // address used before belonged to another project); it is written
      // when --docs-url names one (linked.sarif).
      if (rule == "SARIF2005" && name != "linked.sarif" &&
          result["message"].dump().find("Warning_ProvideToolnformationUri") != std::string::npos)
        continue;
      ++problems;
      listing += rule + " " + level + ": " + result["message"].value("text", result["message"].dump()) + "\n";
    }
    CHECK_MESSAGE(problems == 0, name << ":\n" << listing);
  }
}

TEST_CASE("sarif: validates against the SARIF 2.1.0 schema the multitool ships") {
  std::filesystem::path schema = MultitoolPackage() / "sarif-2.1.0.json";
  if (!testing::NeedExternal("SARIF multitool", std::filesystem::exists(schema),
                             "bash scripts/setup.sh installs it into tools/sarif-multitool (npm ci)"))
    return;
  if (!testing::NeedExternal("python3-jsonschema", HavePythonJsonschema(), "validates SARIF against its JSON schema"))
    return;
  testing::TempDir dir;
  std::vector<std::string> argv = {"python3", "-c",
                                   "import json, sys, jsonschema\n"
                                   "schema = json.load(open(sys.argv[1]))\n"
                                   "v = jsonschema.validators.validator_for(schema)(schema)\n"
                                   "bad = 0\n"
                                   "for path in sys.argv[2:]:\n"
                                   "    for e in v.iter_errors(json.load(open(path))):\n"
                                   "        bad += 1\n"
                                   "        print(path, list(e.absolute_path), e.message)\n"
                                   "print('errors', bad)\n"
                                   "sys.exit(1 if bad else 0)\n",
                                   schema.string()};
  for (const auto& [name, text] : SarifLogs()) {
    testing::WriteFileText(dir / name, text);
    argv.push_back((dir / name).string());
  }
  auto result = testing::RunCommand(argv, "", 120);
  CHECK_MESSAGE(result.exit_code == 0, (result.out + result.err));
  CHECK(result.out.find("errors 0") != std::string::npos);
}

// What GitHub reads and how it fingerprints: "SARIF support for code scanning",
// https://docs.github.com/en/code-security/code-scanning/integrating-with-code-scanning/sarif-support-for-code-scanning
TEST_CASE("sarif: what GitHub code scanning reads") {
  DocsFixture docs;
  json report = Shown();
  json log = json::parse(RenderSarif(Typed(report), RulesFromReport(Typed(report)), docs.Options()));
  REQUIRE(log["runs"].size() == 1);
  const json& run = log["runs"][0];
  const json& driver = run["tool"]["driver"];
  CHECK(driver["name"] == "imagelint");
  CHECK(driver.contains("semanticVersion"));
  const json& rules = driver["rules"];
  REQUIRE(rules.size() == 3);
  for (const auto& rule : rules) {
    CHECK(rule["shortDescription"]["text"].get<std::string>().size() <= 1024);
    CHECK_FALSE(rule["fullDescription"]["text"].get<std::string>().empty());
    CHECK_FALSE(rule["help"]["text"].get<std::string>().empty());
    CHECK_FALSE(rule["help"]["markdown"].get<std::string>().empty());
    CHECK_FALSE(rule.contains("helpUri"));  // only with --docs-url
    std::string level = rule["defaultConfiguration"]["level"];
    CHECK((level == "error" || level == "warning" || level == "note"));
  }
  CHECK(rules[0]["help"]["markdown"].get<std::string>().find("data-center GPUs") != std::string::npos);
  CHECK(rules[0]["help"]["text"].get<std::string>().find("IL003 forward-compat-unsupported-gpu\n\nThe forward") == 0);
  CHECK_FALSE(driver.contains("informationUri"));
  CHECK(rules[1]["name"] == "no-sass-for-gpu");

  const json& results = run["results"];
  // 4 shown findings + 1 suppressed (kept, with suppressions[]).
  REQUIRE(results.size() == 5);
  std::set<std::string> fingerprints;
  for (const auto& result : results) {
    int index = result["ruleIndex"];
    CHECK(rules[index]["id"] == result["ruleId"]);
    const json& first = result["locations"][0]["physicalLocation"];
    CHECK_FALSE(first["artifactLocation"]["uri"].get<std::string>().empty());
    CHECK(first["region"]["startLine"].get<int>() >= 1);
    fingerprints.insert(result["partialFingerprints"]["primaryLocationLineHash"].get<std::string>());
    if (result.contains("analysisTarget")) CHECK(result["analysisTarget"]["uri"].is_string());
  }
  CHECK(fingerprints.size() == results.size());

  // IL003 has a Dockerfile line: the first location is the Dockerfile, the
  // image file follows as a related location under the image's base id.
  const json& il003 = results[0];
  CHECK(il003["ruleId"] == "IL003");
  CHECK(il003["level"] == "error");
  CHECK(il003["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "Dockerfile");
  CHECK(il003["locations"][0]["physicalLocation"]["region"]["startLine"] == 7);
  const json& related = il003["relatedLocations"][0]["physicalLocation"]["artifactLocation"];
  CHECK(related["uri"] == "usr/local/cuda-12.4/compat/libcuda.so.550.54.15");
  std::string base_id = related["uriBaseId"];
  CHECK(run["originalUriBaseIds"].contains(base_id));
  CHECK(base_id.find("build/app.tar") != std::string::npos);
  CHECK(run["artifacts"][0]["location"]["uri"] == "build/app.tar");
  CHECK(run["artifacts"][0]["roles"][0] == "analysisTarget");

  // Without a Dockerfile line: the file inside the image is the location.
  const json& il010 = results[1];
  CHECK(il010["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "opt/app/lib/libkernels.so");
  CHECK(il010["locations"][0]["physicalLocation"]["artifactLocation"]["uriBaseId"] == base_id);
  // The registry image: reference as artifact, ':' escaped so it is no scheme.
  CHECK(run["artifacts"][1]["location"]["uri"] == "nvcr.io/nvidia/pytorch%3A24.01-py3");

  // Suppressed: present, with a justification.
  const json* found = nullptr;
  for (const auto& result : results) {
    if (result.contains("suppressions")) found = &result;
  }
  REQUIRE(found != nullptr);
  const json& suppressed = *found;
  CHECK(suppressed["ruleId"] == "IL010");
  CHECK(suppressed["suppressions"][0]["kind"] == "inSource");
  CHECK(suppressed["suppressions"][0]["justification"] == "JIT on first launch is accepted for the A100 pool");
}

TEST_CASE("sarif: fingerprints are stable across runs and wording") {
  json a = Shown();
  json b = Shown();
  // A rebuilt image: new digests, new layer numbers, reworded message.
  b["images"][0]["digest"] = "sha256:cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc";
  b["images"][0]["findings"][0]["message"] = "reworded";
  b["images"][0]["findings"][0]["evidence"][0]["layer"] = 5;
  b["images"][0]["findings"][0]["evidence"][0]["dockerfile_line"] = 12;
  const analysis::Report typed_a = Typed(a);
  const analysis::Report typed_b = Typed(b);
  CHECK(FindingFingerprint(typed_a.images[0], typed_a.images[0].findings[0]) ==
        FindingFingerprint(typed_b.images[0], typed_b.images[0].findings[0]));
  CHECK(FindingFingerprint(typed_a.images[0], typed_a.images[0].findings[0]) !=
        FindingFingerprint(typed_a.images[1], typed_a.images[0].findings[0]));
  CHECK(FindingFingerprint(typed_a.images[0], typed_a.images[0].findings[0]).size() == 64);
}

// --- JUnit, GitHub, Markdown -------------------------------------------------

TEST_CASE("junit: a suite per image, a case per pool, failure = fail verdict") {
  std::string xml = RenderJunit(Typed(Shown()));
  CHECK(xml.find("<testsuites name=\"imagelint\" tests=\"6\" failures=\"1\"") != std::string::npos);
  CHECK(xml.find("<testsuite name=\"build/app.tar\" tests=\"3\" failures=\"1\"") != std::string::npos);
  CHECK(xml.find("<testsuite name=\"nvcr.io/nvidia/pytorch:24.01-py3\" tests=\"3\" failures=\"0\"") !=
        std::string::npos);
  CHECK(xml.find("name=\"rtx3090-460\">\n      <failure message=\"804 cudaErrorCompatNotSupportedOnDevice (IL003)\"") !=
        std::string::npos);
  CHECK(xml.find("&lt;tags&gt;") != std::string::npos);
  CHECK(xml.find("<tags>") == std::string::npos);
}

TEST_CASE("github: annotations with file and line, escaped") {
  RenderOptions options;
  options.dockerfile = "./docker/Dockerfile";
  std::string out = RenderGithub(Typed(Shown()), options);
  CHECK(out.find("::error file=docker/Dockerfile,line=7,title=IL003 forward-compat-unsupported-gpu (build/app.tar)::") !=
        std::string::npos);
  CHECK(out.find("::warning title=IL010 no-sass-for-gpu (build/app.tar)::") != std::string::npos);
  CHECK(out.find("::notice title=IL020") != std::string::npos);
  // Titles with ':' and ',' are escaped as properties; newlines in data are %0A.
  CHECK(out.find("(nvcr.io/nvidia/pytorch%3A24.01-py3)") != std::string::npos);
  CHECK(out.find("%0AFix: Remove cuda-compat-12-4") != std::string::npos);
  CHECK(out.find("%0APools: rtx3090-460") != std::string::npos);
  std::istringstream lines(out);
  std::string line;
  while (std::getline(lines, line)) CHECK(line.rfind("::", 0) == 0);
  CHECK(out.find("::warning file=.imagelint.yaml,line=4,title=imagelint expired ignore::") != std::string::npos);
}

TEST_CASE("markdown: matrix and top findings") {
  json report = Shown();
  RenderOptions options;
  options.markdown_top_findings = 2;
  std::string md = RenderMarkdown(Typed(report), RulesFromReport(Typed(report)), options);
  CHECK(md.find("| rtx3090-460 | ❌ **fail**: `804 cudaErrorCompatNotSupportedOnDevice` | ✅ pass |") !=
        std::string::npos);
  CHECK(md.find("**IL003 forward-compat-unsupported-gpu**") != std::string::npos);  // no link without --docs-url
  CHECK(md.find("](") == std::string::npos);
  CHECK(md.find("… and 2 more findings") != std::string::npos);
  CHECK(md.find("1 suppressed") != std::string::npos);
}

}  // namespace
}  // namespace imagelint::report
