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
  std::string channel;  // `channel::name`; "" when the spec names none
  std::string build;    // `name=version=build`; "" when the spec names none
};
CondaSpec ParseCondaSpec(std::string_view word);

}  // namespace imagelint::dockerfile
