// Private to src/analysis: undecided findings in user terms (undecided.cpp).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "imagelint/report_model.h"

namespace imagelint::analysis::internal {

struct Undecided {
  // "the CUDA runtime (libcudart) of the base image `x:1` is unknown"
  std::string text;
  // One entry per missing fact.
  std::vector<MissingFact> missing;
  // Where the Dockerfile says why (detail and dockerfile_line), for evidence.
  std::vector<Evidence> evidence;
  // How to decide it ("set `brand:` for pool `p` in the fleet file").
  std::vector<std::string> hints;
};

// `missing`: the rule engine's trace (EvalTrace::missing); `pool`: the pool's
// name for pool-scoped rules ("" otherwise); `foreach_name`/`element`: the
// rule's foreach variable and the entry it was bound to, if any.
Undecided DescribeUndecided(const std::vector<std::string>& missing, const nlohmann::json& facts,
                            const std::string& pool, const std::string& foreach_name, const nlohmann::json* element);

}  // namespace imagelint::analysis::internal
