// FROM an image read from where it really is (BaseResolver): the model starts
// from the facts the image reader made of it, rows stamped with the FROM line.
#pragma once

#include "dockerfile/context.h"

namespace imagelint::dockerfile {

// The platform's triplets (cuda-targets.yaml) for `image.architecture`.
void SetPlatformTriplets(const Context& ctx, ImageModel& image);

// Starts `image` (its FROM layer already pushed) from `read`: environment,
// labels, CUDA rows, frameworks, loader configuration and binaries as read,
// every list known complete for the base.
void SeedFromReadImage(const Context& ctx, const Instruction& from, const ResolvedBase& read, ImageModel& image);

}  // namespace imagelint::dockerfile
