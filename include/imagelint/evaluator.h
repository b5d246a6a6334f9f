// Facts read once, judged on several fleets: what imagelint::Scan does, cut
// at the seam between reading inputs and running the rules, so that
// `imagelint plan` (imagelint/plan.h) can evaluate the same images on the
// fleet before and after a change, or on a pool with other drivers, without
// reading them again.
//
//   auto evaluator = Evaluator::Create(request, context);        // knowledge, rules, functions, resolver
//   auto image = (*evaluator)->Read("app.tar", {Platform{}});    // facts of one input
//   auto report = (*evaluator)->Evaluate({&*image}, fleet);       // finalised imagelint.report/v1
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "imagelint/config.h"
#include "imagelint/fleet.h"
#include "imagelint/pipeline.h"
#include "imagelint/result.h"

namespace imagelint {

class Knowledge;

// The facts of one input and the Dockerfile pragmas it carries.
struct ImageFacts {
  std::string input;  // as given (path, reference, Dockerfile name)
  nlohmann::json facts;
  std::vector<config::Suppression> inline_suppressions;
  // A Dockerfile built per pool platform (docs/dockerfile.md "Platform"):
  // the platform `facts` were built for, and one build per other platform a
  // pool may have. nullopt and empty otherwise.
  std::optional<Platform> platform;
  struct PlatformBuild {
    Platform platform;
    nlohmann::json facts;
  };
  std::vector<PlatformBuild> other_platforms;
};

// Holds references to the request and context it was created with: they
// must outlive it.
class Evaluator {
 public:
  // Loads the knowledge, the rule set (with the request's rule files and
  // overrides; its ignores are checked against it) and the base-image
  // resolver of Dockerfile inputs, all shared by every Read and Evaluate.
  static Result<std::unique_ptr<Evaluator>> Create(const ScanRequest& request, const Context& context);
  ~Evaluator();

  const Knowledge& knowledge() const;
  // A fleet YAML, kubectl nodes JSON, nvidia-smi XML or nvidia-container-cli CSV.
  Result<Fleet> LoadFleet(const std::string& file) const;

  // One input as a scan reads it: a facts .json, a Dockerfile (by name in
  // request.dockerfile_texts, or by content), else an image. `platforms`:
  // the platforms of the pools a Dockerfile that leaves its own open is
  // built for (one build each).
  Result<ImageFacts> Read(const std::string& input, const std::vector<Platform>& platforms) const;
  // A Dockerfile given as text (a patched one, for instance), named `name`.
  Result<ImageFacts> ReadDockerfileText(const std::string& name, const std::string& text,
                                        const std::vector<Platform>& platforms) const;
  // Every one of `inputs`, in order; with keep_going several at a time
  // and an input that cannot be read its own error (else reading stops at
  // the first error, whose entry is the last).
  std::vector<Result<ImageFacts>> ReadAll(const std::vector<std::string>& inputs,
                                          const std::vector<Platform>& platforms) const;
  // The failed base-image lookups so far, one line ("" when none).
  std::string ResolverSummary() const;

  // Rules over images x fleet, the request's suppressions (and the images'
  // inline ones), --min-severity and the gate: a finalised report.
  // `by_platform` is GroupPoolsByPlatform(fleet), when the caller has it.
  Result<analysis::Report> Evaluate(const std::vector<const ImageFacts*>& images, const Fleet& fleet) const;
  Result<analysis::Report> Evaluate(const std::vector<const ImageFacts*>& images, const Fleet& fleet,
                                    const PoolsByPlatform& by_platform) const;

 private:
  Evaluator(const ScanRequest& request, const Context& context);
  Result<ImageFacts> ReadIn(const std::string& input, const std::vector<Platform>& platforms,
                            const Context& context) const;
  struct State;
  std::unique_ptr<State> state_;
  const ScanRequest& request_;
  const Context& context_;
};

// A local input that does not exist (`imagelint app.tar` with a typo) is "no
// such file" before anything is loaded, and never a registry lookup.
Status CheckLocalInputs(const ScanRequest& request);

}  // namespace imagelint
