// imagelint::Scan: inputs -> facts -> rules x fleet -> suppressions -> the
// finalised report and the gate. Everything the `scan` command does except
// parsing its flags and writing its reports.
#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <thread>

#include "imagelint/analysis.h"
#include "imagelint/config.h"
#include "common/json.h"
#include "imagelint/dockerfile.h"
#include "pipeline/base_resolver.h"
#include "pipeline/context_binaries.h"
#include "imagelint/source.h"
#include "imagelint/facts.h"
#include "imagelint/fleet_import.h"
#include "imagelint/knowledge.h"
#include "imagelint/knowledge_bundle.h"
#include "imagelint/read_image.h"
#include "pipeline/read.h"

namespace imagelint {
namespace {

using nlohmann::json;

constexpr size_t kMaxFactsDocumentBytes = 256u << 20;
constexpr size_t kMaxDockerfileBytes = 16u << 20;

// Bounded read of a whole file named on the command line or in a config.
Result<std::string> ReadTextFile(const std::string& path, size_t limit, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return MakeError(path, "cannot read the " + what);
  std::string text;
  char chunk[65536];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    text.append(chunk, static_cast<size_t>(in.gcount()));
    if (text.size() > limit) return MakeError(path, what + " larger than " + std::to_string(limit) + " bytes");
  }
  return text;
}

// The facts of one input and the Dockerfile pragmas it carries.
struct InputFacts {
  json facts;
  std::vector<config::Suppression> inline_suppressions;
  // A Dockerfile built per pool platform (docs/dockerfile.md "Platform"):
  // the platform `facts` were built for, and the facts of the pools of
  // every other platform. "" and empty otherwise.
  std::string platform;
  std::vector<analysis::PoolFacts> pool_facts;
};

// A facts document written by `imagelint facts IMAGE` (handy for CI caches
// and tests): a .json file whose schema is imagelint.facts/v1.
Result<std::optional<json>> ReadFactsDocument(const std::string& path, const Knowledge& knowledge) {
  if (path.size() < 5 || path.compare(path.size() - 5, 5, ".json") != 0) return std::optional<json>();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return std::optional<json>();
  auto text = ReadTextFile(path, kMaxFactsDocumentBytes, "facts document");
  if (!text.ok()) return text.error();
  auto document = ParseJson(*text, path);
  if (!document.ok() || !document->is_object()) return MakeError(path, "not a JSON facts document");
  if (StringField(*document, "schema") != facts::kSchemaName)
    return MakeError(path, std::string("not an ") + facts::kSchemaName + " document (run `imagelint facts IMAGE`)");
  // Through the typed model, as every producer writes it: a field of the
  // wrong type or an unknown one is an error naming it, not a rule surprise.
  auto model = facts::ReadFacts(*document, path);
  if (!model.ok()) return model.error();
  // Facts written before binaries said whether anything loads them.
  CompleteFactsDocument(*model, knowledge);
  return std::optional<json>(facts::WriteFacts(*model));
}

// Dockerfile mode (docs/dockerfile.md): facts predicted from the text, every
// fact with its line; `# imagelint ignore=RULE reason` comments come along.
Result<InputFacts> DockerfileFacts(const std::string& path, const ScanRequest& request, const Knowledge& knowledge,
                                   const Fleet& fleet, dockerfile::BaseResolver* resolver) {
  dockerfile::DockerfileOptions options;
  options.build_args = request.build_args;
  options.target = request.target;
  options.context_dir = request.context_dir;
  if (!request.read.platform.empty()) {
    options.platform = request.read.platform;
    options.platform_explicit = true;
  }
  options.knowledge = &knowledge;
  options.base_resolver = resolver;
  pipeline::ContextBinaries context_binaries(knowledge);
  options.context_binaries = &context_binaries;
  // Where the Dockerfile leaves its platform open, each pool gets the image
  // built for its own platform (one build per distinct platform).
  for (const Pool& pool : fleet.pools) options.pool_platforms.push_back(pool.platform);
  auto text = request.dockerfile_texts.find(path);
  auto analysis = text != request.dockerfile_texts.end()
                      ? dockerfile::AnalyzeDockerfileText(text->second, path, options)
                      : dockerfile::AnalyzeDockerfile(path, options);
  if (!analysis.ok()) return analysis.error();
  InputFacts out{std::move(analysis->facts), config::FromInlinePragmas(analysis->suppressions)};
  out.platform = analysis->platform;
  for (auto& other : analysis->other_platforms) {
    analysis::PoolFacts one;
    for (const Pool& pool : fleet.pools)
      if (pool.platform == other.platform) one.pools.push_back(pool.name);
    one.facts = std::move(other.facts);
    out.pool_facts.push_back(std::move(one));
  }
  return out;
}

// A built image with the Dockerfile it came from: each layer's history back to its line.
Status AnnotateWithDockerfile(json& facts, const ScanRequest& request) {
  auto text = ReadTextFile(request.dockerfile, kMaxDockerfileBytes, "--dockerfile");
  if (!text.ok()) return text.error();
  auto parsed = dockerfile::ParseDockerfile(*text, request.dockerfile);
  if (!parsed.ok()) return parsed.error();
  dockerfile::AnnotateImageFacts(facts, *parsed, request.target);
  return OkStatus();
}

Result<InputFacts> FactsFor(const std::string& input, const ScanRequest& request, const Knowledge& knowledge,
                            const Fleet& fleet, const Context& context, dockerfile::BaseResolver* resolver) {
  auto document = ReadFactsDocument(input, knowledge);
  if (!document.ok()) return document.error();
  if (*document) return InputFacts{std::move(**document), {}};
  if (request.dockerfile_texts.count(input) || dockerfile::IsDockerfilePath(input))
    return DockerfileFacts(input, request, knowledge, fleet, resolver);
  auto scanned = pipeline::ReadImageInput(input, request.read, context);
  if (!scanned.ok()) return scanned.error();
  InputFacts out{BuildFacts(*scanned, knowledge), {}};
  if (!request.dockerfile.empty()) IMAGELINT_TRY(AnnotateWithDockerfile(out.facts, request));
  return out;
}

// Dockerfile inputs: where the FROM image's facts came from, for the
// reports (docs/dockerfile.md "Base images"): resolved_from, digest and
// platform of the image read, or the note saying why it was not read;
// nothing when the knowledge tables answered without a lookup.
std::string Str(const json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::optional<json> BaseOfReport(const json& facts) {
  auto image = facts.find("image");
  if (image == facts.end() || !image->is_object() || Str(*image, "kind") != "dockerfile") return std::nullopt;
  auto base = image->find("base");
  if (base == image->end() || !base->is_object()) return std::nullopt;
  json out = json::object();
  for (const char* key : {"ref", "resolved_from", "digest", "platform"})
    if (base->contains(key) && (*base)[key].is_string() && !(*base)[key].get<std::string>().empty()) out[key] = (*base)[key];
  std::string prefix = "base image " + Str(*base, "ref").substr(0, 200) + " not read (";
  if (auto dockerfile = facts.find("dockerfile"); dockerfile != facts.end() && dockerfile->is_object())
    if (auto notes = dockerfile->find("notes"); notes != dockerfile->end() && notes->is_array())
      for (const json& note : *notes)
        if (note.is_object() && Str(note, "note").rfind(prefix, 0) == 0) out["note"] = note["note"];
  // Knowledge-table answers without a failed lookup are what Dockerfile mode
  // always gave: the report says nothing new then.
  std::string from = Str(out, "resolved_from");
  if (from != "docker" && from != "registry" && from != "local" && !out.contains("note")) return std::nullopt;
  return out;
}

// The image's platform as its facts say it: "linux/arm64".
std::string PlatformOf(const json& facts) {
  auto image = facts.find("image");
  if (image == facts.end() || !image->is_object()) return "";
  std::string platform = Str(*image, "os") + "/" + Str(*image, "architecture");
  if (!Str(*image, "variant").empty()) platform += "/" + Str(*image, "variant");
  return platform;
}

// A Dockerfile built per pool platform: each verdict says the platform its
// pool was evaluated with, and `platforms[]` lists each build with its pools
// and its base image (as `base` does for one build). The image as a whole
// has no one platform then.
void ReportPlatforms(json& image, const json& facts, const std::vector<analysis::PoolFacts>& pool_facts) {
  json platforms = json::array();
  std::map<std::string, std::string> platform_of_pool;
  std::vector<std::string> own_pools;
  for (const auto& one : pool_facts)
    for (const std::string& pool : one.pools) platform_of_pool[pool] = PlatformOf(one.facts);
  for (const json& verdict : image["verdicts"])
    if (!platform_of_pool.count(Str(verdict, "pool"))) own_pools.push_back(Str(verdict, "pool"));
  auto add = [&](const json& of, const std::vector<std::string>& pools) {
    if (pools.empty()) return;
    json entry = {{"platform", PlatformOf(of)}, {"pools", pools}};
    if (auto image_facts = of.find("image"); image_facts != of.end() && image_facts->is_object())
      if (!Str(*image_facts, "platform_source").empty()) entry["platform_source"] = (*image_facts)["platform_source"];
    if (auto base = BaseOfReport(of)) entry["base"] = std::move(*base);
    platforms.push_back(std::move(entry));
  };
  add(facts, own_pools);
  for (const auto& one : pool_facts) add(one.facts, one.pools);
  for (json& verdict : image["verdicts"]) {
    auto found = platform_of_pool.find(Str(verdict, "pool"));
    verdict["platform"] = found != platform_of_pool.end() ? found->second : PlatformOf(facts);
  }
  image["platforms"] = std::move(platforms);
  image.erase("platform");
}

// Every input's facts, in input order; with keep_going several at a time
// (bounded), each image's layers still shared through the layer cache.
std::vector<std::optional<Result<InputFacts>>> ReadInputs(const ScanRequest& request, const Knowledge& knowledge,
                                                          const Fleet& fleet, const Context& context,
                                                          dockerfile::BaseResolver* resolver) {
  std::vector<std::optional<Result<InputFacts>>> read(request.inputs.size());
  size_t jobs = request.keep_going ? static_cast<size_t>(request.image_jobs > 0 ? request.image_jobs : 4) : 1;
  jobs = std::min(jobs, request.inputs.size());
  if (jobs <= 1) {
    for (size_t i = 0; i < request.inputs.size(); ++i) {
      read[i] = FactsFor(request.inputs[i], request, knowledge, fleet, context, resolver);
      if (!read[i]->ok() && !request.keep_going) break;
    }
    read.erase(std::find_if(read.begin(), read.end(), [](const auto& one) { return !one; }), read.end());
    return read;
  }
  Context quiet = context;
  quiet.progress = nullptr;  // one progress line cannot show several images
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < request.inputs.size(); i = next++) {
      try {
        read[i] = FactsFor(request.inputs[i], request, knowledge, fleet, quiet, resolver);
      } catch (const std::exception& e) {  // e.g. out of memory: this image's error, not the run's end
        read[i] = Result<InputFacts>(MakeError(request.inputs[i], std::string("cannot read: ") + e.what()));
      }
    }
  };
  std::vector<std::thread> threads;
  for (size_t t = 0; t < jobs; ++t) threads.emplace_back(work);
  for (auto& thread : threads) thread.join();
  return read;
}

// An image that could not be read is an entry of its own, in input order:
// status "error", the reason, no verdicts; the summary counts them.
void AddUnreadableImages(json& report, const std::vector<std::pair<size_t, Error>>& unreadable,
                         const std::vector<std::string>& inputs) {
  json& images = report["images"];
  for (const auto& [index, error] : unreadable) {
    json entry = {{"ref", inputs[index]}, {"digest", ""},          {"status", "error"},
                  {"error", error.ToString()}, {"findings", json::array()}, {"verdicts", json::array()}};
    images.insert(images.begin() + static_cast<std::ptrdiff_t>(std::min<size_t>(index, images.size())), entry);
  }
  json& summary = report["summary"];
  summary["images"] = images.size();
  summary["unreadable"] = unreadable.size();
}

}  // namespace

Result<ScanRequest> ScanRequestFromConfig(const config::Config& config) {
  ScanRequest request;
  std::string where = config.file.empty() ? "" : " (" + config.file + ")";
  request.fleet_file = config.fleet.value_or("");
  request.rule_files = config.rule_files;
  request.overrides = config.overrides;
  request.ignores = config.ignores;
  request.inline_ignores = config.inline_ignores.value_or(true);
  if (config.fail_on) {
    auto threshold = analysis::ParseThreshold(*config.fail_on);
    if (!threshold.ok()) return MakeError("--fail-on" + where, threshold.error().message);
    request.fail_on = *threshold;
  }
  request.fail_on_undecided = config.fail_on_undecided.value_or(false);
  if (config.min_severity) {
    auto severity = rules::ParseSeverity(*config.min_severity);
    if (!severity)
      return MakeError("--min-severity" + where, "'" + *config.min_severity + "' is not one of error, warning, note");
    request.min_severity = *severity;
  }
  request.read.platform = config.platform.value_or("");
  request.dockerfile = config.dockerfile.value_or("");
  return request;
}

Result<ScanResult> Scan(const ScanRequest& request, const Context& context) {
  // A missing local input (`imagelint app.tar` with a typo) is "no such file"
  // before the knowledge and rules are loaded (most of a scan's start-up),
  // and never a registry lookup (IsRegistryInput).
  for (const std::string& input : request.inputs) {
    std::error_code ec;
    if (request.dockerfile_texts.count(input) || input.starts_with(kRootfsPrefix) || pipeline::IsRegistryInput(input))
      continue;
    if (!std::filesystem::exists(input, ec)) return MakeError(input, "no such file or directory");
  }
  if (request.fail_on_new && request.baseline_file.empty())
    return MakeError("--fail-on-new", "goes with --baseline REPORT.json");
  std::optional<json> baseline;
  if (!request.baseline_file.empty()) {  // read first: a wrong file is exit 2 before any image is read
    auto text = ReadTextFile(request.baseline_file, kMaxFactsDocumentBytes, "--baseline report");
    if (!text.ok()) return text.error();
    auto parsed = ParseJson(*text, request.baseline_file);
    if (!parsed.ok()) return parsed.error();
    IMAGELINT_TRY(analysis::CheckBaseline(*parsed, request.baseline_file));
    baseline = std::move(*parsed);
  }
  auto knowledge = Knowledge::Load(context.knowledge_dir, request.read.use_cache ? context.cache_dir : "");
  if (!knowledge.ok()) return knowledge.error();
  ScanResult result;
  if (!request.fleet_file.empty()) {
    // A fleet YAML, or `kubectl get nodes -o json`, `nvidia-smi -q -x`, `nvidia-container-cli info --csv`.
    auto loaded = fleet_import::LoadFleetAnyFormat(request.fleet_file, *knowledge);
    if (!loaded.ok()) return loaded.error();
    result.fleet = std::move(*loaded);
  }
  auto rule_set =
      rules::LoadRuleSet(context.rules_dir, request.rule_files, request.read.use_cache ? context.cache_dir : "");
  if (!rule_set.ok()) return rule_set.error();
  IMAGELINT_TRY(rule_set->ApplyOverrides(request.overrides));
  const std::vector<rules::RuleInfo> known_rules = rule_set->List();
  IMAGELINT_TRY(config::CheckIgnoredRules(request.ignores, known_rules));
  rules::FunctionRegistry functions = analysis::DefaultFunctions(*knowledge);
  IMAGELINT_TRY(rule_set->CheckFunctions(functions));

  // One resolver for the scan: all Dockerfiles' FROMs share its time budget.
  auto resolver = pipeline::ImageBaseResolver::Create(request.read, context, *knowledge);
  if (!resolver.ok()) return resolver.error();
  std::vector<json> facts;
  std::vector<std::vector<analysis::PoolFacts>> pool_facts;
  std::vector<std::string> pool_platforms;  // per read input: InputFacts::platform
  std::vector<config::Suppression> inline_suppressions;
  std::vector<std::optional<Result<InputFacts>>> read =
      ReadInputs(request, *knowledge, result.fleet, context, resolver->get());
  // Failed base lookups: one line for the scan, however many bases.
  if (*resolver && context.warn)
    if (std::string summary = (*resolver)->Summary(); !summary.empty()) context.warn(summary);
  std::vector<std::pair<size_t, Error>> unreadable;  // input index, why
  for (size_t i = 0; i < read.size(); ++i) {
    Result<InputFacts>& one = *read[i];
    if (!one.ok()) {
      if (!request.keep_going) return one.error();
      unreadable.emplace_back(i, one.error());
      continue;
    }
    facts.push_back(std::move(one->facts));
    pool_facts.push_back(std::move(one->pool_facts));
    pool_platforms.push_back(std::move(one->platform));
    for (auto& suppression : one->inline_suppressions) inline_suppressions.push_back(std::move(suppression));
  }
  auto analysed = analysis::Analyze(facts, pool_facts, result.fleet, *rule_set, functions);
  if (!analysed.ok()) return analysed.error();
  json& report = *analysed;
  // Reporters (SARIF, GitHub) locate findings in the Dockerfile an image names.
  for (size_t i = 0; i < facts.size() && i < report["images"].size(); ++i) {
    auto image = facts[i].find("image");
    if (image != facts[i].end() && image->is_object() && image->contains("dockerfile"))
      report["images"][i]["dockerfile"] = (*image)["dockerfile"];
    if (auto base = BaseOfReport(facts[i])) report["images"][i]["base"] = std::move(*base);
    if (!pool_platforms[i].empty()) ReportPlatforms(report["images"][i], facts[i], pool_facts[i]);
  }

  std::vector<config::Suppression> suppressions = request.ignores;
  if (request.inline_ignores) {
    for (auto& suppression : inline_suppressions) {
      // A comment naming no rule is reported (ignores.invalid), not applied.
      if (!suppression.rule.empty() && !config::CheckIgnoredRules({suppression}, known_rules).ok()) {
        auto closest = config::ClosestRules(suppression.rule, known_rules);
        suppression.problem = "names no rule" + (closest.empty() ? std::string() : " (did you mean " + closest[0] + "?)");
      }
      suppressions.push_back(std::move(suppression));
    }
  }
  std::string today = context.today.empty() ? config::Today() : context.today;
  result.report = analysis::Finalize(
      config::ApplySuppressions(report, suppressions, today),
      {.min_severity = request.min_severity}, {request.fail_on, request.fail_on_undecided});
  // The bundle the verdicts rest on, its age and, past 90 days, a note.
  auto bundle = BundleOf(*knowledge);
  if (!bundle.ok()) return bundle.error();
  result.report["knowledge"] = KnowledgeBundleJson(*bundle, today);
  result.exit_code = analysis::GateFailed(result.report) ? 1 : 0;
  if (baseline) {
    analysis::ApplyBaseline(result.report, *baseline, request.baseline_file);
    if (request.fail_on_new)
      result.exit_code =
          analysis::NewFindingsFailGate(result.report, {request.fail_on, request.fail_on_undecided}) ? 1 : 0;
  }
  if (!unreadable.empty()) {
    AddUnreadableImages(result.report, unreadable, request.inputs);
    result.exit_code = 2;
  }
  return result;
}

}  // namespace imagelint
