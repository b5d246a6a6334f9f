// From Dockerfile text to facts: which stages to evaluate and in which scope.
//
// Only the target stage (--target, else the last) and the stages it builds on
// (`FROM <stage>`) make the image; each starts from its base image
// (base_image.cpp) or from the model of its parent stage, and applies its
// instructions in order. ARG scoping follows BuildKit
// (https://docs.docker.com/reference/dockerfile/#scope): ARGs before the first
// FROM are global and usable in FROM; inside a stage an ARG is visible only
// after its declaration, and redeclaring a global takes the global's value;
// --build-arg overrides declared ARGs only. ENV values are expanded against
// the variables as they were before the instruction.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <optional>

#include "common/file_text.h"
#include "common/text.h"
#include "dockerfile/base_image.h"
#include "dockerfile/build_context.h"
#include "dockerfile/context.h"
#include "dockerfile/output.h"
#include "dockerfile/run.h"
#include "dockerfile/stages.h"
#include "dockerfile/util.h"

namespace imagelint::dockerfile {
namespace {

bool IsArgName(const std::string& name) {
  return !name.empty() &&
         std::all_of(name.begin(), name.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

class StageWalker {
 public:
  explicit StageWalker(Context& context) : ctx_(context) {}

  // The global ARG scope (with the options' platform) and the target stage.
  Result<size_t> Prepare() {
    const Dockerfile& file = ctx_.file;
    ctx_.stage_model = [this](const std::string& name, size_t before) { return NamedStage(name, before); };
    ctx_.image_model = [this](const std::string& ref, const Instruction& inst) { return NamedImage(ref, inst); };
    ctx_.global_args = PlatformArgs(ctx_.options.platform, ctx_.options.build_platform);
    for (const Instruction& inst : file.instructions) {
      if (inst.stage != SIZE_MAX) break;
      IMAGELINT_TRY(DeclareArgs(inst, ctx_.global_args, {}, ctx_.global_args));
    }
    size_t target = file.stages.size() - 1;
    if (!ctx_.options.target.empty()) {
      std::string wanted = ToLower(ctx_.options.target);
      bool found = false;
      for (size_t s = 0; s < file.stages.size(); ++s)
        if (file.stages[s].name == wanted) {
          target = s;
          found = true;
        }
      if (!found) return MakeError(file.path, "target stage \"" + ctx_.options.target.substr(0, 200) + "\" not found");
    }
    return target;
  }

  Result<DockerfileAnalysis> Build(size_t target) {
    auto image = StageModel(target, 0);
    if (!image.ok()) return image.error();
    // A stage that COPY --from read and that failed to build (a limit, a bad
    // substitution) fails the build, as in BuildKit: never a silent pass.
    if (stage_error_) return *stage_error_;
    DockerfileAnalysis out;
    out.target_stage = target;
    out.facts = WriteFacts(ctx_, *image, target);
    out.suppressions = ctx_.file.suppressions;
    out.dockerfile = ctx_.file;
    return out;
  }

  // Whether the image's platform is the build's: the first stage of the
  // target's chain (the one FROM an image) has no FROM --platform, or one
  // that follows $TARGETPLATFORM. Walks the chain without building it (no
  // base image is looked up).
  Result<bool> PlatformOpen(size_t target) {
    const Dockerfile& file = ctx_.file;
    size_t index = target;
    for (size_t depth = 0; depth <= file.stages.size(); ++depth) {
      const Stage& stage = file.stages[index];
      auto base_ref = ctx_.Expand(file.instructions[stage.from_instruction], stage.base, ctx_.global_args);
      if (!base_ref.ok()) return base_ref.error();
      std::optional<size_t> parent = ParentStage(index, *base_ref);
      if (!parent) return FollowsTarget(stage);
      index = *parent;
    }
    return MakeError(file.path, "stage chain loops");
  }

 private:
  // FROM <earlier stage>: the last stage before `index` of that name.
  std::optional<size_t> ParentStage(size_t index, const std::string& base_ref) const {
    std::optional<size_t> parent;
    std::string wanted = ToLower(base_ref);
    for (size_t s = 0; s < index; ++s)
      if (!ctx_.file.stages[s].name.empty() && ctx_.file.stages[s].name == wanted) parent = s;
    return parent;
  }

  // A FROM whose image is of the build's target platform: no --platform, or
  // one naming $TARGETPLATFORM. $BUILDPLATFORM (the builder's,
  // DockerfileOptions::build_platform) and a constant do not follow it.
  static bool FollowsTarget(const Stage& stage) {
    if (stage.platform.find("BUILDPLATFORM") != std::string::npos) return false;
    return stage.platform.empty() || stage.platform.find("TARGETPLATFORM") != std::string::npos;
  }

  // COPY --from=<name>: a stage defined before `before` (by name or index).
  // COPY --from=<image ref>: the image as the resolver reads it, or as the
  // knowledge tables know it, once per reference.
  const ImageModel* NamedImage(const std::string& ref, const Instruction& inst) {
    // Read by the resolver, known from the knowledge tables, or neither: the
    // model says which (its *_known flags, its unknown[] and notes[]).
    if (ref.find('$') != std::string::npos || stage_error_) return nullptr;
    if (auto cached = images_.find(ref); cached != images_.end()) return &cached->second;
    ImageModel& image = images_[ref];
    if (!ApplyBaseImage(ctx_, inst, ref, ctx_.options.platform, image).ok()) {
      images_.erase(ref);
      return nullptr;
    }
    return &image;
  }

  const ImageModel* NamedStage(const std::string& name, size_t before) {
    const Dockerfile& file = ctx_.file;
    std::string wanted = ToLower(name);
    std::optional<size_t> found;
    for (size_t s = 0; s < before && s < file.stages.size(); ++s)
      if (!file.stages[s].name.empty() && file.stages[s].name == wanted) found = s;
    if (!found && !wanted.empty() && wanted.size() < 5 &&
        std::all_of(wanted.begin(), wanted.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
      size_t index = std::stoul(wanted);
      if (index < before) found = index;
    }
    if (!found || stage_error_) return nullptr;
    auto model = StageModel(*found, 1);
    if (!model.ok()) {
      stage_error_ = model.error();
      return nullptr;
    }
    return &cache_.at(*found);
  }

  // Declares the ARGs of `inst` into `scope`: a --build-arg wins over the
  // default; `inherited` (the global scope) gives redeclared names their value.
  Status DeclareArgs(const Instruction& inst, std::map<std::string, std::string>& scope,
                     const std::map<std::string, std::string>& inherited, std::map<std::string, std::string> vars) {
    for (const std::string& word : SplitKeepingQuotes(inst.arguments, ctx_.file.escape)) {
      size_t eq = word.find('=');
      std::string name = word.substr(0, eq);
      if (!IsArgName(name)) return ctx_.ErrorAt(inst, "invalid ARG name \"" + name.substr(0, 64) + "\"");
      if (auto build = ctx_.options.build_args.find(name); build != ctx_.options.build_args.end()) {
        scope[name] = build->second;
      } else if (eq != std::string::npos) {
        auto value = ctx_.Expand(inst, word.substr(eq + 1), vars);
        if (!value.ok()) return value.error();
        scope[name] = *value;
      } else if (auto it = inherited.find(name); it != inherited.end()) {
        scope[name] = it->second;
      } else {
        scope.erase(name);
      }
      if (scope.count(name)) vars[name] = scope[name];
      ctx_.used_build_args.insert(name);
    }
    return OkStatus();
  }

  // The image of stage `index`: from its base image or its parent stage, with
  // its instructions applied. Cached: several stages may build on one.
  Result<ImageModel> StageModel(size_t index, int depth) {
    const Dockerfile& file = ctx_.file;
    if (depth > static_cast<int>(file.stages.size())) return MakeError(file.path, "stage chain loops");
    if (auto cached = cache_.find(index); cached != cache_.end()) return cached->second;
    const Stage& stage = file.stages[index];
    const Instruction& from = file.instructions[stage.from_instruction];
    auto base_ref = ctx_.Expand(from, stage.base, ctx_.global_args);
    if (!base_ref.ok()) return base_ref.error();
    std::string platform = ctx_.options.platform;
    if (!stage.platform.empty()) {
      auto expanded = ctx_.Expand(from, stage.platform, ctx_.global_args);
      if (!expanded.ok()) return expanded.error();
      platform = *expanded;
    }
    ImageModel image;
    std::optional<size_t> parent = ParentStage(index, *base_ref);  // continue from that stage's image
    if (parent) {
      auto parent_image = StageModel(*parent, depth + 1);
      if (!parent_image.ok()) return parent_image.error();
      image = std::move(*parent_image);
      image.args.clear();
      image.layers.push_back(ctx_.MakeLayer(from, false));
    } else {
      IMAGELINT_TRY(ApplyBaseImage(ctx_, from, *base_ref, platform, image));
      image.platform = platform;
      if (ctx_.options.platform_explicit) {
        image.platform_source = "--platform";
      } else if (ctx_.options.platform_from_pool && FollowsTarget(stage)) {
        image.platform_source = "pool";
      }
      // FROM --platform=linux/amd64 fixes it; $BUILDPLATFORM and $TARGETPLATFORM follow the build's.
      if (!stage.platform.empty() && stage.platform.find("BUILDPLATFORM") == std::string::npos &&
          stage.platform.find("TARGETPLATFORM") == std::string::npos)
        image.platform_source = "FROM --platform";
    }
    for (size_t i = stage.from_instruction + 1; i < stage.end_instruction; ++i)
      IMAGELINT_TRY(Apply(file.instructions[i], image));
    cache_[index] = image;
    return image;
  }

  Status Apply(const Instruction& inst, ImageModel& image) {
    const std::string& k = inst.keyword;
    image.layers.push_back(ctx_.MakeLayer(inst, false));
    if (k == "ARG") {
      IMAGELINT_TRY(DeclareArgs(inst, image.args, ctx_.global_args, image.Vars()));
      return CheckVariableBytes(inst, image);
    }
    if (k == "ENV" || k == "LABEL") {
      IMAGELINT_TRY(ApplyPairs(inst, image, k == "LABEL"));
      return CheckVariableBytes(inst, image);
    }
    if (k == "RUN") return ApplyRun(ctx_, inst, image);
    if (k == "CMD" || k == "ENTRYPOINT") return ApplyStartCommand(ctx_, inst, image);
    if (k == "COPY" || k == "ADD") return ApplyCopy(ctx_, inst, image);
    if (k == "WORKDIR") {
      bool exact = true;
      auto dir = ctx_.Expand(inst, Trim(inst.arguments), image.Vars(), &exact);
      if (!dir.ok()) return dir.error();
      // Relative to the previous WORKDIR, as BuildKit resolves it.
      if (exact && !dir->empty()) image.workdir = NormalPath(StartsWith(*dir, "/") ? *dir : image.workdir + "/" + *dir);
      return OkStatus();
    }
    if (k == "USER") {
      bool exact = true;
      auto user = ctx_.Expand(inst, Trim(inst.arguments), image.Vars(), &exact);
      if (!user.ok()) return user.error();
      image.user = exact ? user->substr(0, user->find(':')) : "?";  // "?": not known
      return OkStatus();
    }
    if (k == "SHELL" && !inst.json_arguments.empty()) {
      // A POSIX shell anywhere in the SHELL line runs the commands: directly
      // (["/bin/bash", "-o", "pipefail", "-c"]) or inside a wrapper that
      // ends in one (["conda", "run", "-n", "env", "/bin/bash", "-c"]).
      std::string shell = BaseName(inst.json_arguments[0]);
      bool posix = false;  // posix_shells (commands.yaml)
      for (const std::string& word : inst.json_arguments) posix = posix || ctx_.knowledge.commands().IsPosixShell(BaseName(word));
      image.non_posix_shell = !posix;
      if (!posix)
        ctx_.AddNote(image, inst, "SHELL " + shell.substr(0, 200) + ": later RUN commands are not read as POSIX shell");
    }
    return OkStatus();
  }

  // Every instruction copies the variables in scope (Vars()): their bytes are bounded.
  Status CheckVariableBytes(const Instruction& inst, const ImageModel& image) const {
    size_t bytes = 0;
    for (const auto* map : {&image.args, &image.env, &image.labels})
      for (const auto& [name, value] : *map) bytes += name.size() + value.size();
    if (bytes <= ctx_.options.limits.max_variable_bytes) return OkStatus();
    return ctx_.ErrorAt(inst, "ARG, ENV and LABEL values of this stage pass " +
                                  std::to_string(ctx_.options.limits.max_variable_bytes) +
                                  " bytes (imagelint's limit, max_variable_bytes)");
  }

  // ENV/LABEL: `K=V K2="v 2"` or the legacy `ENV K value with spaces`.
  Status ApplyPairs(const Instruction& inst, ImageModel& image, bool label) {
    std::vector<std::string> words = SplitKeepingQuotes(inst.arguments, ctx_.file.escape);
    std::vector<std::pair<std::string, std::string>> pairs;
    auto vars = image.Vars();
    if (!words.empty() && words[0].find('=') == std::string::npos) {
      // The legacy form `LABEL key = "value"` / `ENV key value`: BuildKit splits the
      // line once on blanks, so the label's value is `= value` (parseNameVal in
      // moby/buildkit frontend/dockerfile/parser/line_parsers.go; only a lint warning).
      std::string rest = inst.arguments.substr(inst.arguments.find(words[0]) + words[0].size());
      size_t start = rest.find_first_not_of(" \t");
      if (start == std::string::npos) return ctx_.ErrorAt(inst, std::string(label ? "LABEL " : "ENV ") + words[0].substr(0, 64) + " has no value");
      auto value = ctx_.Expand(inst, rest.substr(start), vars);
      if (!value.ok()) return value.error();
      pairs.emplace_back(words[0], *value);
    } else {
      for (const std::string& word : words) {
        size_t eq = word.find('=');
        if (eq == std::string::npos || eq == 0)
          return ctx_.ErrorAt(inst, std::string(label ? "LABEL" : "ENV") + " expects KEY=VALUE, got \"" + word.substr(0, 64) + "\"");
        auto key = ctx_.Expand(inst, word.substr(0, eq), vars);
        if (!key.ok()) return key.error();
        auto value = ctx_.Expand(inst, word.substr(eq + 1), vars);  // against the variables before this ENV
        if (!value.ok()) return value.error();
        pairs.emplace_back(*key, *value);
      }
    }
    for (auto& [key, value] : pairs) {
      if (label) {
        image.labels[key] = value;
        continue;
      }
      // `$VAR` of a variable the base image may set, but whose value is unknown.
      if (!image.env_known && !image.env.count(key) && inst.arguments.find("$" + key) != std::string::npos)
        ctx_.Unknown(image, inst, "image.env." + key, "extends the base image's " + key + ", which is unknown");
      image.SetEnv(key, value, inst.line, "ENV");
    }
    return OkStatus();
  }

  Context& ctx_;
  std::optional<Error> stage_error_;  // the first stage COPY --from could not build
  std::map<size_t, ImageModel> cache_;
  std::map<std::string, ImageModel> images_;  // COPY --from=<image ref>
};

}  // namespace

std::map<std::string, std::string> PlatformArgs(const std::string& platform, const std::string& build_platform) {
  // BuildKit's automatic platform ARGs: TARGET* of the platform built for,
  // BUILD* of the machine the build runs on (DockerfileOptions::build_platform),
  // each part as containerd reads it (one that does not parse: linux/amd64).
  auto target = Platform::Parse(platform);
  auto build = Platform::Parse(build_platform);
  const Platform t = target.ok() ? *target : Platform{};
  const Platform b = build.ok() ? *build : Platform{};
  return {{"TARGETPLATFORM", platform},
          {"TARGETOS", t.os},
          {"TARGETARCH", t.architecture},
          {"TARGETVARIANT", t.variant},
          {"BUILDPLATFORM", build_platform},
          {"BUILDOS", b.os},
          {"BUILDARCH", b.architecture},
          {"BUILDVARIANT", b.variant}};
}

Result<DockerfileAnalysis> AnalyzeDockerfileText(std::string_view text, const std::string& path,
                                                 const DockerfileOptions& options) {
  auto parsed = ParseDockerfile(text, path, options.limits);
  if (!parsed.ok()) return parsed.error();
  if (options.knowledge == nullptr)
    return MakeError(path, "no knowledge tables to read the Dockerfile with (DockerfileOptions::knowledge is required)");
  Context context(*parsed, options, *options.knowledge);
  StageWalker walker(context);
  auto target = walker.Prepare();
  if (!target.ok()) return target.error();
  // The pools' platforms, each once, in fleet order; one build when they are
  // only the options' platform or the Dockerfile fixes it.
  std::vector<Platform> platforms;
  for (const Platform& platform : options.pool_platforms)
    if (std::find(platforms.begin(), platforms.end(), platform) == platforms.end()) platforms.push_back(platform);
  const auto own = Platform::Parse(options.platform);
  bool by_pool = !options.platform_explicit && !platforms.empty() &&
                 (platforms.size() > 1 || !own.ok() || platforms[0] != *own);
  if (by_pool) {
    auto open = walker.PlatformOpen(*target);
    if (!open.ok()) return open.error();
    by_pool = *open;
  }
  if (!by_pool) return walker.Build(*target);
  // docker build on (or for) each pool's hosts: that platform's base image,
  // TARGETPLATFORM and knowledge-table answers (docs/dockerfile.md "Platform").
  DockerfileAnalysis out;
  for (const Platform& platform : platforms) {
    DockerfileOptions one = options;
    one.platform = platform.ToString();
    one.platform_from_pool = true;
    one.pool_platforms.clear();
    Context platform_context(*parsed, one, *options.knowledge);
    StageWalker platform_walker(platform_context);
    auto platform_target = platform_walker.Prepare();
    if (!platform_target.ok()) return platform_target.error();
    auto built = platform_walker.Build(*platform_target);
    if (!built.ok()) return built.error();
    if (!out.platform) {
      out = std::move(*built);
      out.platform = platform;
    } else {
      out.other_platforms.push_back({platform, std::move(built->facts)});
    }
  }
  return out;
}

Result<DockerfileAnalysis> AnalyzeDockerfile(const std::string& path, const DockerfileOptions& options) {
  auto read = ReadBoundedFile(path, options.limits.max_bytes, "Dockerfile");
  if (!read.ok()) return read.error();
  const std::string& text = *read;
  if (!options.context_dir.empty() || options.no_context) return AnalyzeDockerfileText(text, path, options);
  // docker build -f DIR/Dockerfile DIR: the Dockerfile's folder is the usual context.
  DockerfileOptions with_context = options;
  std::string folder = std::filesystem::path(path).parent_path().string();
  with_context.context_dir = folder.empty() ? "." : folder;
  return AnalyzeDockerfileText(text, path, with_context);
}

}  // namespace imagelint::dockerfile
