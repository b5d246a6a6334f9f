// conda, mamba and micromamba: frameworks and the CUDA a command pins.
#pragma once

#include "dockerfile/context.h"
#include "dockerfile/shell.h"

namespace imagelint::dockerfile {

Status ApplyConda(const Context& context, const Instruction& inst, ImageModel& image, const ShellCommand& command);

// A conda match spec `name[=version[=build]]`, `channel::name==version`,
// `name>=x` (a range pins nothing): the name (lower case) and the pinned version.
struct CondaSpec {
  std::string name;
  std::string version;
};
CondaSpec ParseCondaSpec(std::string_view word);

}  // namespace imagelint::dockerfile
