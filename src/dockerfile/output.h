// Output: the model of the target stage written as imagelint.facts/v1.
#pragma once

#include <nlohmann/json.hpp>

#include "dockerfile/context.h"
#include "imagelint/facts.h"

namespace imagelint::dockerfile {

// The typed facts of `image`, the model of stage `target`.
facts::Facts DockerfileFacts(const Context& context, const ImageModel& image, size_t target);

// The same, written by facts::WriteFacts (docs/dockerfile.md,
// "What the facts contain"): the same schema as a built image's facts, plus
// provenance on every row and the dockerfile{} section.
nlohmann::json WriteFacts(const Context& context, const ImageModel& image, size_t target);

}  // namespace imagelint::dockerfile
