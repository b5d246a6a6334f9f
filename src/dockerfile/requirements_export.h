// Commands that write a pip requirements file for a later `pip install -r`
// (commands.yaml requirements_exporters): lock exporters (`poetry export`,
// `uv export`, `pdm export`) and resolvers (`pip-compile`, `uv pip compile`).
// What the file will list is read when the command runs, from the build
// context as the command sees it, and kept with the file's container path
// (ImageModel::generated_requirements), so a `pip install -r` of that path,
// in this stage or in one that copies it, installs what the lock locks.
#pragma once

#include "dockerfile/context.h"
#include "dockerfile/shell.h"

namespace imagelint::dockerfile {

// Returns false when `command` is no exporter.
bool ApplyRequirementsExport(const Context& ctx, const Instruction& inst, ImageModel& image, const ShellCommand& command);

}  // namespace imagelint::dockerfile
