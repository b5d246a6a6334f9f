// .imagelint.yaml parsing and discovery, flag parsing and merging,
// suppressions, and the published JSON Schemas (config file and report).
#include <sstream>

#include <doctest/doctest.h>

#include "common/text.h"
#include "imagelint/analysis.h"
#include "imagelint/config.h"
#include "imagelint/report.h"
#include "report/sample_report.h"
#include "support/test_support.h"

namespace imagelint::config {
namespace {

using nlohmann::json;

constexpr const char* kFullConfig = R"(# .imagelint.yaml
version: 1
fleet: fleets/prod.yaml
rules: [team-rules.yaml, /etc/imagelint/site.yaml]
severity:
  IL010: error
  IL020: off
disable: [IL030]
ignore:
  - rule: IL003
    reason: "the GeForce pool runs only CPU jobs from this image"
    expires: 2027-01-31
    pool: rtx*
  - rule: no-sass-for-gpu
    reason: JIT accepted
    path: opt/app/lib/*.so
fail-on: warning
min-severity: note
format: [text, sarif=reports/imagelint.sarif]
output: out.txt
platform: linux/arm64
dockerfile: docker/Dockerfile
docs-url: https://docs.example.com/imagelint/
inline-ignores: false
)";

TEST_CASE("config: every setting, paths relative to the file") {
  auto config = ParseConfig(kFullConfig, "repo/.imagelint.yaml");
  REQUIRE_MESSAGE(config.ok(), imagelint::testing::ErrorText(config));
  CHECK(config->file == "repo/.imagelint.yaml");
  CHECK(*config->fleet == "repo/fleets/prod.yaml");
  CHECK(config->rule_files == std::vector<std::string>{"repo/team-rules.yaml", "/etc/imagelint/site.yaml"});
  REQUIRE(config->overrides.size() == 3);
  CHECK(config->overrides[0].rule == "IL010");
  CHECK(*config->overrides[0].severity == rules::Severity::kError);
  CHECK(config->overrides[1].rule == "IL020");
  CHECK(config->overrides[1].disabled);
  CHECK(config->overrides[2].rule == "IL030");
  CHECK(config->overrides[2].disabled);
  REQUIRE(config->ignores.size() == 2);
  CHECK(config->ignores[0].rule == "IL003");
  CHECK(config->ignores[0].expires == "2027-01-31");
  CHECK(config->ignores[0].pool == "rtx*");
  CHECK(config->ignores[0].origin == "config");
  CHECK(config->ignores[0].line == 10);
  CHECK(config->ignores[1].path == "opt/app/lib/*.so");
  CHECK(*config->fail_on == "warning");
  CHECK(*config->min_severity == "note");
  CHECK(config->formats == std::vector<std::string>{"text", "sarif=repo/reports/imagelint.sarif"});
  CHECK(*config->output == "repo/out.txt");
  CHECK(*config->platform == "linux/arm64");
  CHECK(*config->dockerfile == "repo/docker/Dockerfile");
  CHECK(*config->docs_url == "https://docs.example.com/imagelint/");
  CHECK(*config->inline_ignores == false);
}

TEST_CASE("config: an empty file is an empty config") {
  auto config = ParseConfig("", ".imagelint.yaml");
  REQUIRE(config.ok());
  CHECK_FALSE(config->fleet);
  CHECK(config->ignores.empty());
}

TEST_CASE("config: errors carry file:line:column") {
  struct Case {
    const char* text;
    const char* expected;
  };
  const Case cases[] = {
      {"fleet: a.yaml\nfail_on: error\n", ".imagelint.yaml:2:1: unknown setting 'fail_on'"},
      {"severity:\n  IL003: fatal\n", ".imagelint.yaml:2:10: severity of IL003 must be error, warning, note or off"},
      {"ignore:\n  - rule: IL003\n", ".imagelint.yaml:2:5: the ignore entry for IL003 needs a 'reason'"},
      {"ignore:\n  - rule: IL003\n    reason: ok\n    expires: 2026-02-30\n",
       ".imagelint.yaml:4:14: 'expires' must be a date YYYY-MM-DD"},
      {"ignore:\n  - reason: ok\n", ".imagelint.yaml:2:5: an ignore entry needs 'rule'"},
      {"ignore:\n  - rule: '*'\n    reason: all\n", "must name one rule"},
      {"ignore:\n  - rule: IL003\n    reason: x\n    until: 2026-01-01\n", ".imagelint.yaml:4:5: unknown key 'until'"},
      {"fail-on: fatal\n", ".imagelint.yaml:1:10: 'fail-on' must be error, warning, note or none"},
      {"min-severity: none\n", ".imagelint.yaml:1:15: 'min-severity' must be error, warning or note"},
      {"format: [xml]\n", "unknown format 'xml'"},
      {"rules: {a: b}\n", ".imagelint.yaml:1:8: 'rules' must be a string or a list of strings"},
      {"fleet: [a, b\n", ".imagelint.yaml:2:1:"},
      {"- just\n- a list\n", "must be a map of settings"},
      {"inline-ignores: maybe\n", "'inline-ignores' must be true or false"},
  };
  for (const auto& c : cases) {
    auto config = ParseConfig(c.text, ".imagelint.yaml");
    REQUIRE_FALSE_MESSAGE(config.ok(), c.text);
    CHECK_MESSAGE(config.error().ToString().find(c.expected) != std::string::npos,
                  (config.error().ToString() + " <- expected " + c.expected));
  }
}

TEST_CASE("config: aliases are counted before they are copied (a 390 KB alias bomb is exit 2, not 5 GB)") {
  std::string text = "x-reason: &r \"" + std::string(4096, 'r') + "\"\nignore:\n";
  for (int i = 0; i < 12000; ++i) text += "  - {rule: IL003, reason: *r}\n";
  auto config = ParseConfig(text, ".imagelint.yaml");
  REQUIRE_FALSE(config.ok());
  CHECK(config.error().ToString().find(".imagelint.yaml:") == 0);
  CHECK(config.error().ToString().find("alias") != std::string::npos);
}

TEST_CASE("config: discovery order (--config, working directory, XDG)") {
  testing::TempDir dir;
  std::filesystem::create_directories(dir / "work");
  std::filesystem::create_directories(dir / "xdg" / "imagelint");
  const std::string user_dir = (dir / "xdg" / "imagelint").string();  // the CLI passes $XDG_CONFIG_HOME/imagelint
  auto none = FindConfigFile("", (dir / "work").string(), user_dir);
  REQUIRE(none.ok());
  CHECK_FALSE(none->has_value());

  testing::WriteFileText(dir / "xdg" / "imagelint" / "config.yaml", "fail-on: none\n");
  auto xdg = FindConfigFile("", (dir / "work").string(), user_dir);
  REQUIRE(xdg.ok());
  CHECK(**xdg == (dir / "xdg" / "imagelint" / "config.yaml").string());
  auto no_user_dir = FindConfigFile("", (dir / "work").string(), "");
  REQUIRE(no_user_dir.ok());
  CHECK_FALSE(no_user_dir->has_value());

  testing::WriteFileText(dir / "work" / ".imagelint.yaml", "fail-on: note\n");
  auto local = FindConfigFile("", (dir / "work").string(), user_dir);
  REQUIRE(local.ok());
  CHECK(**local == (dir / "work" / ".imagelint.yaml").string());
  auto loaded = LoadConfig(**local);
  REQUIRE(loaded.ok());
  CHECK(*loaded->fail_on == "note");

  auto explicit_file = FindConfigFile((dir / "xdg" / "imagelint" / "config.yaml").string(), (dir / "work").string(),
                                      user_dir);
  REQUIRE(explicit_file.ok());
  CHECK(**explicit_file == (dir / "xdg" / "imagelint" / "config.yaml").string());
  auto missing = FindConfigFile((dir / "nope.yaml").string(), (dir / "work").string(), user_dir);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message.find("no such file") != std::string::npos);

  auto bad = LoadConfig((dir / "absent.yaml").string());
  REQUIRE_FALSE(bad.ok());
}

TEST_CASE("config: flags over the file") {
  auto file = ParseConfig(kFullConfig, ".imagelint.yaml");
  REQUIRE(file.ok());
  Config flags;
  flags.fail_on = "none";
  flags.formats = {"json"};
  flags.rule_files = {"extra.yaml"};
  auto ignore = ParseIgnoreFlag("IL040:2026-12-31=known, tracked in JIRA-12");
  REQUIRE(ignore.ok());
  flags.ignores.push_back(*ignore);
  Config merged = Merge(*file, flags);
  CHECK(*merged.fail_on == "none");
  CHECK(*merged.min_severity == "note");
  CHECK(merged.formats == std::vector<std::string>{"json"});
  CHECK(merged.rule_files.size() == 3);
  CHECK(merged.rule_files.back() == "extra.yaml");
  REQUIRE(merged.ignores.size() == 3);
  CHECK(merged.ignores.back().rule == "IL040");
  CHECK(merged.ignores.back().expires == "2026-12-31");
  CHECK(merged.ignores.back().reason == "known, tracked in JIRA-12");
  CHECK(merged.ignores.back().origin == "flag");
}

TEST_CASE("flags: --ignore and --severity") {
  CHECK_FALSE(ParseIgnoreFlag("IL003").ok());
  CHECK_FALSE(ParseIgnoreFlag("IL003=").ok());
  CHECK_FALSE(ParseIgnoreFlag("IL003=  ").ok());
  CHECK_FALSE(ParseIgnoreFlag("*=everything").ok());
  CHECK_FALSE(ParseIgnoreFlag("IL003:tomorrow=x").ok());
  auto ok = ParseIgnoreFlag("IL003=accepted");
  REQUIRE(ok.ok());
  CHECK(ok->expires.empty());
  auto severity = ParseSeverityFlag("IL010=note");
  REQUIRE(severity.ok());
  CHECK(*severity->severity == rules::Severity::kNote);
  CHECK(ParseSeverityFlag("IL010=off")->disabled);
  CHECK_FALSE(ParseSeverityFlag("IL010").ok());
  CHECK_FALSE(ParseSeverityFlag("IL010=fatal").ok());
}

TEST_CASE("dates and globs") {
  CHECK(IsDate("2024-02-29"));
  CHECK_FALSE(IsDate("2023-02-29"));
  CHECK_FALSE(IsDate("2023-13-01"));
  CHECK_FALSE(IsDate("2023-1-01"));
  CHECK_FALSE(IsDate("20230101xx"));
  CHECK(IsDate(imagelint::Today()));
  CHECK(GlobMatch("rtx*", "rtx3090-460"));
  CHECK(GlobMatch("*", ""));
  CHECK(GlobMatch("opt/*/lib*.so", "opt/app/lib/libkernels.so"));
  CHECK_FALSE(GlobMatch("rtx*", "a100"));
  CHECK_FALSE(GlobMatch("a*b", "acb-"));
  CHECK(GlobMatch("a*b*c", "aXbYbZc"));
}

// --- suppressions -------------------------------------------------------------

Suppression Ignore(const std::string& rule, const std::string& reason = "accepted") {
  Suppression s;
  s.rule = rule;
  s.reason = reason;
  s.origin = "config";
  s.file = ".imagelint.yaml";
  s.line = 3;
  return s;
}

TEST_CASE("suppressions: the finding moves, the verdict follows") {
  json report = testing::Suppress(testing::SampleReport(), {Ignore("IL003")}, "2026-06-01");
  const json& image = report["images"][0];
  REQUIRE(image["findings"].size() == 2);
  CHECK(image["findings"][0]["rule"] == "IL010");
  REQUIRE(image["suppressed"].size() == 1);
  CHECK(image["suppressed"][0]["rule"] == "IL003");
  CHECK(image["suppressed"][0]["suppressed_by"]["reason"] == "accepted");
  CHECK(image["suppressed"][0]["suppressed_by"]["file"] == ".imagelint.yaml");
  // rtx3090-460 had failed only because of IL003: now it warns (IL010).
  CHECK(image["verdicts"][0]["status"] == "warn");
  CHECK(image["verdicts"][0]["predicted_error"].is_null());
  CHECK(image["verdicts"][0]["rules"] == json({"IL010", "IL020"}));
  CHECK(image["status"] == "warn");
  // The other image is untouched.
  CHECK(report["images"][1] == testing::SampleReport()["images"][1]);
  CHECK(report["ignores"]["unused"].empty());
  json summary = testing::Finalized(report)["summary"];
  CHECK(summary["suppressed"] == 1);
  CHECK(summary["verdicts"]["fail"] == 0);
}

TEST_CASE("suppressions: by name, narrowed by image, pool and path") {
  auto by_name = Ignore("no-sass-for-gpu");
  by_name.pool = "a100-*";
  json report = testing::Suppress(testing::SampleReport(), {by_name}, "2026-06-01");
  const json& image = report["images"][0];
  // Split: suppressed on the A100 pool only, still reported on the GeForce pool.
  REQUIRE(image["suppressed"].size() == 1);
  CHECK(image["suppressed"][0]["pools"] == json({"a100-535"}));
  CHECK(image["findings"][1]["rule"] == "IL010");
  CHECK(image["findings"][1]["pools"] == json({"rtx3090-460"}));
  CHECK(image["verdicts"][1]["status"] == "pass");

  auto other_image = Ignore("IL003");
  other_image.image = "nvcr.io/*";
  auto path_mismatch = Ignore("IL010");
  path_mismatch.path = "usr/lib/*";
  auto path_match = Ignore("IL020");
  path_match.path = "/usr/local/cuda/lib64/libcudart.so.*";
  json narrowed = testing::Suppress(testing::SampleReport(), {other_image, path_mismatch, path_match}, "2026-06-01");
  CHECK(narrowed["images"][0]["findings"].size() == 3);
  CHECK(narrowed["images"][1]["findings"].empty());
  CHECK(narrowed["images"][1]["suppressed"][0]["rule"] == "IL020");
  REQUIRE(narrowed["ignores"]["unused"].size() == 2);
  CHECK(narrowed["ignores"]["unused"][0]["rule"] == "IL003");
  CHECK(narrowed["ignores"]["unused"][1]["rule"] == "IL010");
}

TEST_CASE("suppressions: inline pragmas apply to their instruction's line") {
  Suppression pragma;
  pragma.rule = "IL003";
  pragma.reason = "compat package is needed on the H100 pool";
  pragma.origin = "inline";
  pragma.file = "Dockerfile";
  pragma.line = 6;
  pragma.dockerfile_line = 8;  // not the instruction that installed the compat package
  json missed = testing::Suppress(testing::SampleReport(), {pragma}, "2026-06-01");
  CHECK(missed["images"][0]["findings"].size() == 3);
  CHECK(missed["ignores"]["unused"].size() == 1);
  pragma.dockerfile_line = 7;
  json hit = testing::Suppress(testing::SampleReport(), {pragma}, "2026-06-01");
  CHECK(hit["images"][0]["findings"].size() == 2);
  CHECK(hit["images"][0]["suppressed"][0]["suppressed_by"]["origin"] == "inline");
  CHECK(hit["images"][0]["suppressed"][0]["suppressed_by"]["line"] == 6);
}

TEST_CASE("suppressions: a pragma without a reason is rejected, and says so") {
  Suppression pragma;
  pragma.rule = "IL003";
  pragma.origin = "inline";
  pragma.file = "Dockerfile";
  pragma.line = 6;
  pragma.dockerfile_line = 7;
  json report = testing::Suppress(testing::SampleReport(), {pragma}, "2026-06-01");
  CHECK(report["images"][0]["findings"].size() == 3);
  REQUIRE(report["ignores"]["invalid"].size() == 1);
  CHECK(report["ignores"]["invalid"][0]["problem"] == "has no reason");
  json shown = testing::Finalized(report);
  CHECK(shown["summary"]["invalid_ignores"] == 1);
  std::string text = report::RenderText(testing::Typed(shown));
  CHECK(text.find("REJECTED IGNORES (1)") != std::string::npos);
  CHECK(text.find("IL003 (Dockerfile:6): has no reason; not applied") != std::string::npos);
}

TEST_CASE("suppressions: from the Dockerfile parser's pragmas") {
  struct Pragma {  // the shape of dockerfile::InlineSuppression
    std::vector<std::string> rules;
    std::string reason, file;
    int line = 0, instruction_line = 0;
  };
  std::vector<Pragma> pragmas = {{{"IL003", "IL010"}, "known", "Dockerfile", 6, 7}, {{"IL020"}, "global", "Dockerfile", 1, 0}};
  auto suppressions = FromInlinePragmas(pragmas);
  REQUIRE(suppressions.size() == 3);
  CHECK(suppressions[1].rule == "IL010");
  CHECK(suppressions[1].dockerfile_line == 7);
  CHECK(suppressions[1].origin == "inline");
  json report = testing::Suppress(testing::SampleReport(), suppressions, "2026-06-01");
  // IL003 has evidence on line 7; IL010's evidence has no Dockerfile line; IL020 is global.
  CHECK(report["images"][0]["findings"].size() == 1);
  CHECK(report["images"][0]["findings"][0]["rule"] == "IL010");
  CHECK(report["images"][1]["findings"].empty());
}

TEST_CASE("suppressions: expired entries are reported and not applied") {
  auto expired = Ignore("IL003", "until the driver upgrade");
  expired.expires = "2026-05-31";
  json after = testing::Suppress(testing::SampleReport(), {expired}, "2026-06-01");
  CHECK(after["images"][0]["findings"].size() == 3);
  REQUIRE(after["ignores"]["expired"].size() == 1);
  CHECK(after["ignores"]["expired"][0]["expires"] == "2026-05-31");
  CHECK(after["ignores"]["unused"].empty());
  // On the expiry day itself it still applies.
  json on_day = testing::Suppress(testing::SampleReport(), {expired}, "2026-05-31");
  CHECK(on_day["images"][0]["findings"].size() == 2);
  CHECK(on_day["ignores"]["expired"].empty());
  CHECK(testing::Finalized(after)["summary"]["expired_ignores"] == 1);
  CHECK(analysis::HasFindingsAtOrAbove(testing::Typed(testing::Finalized(after)), rules::Severity::kError));
}

// --- flags over the file -----------------------------------------------------

TEST_CASE("ResolveConfig: defaults, file, flags, --no-config") {
  testing::TempDir dir;
  CommandLineOptions options;
  options.working_directory = dir.path().string();
  options.user_config_dir = (dir / "xdg" / "imagelint").string();
  auto defaults = ResolveConfig(options);
  REQUIRE(defaults.ok());
  CHECK(defaults->file.empty());
  CHECK_FALSE(defaults->fail_on.has_value());
  CHECK(defaults->formats.empty());
  CHECK_FALSE(defaults->inline_ignores.has_value());

  std::filesystem::create_directories(dir / "xdg" / "imagelint");
  testing::WriteFileText(dir / "xdg" / "imagelint" / "config.yaml", "fail-on: none\n");
  auto from_user_dir = ResolveConfig(options);
  REQUIRE(from_user_dir.ok());
  CHECK(*from_user_dir->fail_on == "none");

  testing::WriteFileText(dir / ".imagelint.yaml",
                         "fail-on: warning\nmin-severity: error\nformat: [json]\ninline-ignores: false\n");
  auto from_file = ResolveConfig(options);
  REQUIRE(from_file.ok());
  CHECK(from_file->file == (dir / ".imagelint.yaml").string());
  CHECK(*from_file->fail_on == "warning");
  CHECK(*from_file->min_severity == "error");
  CHECK(from_file->formats == std::vector<std::string>{"json"});
  CHECK(*from_file->inline_ignores == false);

  options.fail_on = "none";
  options.formats = {"sarif=out.sarif", "text"};
  options.ignore = {"IL003=accepted"};
  options.severity = {"IL010=error"};
  options.disable = {"IL020"};
  options.no_inline_ignores = true;
  auto flags = ResolveConfig(options);
  REQUIRE(flags.ok());
  CHECK(*flags->fail_on == "none");
  CHECK(*flags->min_severity == "error");  // from the file
  CHECK(flags->formats == std::vector<std::string>{"sarif=out.sarif", "text"});
  REQUIRE(flags->ignores.size() == 1);
  CHECK(flags->ignores[0].origin == "flag");
  REQUIRE(flags->overrides.size() == 2);
  CHECK(*flags->overrides[0].severity == rules::Severity::kError);
  CHECK(flags->overrides[1].disabled);

  options.no_config = true;
  auto without_file = ResolveConfig(options);
  REQUIRE(without_file.ok());
  CHECK_FALSE(without_file->min_severity.has_value());  // --no-config: the file's error is gone

  options.ignore = {"IL003"};
  CHECK_FALSE(ResolveConfig(options).ok());
  options.ignore = {};
  options.severity = {"IL003=fatal"};
  CHECK_FALSE(ResolveConfig(options).ok());
  options.severity = {};
  options.fail_on = "fatal";
  auto bad_level = ResolveConfig(options);
  REQUIRE_FALSE(bad_level.ok());
  CHECK(bad_level.error().ToString() == "--fail-on: 'fatal' is not one of error, warning, note, none");
  options.fail_on = "";
  options.min_severity = "none";
  CHECK_FALSE(ResolveConfig(options).ok());
  options.min_severity = "";
  options.config_file = (dir / ".imagelint.yaml").string();
  CHECK_FALSE(ResolveConfig(options).ok());  // --config with --no-config
}

// --- published schemas -------------------------------------------------------

bool HavePython(const std::string& modules) {
  return testing::RunCommand({"python3", "-c", "import " + modules}, "", 60).exit_code == 0;
}

const char* kValidate =
    "import json, sys, jsonschema\n"
    "schema = json.load(open(sys.argv[1]))\n"
    "jsonschema.Draft7Validator.check_schema(schema)\n"
    "v = jsonschema.Draft7Validator(schema)\n"
    "path = sys.argv[2]\n"
    "if path.endswith(('.yaml', '.yml')):\n"
    "    import yaml\n"
    "    doc = yaml.safe_load(open(path))\n"
    "    doc = json.loads(json.dumps(doc, default=str))\n"
    "else:\n"
    "    doc = json.load(open(path))\n"
    "errors = [(list(e.absolute_path), e.message) for e in v.iter_errors(doc)]\n"
    "print(errors)\n"
    "sys.exit(1 if errors else 0)\n";

TEST_CASE("docs/config-schema.json accepts the examples and rejects typos") {
  if (!testing::NeedExternal("python3-jsonschema, python3-yaml", HavePython("jsonschema, yaml"),
                             "validates config files against docs/config-schema.json"))
    return;
  auto schema = (testing::SourceDir() / "docs" / "config-schema.json").string();
  testing::TempDir dir;
  testing::WriteFileText(dir / "full.yaml", kFullConfig);
  testing::WriteFileText(dir / "typo.yaml", "fail_on: error\n");
  testing::WriteFileText(dir / "noreason.yaml", "ignore:\n  - rule: IL003\n");
  for (auto path : {(dir / "full.yaml"), testing::SourceDir() / "examples" / ".imagelint.yaml"}) {
    auto result = testing::RunCommand({"python3", "-c", kValidate, schema, path.string()});
    CHECK_MESSAGE(result.exit_code == 0, (path.string() + ": " + result.out + result.err));
    // And our own parser agrees.
    auto parsed = LoadConfig(path.string());
    CHECK_MESSAGE(parsed.ok(), imagelint::testing::ErrorText(parsed));
  }
  for (auto path : {(dir / "typo.yaml"), (dir / "noreason.yaml")}) {
    auto result = testing::RunCommand({"python3", "-c", kValidate, schema, path.string()});
    CHECK_MESSAGE(result.exit_code == 1, (path.string() + ": " + result.out + result.err));
  }
}

TEST_CASE("docs/report-schema.json describes the report") {
  if (!testing::NeedExternal("python3-jsonschema", HavePython("jsonschema"),
                             "validates reports against docs/report-schema.json"))
    return;
  auto schema = (testing::SourceDir() / "docs" / "report-schema.json").string();
  testing::TempDir dir;
  Suppression s = Ignore("IL003");
  Suppression expired = Ignore("IL010");
  expired.expires = "2020-01-01";
  json report = testing::Finalized(testing::Suppress(testing::SampleReport(), {s, expired}, "2026-06-01"));
  testing::WriteFileText(dir / "report.json", report.dump());
  auto result = testing::RunCommand({"python3", "-c", kValidate, schema, (dir / "report.json").string()});
  CHECK_MESSAGE(result.exit_code == 0, (result.out + result.err));
  // Undecided verdicts and findings, the gate, the counts: all described.
  json undecided = testing::Finalized(testing::UndecidedReport(), {}, {rules::Severity::kError, true});
  testing::WriteFileText(dir / "undecided.json", undecided.dump());
  auto described = testing::RunCommand({"python3", "-c", kValidate, schema, (dir / "undecided.json").string()});
  CHECK_MESSAGE(described.exit_code == 0, (described.out + described.err));
  json broken = report;
  broken["images"][0]["verdicts"][0]["status"] = "maybe";
  broken["images"][0]["findings"][0].erase("rule");
  testing::WriteFileText(dir / "broken.json", broken.dump());
  auto rejected = testing::RunCommand({"python3", "-c", kValidate, schema, (dir / "broken.json").string()});
  CHECK(rejected.exit_code == 1);
  CHECK(rejected.out.find("maybe") != std::string::npos);
}

TEST_CASE("config: fail-on-undecided, and the formats the reporters have") {
  auto config = ParseConfig("fail-on-undecided: true\nformat: [gitlab=gl.json, html=report.html, k8s]\n", "ci/.imagelint.yaml");
  REQUIRE_MESSAGE(config.ok(), imagelint::testing::ErrorText(config));
  CHECK(*config->fail_on_undecided);
  CHECK(config->formats == std::vector<std::string>{"gitlab=ci/gl.json", "html=ci/report.html", "k8s"});
  auto bad = ParseConfig("fail-on-undecided: maybe\n", ".imagelint.yaml");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().ToString() == ".imagelint.yaml:1:20: 'fail-on-undecided' must be true or false");

  CommandLineOptions options;
  options.no_config = true;
  options.fail_on_undecided = true;
  auto flags = ResolveConfig(options);
  REQUIRE(flags.ok());
  CHECK(*flags->fail_on_undecided);
  Config file;
  file.fail_on_undecided = true;
  CHECK(*Merge(file, Config{}).fail_on_undecided);
}

std::vector<rules::RuleInfo> KnownRules() {
  std::vector<rules::RuleInfo> known;
  for (const auto& [id, name] : std::vector<std::pair<std::string, std::string>>{
           {"IL003", "forward-compat-unsupported-gpu"}, {"IL010", "minor-version-compatibility-only"},
           {"IL013", "platform-mismatch"}, {"IL014", "cuda-runtime-off-loader-path"}}) {
    rules::RuleInfo info;
    info.id = id;
    info.name = name;
    known.push_back(info);
  }
  return known;
}

TEST_CASE("ignores: an unknown rule is an error naming where it came from and the closest rule") {
  auto known = KnownRules();
  auto flag = ParseIgnoreFlag("IL13=typo");
  REQUIRE(flag.ok());
  auto typo = CheckIgnoredRules({Ignore("IL003"), *flag}, known);
  REQUIRE_FALSE(typo.ok());
  CHECK(typo.error().ToString() == "--ignore: no rule named 'IL13' (did you mean IL013?)");
  CHECK(CheckIgnoredRules({Ignore("IL003"), Ignore("platform-mismatch")}, known).ok());
  auto config = ParseConfig("ignore:\n  - rule: platfrom-mismatch\n    reason: arm is not ours\n", "ci/.imagelint.yaml");
  REQUIRE(config.ok());
  auto status = CheckIgnoredRules(config->ignores, known);
  REQUIRE_FALSE(status.ok());
  CHECK(status.error().ToString() ==
        "ci/.imagelint.yaml:2: ignore: no rule named 'platfrom-mismatch' (did you mean IL013?)");
  auto far = ParseIgnoreFlag("XYZ999=nothing like it");
  CHECK(CheckIgnoredRules({*far}, known).error().message == "no rule named 'XYZ999' (imagelint rules lists them)");
  CHECK(ClosestRules("il003", known) == std::vector<std::string>{"IL003"});
  CHECK(ClosestRules("IL01", known).size() == 3);  // IL010, IL013, IL014: one edit each
  CHECK(ClosestRules(std::string(500, 'x'), known).empty());
}

TEST_CASE("suppressions: an entry with a problem is listed as rejected, not applied") {
  Suppression s = Ignore("IL03");
  s.origin = "inline";
  s.problem = "names no rule (did you mean IL003?)";
  json report = testing::Suppress(testing::SampleReport(), {s}, "2026-06-01");
  REQUIRE(report["ignores"]["invalid"].size() == 1);
  CHECK(report["ignores"]["invalid"][0]["problem"] == "names no rule (did you mean IL003?)");
  CHECK(report["ignores"]["unused"].empty());
}

}  // namespace
}  // namespace imagelint::config
