// What every step of the facts builder shares: the parsed Dockerfile, the
// options, the loaded knowledge, the build's global ARG scope, and the small
// helpers that stamp a fact row with the instruction behind it. Passed down by
// reference; nothing here is global.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "dockerfile/model.h"
#include "imagelint/dockerfile.h"
#include "imagelint/image_knowledge.h"
#include "imagelint/knowledge.h"
#include "imagelint/result.h"

namespace imagelint::dockerfile {

struct Context {
  Context(const Dockerfile& file, const DockerfileOptions& options, const Knowledge& knowledge)
      : file(file), options(options), knowledge(knowledge), images(knowledge.base_images()),
        packages(knowledge.packages()) {}

  const Dockerfile& file;
  const DockerfileOptions& options;
  const Knowledge& knowledge;
  const BaseImageKnowledge& images;  // base-images.yaml
  const PackageKnowledge& packages;  // packages.yaml
  std::map<std::string, std::string> global_args;  // ARGs before the first FROM, plus the platform ARGs
  std::set<std::string> used_build_args;           // --build-arg names some ARG declared
  // The model of an earlier stage by name or index (COPY --from); null when
  // `name` is not a stage (an image reference) or the stage cannot be built.
  std::function<const ImageModel*(const std::string& name, size_t before_stage)> stage_model;
  // `COPY --from=<image ref>`: the model of that image as the options'
  // BaseResolver reads it or the knowledge tables know it (rows stamped with
  // `inst`; its *_known flags say how much is known); null when `ref` cannot
  // be computed.
  std::function<const ImageModel*(const std::string& ref, const Instruction& inst)> image_model;

  // What build_context.cpp has read of the build context in this analysis
  // (the limits of DockerfileOptions::context_limits apply to the sum), and
  // the .dockerignore patterns, read once.
  mutable size_t context_bytes = 0;
  mutable size_t context_files = 0;
  mutable std::optional<std::vector<std::string>> dockerignore;

  Error ErrorAt(const Instruction& inst, const std::string& message) const;
  // BuildKit's substitution of one word; `exact` (when given) says whether every part was known.
  Result<std::string> Expand(const Instruction& inst, std::string_view word,
                             const std::map<std::string, std::string>& vars, bool* exact = nullptr) const;

  // Provenance of a row made by `inst` in the model's current (last) layer.
  facts::Provenance Where(const Instruction& inst, const ImageModel& image, const std::string& origin) const;
  facts::Layer MakeLayer(const Instruction& inst, bool base_image) const;
  // `decide`: what would decide the fact (shown by IL019 on the instruction's line).
  // An unknown "frameworks" fact (an install not followed) marks the
  // frameworks installed before it replaceable (MayReplaceFrameworks).
  void Unknown(ImageModel& image, const Instruction& inst, const std::string& fact, const std::string& reason,
               const std::string& decide = "") const;
  void AddNote(ImageModel& image, const Instruction& inst, const std::string& text) const;
};

// Marks the frameworks installed before `line` as ones an install there that
// the reader could not follow may replace (facts `replaceable`).
void MayReplaceFrameworks(ImageModel& image, int line, const std::string& reason);

// The instruction text as written, bounded for facts (created_by).
std::string CreatedBy(const Instruction& inst);

}  // namespace imagelint::dockerfile
