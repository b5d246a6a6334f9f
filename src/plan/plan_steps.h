// The steps of `imagelint plan` (private to src/plan/): reading verdicts out
// of a finalised report, comparing them, the candidate drivers, and the
// candidate fixes. plan.cpp strings them together.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "imagelint/evaluator.h"
#include "imagelint/plan.h"
#include "imagelint/report_model.h"

namespace imagelint::plan {

// The verdict of `pool` in one report image; status "" when the image has no
// verdict for it.
Outcome OutcomeOf(const analysis::ImageReport& image, const std::string& pool);
bool Fails(const Outcome& outcome);
bool Runs(const Outcome& outcome);  // pass or warn: predicted to run

// What changed for each pool of either fleet, in the after fleet's pool
// order, then the removed pools.
std::vector<VerdictChange> CompareVerdicts(const analysis::ImageReport& before_image, const Fleet& before,
                                           const analysis::ImageReport& after_image, const Fleet& after);

// Driver versions to try, oldest first: every point release the knowledge
// tables name (toolkit and runfile drivers, minor-version floors, compat
// libraries), one or more per branch.
struct DriverCandidate {
  std::string version;
  int branch = 0;
};
std::vector<DriverCandidate> DriverCandidates(const Knowledge& knowledge);
// The oldest branch that drives a GPU of `pool`'s architecture: the
// toolkit driver of the first CUDA toolkit that compiles for it
// (architectures.first_toolkit, toolkits.toolkit_driver); 0 = unknown.
int FirstBranchFor(const Pool& pool, const Knowledge& knowledge);
int BranchOf(const std::string& driver);

// Evaluates one image on pools: a finalised report image for `fleet`.
using EvaluateImage = std::function<Result<analysis::ImageReport>(const ImageFacts& image, const Fleet& fleet)>;

// The oldest candidate driver on which `image` runs, for each pool of `fleet`.
Result<std::vector<MinimumDriver>> FindMinimumDrivers(const ImageFacts& image, const Fleet& fleet,
                                                      const Knowledge& knowledge, const EvaluateImage& evaluate);

// Fleet changes that make `image` run on each of `failing` pools: the
// newest container toolkit, else the oldest driver upgrade that runs it,
// else both; each proven by evaluation.
Result<std::vector<Fix>> FindFleetFixes(const ImageFacts& image, const Fleet& fleet,
                                        const std::vector<std::string>& failing, const Knowledge& knowledge,
                                        const EvaluateImage& evaluate);

// A Dockerfile with one change applied.
struct DockerfilePatch {
  std::string family;  // one fix per family is offered: compat, base, torch, arch-list, require
  std::string description;
  std::string text;
  std::vector<std::string> assumes;
  int size = 0;  // smaller = offered first
};
// Candidate single changes of a Dockerfile for pools that fail (their
// compute capabilities): drop a compat package, another nvidia/cuda base
// release of the same flavour, another torch CUDA variant, an added entry in
// TORCH_CUDA_ARCH_LIST / CMAKE_CUDA_ARCHITECTURES, NVIDIA_DISABLE_REQUIRE.
std::vector<DockerfilePatch> DockerfilePatches(const std::string& text, const std::vector<std::string>& capabilities,
                                               const Knowledge& knowledge);
// A unified diff of two versions of one file, one hunk per changed run of lines.
std::string UnifiedDiff(const std::string& name, const std::string& before, const std::string& after);

}  // namespace imagelint::plan
