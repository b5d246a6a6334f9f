// imagelint::Evaluator: the reading half (inputs -> facts) and the judging
// half (rules x fleet -> suppressions -> finalised report) of a scan, kept
// apart so facts read once can be judged on several fleets (scan.cpp runs
// them once; `imagelint plan` several times).
#include "imagelint/evaluator.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <map>
#include <thread>

#include "common/file_text.h"
#include "common/json.h"
#include "common/keep_until_exit.h"
#include "common/text.h"
#include "imagelint/analysis.h"
#include "imagelint/dockerfile.h"
#include "imagelint/facts.h"
#include "imagelint/fleet_import.h"
#include "imagelint/knowledge.h"
#include "imagelint/knowledge_bundle.h"
#include "imagelint/read_image.h"
#include "imagelint/source.h"
#include "pipeline/base_resolver.h"
#include "pipeline/context_binaries.h"
#include "pipeline/read.h"

namespace imagelint {
namespace {

using nlohmann::json;

constexpr size_t kMaxFactsDocumentBytes = 256u << 20;
constexpr size_t kMaxDockerfileBytes = 16u << 20;

// A facts document written by `imagelint facts IMAGE` (handy for CI caches
// and tests): a .json file whose schema is imagelint.facts/v1.
Result<std::optional<json>> ReadFactsDocument(const std::string& path, const Knowledge& knowledge) {
  if (path.size() < 5 || path.compare(path.size() - 5, 5, ".json") != 0) return std::optional<json>();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return std::optional<json>();
  auto text = ReadBoundedFile(path, kMaxFactsDocumentBytes, "facts document");
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

// A built image with the Dockerfile it came from: each layer's history back to its line.
Status AnnotateWithDockerfile(json& facts, const ScanRequest& request) {
  auto text = ReadBoundedFile(request.dockerfile, kMaxDockerfileBytes, "--dockerfile");
  if (!text.ok()) return text.error();
  auto parsed = dockerfile::ParseDockerfile(*text, request.dockerfile);
  if (!parsed.ok()) return parsed.error();
  dockerfile::AnnotateImageFacts(facts, *parsed, request.target);
  return OkStatus();
}

// Dockerfile inputs: where the FROM image's facts came from, for the
// reports (docs/dockerfile.md "Base images"): resolved_from, digest and
// platform of the image read, or the note saying why it was not read;
// nothing when the knowledge tables answered without a lookup.
std::optional<analysis::BaseImage> BaseOfReport(const json& facts) {
  auto image = facts.find("image");
  if (image == facts.end() || !image->is_object() || StringField(*image, "kind") != "dockerfile") return std::nullopt;
  auto base = image->find("base");
  if (base == image->end() || !base->is_object()) return std::nullopt;
  analysis::BaseImage out;
  auto set = [&](std::optional<std::string>& field, const char* key) {
    if (std::string value = StringField(*base, key); !value.empty()) field = std::move(value);
  };
  set(out.ref, "ref");
  out.resolved_from = ParseBaseSource(StringField(*base, "resolved_from"));
  set(out.digest, "digest");
  if (auto platform = Platform::Parse(StringField(*base, "platform")); platform.ok()) out.platform = *platform;
  // The report's note is the one the Dockerfile's notes carry for the failed lookup.
  if (const std::string failure = StringField(*base, "lookup_failure"); !failure.empty())
    out.note = dockerfile::BaseLookupNote(StringField(*base, "ref"), failure);
  // Knowledge-table answers without a failed lookup are what Dockerfile mode
  // always gave: the report says nothing new then.
  if (!(out.resolved_from && ReadFromImage(*out.resolved_from)) && !out.note) return std::nullopt;
  return out;
}

// A Dockerfile built per pool platform: each verdict says the platform its
// pool was evaluated with, and `platforms[]` lists each build with its pools
// and its base image (as `base` does for one build). The image as a whole
// has no one platform then. `platform` is the build of `facts`.
void ReportPlatforms(analysis::ImageReport& image, const json& facts, const Platform& platform,
                     const std::vector<analysis::PoolFacts>& pool_facts, const Fleet& fleet) {
  std::vector<analysis::PlatformBuild> platforms;
  std::map<std::string, Platform> platform_of_pool;
  std::vector<std::string> own_pools;
  for (const auto& one : pool_facts)
    for (size_t pool : one.pools) platform_of_pool[fleet.pools[pool].name] = one.platform;
  for (const analysis::Verdict& verdict : image.verdicts)
    if (!platform_of_pool.count(verdict.pool)) own_pools.push_back(verdict.pool);
  auto add = [&](const json& of, const Platform& built_for, std::vector<std::string> pools) {
    if (pools.empty()) return;
    analysis::PlatformBuild entry;
    entry.platform = built_for;
    entry.pools = std::move(pools);
    if (auto image_facts = of.find("image"); image_facts != of.end() && image_facts->is_object())
      if (std::string source = StringField(*image_facts, "platform_source"); !source.empty())
        entry.platform_source = std::move(source);
    entry.base = BaseOfReport(of);
    platforms.push_back(std::move(entry));
  };
  add(facts, platform, own_pools);
  for (const auto& one : pool_facts) {
    std::vector<std::string> names;
    for (size_t pool : one.pools) names.push_back(fleet.pools[pool].name);
    add(one.facts, one.platform, std::move(names));
  }
  for (analysis::Verdict& verdict : image.verdicts) {
    auto found = platform_of_pool.find(verdict.pool);
    verdict.platform = found != platform_of_pool.end() ? found->second : platform;
  }
  image.platforms = std::move(platforms);
  image.platform = std::nullopt;
}

// The per-platform builds of an image as analysis wants them: each build
// with the pools of its platform.
std::vector<analysis::PoolFacts> PoolFactsOn(const ImageFacts& image, const PoolsByPlatform& by_platform) {
  std::vector<analysis::PoolFacts> out;
  for (const auto& build : image.other_platforms) {
    analysis::PoolFacts one;
    one.platform = build.platform;
    if (const PlatformPools* group = by_platform.Find(build.platform)) one.pools = group->pools;
    one.facts = build.facts;
    out.push_back(std::move(one));
  }
  return out;
}

}  // namespace

Status CheckLocalInputs(const ScanRequest& request) {
  for (const std::string& input : request.inputs) {
    std::error_code ec;
    if (request.dockerfile_texts.count(input) || input.starts_with(kRootfsPrefix) || pipeline::IsRegistryInput(input))
      continue;
    if (!std::filesystem::exists(input, ec)) return MakeError(input, "no such file or directory");
  }
  return OkStatus();
}

struct Evaluator::State {
  std::optional<Knowledge> knowledge;
  std::optional<rules::RuleSet> rule_set;
  rules::FunctionRegistry functions;
  std::vector<rules::RuleInfo> known_rules;
  std::unique_ptr<pipeline::ImageBaseResolver> resolver;
  std::string today;
};

Evaluator::Evaluator(const ScanRequest& request, const Context& context)
    : state_(std::make_unique<State>()), request_(request), context_(context) {}
Evaluator::~Evaluator() {
  // The tables are tens of thousands of small allocations (a tenth of a
  // single Dockerfile check to free); a process about to exit leaves them.
  if (!context_.free_at_end && state_) {
    if (state_->knowledge) KeepUntilExit(std::move(*state_->knowledge));
    if (state_->rule_set) KeepUntilExit(std::move(*state_->rule_set));
  }
}

Result<std::unique_ptr<Evaluator>> Evaluator::Create(const ScanRequest& request, const Context& context) {
  std::unique_ptr<Evaluator> evaluator(new Evaluator(request, context));
  State& state = *evaluator->state_;
  auto knowledge = Knowledge::Load(context.knowledge_dir, request.read.use_cache ? context.cache_dir : "");
  if (!knowledge.ok()) return knowledge.error();
  state.knowledge.emplace(std::move(*knowledge));
  auto rule_set =
      rules::LoadRuleSet(context.rules_dir, request.rule_files, request.read.use_cache ? context.cache_dir : "");
  if (!rule_set.ok()) return rule_set.error();
  state.rule_set.emplace(std::move(*rule_set));
  IMAGELINT_TRY(state.rule_set->ApplyOverrides(request.overrides));
  state.known_rules = state.rule_set->List();
  IMAGELINT_TRY(config::CheckIgnoredRules(request.ignores, state.known_rules));
  state.functions = analysis::DefaultFunctions(*state.knowledge);
  IMAGELINT_TRY(state.rule_set->CheckFunctions(state.functions));
  // One resolver: all Dockerfiles' FROMs share its time budget.
  auto resolver = pipeline::ImageBaseResolver::Create(request.read, context, *state.knowledge);
  if (!resolver.ok()) return resolver.error();
  state.resolver = std::move(*resolver);
  state.today = context.today.empty() ? Today() : context.today;
  return evaluator;
}

const Knowledge& Evaluator::knowledge() const { return *state_->knowledge; }

Result<Fleet> Evaluator::LoadFleet(const std::string& file) const {
  return fleet_import::LoadFleetAnyFormat(file, *state_->knowledge,
                                          request_.read.use_cache ? context_.cache_dir : std::string());
}

std::string Evaluator::ResolverSummary() const { return state_->resolver ? state_->resolver->Summary() : ""; }

// `text` null: the Dockerfile file `name` (its folder is the default context); else the text: the Dockerfile file (its folder is the default context); else `text`.
static Result<ImageFacts> AnalyzeDockerfileInput(const std::string& name, const std::string* text,
                                                 const ScanRequest& request, const Knowledge& knowledge,
                                                 dockerfile::BaseResolver* resolver,
                                                 const std::vector<Platform>& platforms) {
  dockerfile::DockerfileOptions options;
  options.build_args = request.build_args;
  options.target = request.target;
  if (!request.build_platform.empty()) {
    auto build = Platform::Parse(request.build_platform);
    if (!build.ok()) return WithSubject(build.error(), "--build-platform");
    options.build_platform = build->ToString();
  }
  options.context_dir = request.context_dir;
  if (!request.read.platform.empty()) {
    auto platform = Platform::Parse(request.read.platform);
    if (!platform.ok()) return WithSubject(platform.error(), "--platform");
    options.platform = platform->ToString();
    options.platform_explicit = true;
  }
  options.knowledge = &knowledge;
  options.base_resolver = resolver;
  pipeline::ContextBinaries context_binaries(knowledge);
  options.context_binaries = &context_binaries;
  // Where the Dockerfile leaves its platform open, each pool gets the image
  // built for its own platform (one build per distinct platform).
  options.pool_platforms = platforms;
  auto analysis = text != nullptr ? dockerfile::AnalyzeDockerfileText(*text, name, options)
                                  : dockerfile::AnalyzeDockerfile(name, options);
  if (!analysis.ok()) return analysis.error();
  ImageFacts out{name, std::move(analysis->facts), config::FromInlinePragmas(analysis->suppressions)};
  out.platform = analysis->platform;
  for (auto& other : analysis->other_platforms)
    out.other_platforms.push_back({other.platform, std::move(other.facts)});
  return out;
}

Result<ImageFacts> Evaluator::ReadDockerfileText(const std::string& name, const std::string& text,
                                                 const std::vector<Platform>& platforms) const {
  return AnalyzeDockerfileInput(name, &text, request_, *state_->knowledge, state_->resolver.get(), platforms);
}

Result<ImageFacts> Evaluator::Read(const std::string& input, const std::vector<Platform>& platforms) const {
  return ReadIn(input, platforms, context_);
}

Result<ImageFacts> Evaluator::ReadIn(const std::string& input, const std::vector<Platform>& platforms,
                                     const Context& context) const {
  const Knowledge& knowledge = *state_->knowledge;
  auto document = ReadFactsDocument(input, knowledge);
  if (!document.ok()) return document.error();
  if (*document) return ImageFacts{input, std::move(**document), {}};
  if (auto text = request_.dockerfile_texts.find(input); text != request_.dockerfile_texts.end())
    return ReadDockerfileText(input, text->second, platforms);
  if (dockerfile::IsDockerfilePath(input))
    return AnalyzeDockerfileInput(input, nullptr, request_, knowledge, state_->resolver.get(), platforms);
  auto scanned = pipeline::ReadImageInput(input, request_.read, context, knowledge);
  if (!scanned.ok()) return scanned.error();
  ImageFacts out{input, BuildFacts(*scanned, knowledge), {}};
  if (!request_.dockerfile.empty()) IMAGELINT_TRY(AnnotateWithDockerfile(out.facts, request_));
  return out;
}

std::vector<Result<ImageFacts>> Evaluator::ReadAll(const std::vector<std::string>& inputs,
                                                   const std::vector<Platform>& platforms) const {
  size_t jobs = request_.keep_going ? static_cast<size_t>(request_.image_jobs > 0 ? request_.image_jobs : 4) : 1;
  jobs = std::min(jobs, inputs.size());
  std::vector<Result<ImageFacts>> read;
  if (jobs <= 1) {
    for (const std::string& input : inputs) {
      read.push_back(Read(input, platforms));
      if (!read.back().ok() && !request_.keep_going) break;
    }
    return read;
  }
  std::vector<std::optional<Result<ImageFacts>>> slots(inputs.size());
  std::atomic<size_t> next{0};
  Context quiet = context_;
  quiet.progress = nullptr;  // one progress line cannot show several images
  auto work = [&] {
    for (size_t i = next++; i < inputs.size(); i = next++) {
      try {
        slots[i] = ReadIn(inputs[i], platforms, quiet);
      } catch (const std::exception& e) {  // e.g. out of memory: this image's error, not the run's end
        slots[i] = Result<ImageFacts>(MakeError(inputs[i], std::string("cannot read: ") + e.what()));
      }
    }
  };
  std::vector<std::thread> threads;
  for (size_t t = 0; t < jobs; ++t) threads.emplace_back(work);
  for (auto& thread : threads) thread.join();
  for (auto& slot : slots) read.push_back(std::move(*slot));
  return read;
}

Result<analysis::Report> Evaluator::Evaluate(const std::vector<const ImageFacts*>& images, const Fleet& fleet) const {
  return Evaluate(images, fleet, GroupPoolsByPlatform(fleet));
}

Result<analysis::Report> Evaluator::Evaluate(const std::vector<const ImageFacts*>& images, const Fleet& fleet,
                                             const PoolsByPlatform& by_platform) const {
  std::vector<const json*> facts;
  std::vector<std::vector<analysis::PoolFacts>> pool_facts;
  for (const ImageFacts* image : images) {
    facts.push_back(&image->facts);
    pool_facts.push_back(PoolFactsOn(*image, by_platform));
  }
  auto analysed = analysis::AnalyzeImages(facts, pool_facts, fleet, *state_->rule_set, state_->functions);
  if (!analysed.ok()) return analysed.error();
  // Reporters (SARIF, GitHub) locate findings in the Dockerfile an image names.
  for (size_t i = 0; i < images.size() && i < analysed->size(); ++i) {
    analysis::ImageReport& image = (*analysed)[i];
    const json& own = images[i]->facts;
    if (auto meta = own.find("image"); meta != own.end() && meta->is_object() && meta->contains("dockerfile"))
      image.dockerfile = StringField(*meta, "dockerfile");
    image.base = BaseOfReport(own);
    if (images[i]->platform) ReportPlatforms(image, own, *images[i]->platform, pool_facts[i], fleet);
  }
  analysis::Report report = analysis::ReportDocument(std::move(*analysed), fleet, *state_->rule_set);
  std::vector<config::Suppression> suppressions = request_.ignores;
  if (request_.inline_ignores) {
    for (const ImageFacts* image : images) {
      for (config::Suppression suppression : image->inline_suppressions) {
        // A comment naming no rule is reported (ignores.invalid), not applied.
        if (!suppression.rule.empty() && !config::CheckIgnoredRules({suppression}, state_->known_rules).ok()) {
          auto closest = config::ClosestRules(suppression.rule, state_->known_rules);
          suppression.problem =
              "names no rule" + (closest.empty() ? std::string() : " (did you mean " + closest[0] + "?)");
        }
        suppressions.push_back(std::move(suppression));
      }
    }
  }
  config::ApplySuppressions(report, suppressions, state_->today);
  analysis::Report finalised = analysis::Finalize(std::move(report), {.min_severity = request_.min_severity},
                                                  {request_.fail_on, request_.fail_on_undecided});
  // The bundle the verdicts rest on, its age and, past 90 days, a note.
  auto bundle = BundleOf(*state_->knowledge);
  if (!bundle.ok()) return bundle.error();
  finalised.knowledge = KnowledgeStampOf(*bundle, state_->today);
  return finalised;
}

}  // namespace imagelint
