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

// Parts of the report that the property bags carry as the report's own
// JSON, written by the report model's writers (report_model.h,
// report_document.h), so that they stay the same document.
json MissingJson(const Finding& finding) {
  return finding.missing ? analysis::WriteMissingFacts(*finding.missing) : json::array();
}

std::string ResultText(const ImageReport& image, const Finding& finding) {
  std::string text = finding.message;
  if (!text.empty() && text.back() != '.') text += ".";
  std::string pools = PoolList(finding);
  text += " Image: " + image.ref;
  if (!ImageScoped(finding) && !pools.empty()) text += "; pools: " + pools;
  text += ".";
  if (finding.predicted_error) text += " Predicted error: " + PredictedText(*finding.predicted_error) + ".";
  std::string fix = TextOr(finding.fix);
  if (!fix.empty()) text += " Fix: " + fix;
  return text;
}

json ImageLocation(const Evidence& item, const std::string& base_id, const ImageReport& image) {
  json location = json::object();
  location["physicalLocation"] = {
      {"artifactLocation", {{"uri", ImagePathUri(TextOr(item.path))}, {"uriBaseId", base_id}}},
      {"region", {{"startLine", 1}}}};
  std::string text = "/" + TextOr(item.path) + " in image " + image.ref;
  if (item.layer) {
    text += ", layer " + std::to_string(*item.layer);
    std::string created_by = CleanCreatedBy(TextOr(item.created_by));
    if (!created_by.empty()) text += " (" + Truncate(created_by, 200) + ")";
  }
  location["message"] = {{"text", text}};
  return location;
}

json ToResult(const ImageReport& image, const Finding& finding, const std::map<std::string, size_t>& rule_index,
              const std::string& base_id, size_t artifact_index, const RenderOptions& options) {
  json result = json::object();
  const std::string& rule = finding.rule;
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
  for (const auto& item : finding.evidence) {
    if (!TextOr(item.path).empty()) image_locations.push_back(ImageLocation(item, base_id, image));
  }
  json artifact = {{"uri", HostUri(image.ref)}, {"index", artifact_index}};
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
                         {"message", {{"text", "image " + image.ref}}}});
  }
  for (size_t i = 0; i < related.size(); ++i) related[i]["id"] = i + 1;
  result["locations"] = locations;
  if (!related.empty()) result["relatedLocations"] = related;
  // The scanned image, unless the location already names it (SARIF2004).
  if (locations[0]["physicalLocation"]["artifactLocation"].value("uri", "") != artifact["uri"])
    result["analysisTarget"] = artifact;

  // --baseline: new, unchanged, or absent (fixed since the baseline), as SARIF 2.1.0's baselineState.
  std::string state = TextOr(finding.baseline_state);
  if (state == "new" || state == "unchanged" || state == "absent") result["baselineState"] = state;
  std::string fingerprint = FindingFingerprint(image, finding);
  result["partialFingerprints"] = {{"primaryLocationLineHash", fingerprint.substr(0, 16) + ":1"},
                                   {"imagelintFinding/v1", fingerprint}};
  json properties = json::object();
  properties["image"] = image.ref;
  if (!image.digest.empty()) properties["digest"] = image.digest;
  properties["pools"] = finding.pools;
  if (finding.predicted_error) properties["predicted_error"] = analysis::WritePredictedError(finding.predicted_error);
  properties["undecided"] = Undecided(finding);
  if (Undecided(finding)) properties["missing"] = MissingJson(finding);
  if (finding.suppressed_by) {
    const analysis::SuppressedBy& by = *finding.suppressed_by;
    json suppression = {{"kind", by.origin == "inline" ? "inSource" : "external"},
                        {"status", "accepted"},
                        {"justification", by.reason}};
    result["suppressions"] = json::array({suppression});
    properties["suppressed_by"] = analysis::WriteSuppressedBy(by);
  }
  result["properties"] = properties;
  return result;
}

}  // namespace

std::string RenderSarif(const Report& report, const std::vector<RuleMeta>& rule_list, const RenderOptions& options) {
  // Rule table: every rule given, then any rule a finding names that was not.
  std::vector<RuleMeta> rules_out;
  std::map<std::string, size_t> rule_index;
  auto add_rule = [&](const RuleMeta& meta) {
    if (meta.id.empty() || rule_index.count(meta.id)) return;
    rule_index[meta.id] = rules_out.size();
    rules_out.push_back(meta);
  };
  for (const auto& meta : rule_list) add_rule(meta);
  const std::vector<ImageReport>& images = report.images;
  // Every finding of an image: shown, suppressed, and fixed since the baseline.
  auto each_finding = [](const ImageReport& image, const auto& visit) {
    for (const auto& finding : image.findings) visit(finding);
    for (const auto* list : {&image.suppressed, &image.fixed}) {
      if (!*list) continue;
      for (const auto& finding : **list) visit(finding);
    }
  };
  for (const auto& image : images) {
    each_finding(image, [&](const Finding& finding) {
      if (rule_index.count(finding.rule)) return;
      RuleMeta meta;
      meta.id = finding.rule;
      meta.name = finding.name;
      meta.title = finding.title;
      meta.docs = finding.docs;
      meta.severity = SeverityOf(finding);
      add_rule(meta);
    });
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
    const std::string& ref = image.ref;
    // Named without tag or digest, so locations stay put across rebuilds.
    std::string base_id = BaseIdFor(ImageName(ref));
    for (int n = 2; used_base_ids.count(base_id); ++n) base_id = BaseIdFor(ImageName(ref)) + "#" + std::to_string(n);
    used_base_ids.insert(base_id);
    std::string description = "root file system of image " + ref;
    if (!image.digest.empty()) description += " (" + image.digest + ")";
    base_ids[base_id] = {{"description", {{"text", description}}}};
    json artifact = {{"location", {{"uri", HostUri(ref)}}},
                     {"roles", {"analysisTarget"}},
                     {"description", {{"text", "container image " + ref}}}};
    const std::string& digest = image.digest;
    if (digest.rfind("sha256:", 0) == 0) artifact["hashes"] = {{"sha-256", digest.substr(7)}};
    size_t artifact_index = artifacts.size();
    artifacts.push_back(artifact);
    each_finding(image, [&](const Finding& finding) {
      results.push_back(ToResult(image, finding, rule_index, base_id, artifact_index, options));
    });
    json verdicts = json::array();
    for (const auto& verdict : image.verdicts) {
      verdicts.push_back({{"pool", verdict.pool}, {"status", StatusText(verdict.status)},
                          {"predicted_error", analysis::WritePredictedError(verdict.predicted_error)}});
    }
    json properties = {{"ref", ref}, {"digest", image.digest}, {"status", StatusText(image.status)},
                       {"verdicts", verdicts}};
    if (image.status == analysis::Outcome::kError) {
      properties["error"] = TextOr(image.error);
      // A toolExecutionNotification: what kept the tool from analysing a target (SARIF 2.1.0,
      // https://docs.oasis-open.org/sarif/sarif/v2.1.0/sarif-v2.1.0.html, "toolExecutionNotifications").
      json location = {{"physicalLocation", {{"artifactLocation", {{"uri", HostUri(ref)}, {"index", artifact_index}}}}}};
      json notification = {{"level", "error"},
                           {"message", {{"text", "could not read image " + ref + ": " + TextOr(image.error)}}},
                           {"locations", json::array({location})}};
      notifications.push_back(std::move(notification));
    }
    image_properties.push_back(properties);
  }

  // The category (everything before the last '/') is what GitHub keeps
  // apart between analyses: the image's name, never its tag or digest, so
  // each push of app:<sha> updates the same alerts.
  std::string automation = "imagelint/";
  if (images.size() == 1) automation += ImageName(images[0].ref) + "/";
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
  if (report.summary) run_properties["summary"] = analysis::WriteSummary(*report.summary);
  if (report.knowledge) run_properties["knowledge"] = analysis::WriteKnowledgeStamp(*report.knowledge);
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
