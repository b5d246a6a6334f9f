// Private to src/analysis: pools whose fleet entry names no runtime.
//
// Whether a container starts, and which libcuda it loads, depends on the
// launch path: docker --gpus checks NVIDIA_REQUIRE_* and mounts compat
// libraries one way, the nvidia runtime in jit-cdi mode and engine-side CDI
// check nothing and use a hook. A fleet that names no `runtime:` for a pool
// does not say which, so such a pool is judged on the assumed path
// (docker-gpus) and on each other path its toolkit offers
// (Pool::runtime_alternatives). A finding that holds on every path stands as
// it is; one that holds on some paths only says on which; and where some
// paths fail and others do not, the failing findings become undecided, with
// `runtime:` as what decides them.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "imagelint/fleet.h"
#include "imagelint/report_model.h"
#include "imagelint/rules.h"

namespace imagelint::analysis::internal {

struct RuntimePaths {
  // The fleet's pools, in order, then one pool per (pool, alternative
  // runtime): a copy of the pool with that runtime.
  Fleet fleet;
  // What findings carry for each of `fleet`'s pools while an image is
  // analysed: a pool's name, or for an alternative its name, the separator
  // and the runtime. Fold turns them back into pool names.
  std::vector<std::string> labels;
  // Per pool of the original fleet: the indexes (into `fleet`) of its
  // alternatives; empty for a pool that names its runtime.
  std::vector<std::vector<size_t>> alternatives;
  size_t original_count = 0;
  bool Any() const { return fleet.pools.size() > original_count; }
  bool IsAlternative(size_t pool) const { return pool >= original_count; }
};

RuntimePaths ExpandRuntimePaths(const Fleet& fleet);

// Whether `rule` can find something else on another launch path: it calls a
// knowledge function that reads the pool's launch path (start_check,
// launch_path, libcuda, driver_compat) or reads the pool's runtime, toolkit,
// compat mode or disable_require itself. A rule that does neither finds the
// same on every path, so an alternative pool takes the pool's own findings
// instead of evaluating it again.
bool DependsOnLaunchPath(const rules::Rule& rule);

// Rewrites `findings` (merged over `paths.labels`) so that they name the
// original pools only, as the header comment says. `facts` are the image's,
// for the wording of undecided findings.
void FoldRuntimePaths(std::vector<Finding>& findings, const RuntimePaths& paths, const nlohmann::json& facts);

}  // namespace imagelint::analysis::internal
