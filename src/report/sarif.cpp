// SARIF 2.1.0 for GitHub code scanning (OASIS "Static Analysis Results
// Interchange Format (SARIF) Version 2.1.0",
// https://docs.oasis-open.org/sarif/sarif/v2.1.0/sarif-v2.1.0.html, and GitHub's
// "SARIF support for code scanning",
// https://docs.github.com/en/code-security/code-scanning/integrating-with-code-scanning/sarif-support-for-code-scanning).
// One run, a full rule
// table, stable fingerprints; a finding points at its Dockerfile line when
// one is known (the only place GitHub can annotate), otherwise at the file
// inside the image, relative to a uriBaseId that names the image, with the
// image (tarball path or reference) as the run's analysis target.
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "common/text.h"
#include "imagelint/report.h"
#include "util.h"

namespace imagelint::report {

using nlohmann::json;
using namespace internal;

namespace {

constexpr size_t kMaxDescription = 1000;  // GitHub: <= 1024 characters
constexpr size_t kMaxRelated = 10;

std::string Truncate(std::string text, size_t limit) {
  if (text.size() <= limit) return text;
  text.resize(limit - 3);
  return text + "...";
}

// Percent-encodes everything outside RFC 3986 unreserved characters and '/'.
// ':' is encoded too, so that "cuda:12.4" never reads as a URI scheme.
std::string EncodePath(const std::string& path) { return PercentEncode(path, "/"); }

// A host path (tarball, Dockerfile) as a URI: relative stays relative (GitHub
// resolves it against the checkout), absolute becomes file://.
std::string HostUri(std::string path) {
  while (path.rfind("./", 0) == 0) path = path.substr(2);
  if (!path.empty() && path[0] == '/') return "file://" + EncodePath(path);
  return EncodePath(path);
}

// A path inside an image, relative to the image root.
std::string ImagePathUri(std::string path) {
  while (!path.empty() && path[0] == '/') path = path.substr(1);
  while (path.rfind("./", 0) == 0) path = path.substr(2);
  return EncodePath(path);
}

std::string BaseIdFor(const std::string& ref) {
  std::string id = "IMAGE:";
  for (char c : ref) {
    bool keep = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
                c == '_' || c == '/' || c == ':' || c == '@';
    id += keep ? c : '_';
  }
  return id;
}

// The page as plain text for help.text: headings, emphasis and code marks
// dropped, links reduced to their text.
std::string PlainText(const std::string& markdown) {
  std::string out;
  bool line_start = true;
  for (size_t i = 0; i < markdown.size(); ++i) {
    char c = markdown[i];
    if (line_start && c == '#') {
      while (i < markdown.size() && markdown[i] == '#') ++i;
      while (i < markdown.size() && markdown[i] == ' ') ++i;
      --i;
      line_start = false;
      continue;
    }
    line_start = c == '\n';
    if (c == '`') continue;
    if (c == '*' && i + 1 < markdown.size() && markdown[i + 1] == '*') {
      ++i;
      continue;
    }
    out += c;
  }
  return out;
}

json RuleDescriptor(const RuleMeta& rule, const RenderOptions& options) {
  std::string uri = HelpUri(options.docs_base_uri, rule.id, rule.docs);
  std::string title = rule.title.empty() ? rule.id : rule.title;
  std::string summary = rule.summary.empty() ? title : rule.summary;
  json descriptor = json::object();
  descriptor["id"] = rule.id;
  if (!rule.name.empty()) descriptor["name"] = rule.name;
  descriptor["shortDescription"] = {{"text", Truncate(title, kMaxDescription)}};
  descriptor["fullDescription"] = {{"text", Truncate(summary, kMaxDescription)}};
  // The rule's page travels inside the log: imagelint has no public home to
  // link to, and a link is only written when --docs-url names one.
  std::string markdown = RuleDocs(options.docs_dir, rule.id);
  if (markdown.empty())
    markdown = "**" + rule.id + " " + title + "**\n\n" + summary + "\n\n`imagelint explain " + rule.id + "` prints the rule's page.\n";
  descriptor["help"] = {{"text", PlainText(markdown)}, {"markdown", markdown}};
  if (!uri.empty()) descriptor["helpUri"] = uri;
  descriptor["defaultConfiguration"] = {{"level", std::string(rules::SeverityName(rule.severity))},
                                        {"enabled", rule.enabled}};
  std::string problem = rule.severity == Severity::kError     ? "error"
                        : rule.severity == Severity::kWarning ? "warning"
                                                              : "recommendation";
  descriptor["properties"] = {{"tags", {"cuda", "gpu-compatibility"}},
                              {"precision", "high"},
                              {"problem.severity", problem}};
  return descriptor;
}

std::string ResultText(const json& image, const json& finding) {
  std::string text = StringField(finding, "message");
  if (!text.empty() && text.back() != '.') text += ".";
  std::string pools = PoolList(finding);
  text += " Image: " + StringField(image, "ref", "?");
  if (StringField(finding, "scope") != "image" && !pools.empty()) text += "; pools: " + pools;
  text += ".";
  const json& predicted = finding.contains("predicted_error") ? finding["predicted_error"] : json();
  if (predicted.is_object()) text += " Predicted error: " + PredictedText(predicted) + ".";
  std::string fix = StringField(finding, "fix");
  if (!fix.empty()) text += " Fix: " + fix;
  return text;
}

json ImageLocation(const json& item, const std::string& base_id, const json& image) {
  json location = json::object();
  location["physicalLocation"] = {
      {"artifactLocation", {{"uri", ImagePathUri(StringField(item, "path"))}, {"uriBaseId", base_id}}},
      {"region", {{"startLine", 1}}}};
  std::string text = "/" + StringField(item, "path") + " in image " + StringField(image, "ref", "?");
  if (item.contains("layer") && item["layer"].is_number_integer()) {
    text += ", layer " + std::to_string(item["layer"].get<int64_t>());
    std::string created_by = CleanCreatedBy(StringField(item, "created_by"));
    if (!created_by.empty()) text += " (" + Truncate(created_by, 200) + ")";
  }
  location["message"] = {{"text", text}};
  return location;
}

json ToResult(const json& image, const json& finding, const std::map<std::string, size_t>& rule_index,
              const std::string& base_id, size_t artifact_index, const RenderOptions& options) {
  json result = json::object();
  std::string rule = StringField(finding, "rule", "unknown");
  result["ruleId"] = rule;
  auto it = rule_index.find(rule);
  if (it != rule_index.end()) result["ruleIndex"] = it->second;
  if (Undecided(finding)) {
    // SARIF's word for "a person must decide": kind review (level none, as
    // the specification requires for kinds other than fail), never a warning.
    result["kind"] = "review";
    result["level"] = "none";
    result["message"] = {{"text", "Undecided: " + ResultText(image, finding)}};
  } else {
    result["kind"] = "fail";
    result["level"] = std::string(rules::SeverityName(SeverityOf(finding)));
    result["message"] = {{"text", ResultText(image, finding)}};
  }

  std::vector<json> image_locations;
  for (const auto& item : Arr(finding, "evidence")) {
    if (!StringField(item, "path").empty()) image_locations.push_back(ImageLocation(item, base_id, image));
  }
  json artifact = {{"uri", HostUri(StringField(image, "ref", "image"))}, {"index", artifact_index}};
  json locations = json::array();
  json related = json::array();
  int line = DockerfileLine(finding);
  std::string dockerfile = DockerfileFor(image, options);
  if (line > 0 && !dockerfile.empty()) {
    locations.push_back({{"physicalLocation",
                          {{"artifactLocation", {{"uri", HostUri(dockerfile)}}},
                           {"region", {{"startLine", line}}}}}});
    for (const auto& location : image_locations) {
      if (related.size() == kMaxRelated) break;
      related.push_back(location);
    }
  } else if (!image_locations.empty()) {
    locations.push_back(image_locations.front());
    for (size_t i = 1; i < image_locations.size() && related.size() < kMaxRelated; ++i) related.push_back(image_locations[i]);
  } else {
    // Nothing more precise than the image itself.
    locations.push_back({{"physicalLocation", {{"artifactLocation", artifact}, {"region", {{"startLine", 1}}}}},
                         {"message", {{"text", "image " + StringField(image, "ref", "?")}}}});
  }
  for (size_t i = 0; i < related.size(); ++i) related[i]["id"] = i + 1;
  result["locations"] = locations;
  if (!related.empty()) result["relatedLocations"] = related;
  // The scanned image, unless the location already names it (SARIF2004).
  if (locations[0]["physicalLocation"]["artifactLocation"].value("uri", "") != artifact["uri"])
    result["analysisTarget"] = artifact;

  // --baseline: new, unchanged, or absent (fixed since the baseline), as SARIF 2.1.0's baselineState.
  std::string state = StringField(finding, "baseline_state");
  if (state == "new" || state == "unchanged" || state == "absent") result["baselineState"] = state;
  std::string fingerprint = FindingFingerprint(image, finding);
  result["partialFingerprints"] = {{"primaryLocationLineHash", fingerprint.substr(0, 16) + ":1"},
                                   {"imagelintFinding/v1", fingerprint}};
  json properties = json::object();
  properties["image"] = StringField(image, "ref");
  if (!StringField(image, "digest").empty()) properties["digest"] = StringField(image, "digest");
  properties["pools"] = Arr(finding, "pools");
  if (finding.contains("predicted_error") && finding["predicted_error"].is_object())
    properties["predicted_error"] = finding["predicted_error"];
  properties["undecided"] = Undecided(finding);
  if (Undecided(finding)) properties["missing"] = Arr(finding, "missing");
  if (finding.contains("suppressed_by") && finding["suppressed_by"].is_object()) {
    const json& by = finding["suppressed_by"];
    std::string origin = StringField(by, "origin");
    json suppression = {{"kind", origin == "inline" ? "inSource" : "external"},
                        {"status", "accepted"},
                        {"justification", StringField(by, "reason")}};
    result["suppressions"] = json::array({suppression});
    properties["suppressed_by"] = by;
  }
  result["properties"] = properties;
  return result;
}

}  // namespace

std::string RenderSarif(const json& report, const std::vector<RuleMeta>& rule_list, const RenderOptions& options) {
  // Rule table: every rule given, then any rule a finding names that was not.
  std::vector<RuleMeta> rules_out;
  std::map<std::string, size_t> rule_index;
  auto add_rule = [&](const RuleMeta& meta) {
    if (meta.id.empty() || rule_index.count(meta.id)) return;
    rule_index[meta.id] = rules_out.size();
    rules_out.push_back(meta);
  };
  for (const auto& meta : rule_list) add_rule(meta);
  const json& images = Arr(report, "images");
  for (const auto& image : images) {
    for (const char* list : {"findings", "suppressed", "fixed"}) {
      for (const auto& finding : Arr(image, list)) {
        if (rule_index.count(StringField(finding, "rule"))) continue;
        RuleMeta meta;
        meta.id = StringField(finding, "rule", "unknown");
        meta.name = StringField(finding, "name");
        meta.title = StringField(finding, "title");
        meta.docs = StringField(finding, "docs");
        meta.severity = SeverityOf(finding);
        add_rule(meta);
      }
    }
  }
  json rules = json::array();
  for (const auto& meta : rules_out) rules.push_back(RuleDescriptor(meta, options));

  json driver = {{"name", "imagelint"},
                 {"fullName", "imagelint: CUDA container image compatibility checker"},
                 {"version", IMAGELINT_VERSION},
                 {"semanticVersion", IMAGELINT_VERSION},
                 {"rules", rules}};
  if (!options.docs_base_uri.empty()) driver["informationUri"] = options.docs_base_uri + "README.md";

  json artifacts = json::array();
  json base_ids = json::object();
  json results = json::array();
  json image_properties = json::array();
  json notifications = json::array();
  std::set<std::string> used_base_ids;
  for (const auto& image : images) {
    std::string ref = StringField(image, "ref", "image");
    // Named without tag or digest, so locations stay put across rebuilds.
    std::string base_id = BaseIdFor(ImageName(ref));
    for (int n = 2; used_base_ids.count(base_id); ++n) base_id = BaseIdFor(ImageName(ref)) + "#" + std::to_string(n);
    used_base_ids.insert(base_id);
    std::string description = "root file system of image " + ref;
    if (!StringField(image, "digest").empty()) description += " (" + StringField(image, "digest") + ")";
    base_ids[base_id] = {{"description", {{"text", description}}}};
    json artifact = {{"location", {{"uri", HostUri(ref)}}},
                     {"roles", {"analysisTarget"}},
                     {"description", {{"text", "container image " + ref}}}};
    std::string digest = StringField(image, "digest");
    if (digest.rfind("sha256:", 0) == 0) artifact["hashes"] = {{"sha-256", digest.substr(7)}};
    size_t artifact_index = artifacts.size();
    artifacts.push_back(artifact);
    for (const char* list : {"findings", "suppressed", "fixed"}) {
      for (const auto& finding : Arr(image, list))
        results.push_back(ToResult(image, finding, rule_index, base_id, artifact_index, options));
    }
    json verdicts = json::array();
    for (const auto& verdict : Arr(image, "verdicts")) {
      verdicts.push_back({{"pool", StringField(verdict, "pool")}, {"status", StringField(verdict, "status")},
                          {"predicted_error", verdict.contains("predicted_error") ? verdict["predicted_error"] : json()}});
    }
    json properties = {{"ref", ref}, {"digest", StringField(image, "digest")}, {"status", StringField(image, "status")},
                       {"verdicts", verdicts}};
    if (StringField(image, "status") == "error") {
      properties["error"] = StringField(image, "error");
      // A toolExecutionNotification: what kept the tool from analysing a target (SARIF 2.1.0,
      // https://docs.oasis-open.org/sarif/sarif/v2.1.0/sarif-v2.1.0.html, "toolExecutionNotifications").
      json location = {{"physicalLocation", {{"artifactLocation", {{"uri", HostUri(ref)}, {"index", artifact_index}}}}}};
      json notification = {{"level", "error"},
                           {"message", {{"text", "could not read image " + ref + ": " + StringField(image, "error")}}},
                           {"locations", json::array({location})}};
      notifications.push_back(std::move(notification));
    }
    image_properties.push_back(properties);
  }

  // The category (everything before the last '/') is what GitHub keeps
  // apart between analyses: the image's name, never its tag or digest, so
  // each push of app:<sha> updates the same alerts.
  std::string automation = "imagelint/";
  if (images.size() == 1) automation += ImageName(StringField(images[0], "ref", "image")) + "/";
  json run = json::object();
  run["tool"] = {{"driver", driver}};
  run["automationDetails"] = {{"id", automation}};
  json invocation = {{"executionSuccessful", notifications.empty()}};
  if (!notifications.empty()) invocation["toolExecutionNotifications"] = notifications;
  run["invocations"] = json::array({invocation});
  if (!base_ids.empty()) run["originalUriBaseIds"] = base_ids;
  run["artifacts"] = artifacts;
  run["results"] = results;
  run["columnKind"] = "utf16CodeUnits";
  json run_properties = {{"images", image_properties}};
  if (report.contains("summary")) run_properties["summary"] = report["summary"];
  if (report.contains("knowledge")) run_properties["knowledge"] = report["knowledge"];
  if (std::string note = KnowledgeNote(report); !note.empty())  // not a failure of the run: a configuration note
    run["invocations"][0]["toolConfigurationNotifications"] =
        json::array({{{"level", "note"}, {"descriptor", {{"id", "knowledge-age"}}}, {"message", {{"text", note}}}}});
  run["properties"] = run_properties;

  json log = {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
              {"version", "2.1.0"},
              {"runs", json::array({run})}};
  return WriteJson(log, 2) + "\n";
}

}  // namespace imagelint::report
